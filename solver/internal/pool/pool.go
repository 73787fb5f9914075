// Package pool runs the data-parallel phases of the solver and of
// self-contact on persistent worker goroutines (Pool). Which goroutine
// runs a chunk never changes its arithmetic, so results do not depend on
// the number of workers. The pool reads the clock only to pace its
// spin-waits (Spinner), never for anything a result depends on. It
// imports nothing of drape.
package pool

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs data-parallel phases on persistent worker goroutines. The
// calling goroutine takes part in every phase. A phase is cut into chunks
// that the caller and the workers claim from one atomic ticket (phase
// generation in the high 32 bits, then the phase's chunk count and the
// chunks claimed from its front and from its back), so the caller
// never waits for a worker that has not started: on a busy machine, where
// a worker's thread may be descheduled for milliseconds, the caller simply
// runs the remaining chunks itself and waits only for chunks already
// claimed. The caller claims chunks from the front and the workers from
// the back: the colours of a constraint set are in mesh order, so on two
// threads each goroutine tends to run the same half of the cloth in every
// phase and finds its vertices in its own core's cache.
// Workers spin between phases (see spinIdle), then sleep on a
// condition variable until the next phase, and park on a channel between
// Steps.
//
// Phases must write disjoint memory per index, and which goroutine runs a
// chunk never changes its arithmetic, so results do not depend on the
// number of workers or on who ran what.
type Pool struct {
	n      int
	ticket atomic.Uint64 // gen<<32 | chunks<<2·chunkBits | back<<chunkBits | front
	done   atomic.Int64  // chunks finished in the current phase
	// phase description, written by the caller before it publishes the
	// phase's ticket and read by a worker only after it claimed a chunk
	fn    func(lo, hi int)
	count int
	size  int // items per chunk

	// the caller sleeps on finished after spinning SpinWait polls for
	// chunks that a (possibly descheduled) worker still runs; waiting is
	// 1 while it sleeps, and whoever moves it back to 0 owns the wake-up
	waiting  atomic.Int32
	finished chan struct{}

	// grain adapts to a machine busy with other work: a Step with more
	// than maxStalls stalls (the caller had to sleep for a descheduled
	// worker's chunk) makes the next coarseFrames Steps cut constraint
	// colours no finer than MinChunk, since every parallel phase risks a
	// stall of a scheduler time slice; otherwise they are cut down to
	// minChunkFine. Which goroutine runs what never changes the results.
	stalls int // in the current Step
	coarse int // Steps left at the coarse grain

	mu       sync.Mutex
	cond     *sync.Cond
	sleepers atomic.Int32
	park     atomic.Bool
	wake     []chan uint64
	awake    bool
	parked   sync.WaitGroup
}

// A phase's ticket holds its chunk count, and how many chunks were claimed
// from its front and from its back, in chunkBits each.
const (
	chunkBits = 10
	chunkMask = 1<<chunkBits - 1
)

// MinChunk is the smallest number of items worth handing to another worker.
const MinChunk = 1024

// minChunkFine is MinChunk for the constraint colours (RunGrain) on a
// machine that is not busy with other work: a colour of a 64 x 64 cloth
// (about 700 hinges, 30 us) is still worth splitting in two.
const minChunkFine = 256

// maxStalls and coarseFrames set the grain's adaptation (Pool.stalls).
const (
	maxStalls    = 4
	coarseFrames = 8
)

// spinIdle is how long a worker spins between phases before it sleeps:
// waking a sleeping worker takes tens of microseconds, as long as a small
// phase, and the serial stretches between phases (self-collision's
// projections) last a few hundred. The spin yields the core every few
// polls (yield), so a spinning worker costs little on a machine busy with
// other work.
const spinIdle = time.Millisecond

// SpinWait is how long the caller spins for the last chunks of a phase
// before it sleeps until they are done: longer than the last task of an
// uneven phase (the self-collision search) takes on a quiet machine, so
// that only a worker the system descheduled counts as a stall.
const SpinWait = 500 * time.Microsecond

// New returns a pool of n goroutines: the caller and n-1 workers.
func New(n int) *Pool {
	p := &Pool{n: n, finished: make(chan struct{}, 1)}
	p.cond = sync.NewCond(&p.mu)
	for w := 1; w < n; w++ {
		c := make(chan uint64)
		p.wake = append(p.wake, c)
		go p.worker(c)
	}
	return p
}

func (p *Pool) worker(wake chan uint64) {
	// last is the generation current when start woke the worker: every
	// later phase, including the park request, is newer
	for last := range wake {
		for {
			t := p.next(last)
			last = t >> 32
			if p.park.Load() {
				p.parked.Done()
				break
			}
			p.claim(last, true)
		}
	}
}

// next waits for a phase newer than generation last and returns its
// ticket: it spins for spinIdle, then sleeps until publish wakes it.
func (p *Pool) next(last uint64) uint64 {
	var s Spinner
	for {
		t := p.ticket.Load()
		if t>>32 != last {
			return t
		}
		if !s.Over(spinIdle) {
			continue
		}
		p.mu.Lock()
		p.sleepers.Add(1)
		for p.ticket.Load()>>32 == last {
			p.cond.Wait()
		}
		p.sleepers.Add(-1)
		p.mu.Unlock()
	}
}

// Spinner paces a spin-wait: it yields the core every 64 polls and tells
// when the wait has lasted long enough to sleep instead.
type Spinner struct {
	polls int
	until time.Time
}

// Over counts a poll and reports whether d has passed since the first
// 64 polls.
func (s *Spinner) Over(d time.Duration) bool {
	s.polls++
	if s.polls&63 != 0 {
		return false
	}
	yield()
	now := time.Now()
	if s.until.IsZero() {
		s.until = now.Add(d)
	}
	return !now.Before(s.until)
}

// claim runs chunks of phase gen until none is left: the caller takes
// them from the front, the workers (back) from the back.
func (p *Pool) claim(gen uint64, back bool) {
	for {
		t := p.ticket.Load()
		if t>>32 != gen {
			return
		}
		f, b, nc := int(t&chunkMask), int(t>>chunkBits&chunkMask), int(t>>(2*chunkBits)&chunkMask)
		if f+b >= nc {
			return
		}
		c, inc := f, uint64(1)
		if back {
			c, inc = nc-1-b, 1<<chunkBits
		}
		if !p.ticket.CompareAndSwap(t, t+inc) {
			continue
		}
		lo := c * p.size
		hi := min(lo+p.size, p.count)
		p.fn(lo, hi)
		if p.done.Add(1) == int64(nc) && p.waiting.CompareAndSwap(1, 0) {
			p.finished <- struct{}{}
		}
	}
}

// Start wakes the workers for a Step.
func (p *Pool) Start() {
	if p.n == 1 || p.awake {
		return
	}
	switch {
	case p.stalls > maxStalls:
		p.coarse = coarseFrames
	case p.coarse > 0:
		p.coarse--
	}
	p.stalls = 0
	gen := p.ticket.Load() >> 32
	for _, c := range p.wake {
		c <- gen
	}
	p.awake = true
}

// Stop parks the workers until the next start.
func (p *Pool) Stop() {
	if p.n == 1 || !p.awake {
		return
	}
	p.parked.Add(p.n - 1)
	p.park.Store(true)
	p.publish(0, nil, 0)
	p.parked.Wait()
	p.park.Store(false)
	p.awake = false
}

// publish starts a new phase of count items in chunks of size.
func (p *Pool) publish(count int, fn func(lo, hi int), size int) {
	p.fn, p.count, p.size = fn, count, size
	nc := 0
	if size > 0 {
		nc = (count + size - 1) / size
	}
	p.done.Store(0)
	gen := p.ticket.Load()>>32 + 1
	p.ticket.Store(gen<<32 | uint64(nc)<<(2*chunkBits))
	if p.sleepers.Load() > 0 {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

// RunSlots calls fn(i, i+1) for every i in [0, n), n at most the number
// of goroutines, and waits for all. The calls may wait for each other
// (projGraph): a goroutine runs one call at a time, and only the goroutines
// not running one claim the next, so every call gets a goroutine of its
// own while the others wait. It reports false, calling nothing, when the
// workers are not running.
func (p *Pool) RunSlots(n int, fn func(lo, hi int)) bool {
	if p.n == 1 || !p.awake || n > p.n {
		return false
	}
	p.publish(n, fn, 1)
	t := p.ticket.Load()
	p.claim(t>>32, false)
	if p.wait(int64(n)) {
		p.stalls++
	}
	return true
}

// Run calls fn over [0, count) split among the workers and waits for all.
// Small phases run on the calling goroutine alone. Chunks hold at least
// MinChunk/2 items.
func (p *Pool) Run(count int, fn func(lo, hi int)) {
	p.RunWork(count, count, MinChunk, fn)
}

// RunGrain is Run for the constraint colours: count items that together
// hold about work units (constraints; a chain of limits holds several),
// cut by work rather than by items, into chunks of at least grain/2 work
// with grain minChunkFine, or MinChunk while the machine is busy.
func (p *Pool) RunGrain(count, work int, fn func(lo, hi int)) {
	grain := minChunkFine
	if p.coarse > 0 {
		grain = MinChunk
	}
	p.RunWork(count, work, grain, fn)
}

// RunWork runs fn over count items holding work units, in chunks of at
// least grain/2 work.
func (p *Pool) RunWork(count, work, grain int, fn func(lo, hi int)) {
	if p.n == 1 || !p.awake || work < 2*grain || count < 2 {
		fn(0, count)
		return
	}
	// 2 chunks per worker (more cost more on a small cloth, whose phases
	// are short), at least grain/2 work each, and at most chunkMask chunks
	chunks := min(2*p.n, work/(grain/2), count)
	size := max((count+chunks-1)/chunks, count/chunkMask+1)
	p.publish(count, fn, size)
	t := p.ticket.Load()
	p.claim(t>>32, false)
	if p.wait(int64(t >> (2 * chunkBits) & chunkMask)) {
		p.stalls++
	}
}

// wait returns when nc chunks of the current phase are done: it spins,
// then sleeps until the worker that finishes the last chunk wakes it. It
// reports whether it had to sleep.
func (p *Pool) wait(nc int64) (stalled bool) {
	var s Spinner
	for p.done.Load() != nc {
		if !s.Over(SpinWait) {
			continue
		}
		p.waiting.Store(1)
		if p.done.Load() == nc && p.waiting.CompareAndSwap(1, 0) {
			return false // finished meanwhile, and no worker saw waiting
		}
		<-p.finished
		return true
	}
	return false
}

// Close ends the worker goroutines.
func (p *Pool) Close() {
	p.Stop()
	for _, c := range p.wake {
		close(c)
	}
	p.wake = nil
}

// Threads returns the number of goroutines that run a phase (the caller
// and the workers).
func (p *Pool) Threads() int { return p.n }

// Coarse reports whether the pool cuts phases coarsely because the
// machine is busy (see RunGrain): then a phase never waits for a worker
// that has not started.
func (p *Pool) Coarse() bool { return p.coarse > 0 }

// AddStalls counts n stalls of the current Step that happened outside the
// pool's own phases (a task that waited for a descheduled goroutine).
func (p *Pool) AddStalls(n int) { p.stalls += n }
