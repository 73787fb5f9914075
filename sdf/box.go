package sdf

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Box is an axis-aligned box around Center [m] with half extents Half [m]
// and edges and corners rounded with radius Rounding [m] (0 for a sharp
// box). The rounding is carved from inside, so the box still spans
// Center ± Half; Rounding should not exceed the smallest half extent.
// Rotate it with Transformed.
type Box struct {
	Center, Half vec.Vec3
	Rounding     float64
}

// Dist returns the signed distance [m] to the rounded box (after
// I. Quilez, "distance functions", sdRoundBox).
func (b Box) Dist(p vec.Vec3) float64 { d, _ := b.DistGrad(p); return d }

// Grad returns the outward unit gradient; on the inner medial surface it
// takes the first of X, Y, Z among the nearest faces.
func (b Box) Grad(p vec.Vec3) vec.Vec3 { _, g := b.DistGrad(p); return g }

// DistGrad returns Dist(p) and Grad(p).
func (b Box) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	r := b.Rounding
	l := p.Sub(b.Center)
	// q: distance of |l| beyond the inner (unrounded) box, per axis.
	sx, sy, sz := sign(l.X), sign(l.Y), sign(l.Z)
	qx := math.Abs(l.X) - b.Half.X + r
	qy := math.Abs(l.Y) - b.Half.Y + r
	qz := math.Abs(l.Z) - b.Half.Z + r
	if qx > 0 || qy > 0 || qz > 0 {
		o := vec.Vec3{X: math.Max(qx, 0) * sx, Y: math.Max(qy, 0) * sy, Z: math.Max(qz, 0) * sz}
		n := o.Len()
		return n - r, o.Scale(1 / n)
	}
	// inside the inner box: the nearest face is the largest q.
	switch {
	case qx >= qy && qx >= qz:
		return qx - r, vec.Vec3{X: sx}
	case qy >= qz:
		return qy - r, vec.Vec3{Y: sy}
	}
	return qz - r, vec.Vec3{Z: sz}
}

// DistGradWithin returns DistGrad(p) and whether Dist(p) <= maxDist.
func (b Box) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	d, g := b.DistGrad(p)
	return within(d, g, maxDist)
}

// Bounds returns Center ± Half.
func (b Box) Bounds() (min, max vec.Vec3) { return b.Center.Sub(b.Half), b.Center.Add(b.Half) }

// sign returns -1 for negative x and +1 otherwise (also for zero).
func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
