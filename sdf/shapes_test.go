package sdf

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// shapeCase is an SDF with an independent inside test and a box to sample
// query points from.
type shapeCase struct {
	name     string
	s        SDF
	inside   func(p vec.Vec3) bool
	lo, hi   vec.Vec3 // sampling box
	unitGrad bool     // |Dist gradient| = 1 (false under non-uniform scale)
}

func segDist(p, a, b vec.Vec3) float64 {
	ab := b.Sub(a)
	h := math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/ab.LenSq()))
	return p.Sub(a.AddScaled(ab, h)).Len()
}

func shapeCases(t testing.TB) []shapeCase {
	sph := Sphere{Center: vec.V(0.1, 0.2, -0.3), Radius: 0.4}
	cap := Capsule{A: vec.V(-0.3, 0.1, 0.2), B: vec.V(0.4, 0.5, -0.1), Radius: 0.15}
	cone := CappedCone{A: vec.V(0.1, -0.3, 0.1), B: vec.V(-0.2, 0.4, 0.3), RA: 0.3, RB: 0.1}
	cyl := CappedCone{A: vec.V(0, 0, 0), B: vec.V(0, 0.5, 0), RA: 0.2, RB: 0.2}
	tip := CappedCone{A: vec.V(0, 0, 0), B: vec.V(0.3, 0.3, 0), RA: 0.25, RB: 0}
	pl := Plane{Normal: vec.V(0.3, 2, -0.5), Offset: 0.4}
	box := Box{Center: vec.V(0.2, -0.1, 0.3), Half: vec.V(0.3, 0.2, 0.4), Rounding: 0.05}
	sharp := Box{Center: vec.V(0, 0, 0), Half: vec.V(0.5, 0.1, 0.3)}
	coneIn := func(c CappedCone) func(vec.Vec3) bool {
		return func(p vec.Vec3) bool {
			ab := c.B.Sub(c.A)
			L := ab.Len()
			ax := ab.Scale(1 / L)
			y := p.Sub(c.A).Dot(ax)
			x := p.Sub(c.A).AddScaled(ax, -y).Len()
			return y > 0 && y < L && x < c.RA+(c.RB-c.RA)*y/L
		}
	}
	boxIn := func(b Box) func(vec.Vec3) bool {
		return func(p vec.Vec3) bool {
			l := p.Sub(b.Center)
			r := b.Rounding
			in := b.Half.Sub(vec.V(r, r, r))
			q := vec.V(math.Max(0, math.Abs(l.X)-in.X), math.Max(0, math.Abs(l.Y)-in.Y), math.Max(0, math.Abs(l.Z)-in.Z))
			return q.Len() < r || (r == 0 && q == vec.Vec3{})
		}
	}
	around := func(s SDF, pad float64) (vec.Vec3, vec.Vec3) {
		lo, hi := s.Bounds()
		e := hi.Sub(lo).Scale(pad)
		return lo.Sub(e), hi.Add(e)
	}
	m := vec.TRS(vec.V(0.5, -0.2, 1), vec.AxisAngle(vec.V(1, 2, 3), 0.8), vec.V(1.7, 1.7, 1.7))
	tcap, err := NewTransformed(cap, m)
	if err != nil {
		t.Fatal(err)
	}
	nu := vec.TRS(vec.V(0.1, 0, 0), vec.AxisAngle(vec.V(0, 1, 1), 0.5), vec.V(2, 0.5, 1))
	ell, err := NewTransformed(Sphere{Radius: 0.3}, nu)
	if err != nil {
		t.Fatal(err)
	}
	inv := nu.Inverse()
	var cs []shapeCase
	add := func(name string, s SDF, in func(vec.Vec3) bool, unit bool) {
		lo, hi := around(s, 0.4)
		cs = append(cs, shapeCase{name, s, in, lo, hi, unit})
	}
	add("sphere", sph, func(p vec.Vec3) bool { return p.Sub(sph.Center).Len() < sph.Radius }, true)
	add("capsule", cap, func(p vec.Vec3) bool { return segDist(p, cap.A, cap.B) < cap.Radius }, true)
	add("cone", cone, coneIn(cone), true)
	add("cylinder", cyl, coneIn(cyl), true)
	add("pointed cone", tip, coneIn(tip), true)
	add("rounded box", box, boxIn(box), true)
	add("box", sharp, boxIn(sharp), true)
	cs = append(cs, shapeCase{"plane", pl, func(p vec.Vec3) bool { return pl.Normal.Dot(p) < pl.Offset },
		vec.V(-2, -2, -2), vec.V(2, 2, 2), true})
	add("transformed capsule", tcap, func(p vec.Vec3) bool {
		return segDist(p, m.MulPoint(cap.A), m.MulPoint(cap.B)) < 1.7*cap.Radius
	}, true)
	add("ellipsoid", ell, func(p vec.Vec3) bool { return inv.MulPoint(p).Len() < 0.3 }, false)
	return cs
}

// TestShapeProperties checks every shape at seeded random points: gradient
// against central differences, unit gradient, projection onto the surface,
// sign against an independent inside test, bounds, and agreement of Dist,
// Grad, DistGrad and DistGradWithin.
func TestShapeProperties(t *testing.T) {
	for _, c := range shapeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			r := newRand(1)
			lo, hi := c.s.Bounds()
			fdBad := 0
			const n = 2000
			for i := 0; i < n; i++ {
				p := randIn(r, c.lo, c.hi)
				d, g := c.s.DistGrad(p)
				if d2 := c.s.Dist(p); d2 != d {
					t.Fatalf("%s.Dist%s = %v, DistGrad = %v", c.name, fmtV(p), d2, d)
				}
				if g2 := c.s.Grad(p); g2 != g {
					t.Fatalf("%s.Grad%s = %v, DistGrad = %v", c.name, fmtV(p), g2, g)
				}
				if l := g.Len(); math.Abs(l-1) > 1e-9 {
					t.Fatalf("%s |Grad%s| = %v, want 1", c.name, fmtV(p), l)
				}
				if in := c.inside(p); in != (d < 0) && math.Abs(d) > 1e-9 {
					t.Fatalf("%s.Dist%s = %v, but inside = %v", c.name, fmtV(p), d, in)
				}
				// gradient vs central difference (direction only under
				// non-uniform scale, where |∇Dist| != 1).
				const h = 1e-6
				fd := vec.V(
					c.s.Dist(p.Add(vec.V(h, 0, 0)))-c.s.Dist(p.Sub(vec.V(h, 0, 0))),
					c.s.Dist(p.Add(vec.V(0, h, 0)))-c.s.Dist(p.Sub(vec.V(0, h, 0))),
					c.s.Dist(p.Add(vec.V(0, 0, h)))-c.s.Dist(p.Sub(vec.V(0, 0, h))),
				).Scale(1 / (2 * h))
				if !c.unitGrad {
					fd = fd.Normalize()
				}
				if fd.Sub(g).Len() > 1e-4 {
					fdBad++ // a kink (medial surface) within h of p
				}
				// projection along the gradient lands on the surface.
				if c.unitGrad {
					q := p.AddScaled(g, -d)
					if dq := c.s.Dist(q); math.Abs(dq) > 1e-9*(1+math.Abs(d)) {
						t.Fatalf("%s: Dist(p - d grad) = %v at p = %s (d = %v), want 0", c.name, dq, fmtV(p), d)
					}
					if boxDistSq(q, lo, hi) > 1e-18 {
						t.Fatalf("%s: surface point %s outside Bounds [%s, %s]", c.name, fmtV(q), fmtV(lo), fmtV(hi))
					}
				}
				if d <= 0 && boxDistSq(p, lo, hi) > 0 {
					t.Fatalf("%s: inside point %s outside Bounds [%s, %s]", c.name, fmtV(p), fmtV(lo), fmtV(hi))
				}
				for _, band := range []float64{0.01, 0.1, 1} {
					dw, gw, ok := c.s.DistGradWithin(p, band)
					if ok != (d <= band) || (ok && (dw != d || gw != g)) || (!ok && dw < band) {
						t.Fatalf("%s.DistGradWithin(%s, %v) = %v, %v, %v; DistGrad = %v, %v", c.name, fmtV(p), band, dw, gw, ok, d, g)
					}
				}
			}
			if fdBad > n/500 {
				t.Errorf("%s: gradient differs from central difference at %d of %d points, want <= %d", c.name, fdBad, n, n/500)
			}
		})
	}
}

// TestDegenerateGradients checks the documented deterministic directions
// where the gradient is undefined.
func TestDegenerateGradients(t *testing.T) {
	cases := []struct {
		name string
		s    SDF
		p    vec.Vec3
		d    float64
		g    vec.Vec3
	}{
		{"sphere centre", Sphere{Center: vec.V(1, 2, 3), Radius: 0.5}, vec.V(1, 2, 3), -0.5, vec.V(0, 1, 0)},
		{"capsule axis", Capsule{A: vec.V(0, 0, 0), B: vec.V(1, 0, 0), Radius: 0.2}, vec.V(0.5, 0, 0), -0.2, vec.V(0, 1, 0)},
		{"vertical capsule axis", Capsule{A: vec.V(0, 0, 0), B: vec.V(0, 1, 0), Radius: 0.2}, vec.V(0, 0.5, 0), -0.2, vec.V(1, 0, 0)},
		{"cone axis near cap", CappedCone{A: vec.V(0, 0, 0), B: vec.V(0, 0, 1), RA: 0.5, RB: 0.5}, vec.V(0, 0, 0.1), -0.1, vec.V(0, 0, -1)},
		{"cone axis to side", CappedCone{A: vec.V(0, 0, 0), B: vec.V(1, 0, 0), RA: 0.2, RB: 0.2}, vec.V(0.5, 0, 0), -0.2, vec.V(0, 1, 0)},
		{"box centre", Box{Half: vec.V(1, 1, 1)}, vec.V(0, 0, 0), -1, vec.V(1, 0, 0)},
		{"box tie y z", Box{Half: vec.V(2, 1, 1)}, vec.V(0, 0, 0), -1, vec.V(0, 1, 0)},
	}
	for _, c := range cases {
		d, g := c.s.DistGrad(c.p)
		if math.Abs(d-c.d) > 1e-12 || g.Sub(c.g).Len() > 1e-12 {
			t.Errorf("%s: DistGrad%s = %v, %s, want %v, %s", c.name, fmtV(c.p), d, fmtV(g), c.d, fmtV(c.g))
		}
	}
}

// TestConeMatchesCylinderAndSphere checks the capped cone against shapes
// with known distances: a cylinder's side and caps, and a cone's apex.
func TestConeKnownValues(t *testing.T) {
	cyl := CappedCone{A: vec.V(0, 0, 0), B: vec.V(0, 2, 0), RA: 1, RB: 1}
	tip := CappedCone{A: vec.V(0, 0, 0), B: vec.V(0, 1, 0), RA: 1, RB: 0}
	cases := []struct {
		name string
		s    CappedCone
		p    vec.Vec3
		want float64
	}{
		{"cylinder side", cyl, vec.V(3, 1, 0), 2},
		{"cylinder above", cyl, vec.V(0.5, 3, 0), 1},
		{"cylinder below", cyl, vec.V(0, -0.5, 0.5), 0.5},
		{"cylinder rim", cyl, vec.V(4, 6, 0), 5},
		{"cylinder inside side", cyl, vec.V(0.9, 1, 0), -0.1},
		{"cylinder inside cap", cyl, vec.V(0, 1.95, 0), -0.05},
		{"cone apex", tip, vec.V(0, 3, 0), 2},
		{"cone side", tip, vec.V(1, 1, 0), math.Sqrt(0.5)},
		{"cone base", tip, vec.V(0.2, -1, 0), 1},
	}
	for _, c := range cases {
		if got := c.s.Dist(c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: CappedCone.Dist%s = %v, want %v", c.name, fmtV(c.p), got, c.want)
		}
	}
}
