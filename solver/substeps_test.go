package solver

import "testing"

// TestBendingSubstepsFor checks that the substeps computed before a model
// exists are those of the model: pins (whose vertices weigh nothing in a
// hinge) and regions of another fabric change the count.
func TestBendingSubstepsFor(t *testing.T) {
	pos, tris := benchGrid(33)
	stiff := DefaultParams()
	stiff.BendingStiffness = 1e-3
	region := stiff
	region.Regions = []Region{{Name: "stiff corner", Fabric: stiff.Fabric(), Tris: []int32{0, 1, 2, 3}}}
	region.BendingStiffness = 1e-6
	for _, c := range []struct {
		name string
		pins []Pin
		p    Params
	}{
		{"free", nil, stiff},
		{"pinned", topPins(33), stiff},
		{"region", nil, region},
		{"no bending", nil, func() Params { p := stiff; p.BendingStiffness = 0; return p }()},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := BendingSubstepsFor(pos, tris, c.pins, c.p, 24)
			if err != nil {
				t.Fatal(err)
			}
			want := newModel(t, pos, tris, c.pins, c.p).BendingSubsteps(24)
			if got != want {
				t.Errorf("BendingSubstepsFor = %d, the model's BendingSubsteps = %d", got, want)
			}
			if c.name != "no bending" && got < 2 {
				t.Errorf("BendingSubstepsFor = %d: the stiff fabric on 6 cm edges should need more than 1", got)
			}
		})
	}
	if _, err := BendingSubstepsFor(pos, tris, nil, Params{}, 24); err == nil {
		t.Error("BendingSubstepsFor(zero Params) = nil error, want the validation's")
	}
}
