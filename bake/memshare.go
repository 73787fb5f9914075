package bake

import (
	"errors"
	"sync"
	"time"
)

// A batch's jobs that bake at once (-j N) share one memory budget: each
// job's claim reserves its estimate (memoryEstimate) from the budget after
// its mesh is read and welded and before it builds the model and records
// frames, and gives it back when the job ends. A job that does not fit
// beside the running ones waits until enough is given back. Claims are
// served in the order they were made (the batch makes them in key order),
// so jobs start allocating in that order and a large job is not starved by
// smaller ones behind it. A job whose estimate exceeds the whole budget is
// refused by checkMemory before it claims anything; one that fits the
// whole budget always gets it once nothing else is held, so the batch
// cannot deadlock.

// MemoryShare is one memory budget shared by concurrent bakes.
type MemoryShare struct {
	budget int64 // [bytes]; 0: no budget, claims never wait

	mu      sync.Mutex
	held    int64 // reserved by running claims [bytes]
	peak    int64 // the most held at once [bytes]
	next    int   // the number the next Claim gets
	serving int   // the claim whose turn it is to reserve
	gone    map[int]bool
	changed chan struct{} // closed and replaced when held or serving changes
}

// NewMemoryShare returns the budget a batch's jobs share: the budget of one
// bake given --max-memory as maxBytes (see Options.MaxMemory).
func NewMemoryShare(maxBytes int64) *MemoryShare {
	return &MemoryShare{budget: MemoryBudget(maxBytes), gone: map[int]bool{}, changed: make(chan struct{})}
}

// Budget is the shared budget [bytes] (0: none).
func (s *MemoryShare) Budget() int64 { return s.budget }

// Peak is the most memory [bytes] the share's claims reserved at once.
func (s *MemoryShare) Peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// Claim returns the next claim on the share: its turn to reserve comes
// after every earlier claim has reserved or been released.
func (s *MemoryShare) Claim() *MemoryClaim {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &MemoryClaim{s: s, n: s.next}
	s.next++
	return c
}

// MemoryClaim is one job's place in a MemoryShare (Options.Memory).
type MemoryClaim struct {
	s *MemoryShare
	n int // its turn

	// Under s.mu:
	bytes    int64 // reserved [bytes]
	reserved bool
	released bool
	waited   time.Duration // for its turn and for memory
}

// errClaimReleased is what a reservation returns when its claim was
// released while it waited (the job was abandoned).
var errClaimReleased = errors.New("memory claim released while waiting")

// signal wakes every waiting reservation; s.mu is held.
func (s *MemoryShare) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// pass ends claim n's turn; s.mu is held.
func (s *MemoryShare) pass(n int) {
	if n != s.serving {
		s.gone[n] = true // its turn is skipped when it comes
		return
	}
	s.serving++
	for s.gone[s.serving] {
		delete(s.gone, s.serving)
		s.serving++
	}
	s.signal()
}

// reserve takes n bytes for the claim once its turn has come and the
// running claims leave n free (n is capped at the budget: such a job runs
// alone). waiting, if set, is called once, with the bytes the running
// claims hold, when its turn has come but n does not fit. It returns
// early, with errClaimReleased, when the claim is released meanwhile: Run
// releases it when its context is cancelled, so a waiting job ends at once.
func (c *MemoryClaim) reserve(n int64, waiting func(held int64)) error {
	if c == nil {
		return nil
	}
	s := c.s
	n = min(max(n, 0), s.budget)
	var t0 time.Time
	notified := false
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if !t0.IsZero() {
			c.waited = time.Since(t0)
		}
		if c.released {
			return errClaimReleased
		}
		if c.reserved {
			return nil
		}
		if s.serving == c.n {
			if s.budget == 0 || s.held+n <= s.budget {
				c.bytes, c.reserved = n, true
				s.held += n
				s.peak = max(s.peak, s.held)
				s.pass(c.n)
				return nil
			}
			if !notified && waiting != nil {
				notified = true
				held := s.held
				s.mu.Unlock()
				waiting(held)
				s.mu.Lock()
				continue
			}
		}
		if t0.IsZero() {
			t0 = time.Now()
		}
		ch := s.changed
		s.mu.Unlock()
		<-ch
		s.mu.Lock()
	}
}

// Release gives back what the claim reserved, or its turn if it never
// reserved; a reservation waiting on it returns. It may be called more
// than once, and on a nil claim.
func (c *MemoryClaim) Release() {
	if c == nil {
		return
	}
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.released {
		return
	}
	c.released = true
	if c.reserved {
		s.held -= c.bytes
		s.signal()
		return
	}
	s.pass(c.n)
	s.signal()
}

// Reserved is the memory [bytes] the claim reserved (0 if it never did).
func (c *MemoryClaim) Reserved() int64 {
	if c == nil {
		return 0
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.bytes
}

// Waited is how long the claim waited for memory, and for the claims
// before it to reserve theirs.
func (c *MemoryClaim) Waited() time.Duration {
	if c == nil {
		return 0
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.waited
}
