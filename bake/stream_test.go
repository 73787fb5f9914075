package bake

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/drape-sim/drape/meshio"
)

// A bake whose outputs all stream (PC2, MDD, OBJ sequence) writes the same
// bytes as a bake that holds its frames and writes them at the end (one
// with a glTF output beside them).
func TestStreamedOutputsMatchHeldOutputs(t *testing.T) {
	outs := []string{"a.pc2", "a.mdd", "seq/"}
	streamed, held := t.TempDir(), t.TempDir()
	bake := func(dir string, extra ...string) *Scene {
		sc := hangingScene(t, dir, 30, append(outs, extra...)...)
		sc.Output[2] += "/"
		sc.FrameStep = 4 // stored frames 0, 4, ..., 28 and the last, 29
		sc.SelfCollision = true
		if _, err := Run(context.Background(), sc, Options{}); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	sc := bake(streamed)
	if !(&Job{Scene: sc}).streams() {
		t.Fatalf("outputs %v do not stream", sc.Output)
	}
	bake(held, "a.glb")
	a, b := snapshot(t, streamed), snapshot(t, held)
	if len(a) != 1+2+9+1 { // the input grid.obj; pc2, mdd, 9 frame files and the manifest
		t.Errorf("streamed bake left %d files, want 13", len(a))
	}
	for p, data := range a {
		rel, _ := filepath.Rel(streamed, p)
		if rel == "grid.obj" {
			continue
		}
		if got, ok := b[filepath.Join(held, rel)]; !ok || got != data {
			t.Errorf("%s: the streamed bake's %d bytes differ from the held bake's %d", rel, len(data), len(got))
		}
	}
}

// A PC2-only bake whose frames x vertices exceed the memory budget streams
// them to disk within it: the estimate of a bake that holds its frames is
// refused under the same budget, the streamed one is accepted, and its
// file is byte for byte the file of a bake without a budget that held its
// frames.
func TestStreamedPointCacheFitsBudget(t *testing.T) {
	const frames = 1500
	const budget = 4 << 20
	dir := t.TempDir()
	sc := hangingScene(t, dir, frames, "long.pc2")
	cacheBytes := int64(frames * 16 * 16 * 12)
	if cacheBytes <= budget {
		t.Fatalf("the cache of %d bytes fits the budget of %d: the test proves nothing", cacheBytes, budget)
	}
	held := *sc
	held.Output = []string{filepath.Join(dir, "held.pc2"), filepath.Join(dir, "held.glb")}
	_, err := Prepare(&held, Options{MaxMemory: budget})
	wantCode(t, err, ExitBadInput, "in memory")
	if err != nil && !strings.Contains(err.Error(), "stream") {
		t.Errorf("the refusal %q does not name the streaming outputs as a fix", err)
	}

	rep, err := Run(context.Background(), sc, Options{MaxMemory: budget})
	if err != nil {
		t.Fatalf("a PC2-only bake under a budget of %d bytes: %v", budget, err)
	}
	if rep.Outputs[0].Bytes != 32+cacheBytes {
		t.Errorf("long.pc2 is %d bytes, want %d", rep.Outputs[0].Bytes, 32+cacheBytes)
	}
	pc, err := meshio.ReadPC2File(sc.Output[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Frames) != frames || len(pc.Frames[0]) != 256 {
		t.Fatalf("read back %d frames of %d points, want %d of 256", len(pc.Frames), len(pc.Frames[0]), frames)
	}
	// the same bake holding its frames and writing them at the end
	held.Output = held.Output[:1]
	j, err := Prepare(&held, Options{MaxMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := j.Simulate(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Write(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(sc.Output[0])
	want, _ := os.ReadFile(held.Output[0])
	if !bytes.Equal(got, want) {
		t.Errorf("the streamed PC2 (%d bytes) differs from the held bake's (%d bytes)", len(got), len(want))
	}
	if rep.MaxStretch != rec.MaxStretch || rep.MaxStretch <= 0 {
		t.Errorf("max stretch %g streamed, %g held", rep.MaxStretch, rec.MaxStretch)
	}
}

// A long PC2-only bake does not hold its frames: the live heap, measured
// after a collection every 100 frames, stays below a quarter of what the
// frames' simulation positions alone take.
func TestStreamedBakeHeapStaysBounded(t *testing.T) {
	const frames = 3000
	dir := t.TempDir()
	sc := hangingScene(t, dir, frames, "long.pc2")
	allFrames := uint64(frames * 256 * 24)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	measure := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	rep, err := Run(context.Background(), sc, Options{MaxMemory: -1, Progress: func(p Progress) {
		if p.Frame%100 == 0 {
			measure()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if peak <= base {
		t.Fatalf("no heap measured (peak %d, base %d)", peak, base)
	}
	t.Logf("live heap grew by %.2f MiB over %d frames (all frames: %.1f MiB)", float64(peak-base)/(1<<20), frames, float64(allFrames)/(1<<20))
	if grew := peak - base; grew > allFrames/4 {
		t.Errorf("the live heap grew by %.1f MiB during a bake of %d frames of 256 vertices (all frames: %.1f MiB); want under %.1f MiB",
			float64(grew)/(1<<20), frames, float64(allFrames)/(1<<20), float64(allFrames/4)/(1<<20))
	}
	if fi, err := os.Stat(sc.Output[0]); err != nil || fi.Size() != 32+frames*256*12 || rep.Outputs[0].Bytes != fi.Size() {
		t.Errorf("long.pc2: %v, %v", fi, err)
	}
}

// A streamed bake cancelled halfway leaves the earlier outputs as they were
// and no temporary file or folder.
func TestCancelledStreamedBakeLeavesTargets(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 60, "out.pc2", "out.mdd", "seq/")
	sc.Output[2] += "/"
	for _, o := range sc.Output[:2] {
		os.WriteFile(o, []byte("earlier"), 0o644)
	}
	before := snapshot(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, sc, Options{Progress: func(p Progress) {
		if p.Frame == 30 {
			cancel()
		}
	}})
	if ExitCode(err) != ExitCancelled {
		t.Fatalf("cancelled bake: %v (exit %d), want exit %d", err, ExitCode(err), ExitCancelled)
	}
	sameSnapshot(t, "cancelled streamed bake", before, snapshot(t, dir))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("%s stayed behind", e.Name())
		}
	}
}
