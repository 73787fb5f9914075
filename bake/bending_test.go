package bake

import (
	"strings"
	"testing"
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
