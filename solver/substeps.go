package solver

import "github.com/drape-sim/drape/internal/vec"

// BendingSubstepsFor returns Model.BendingSubsteps(fps) of the model
// NewModel(rest, tris, pins, p) would build, building only what the
// bending constraints need: a caller settles its substeps with it before
// it builds the model, which is then never changed.
func BendingSubstepsFor(rest []vec.Vec3, tris [][3]int32, pins []Pin, p Params, fps float64) (int, error) {
	m, err := newModelCore(rest, tris, pins, p)
	if err != nil {
		return 0, err
	}
	m.buildBend()
	return m.BendingSubsteps(fps), nil
}
