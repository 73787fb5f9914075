package bake

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// A bake whose frames x vertices exceed the memory budget is refused with
// exit 3, the estimate and the fix, before it allocates them.
func TestOverBudgetBakeRefusedBeforeAllocating(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 200, 1, 1) // 40,000 vertices
	sc.Frames = 100000                         // about 0.6 TB of frames: more than any machine's default budget
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Prepare(sc, Options{})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a bake of 100000 frames x 40000 vertices was accepted")
	}
	wantCode(t, err, ExitBadInput, "in memory")
	if !strings.Contains(err.Error(), "--frame-step") || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("the message %q lacks the fix", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<30 {
		t.Errorf("Prepare allocated %d MiB before refusing", got>>20)
	}
	// a budget set by the caller; -1 lifts it
	sc = hangingScene(t, dir, 50)
	_, err = Prepare(sc, Options{MaxMemory: 1 << 20})
	wantCode(t, err, ExitBadInput, "more than its budget of 1 MiB")
	if _, err := Prepare(sc, Options{MaxMemory: -1}); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512M": 512 << 20, "8G": 8 << 30, "8GiB": 8 << 30, "1.5k": 1536, "1000": 1000, "2t": 2 << 40} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1G", "1e30G"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) accepted", in)
		}
	}
}

// A mesh file too large to read within the budget is refused before it is
// read.
func TestHugeInputRefusedBeforeReading(t *testing.T) {
	sc := hangingScene(t, t.TempDir(), 2)
	fi, err := os.Stat(sc.Input)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(sc, Options{MaxMemory: 5 * fi.Size()})
	wantCode(t, err, ExitBadInput, "reading it would take about")
	if _, err := Prepare(sc, Options{MaxMemory: -1}); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
