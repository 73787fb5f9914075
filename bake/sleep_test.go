package bake

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/meshio"
)

// TestSleepKeepsTheResult bakes a small cloth dropped 2 cm onto the ground
// for 3 s with and without "sleep": with it, vertices must sleep in the
// resting frames, and every vertex of every frame must stay within 1 mm of
// the bake without it (the tolerance docs/scene.md states).
func TestSleepKeepsTheResult(t *testing.T) {
	const frames = 72
	bakeOnce := func(sleep bool) (*Report, *meshio.PointCache) {
		dir := t.TempDir()
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, 12, 0.5, 0.02)
		sc.Frames = frames
		sc.Sleep = sleep
		sc.Colliders = []ColliderSpec{{Type: ColliderPlane, Normal: &[3]float64{0, 1, 0}}}
		sc.Output = Outputs{filepath.Join(dir, "out.pc2")}
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatalf("sleep=%v: %v", sleep, err)
		}
		pc, err := meshio.ReadPC2File(sc.Output[0])
		if err != nil {
			t.Fatal(err)
		}
		return rep, pc
	}
	offRep, off := bakeOnce(false)
	onRep, on := bakeOnce(true)
	if offRep.SleepingFrames != 0 {
		t.Errorf("without sleep: %d sleeping frames, want 0", offRep.SleepingFrames)
	}
	if onRep.SleepingFrames == 0 {
		t.Errorf("with sleep: no frame had sleeping vertices in %d frames of a cloth lying on the ground", frames)
	}
	worst := 0.0
	for k := range off.Frames {
		for i := range off.Frames[k] {
			worst = max(worst, on.Frames[k][i].Sub(off.Frames[k][i]).Len())
		}
	}
	if worst > 1e-3 {
		t.Errorf("sleep moved a vertex %.3g m from the bake without it, want <= 1 mm", worst)
	}
	t.Logf("sleeping frames %d of %d, largest difference %.3g m", onRep.SleepingFrames, frames, worst)
}
