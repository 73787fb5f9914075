package sdf

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// SDF is a signed distance function: Dist is negative inside, Grad is the
// outward unit gradient, and Bounds contains the surface and the inside.
type SDF interface {
	// Dist returns the signed distance [m] from p to the surface.
	Dist(p vec.Vec3) float64
	// Grad returns the outward unit gradient of Dist at p.
	Grad(p vec.Vec3) vec.Vec3
	// DistGrad returns Dist(p) and Grad(p) in one evaluation.
	DistGrad(p vec.Vec3) (float64, vec.Vec3)
	// DistGradWithin returns Dist(p), Grad(p) and true when Dist(p) <=
	// maxDist [m]. Otherwise it returns false, a lower bound on the
	// distance that is at least maxDist, and a zero gradient, usually
	// without an exact evaluation. Points inside are always within.
	DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool)
	// Bounds returns the corners of an axis-aligned box [m] containing the
	// surface and the inside.
	Bounds() (min, max vec.Vec3)
}

// up is the deterministic direction used where the gradient is undefined.
var up = vec.Vec3{X: 0, Y: 1, Z: 0}

// perpendicular returns a unit vector perpendicular to the unit vector a:
// +Y projected off a, or +X when a is (anti)parallel to Y.
func perpendicular(a vec.Vec3) vec.Vec3 {
	if p := up.AddScaled(a, -a.Y); p.LenSq() > 1e-12 {
		return p.Normalize()
	}
	return vec.Vec3{X: 1}.AddScaled(a, -a.X).Normalize()
}

// boxDistSq returns the squared distance from p to the box [lo, hi], zero
// inside it.
func boxDistSq(p, lo, hi vec.Vec3) float64 {
	var d float64
	if v := lo.X - p.X; v > 0 {
		d += v * v
	} else if v := p.X - hi.X; v > 0 {
		d += v * v
	}
	if v := lo.Y - p.Y; v > 0 {
		d += v * v
	} else if v := p.Y - hi.Y; v > 0 {
		d += v * v
	}
	if v := lo.Z - p.Z; v > 0 {
		d += v * v
	} else if v := p.Z - hi.Z; v > 0 {
		d += v * v
	}
	return d
}

// within packages a full evaluation as a DistGradWithin answer.
func within(d float64, g vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	if d > maxDist {
		return d, vec.Vec3{}, false
	}
	return d, g, true
}

// infBounds is the box of an unbounded shape.
func infBounds() (vec.Vec3, vec.Vec3) {
	i := math.Inf(1)
	return vec.Vec3{X: -i, Y: -i, Z: -i}, vec.Vec3{X: i, Y: i, Z: i}
}
