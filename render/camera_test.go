package render

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func TestProject(t *testing.T) {
	// 90° vertical field of view: tan = 1; 200x100 image: tanX = 2
	cam := Camera{Eye: vec.V(0, 0, 5), Target: vec.Vec3{}, FovY: 90, Near: 0.1}
	for _, tc := range []struct {
		p           vec.Vec3
		x, y, depth float64
		ok          bool
	}{
		{vec.V(0, 0, 0), 100, 50, 5, true},
		{vec.V(1, 0, 0), 110, 50, 5, true},     // right
		{vec.V(0, 1, 0), 100, 40, 5, true},     // up is towards y = 0
		{vec.V(0, 0, 4), 100, 50, 1, true},     // nearer
		{vec.V(2, 0, 4), 200, 50, 1, true},     // right edge at depth 1
		{vec.V(0, 0, 6), 0, 0, -1, false},      // behind
		{vec.V(0, 0, 4.95), 0, 0, 0.05, false}, // inside the near plane
	} {
		x, y, d, ok := cam.Project(tc.p, 200, 100)
		if ok != tc.ok || math.Abs(d-tc.depth) > 1e-9 || (ok && (math.Abs(x-tc.x) > 1e-9 || math.Abs(y-tc.y) > 1e-9)) {
			t.Errorf("Project(%v) = (%.3f, %.3f, %.3f, %v), want (%v, %v, %v, %v)", tc.p, x, y, d, ok, tc.x, tc.y, tc.depth, tc.ok)
		}
	}
	if _, _, _, ok := cam.Project(vec.V(math.NaN(), 0, 0), 200, 100); ok {
		t.Errorf("Project(NaN) ok = true, want false")
	}
}

// TestAutoCamera checks that the camera frames the box tightly from the
// front-right, looking down, for various boxes and aspects.
func TestAutoCamera(t *testing.T) {
	for _, tc := range []struct {
		name     string
		min, max vec.Vec3
	}{
		{"cube", vec.V(-1, -1, -1), vec.V(1, 1, 1)},
		{"flat cloth", vec.V(-1.2, 2, -1.2), vec.V(1.2, 2, 1.2)},
		{"tall thin", vec.V(-0.1, 0, -0.1), vec.V(0.1, 3, 0.1)},
		{"far off centre", vec.V(1000, 50, -2000), vec.V(1001, 52, -1999)},
		{"handkerchief", vec.V(0, 0, 0), vec.V(0.2, 0.01, 0.2)},
		{"point", vec.V(3, 3, 3), vec.V(3, 3, 3)},
	} {
		for _, aspect := range []float64{4.0 / 3, 1, 0.5, 2.5} {
			w, h := int(math.Round(480*aspect)), 480
			cam := AutoCamera(tc.min, tc.max, aspect)
			if !(cam.Eye.Y > cam.Target.Y && cam.Eye.X > cam.Target.X && cam.Eye.Z > cam.Target.Z) {
				t.Errorf("AutoCamera(%s) eye %v, target %v: want above, right and in front", tc.name, cam.Eye, cam.Target)
			}
			lo, hi := vec.V(math.Inf(1), math.Inf(1), 0), vec.V(math.Inf(-1), math.Inf(-1), 0)
			for i := 0; i < 8; i++ {
				p := vec.V(pick(i&1, tc.min.X, tc.max.X), pick(i&2, tc.min.Y, tc.max.Y), pick(i&4, tc.min.Z, tc.max.Z))
				x, y, _, ok := cam.Project(p, w, h)
				if !ok || x < 0 || x > float64(w) || y < 0 || y > float64(h) {
					t.Errorf("AutoCamera(%s, aspect %.2f): corner %v at (%.1f, %.1f) ok %v, want inside %dx%d",
						tc.name, aspect, p, x, y, ok, w, h)
				}
				lo, hi = lo.Min(vec.V(x, y, 0)), hi.Max(vec.V(x, y, 0))
			}
			// tight: the box spans at least 70 % of the width or the height
			if fx, fy := (hi.X-lo.X)/float64(w), (hi.Y-lo.Y)/float64(h); tc.name != "point" && fx < 0.7 && fy < 0.7 {
				t.Errorf("AutoCamera(%s, aspect %.2f) box spans %.2f x %.2f of the image, want >= 0.7 one way", tc.name, aspect, fx, fy)
			}
		}
	}
	// bad input falls back instead of producing NaN
	for _, c := range []Camera{
		AutoCamera(vec.V(math.NaN(), 0, 0), vec.V(1, 1, 1), 1),
		AutoCamera(vec.V(1, 1, 1), vec.V(-1, -1, -1), math.NaN()),
		AutoCamera(vec.V(0, 0, 0), vec.V(1, 1, 1), 0),
	} {
		if !c.Eye.IsFinite() || !c.Target.IsFinite() || !(c.Near > 0) {
			t.Errorf("AutoCamera(bad input) = %+v, want a finite camera", c)
		}
	}
}

func TestBounds(t *testing.T) {
	lo, hi, ok := Bounds([]vec.Vec3{{X: 1, Y: 2, Z: 3}, {X: math.NaN()}, {X: -1, Y: 5, Z: 0}})
	if !ok || lo != vec.V(-1, 2, 0) || hi != vec.V(1, 5, 3) {
		t.Errorf("Bounds = %v, %v, %v, want (-1,2,0), (1,5,3), true", lo, hi, ok)
	}
	if _, _, ok := Bounds([]vec.Vec3{{X: math.Inf(1)}}); ok {
		t.Errorf("Bounds(only Inf) ok = true, want false")
	}
	s := &Scene{Cloth: drapedCloth(5), Extras: []Surface{{}, sphereMesh(vec.V(0, -3, 0), 1, 4, 8)}}
	lo, _, ok = SceneBounds(s)
	if !ok || math.Abs(lo.Y-(-4)) > 1e-9 {
		t.Errorf("SceneBounds lowest = %v, ok %v, want -4 (the sphere's bottom)", lo.Y, ok)
	}
}
