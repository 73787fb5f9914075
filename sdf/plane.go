package sdf

import "github.com/drape-sim/drape/internal/vec"

// Plane is the half-space n·p <= Offset: points with Normal·p >= Offset
// are outside. Normal need not be unit length; the distance is divided by
// its length, so Offset is in metres times |Normal|.
type Plane struct {
	Normal vec.Vec3
	Offset float64
}

// Dist returns (Normal·p - Offset) / |Normal| [m].
func (pl Plane) Dist(p vec.Vec3) float64 { d, _ := pl.DistGrad(p); return d }

// Grad returns the unit normal.
func (pl Plane) Grad(p vec.Vec3) vec.Vec3 { _, g := pl.DistGrad(p); return g }

// DistGrad returns Dist(p) and Grad(p).
func (pl Plane) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	il := 1 / pl.Normal.Len()
	return (pl.Normal.Dot(p) - pl.Offset) * il, pl.Normal.Scale(il)
}

// DistGradWithin returns DistGrad(p) and whether Dist(p) <= maxDist.
func (pl Plane) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	d, g := pl.DistGrad(p)
	return within(d, g, maxDist)
}

// Bounds returns infinite bounds: a half-space is unbounded.
func (pl Plane) Bounds() (min, max vec.Vec3) { return infBounds() }
