package sdf

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// TestTransformedMatchesMovedShape: a shape under rotation, translation
// and uniform scale equals the analytic shape built at the moved place.
func TestTransformedMatchesMovedShape(t *testing.T) {
	m := vec.TRS(vec.V(0.3, -1, 2), vec.AxisAngle(vec.V(-1, 2, 0.5), 2.1), vec.V(0.6, 0.6, 0.6))
	cap := Capsule{A: vec.V(0, 0, 0), B: vec.V(0, 1, 0.2), Radius: 0.3}
	cone := CappedCone{A: vec.V(0.1, 0, 0), B: vec.V(0, 0.8, 0), RA: 0.4, RB: 0.1}
	rotY := vec.TRS(vec.V(1, 0, 0), vec.AxisAngle(vec.V(0, 1, 0), math.Pi/2), vec.V(1, 1, 1))
	cases := []struct {
		name   string
		local  SDF
		m      vec.Mat4
		moved  SDF
		sample float64
	}{
		{"sphere", Sphere{Center: vec.V(0.2, 0, 0), Radius: 0.5}, m, Sphere{Center: m.MulPoint(vec.V(0.2, 0, 0)), Radius: 0.3}, 2},
		{"capsule", cap, m, Capsule{A: m.MulPoint(cap.A), B: m.MulPoint(cap.B), Radius: 0.18}, 2},
		{"cone", cone, m, CappedCone{A: m.MulPoint(cone.A), B: m.MulPoint(cone.B), RA: 0.24, RB: 0.06}, 2},
		{"box turned 90 degrees", Box{Half: vec.V(0.5, 0.2, 0.1), Rounding: 0.05}, rotY, Box{Center: vec.V(1, 0, 0), Half: vec.V(0.1, 0.2, 0.5), Rounding: 0.05}, 1},
		{"plane", Plane{Normal: vec.V(0, 1, 0), Offset: 0.5}, m, Plane{Normal: m.MulNormal(vec.V(0, 1, 0)), Offset: m.MulNormal(vec.V(0, 1, 0)).Dot(m.MulPoint(vec.V(0, 0.5, 0)))}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := NewTransformed(c.local, c.m)
			if err != nil {
				t.Fatal(err)
			}
			r := newRand(7)
			s := c.sample
			for i := 0; i < 1000; i++ {
				p := randIn(r, vec.V(-s, -s-1, -s+2), vec.V(s, s-1, s+2))
				d, g := tr.DistGrad(p)
				wd, wg := c.moved.DistGrad(p)
				if math.Abs(d-wd) > 1e-9 {
					t.Fatalf("Transformed(%s).Dist%s = %v, moved shape %v", c.name, fmtV(p), d, wd)
				}
				if math.Abs(wd) > 1e-6 && g.Sub(wg).Len() > 1e-6 {
					t.Fatalf("Transformed(%s).Grad%s = %s, moved shape %s", c.name, fmtV(p), fmtV(g), fmtV(wg))
				}
			}
			lo, hi := tr.Bounds()
			mlo, mhi := c.moved.Bounds()
			if _, ok := c.moved.(Plane); !ok && (boxDistSq(mlo, lo, hi) > 1e-18 || boxDistSq(mhi, lo, hi) > 1e-18) {
				t.Errorf("Transformed(%s).Bounds = [%s, %s] does not contain the moved shape's [%s, %s]", c.name, fmtV(lo), fmtV(hi), fmtV(mlo), fmtV(mhi))
			}
		})
	}
}

// TestTransformedNonUniformBound: an ellipsoid (a scaled sphere) returns
// the exact sign and a distance within the documented bound of the true
// distance, estimated from dense surface samples.
func TestTransformedNonUniformBound(t *testing.T) {
	m := vec.TRS(vec.V(0, 0.5, 0), vec.AxisAngle(vec.V(1, 0, 1), 0.4), vec.V(1.5, 0.5, 1))
	tr, err := NewTransformed(Sphere{Radius: 1}, m)
	if err != nil {
		t.Fatal(err)
	}
	sMin, sMax := tr.ScaleRange()
	if math.Abs(sMin-0.5) > 1e-12 || math.Abs(sMax-1.5) > 1e-12 {
		t.Fatalf("ScaleRange = %v, %v, want 0.5, 1.5", sMin, sMax)
	}
	// surface samples on a latitude-longitude grid.
	var surf []vec.Vec3
	for i := 0; i <= 200; i++ {
		th := math.Pi * float64(i) / 200
		for j := 0; j < 400; j++ {
			ph := 2 * math.Pi * float64(j) / 400
			surf = append(surf, m.MulPoint(vec.V(math.Sin(th)*math.Cos(ph), math.Cos(th), math.Sin(th)*math.Sin(ph))))
		}
	}
	inv := m.Inverse()
	r := newRand(8)
	for i := 0; i < 200; i++ {
		p := randIn(r, vec.V(-2.5, -1.5, -2.5), vec.V(2.5, 2.5, 2.5))
		d := tr.Dist(p)
		if in := inv.MulPoint(p).Len() < 1; in != (d < 0) {
			t.Fatalf("ellipsoid Dist%s = %v, inside = %v", fmtV(p), d, in)
		}
		est := math.Inf(1) // >= true distance, within the sampling error
		for _, q := range surf {
			est = math.Min(est, p.Sub(q).Len())
		}
		const sampling = 0.02
		if math.Abs(d) > est+1e-9 || math.Abs(d) < sMin/sMax*(est-sampling) {
			t.Fatalf("ellipsoid |Dist%s| = %v, want in [%v, %v] x true (~%v)", fmtV(p), math.Abs(d), sMin/sMax, 1.0, est)
		}
	}
}

// TestNewTransformedErrors: singular, non-finite and non-affine matrices
// and a nil shape are rejected.
func TestNewTransformedErrors(t *testing.T) {
	nan := vec.Identity()
	nan[1][3] = math.NaN()
	proj := vec.Identity()
	proj[3][0] = 1
	cases := []struct {
		name  string
		shape SDF
		m     vec.Mat4
	}{
		{"nil shape", nil, vec.Identity()},
		{"zero scale", Sphere{Radius: 1}, vec.ScaleMat(vec.V(1, 0, 1))},
		{"NaN", Sphere{Radius: 1}, nan},
		{"projective", Sphere{Radius: 1}, proj},
	}
	for _, c := range cases {
		if _, err := NewTransformed(c.shape, c.m); err == nil {
			t.Errorf("NewTransformed(%s) error = nil, want an error", c.name)
		}
	}
}

// TestTransformedMeshWithin: a moved mesh's band query scales the band.
func TestTransformedMeshWithin(t *testing.T) {
	pos, tris := cubeMesh(vec.V(0.5, 0.5, 0.5))
	mesh := mustMesh(t, pos, tris)
	tr, err := NewTransformed(mesh, vec.TRS(vec.V(0, 1, 0), vec.AxisAngle(vec.V(0, 1, 0), 0.3), vec.V(2, 2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// the moved cube spans y in [0, 2]; a point 0.1 above its top face.
	p := vec.V(0, 2.1, 0)
	if d, g, ok := tr.DistGradWithin(p, 0.2); !ok || math.Abs(d-0.1) > 1e-12 || g.Sub(vec.V(0, 1, 0)).Len() > 1e-12 {
		t.Errorf("DistGradWithin(%s, 0.2) = %v, %s, %v, want 0.1, (0,1,0), true", fmtV(p), d, fmtV(g), ok)
	}
	if d, _, ok := tr.DistGradWithin(p, 0.05); ok || d < 0.05 {
		t.Errorf("DistGradWithin(%s, 0.05) = %v, %v, want a bound >= 0.05, false", fmtV(p), d, ok)
	}
}
