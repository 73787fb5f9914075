package pool

import (
	"sync/atomic"
	"testing"
)

// TestRunCoversEveryItem runs phases of several sizes on pools of 1, 2 and
// 4 goroutines, awake and parked: every item must be run exactly once, in
// chunks that do not overlap, whatever the pool.
func TestRunCoversEveryItem(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		p := New(n)
		for _, awake := range []bool{false, true} {
			if awake {
				p.Start()
			}
			for _, count := range []int{0, 1, 7, MinChunk, 3*MinChunk + 5, 100000} {
				hits := make([]atomic.Int32, count)
				p.Run(count, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				for i := range hits {
					if h := hits[i].Load(); h != 1 {
						t.Fatalf("%d goroutines, awake %v, %d items: item %d ran %d times, want 1", n, awake, count, i, h)
					}
				}
			}
			if awake {
				p.Stop()
			}
		}
		p.Close()
	}
}

// TestRunWorkShares checks that a phase with enough work is shared: on 4
// goroutines, awake, a phase of many chunks whose first chunk waits until
// another goroutine has run a chunk must finish, so the workers took
// part.
func TestRunWorkShares(t *testing.T) {
	p := New(4)
	defer p.Close()
	p.Start()
	defer p.Stop()
	var others atomic.Int32
	count := 64 * MinChunk
	p.RunWork(count, count, MinChunk, func(lo, hi int) {
		if lo != 0 {
			others.Add(1)
			return
		}
		// the caller claims chunk 0 first: wait for a worker's chunk
		for others.Load() == 0 {
		}
	})
	if others.Load() == 0 {
		t.Fatal("no worker ran a chunk")
	}
}

// TestRunSlots checks that RunSlots gives each of up to Threads calls a
// goroutine of its own (they may wait for each other), and refuses when
// the workers are parked.
func TestRunSlots(t *testing.T) {
	p := New(3)
	defer p.Close()
	if p.RunSlots(3, func(int, int) {}) {
		t.Fatal("RunSlots ran with the workers parked")
	}
	p.Start()
	defer p.Stop()
	var arrived atomic.Int32
	ok := p.RunSlots(3, func(lo, hi int) {
		arrived.Add(1)
		for arrived.Load() < 3 { // every slot waits for the others
		}
	})
	if !ok || arrived.Load() != 3 {
		t.Fatalf("RunSlots = %v with %d calls, want true and 3", ok, arrived.Load())
	}
}
