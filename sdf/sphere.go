package sdf

import "github.com/drape-sim/drape/internal/vec"

// Sphere is a ball of Radius [m] around Center [m].
type Sphere struct {
	Center vec.Vec3
	Radius float64
}

// Dist returns |p - Center| - Radius [m].
func (s Sphere) Dist(p vec.Vec3) float64 { d, _ := s.DistGrad(p); return d }

// Grad returns the unit direction from Center to p, or +Y at the centre.
func (s Sphere) Grad(p vec.Vec3) vec.Vec3 { _, g := s.DistGrad(p); return g }

// DistGrad returns Dist(p) and Grad(p).
func (s Sphere) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	d := p.Sub(s.Center)
	l := d.Len()
	if l == 0 {
		return -s.Radius, up
	}
	return l - s.Radius, d.Scale(1 / l)
}

// DistGradWithin returns DistGrad(p) and whether Dist(p) <= maxDist.
func (s Sphere) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	d, g := s.DistGrad(p)
	return within(d, g, maxDist)
}

// Bounds returns the sphere's bounding cube.
func (s Sphere) Bounds() (min, max vec.Vec3) {
	r := vec.Vec3{X: s.Radius, Y: s.Radius, Z: s.Radius}
	return s.Center.Sub(r), s.Center.Add(r)
}
