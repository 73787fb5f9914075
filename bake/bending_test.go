package bake

import (
	"slices"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// TestStiffBendingWarns prepares a fine leather square (5 mm edges) at 15
// substeps, which cannot resolve its bending stiffness: Prepare must warn
// with the substeps it needs, and must not warn once given them. Without
// a substeps setting it must take what bending needs, up to
// maxAutoSubsteps.
func TestStiffBendingWarns(t *testing.T) {
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, t.TempDir(), 41, 0.2, 1)
	sc.Fabric = FabricSpec{Preset: "leather"}
	sc.Substeps = 15
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	need := j.Model.BendingSubsteps(sc.FPS)
	if need <= 15 {
		t.Fatalf("leather at 5 mm edges needs %d substeps by Model.BendingSubsteps, want more than 15 for this test", need)
	}
	warned := func(j *Job) string {
		for _, w := range j.Warnings {
			if strings.Contains(w, "substeps") {
				return w
			}
		}
		return ""
	}
	if j.BendingSubsteps != need {
		t.Errorf("resolved settings' bending substeps = %d, the model's = %d", j.BendingSubsteps, need)
	}
	if w := warned(j); !strings.Contains(w, "--substeps") {
		t.Errorf("15 substeps for %d needed: warnings %q, want one naming --substeps", need, j.Warnings)
	}
	sc.Substeps = need
	if j, err = Prepare(sc, Options{}); err != nil {
		t.Fatal(err)
	}
	if w := warned(j); w != "" {
		t.Errorf("%d substeps: unexpected warning %q", need, w)
	}
	sc.Substeps = 0
	if j, err = Prepare(sc, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := min(need, maxAutoSubsteps); j.Params.Substeps != want || j.Model.Params.Substeps != want {
		t.Errorf("no substeps setting: job %d, model %d substeps, want %d (needed %d, at most %d)",
			j.Params.Substeps, j.Model.Params.Substeps, want, need, maxAutoSubsteps)
	}
	if w := warned(j); (w != "") != (need > maxAutoSubsteps) {
		t.Errorf("no substeps setting, %d needed: warning %q", need, w)
	}
	t.Logf("leather at 5 mm edges needs %d substeps; without a setting the bake takes %d", need, j.Params.Substeps)
}

// TestBendingSpansReported prepares the bench's 64 x 64 cotton cloth (2 m
// wide, 15 substeps), whose soft bending spans 3 substeps, and checks the
// scene key bending_interval (1: every substep) and the report's
// bending_spans; a fine leather square keeps span 1.
func TestBendingSpansReported(t *testing.T) {
	dir := t.TempDir()
	spans := func(sc *Scene) []int {
		t.Helper()
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		j, err := Prepare(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if j.Params.BendingInterval != sc.BendInterval {
			t.Errorf("bending_interval %d: solver's BendingInterval %d", sc.BendInterval, j.Params.BendingInterval)
		}
		rec := &Recording{Frames: []int{0}, Pos: [][]vec.Vec3{j.Welded.Positions}}
		return j.report(rec, nil).BendingSpans
	}
	cases := []struct {
		name     string
		n        int
		size     float64
		fabric   string
		interval int
		want     []int
	}{
		{"cotton 64 x 64", 64, 2, "cotton", 0, []int{3}},
		{"cotton 64 x 64, bending_interval 1", 64, 2, "cotton", 1, []int{1}},
		{"leather at 5 mm edges", 41, 0.2, "leather", 0, []int{1}},
	}
	for _, c := range cases {
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, c.n, c.size, 1)
		sc.Fabric = FabricSpec{Preset: c.fabric}
		sc.Substeps = 15
		sc.BendInterval = c.interval
		if got := spans(sc); !slices.Equal(got, c.want) {
			t.Errorf("%s: bending_spans %v, want %v", c.name, got, c.want)
		}
	}
}
