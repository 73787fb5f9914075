package solver

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// bendingRatio returns the largest ratio W·dt²/α over the model's hinges
// for substeps of dt = 1/(fps·n) seconds with n = 1, where W = Σ w_j|∇_j C|²
// at rest and α the hinge's compliance. One projection per substep
// resolves a hinge while its ratio is at most about bendingRatioMax: the
// compliance then dominates the correction, and the Gauss-Seidel sweep
// does not have to carry a stiff correction along many hinges.
func (m *Model) bendingRatio(fps float64) float64 {
	worst := 0.0
	for _, r := range m.bend.ratio {
		worst = math.Max(worst, r)
	}
	return worst / (fps * fps)
}

// hingeRatio returns hinge i's ratio W·dt²/α for dt = 1 s (see
// bendingRatio), or 0 if it has no stiffness or is degenerate at rest.
func (m *Model) hingeRatio(i int) float64 {
	b := &m.bend
	if math.IsInf(b.alpha[i], 1) {
		return 0
	}
	var q [4]vec.Vec3
	var w [4]float64
	for k, j := range b.v[i] {
		q[k], w[k] = m.Rest[j], m.InvMass[j]
	}
	// a unit constraint error with no compliance moves the hinge by
	// dλ = 1/W
	dl := projectDihedral(q[:], w[:], [4]int32{0, 1, 2, 3}, b.rest[i]+1, 0, 0)
	if !(dl > 0) {
		return 0
	}
	return 1 / (dl * b.alpha[i])
}

// bendingRatioMax is the largest ratio W·dt²/α at which one projection per
// substep still resolves a hinge's bending stiffness (TestCantileverDeflection:
// a strip within 10 % of its finer version and of beam theory).
const bendingRatioMax = 2

// BendingSubsteps returns the number of substeps per frame at fps frames
// per second that resolves the stiffest hinge of the model: with fewer,
// stiff bending on a fine mesh acts softer than its stiffness says (the
// strip sags as if made of a softer fabric). It is 1 when bending is off.
func (m *Model) BendingSubsteps(fps float64) int {
	r := m.bendingRatio(fps)
	if !(r > 0) {
		return 1
	}
	return max(1, int(math.Ceil(math.Sqrt(r/bendingRatioMax))))
}
