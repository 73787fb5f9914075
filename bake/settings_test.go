package bake

import (
	"math"
	"testing"
)

// TestDefaultSettingsAreTheBakes checks that what `drape presets --json`
// lists as drape's defaults is what a bake that sets nothing runs with.
func TestDefaultSettingsAreTheBakes(t *testing.T) {
	d := DefaultSettings()
	for _, c := range []struct {
		name string
		n    int
		size float64
	}{
		{"coarse", 16, 1},  // 6.7 cm edges: the thickness is capped
		{"fine", 41, 0.15}, // 3.75 mm edges: a fifth of the mean edge
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := DefaultScene()
			sc.Input = writeGridOBJ(t, t.TempDir(), c.n, c.size, 1)
			if err := sc.Validate(); err != nil {
				t.Fatal(err)
			}
			j, err := Prepare(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := j.Params
			wantSub := d.Substeps
			if j.BendingSubsteps > wantSub { // the fine cotton's bending shows
				wantSub = min(j.BendingSubsteps, d.MaxAutoSubsteps)
			}
			if p.Substeps != wantSub || p.Iterations != d.Iterations || p.Solver.String() != d.Solver || j.Fabric.Name != d.Fabric {
				t.Errorf("bake runs %d substeps, %d iterations, %s, fabric %s; defaults say %d (bending needs %d), %d, %s, %s",
					p.Substeps, p.Iterations, p.Solver, j.Fabric.Name, wantSub, j.BendingSubsteps, d.Iterations, d.Solver, d.Fabric)
			}
			if g := [3]float64{p.Gravity.X, p.Gravity.Y, p.Gravity.Z}; g != d.Gravity || p.SelfFriction != d.SelfFriction {
				t.Errorf("bake gravity %v self friction %g, defaults say %v %g", g, p.SelfFriction, d.Gravity, d.SelfFriction)
			}
			sum, n := 0.0, 0
			for _, tr := range j.Welded.Triangles {
				for k := range 3 {
					sum += j.Welded.Positions[tr[k]].Sub(j.Welded.Positions[tr[(k+1)%3]]).Len()
					n++
				}
			}
			want := math.Min(d.ThicknessMax, math.Max(d.ThicknessMin, d.ThicknessFraction*sum/float64(n)))
			if p.Thickness != want || p.Thickness < d.ThicknessRange[0] || p.Thickness > d.ThicknessRange[1] {
				t.Errorf("bake thickness %g, the defaults' rule gives %g (range %v)", p.Thickness, want, d.ThicknessRange)
			}
			if p.Thickness != j.Model.Params.Thickness || p.Substeps != j.Model.Params.Substeps {
				t.Errorf("job thickness %g substeps %d, model %g %d: the model must be built from the resolved settings",
					p.Thickness, p.Substeps, j.Model.Params.Thickness, j.Model.Params.Substeps)
			}
		})
	}
}
