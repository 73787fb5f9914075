package sdf

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// CappedCone is a cone frustum with flat caps: radius RA [m] at end A and
// RB [m] at end B. RA = RB gives a cylinder, and either radius may be 0.
type CappedCone struct {
	A, B   vec.Vec3
	RA, RB float64
}

// Dist returns the exact signed distance [m] (the capped-cone form of
// I. Quilez, "distance functions", sdCappedCone, evaluated in the 2D
// half-plane (radial distance x, axial coordinate) that contains p).
func (c CappedCone) Dist(p vec.Vec3) float64 { d, _ := c.DistGrad(p); return d }

// Grad returns the outward unit gradient. On the axis the radial direction
// is +Y projected off the axis; on the inner medial surface the nearest cap
// wins a tie with the side.
func (c CappedCone) Grad(p vec.Vec3) vec.Vec3 { _, g := c.DistGrad(p); return g }

// DistGrad returns Dist(p) and Grad(p).
func (c CappedCone) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	ba := c.B.Sub(c.A)
	baba := ba.Dot(ba)
	if baba == 0 {
		// A zero-length cone is a flat disc; treat it as a sphere of the
		// larger radius so the result stays finite.
		return Sphere{Center: c.A, Radius: math.Max(c.RA, c.RB)}.DistGrad(p)
	}
	L := math.Sqrt(baba)
	axis := ba.Scale(1 / L)
	pa := p.Sub(c.A)
	y := pa.Dot(axis) // axial coordinate [m], 0 at A, L at B
	radial := pa.AddScaled(axis, -y)
	x := radial.Len() // radial distance [m]
	var rhat vec.Vec3
	if x > 0 {
		rhat = radial.Scale(1 / x)
	} else {
		rhat = perpendicular(axis)
	}
	t := y / L
	rba := c.RB - c.RA

	// cap candidate: nearest cap disc (A's below the middle, B's above).
	capR, capSide := c.RA, -1.0
	if t >= 0.5 {
		capR, capSide = c.RB, 1.0
	}
	cax := math.Max(0, x-capR)
	cay := (math.Abs(t-0.5) - 0.5) * L // signed axial distance beyond the cap [m]

	// side candidate: nearest point of the slanted side segment
	// (RA, 0)-(RB, L) in the (x, y) half-plane.
	f := (rba*(x-c.RA) + y*L) / (rba*rba + baba)
	f = math.Max(0, math.Min(1, f))
	cbx := x - c.RA - f*rba
	cby := y - f*L

	s := 1.0
	if cbx < 0 && cay < 0 {
		s = -1
	}
	dCap := cax*cax + cay*cay
	dSide := cbx*cbx + cby*cby
	if dCap <= dSide {
		d := math.Sqrt(dCap)
		if d == 0 {
			return 0, axis.Scale(capSide)
		}
		// (cax, cay) points from the cap's nearest point to p; cay is
		// measured outward from the cap.
		g := rhat.Scale(cax).AddScaled(axis, cay*capSide).Scale(s / d)
		return s * d, g
	}
	d := math.Sqrt(dSide)
	if d == 0 {
		// on the side: its outward normal in the (x, y) half-plane.
		n := math.Hypot(L, rba)
		return 0, rhat.Scale(L/n).AddScaled(axis, -rba/n)
	}
	g := rhat.Scale(cbx).AddScaled(axis, cby).Scale(s / d)
	return s * d, g
}

// DistGradWithin returns DistGrad(p) and whether Dist(p) <= maxDist.
func (c CappedCone) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	d, g := c.DistGrad(p)
	return within(d, g, maxDist)
}

// Bounds returns the box around both cap discs.
func (c CappedCone) Bounds() (min, max vec.Vec3) {
	// A disc of radius r with unit normal a spans r*sqrt(1 - a_i^2) along
	// axis i.
	a := c.B.Sub(c.A).Normalize()
	e := vec.Vec3{X: math.Sqrt(math.Max(0, 1-a.X*a.X)), Y: math.Sqrt(math.Max(0, 1-a.Y*a.Y)), Z: math.Sqrt(math.Max(0, 1-a.Z*a.Z))}
	if a.LenSq() == 0 {
		e = vec.Vec3{X: 1, Y: 1, Z: 1}
	}
	ea, eb := e.Scale(c.RA), e.Scale(c.RB)
	return c.A.Sub(ea).Min(c.B.Sub(eb)), c.A.Add(ea).Max(c.B.Add(eb))
}
