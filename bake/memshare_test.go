package bake

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// reserveAsync reserves n bytes for c in a goroutine; the channel gets the
// result.
func reserveAsync(c *MemoryClaim, n int64, waiting func(int64)) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- c.reserve(n, waiting) }()
	return ch
}

// pending fails the test if ch delivers within a short while.
func pending(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned (%v), want it to wait", what, err)
	case <-time.After(50 * time.Millisecond):
	}
}

// arrives returns what ch delivers, failing the test after 5 s.
func arrives(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still waits after 5 s", what)
		return nil
	}
}

// Claims are served in order: a claim that does not fit waits, and a
// smaller one behind it waits too; released memory goes to them in turn.
func TestMemoryShareWaitsInOrder(t *testing.T) {
	s := NewMemoryShare(100)
	if s.Budget() != 100 {
		t.Fatalf("budget %d, want the 100 bytes set: are the process's own limits below it?", s.Budget())
	}
	c := []*MemoryClaim{s.Claim(), s.Claim(), s.Claim(), s.Claim()}
	if err := c[0].reserve(40, nil); err != nil {
		t.Fatal(err)
	}
	if err := c[1].reserve(40, nil); err != nil {
		t.Fatal(err)
	}
	var heldSeen int64
	w2 := reserveAsync(c[2], 40, func(held int64) { heldSeen = held })
	pending(t, w2, "claim 2 (40 of 100 with 80 held)")
	w3 := reserveAsync(c[3], 10, nil)
	pending(t, w3, "claim 3 (10 fits, but claim 2 is before it)")
	c[0].Release()
	if err := arrives(t, w2, "claim 2 after claim 0's release"); err != nil {
		t.Fatal(err)
	}
	if err := arrives(t, w3, "claim 3 after claim 2"); err != nil {
		t.Fatal(err)
	}
	if heldSeen != 80 {
		t.Errorf("claim 2's waiting hook saw %d held, want 80", heldSeen)
	}
	if c[2].Waited() <= 0 || c[1].Waited() != 0 {
		t.Errorf("waited: claim 1 %v, claim 2 %v; want 0 and > 0", c[1].Waited(), c[2].Waited())
	}
	if p := s.Peak(); p != 90 {
		t.Errorf("peak = %d, want 90 (claims 1, 2 and 3)", p)
	}
	for _, x := range c {
		x.Release()
		x.Release() // twice is once
	}
	if s.held != 0 {
		t.Errorf("held after every release = %d, want 0", s.held)
	}
}

// A claim released before it reserves passes its turn; one released while
// it waits returns at once; a claim of the whole budget (or more: capped)
// gets it when nothing else is held, so no batch deadlocks.
func TestMemoryShareReleaseAndWholeBudget(t *testing.T) {
	s := NewMemoryShare(100)
	if s.Budget() != 100 {
		t.Fatalf("budget %d, want the 100 bytes set: are the process's own limits below it?", s.Budget())
	}
	a, skipped, b, waiting, big := s.Claim(), s.Claim(), s.Claim(), s.Claim(), s.Claim()
	if err := a.reserve(60, nil); err != nil {
		t.Fatal(err)
	}
	skipped.Release() // its job failed before it reserved
	if err := arrives(t, reserveAsync(b, 30, nil), "the claim after a released one"); err != nil {
		t.Fatal(err)
	}
	w := reserveAsync(waiting, 50, nil)
	pending(t, w, "claim of 50 with 90 held")
	wb := reserveAsync(big, 1000, nil)
	waiting.Release() // its job was cancelled while it waited
	if err := arrives(t, w, "a released waiting claim"); !errors.Is(err, errClaimReleased) {
		t.Errorf("released waiting claim: %v, want errClaimReleased", err)
	}
	pending(t, wb, "the whole budget with 90 held")
	a.Release()
	pending(t, wb, "the whole budget with 30 held")
	b.Release()
	if err := arrives(t, wb, "the whole budget with nothing held"); err != nil {
		t.Fatal(err)
	}
	if big.Reserved() != 100 || s.Peak() != 100 {
		t.Errorf("whole-budget claim reserved %d (peak %d), want 100 (capped at the budget)", big.Reserved(), s.Peak())
	}
	big.Release()
}

// Jobs baking side by side with one share never hold more than the budget
// between them, although together they would, and their outputs are the
// bytes they write one at a time. The test hook jobLive measures what the
// running bakes estimate, apart from the share's own bookkeeping.
func TestConcurrentBakesShareTheBudget(t *testing.T) {
	const jobs = 4
	dir := t.TempDir()
	scenes := make([]*Scene, jobs)
	for i := range scenes {
		d := filepath.Join(dir, string(rune('a'+i)))
		os.MkdirAll(d, 0o755)
		scenes[i] = hangingScene(t, d, 12, "out.glb")
		scenes[i].Threads = 1
	}
	j, err := Prepare(scenes[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	est := j.memoryEstimate()
	maxBytes := est * 5 / 2 // two jobs fit, four do not
	alone := make([][]byte, jobs)
	for i, sc := range scenes {
		if _, err := Run(context.Background(), sc, Options{MaxMemory: maxBytes}); err != nil {
			t.Fatal(err)
		}
		alone[i], _ = os.ReadFile(sc.Output[0])
		os.Remove(sc.Output[0])
	}

	var mu sync.Mutex
	var live, peak int64
	jobLive = func(n int64) {
		mu.Lock()
		live += n
		peak = max(peak, live)
		mu.Unlock()
		if n > 0 {
			time.Sleep(30 * time.Millisecond) // let the others start meanwhile
		}
	}
	defer func() { jobLive = nil }()
	share := NewMemoryShare(maxBytes)
	var wg sync.WaitGroup
	errs := make([]error, jobs)
	for i, sc := range scenes {
		claim := share.Claim()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Run(context.Background(), sc, Options{MaxMemory: maxBytes, Memory: claim})
		}()
	}
	wg.Wait()
	for i, sc := range scenes {
		if errs[i] != nil {
			t.Errorf("job %d: %v", i, errs[i])
			continue
		}
		got, _ := os.ReadFile(sc.Output[0])
		if !bytes.Equal(got, alone[i]) {
			t.Errorf("job %d: output differs from its bake alone (%d vs %d bytes)", i, len(got), len(alone[i]))
		}
	}
	if peak > share.Budget() {
		t.Errorf("running bakes estimated %d bytes at once, over the shared budget %d (each %d)", peak, share.Budget(), est)
	}
	if peak < est || share.Peak() > share.Budget() || share.Peak() < est {
		t.Errorf("peak live %d, share peak %d; want each in [%d, %d]", peak, share.Peak(), est, share.Budget())
	}
}

// A bake waiting for memory that a running bake holds ends at once when
// its context is cancelled, and gives up its turn.
func TestCancelEndsAWaitingBake(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 5, "out.glb")
	share := NewMemoryShare(1 << 40)
	holder := share.Claim()
	if err := holder.reserve(share.Budget(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan struct{}, 1)
	claim := share.Claim()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, sc, Options{Memory: claim, Progress: func(p Progress) {
			if p.WaitingMemory > 0 {
				waited <- struct{}{}
			}
		}})
		done <- err
	}()
	select {
	case <-waited:
	case err := <-done:
		t.Fatalf("the bake ended (%v) instead of waiting for memory", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no waiting progress line after 10 s")
	}
	t0 := time.Now()
	cancel()
	if err := arrives(t, done, "the cancelled waiting bake"); ExitCode(err) != ExitCancelled {
		t.Errorf("cancelled waiting bake: %v (exit %d), want exit %d", err, ExitCode(err), ExitCancelled)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("the waiting bake took %v to end after cancel", d)
	}
	if _, err := os.Stat(sc.Output[0]); err == nil {
		t.Error("the cancelled bake wrote its output")
	}
	next := share.Claim()
	holder.Release()
	if err := arrives(t, reserveAsync(next, 1, nil), "the claim after the cancelled one"); err != nil {
		t.Fatal(err)
	}
}
