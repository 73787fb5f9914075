package sdf

import "github.com/drape-sim/drape/internal/vec"

// Capsule is the set of points within Radius [m] of the segment A-B [m].
type Capsule struct {
	A, B   vec.Vec3
	Radius float64
}

// Dist returns the distance from p to the segment A-B minus Radius [m].
func (c Capsule) Dist(p vec.Vec3) float64 { d, _ := c.DistGrad(p); return d }

// Grad returns the unit direction from the nearest point of the segment to
// p; on the segment itself it is perpendicular to A-B (+Y projected off
// the axis) or +Y for a degenerate segment.
func (c Capsule) Grad(p vec.Vec3) vec.Vec3 { _, g := c.DistGrad(p); return g }

// DistGrad returns Dist(p) and Grad(p).
func (c Capsule) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	ab := c.B.Sub(c.A)
	ap := p.Sub(c.A)
	h := 0.0
	if l2 := ab.LenSq(); l2 > 0 {
		h = ap.Dot(ab) / l2
		if h < 0 {
			h = 0
		} else if h > 1 {
			h = 1
		}
	}
	d := ap.AddScaled(ab, -h)
	l := d.Len()
	if l == 0 {
		if ab.LenSq() == 0 {
			return -c.Radius, up
		}
		return -c.Radius, perpendicular(ab.Normalize())
	}
	return l - c.Radius, d.Scale(1 / l)
}

// DistGradWithin returns DistGrad(p) and whether Dist(p) <= maxDist.
func (c Capsule) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	d, g := c.DistGrad(p)
	return within(d, g, maxDist)
}

// Bounds returns the box around both end spheres.
func (c Capsule) Bounds() (min, max vec.Vec3) {
	r := vec.Vec3{X: c.Radius, Y: c.Radius, Z: c.Radius}
	return c.A.Min(c.B).Sub(r), c.A.Max(c.B).Add(r)
}
