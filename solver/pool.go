package solver

import (
	"runtime"
	"sync/atomic"
)

// pool runs data-parallel phases on persistent worker goroutines. The
// calling goroutine is worker 0. Between phases the workers spin briefly
// on an atomic generation counter (a phase costs a few microseconds, a
// channel hand-off tens), yield the processor while waiting, and park on a
// channel between Steps. Phases must write disjoint memory per index, so
// results never depend on the number of workers.
type pool struct {
	n     int
	gen   atomic.Uint64
	done  atomic.Int64
	count int
	fn    func(lo, hi int)
	park  bool
	wake  []chan struct{}
	awake bool
}

// minChunk is the smallest number of items worth handing to another worker.
const minChunk = 1024

func newPool(n int) *pool {
	p := &pool{n: n}
	for w := 1; w < n; w++ {
		c := make(chan struct{})
		p.wake = append(p.wake, c)
		go p.worker(w, c)
	}
	return p
}

func (p *pool) worker(w int, wake chan struct{}) {
	last := p.gen.Load()
	for range wake {
		for {
			// wait for the next phase
			spins := 0
			for p.gen.Load() == last {
				spins++
				if spins > 64 {
					runtime.Gosched()
				}
			}
			last = p.gen.Load()
			if p.park {
				p.done.Add(1)
				break
			}
			lo, hi := chunk(p.count, p.n, w)
			if lo < hi {
				p.fn(lo, hi)
			}
			p.done.Add(1)
		}
	}
}

// chunk returns worker w's share [lo, hi) of count items.
func chunk(count, n, w int) (int, int) {
	return count * w / n, count * (w + 1) / n
}

// start wakes the workers for a Step.
func (p *pool) start() {
	if p.n == 1 || p.awake {
		return
	}
	for _, c := range p.wake {
		c <- struct{}{}
	}
	p.awake = true
}

// stop parks the workers until the next start.
func (p *pool) stop() {
	if p.n == 1 || !p.awake {
		return
	}
	p.park = true
	p.dispatch()
	p.park = false
	p.awake = false
}

// run calls fn over [0, count) split among the workers and waits for all.
// Small phases run on the calling goroutine alone.
func (p *pool) run(count int, fn func(lo, hi int)) {
	if p.n == 1 || !p.awake || count < 2*minChunk {
		fn(0, count)
		return
	}
	p.count, p.fn = count, fn
	p.dispatch()
}

func (p *pool) dispatch() {
	p.done.Store(0)
	p.gen.Add(1)
	if !p.park {
		lo, hi := chunk(p.count, p.n, 0)
		p.fn(lo, hi)
	}
	spins := 0
	for p.done.Load() != int64(p.n-1) {
		spins++
		if spins > 64 {
			runtime.Gosched()
		}
	}
}

// close ends the worker goroutines.
func (p *pool) close() {
	p.stop()
	for _, c := range p.wake {
		close(c)
	}
	p.wake = nil
}
