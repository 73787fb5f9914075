package bake

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// readPC2Frames reads a baked point cache back into drape's axes (the file
// holds Blender's: (x, -z, y)).
func readPC2Frames(t *testing.T, path string) [][]vec.Vec3 {
	t.Helper()
	pc, err := meshio.ReadPC2File(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]vec.Vec3, len(pc.Frames))
	for k, f := range pc.Frames {
		out[k] = make([]vec.Vec3, len(f))
		for i, p := range f {
			out[k][i] = vec.V(p.X, p.Z, -p.Y)
		}
	}
	return out
}

// TestCertificatePenetrationSite holds a cloth corner pinned inside a
// sphere: the certificate names that vertex, the frame and the sphere, with
// the depth the written point cache shows; the bound is exceeded (a
// warning) and a requirement on it is a gate.
func TestCertificatePenetrationSite(t *testing.T) {
	dir := t.TempDir()
	c, r := vec.V(-0.5, 0.6, -0.49), 0.05
	for _, tc := range []struct {
		require  float64
		wantFail bool
	}{{0.1, false}, {0.01, true}} {
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, 16, 1, 0.6)
		sc.Frames = 6
		sc.Pins = []PinSpec{{Indices: []int{0}}}
		sc.Colliders = []ColliderSpec{{Type: ColliderSphere, Center: &[3]float64{c.X, c.Y, c.Z}, Radius: r}}
		sc.Output = Outputs{filepath.Join(dir, "out.pc2")}
		sc.Require = &Requirements{Penetration: ptr(tc.require)}
		var warned []string
		rep, err := Run(context.Background(), sc, Options{Warn: func(s string) { warned = append(warned, s) }})
		if err != nil {
			t.Fatal(err)
		}
		q := rep.Quality.Checks[2]
		if q.Key != KeyPenetration || q.Frame == nil || len(q.Vertices) != 1 || q.Vertices[0] != 0 || q.Collider != "sphere colliders[0]" {
			t.Fatalf("penetration check = %+v, want vertex 0 in sphere colliders[0] at some frame", q)
		}
		frames := readPC2Frames(t, sc.Output[0])
		p := frames[*q.Frame][0]
		if depth := r - p.Sub(c).Len(); math.Abs(depth-q.Value) > 1e-6 {
			t.Errorf("penetration %.6f m at frame %d, but vertex 0 lies %.6f m inside the sphere in out.pc2", q.Value, *q.Frame, depth)
		}
		if d := p.Sub(vec.V(q.Position[0], q.Position[1], q.Position[2])).Len(); d > 1e-6 {
			t.Errorf("position %v is %.2g m from vertex 0 in out.pc2 (%v)", *q.Position, d, p)
		}
		if q.OK || rep.Quality.OK || q.Bound != round9(0.1*rep.Thickness) {
			t.Errorf("penetration %.4f m: ok %v (certificate %v), bound %v; want not ok against a tenth of the thickness %v", q.Value, q.OK, rep.Quality.OK, q.Bound, rep.Thickness)
		}
		if n := countContaining(warned, "(penetration_m)"); n != 1 || countContaining(rep.Warnings, "(penetration_m)") != 1 {
			t.Errorf("warnings %q (report %q): want one line on penetration_m in each", warned, rep.Warnings)
		}
		err = rep.RequirementError()
		want := fmt.Sprintf("penetration_m<=%g (measured 0.04 at frame %d, vertex 0 in sphere colliders[0])", tc.require, *q.Frame)
		var be *Error
		switch {
		case !tc.wantFail && err != nil:
			t.Errorf("require penetration_m <= %g: %v, want none", tc.require, err)
		case tc.wantFail && (!errors.As(err, &be) || be.Code != ExitRequirement || !strings.Contains(err.Error(), want)):
			t.Errorf("require penetration_m <= %g: error %v, want exit code 5 naming %q", tc.require, err, want)
		}
	}
}

func countContaining(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// TestCertificateIntersectionSite bakes two pinned sheets that cross each
// other, without self-collision: the certificate counts their crossing
// pairs as an independent brute-force test of the written point cache
// does, names a pair that really crosses, reports without failing (the
// note says why), and a requirement on it is still a gate.
func TestCertificateIntersectionSite(t *testing.T) {
	dir := t.TempDir()
	// a flat sheet at y = 0.5 and an upright one in the plane z = 0.031
	// through it, each n x n vertices, split into triangles explicitly;
	// the offsets keep every edge clear of the other sheet's edges, so the
	// cache's float32 rounding cannot change a count
	const n = 5
	var b strings.Builder
	var tris [][3]int
	sheet := func(first int, at func(i, j int) vec.Vec3) {
		for i := range n {
			for j := range n {
				p := at(i, j)
				fmt.Fprintf(&b, "v %g %g %g\n", p.X, p.Y, p.Z)
			}
		}
		for i := 0; i+1 < n; i++ {
			for j := 0; j+1 < n; j++ {
				a := first + i*n + j
				tris = append(tris, [3]int{a, a + n, a + n + 1}, [3]int{a, a + n + 1, a + 1})
			}
		}
	}
	sheet(0, func(i, j int) vec.Vec3 { return vec.V(-0.5+float64(j)/(n-1), 0.5, -0.5+float64(i)/(n-1)) })
	sheet(n*n, func(i, j int) vec.Vec3 { return vec.V(-0.317+0.6*float64(j)/(n-1), 0.833-0.6*float64(i)/(n-1), 0.031) })
	for _, t := range tris {
		fmt.Fprintf(&b, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	sc := DefaultScene()
	sc.Input = writeOBJ(t, dir, "crossed.obj", b.String())
	sc.Frames = 4
	sc.Pins = []PinSpec{{Box: []float64{-1, -1, -1, 1, 1, 1}}}
	sc.Output = Outputs{filepath.Join(dir, "out.pc2")}
	sc.Require = &Requirements{SelfIntersections: ptr(0)}
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := readPC2Frames(t, sc.Output[0])[sc.Frames-1]
	want := 0
	for a := range tris {
		for c := a + 1; c < len(tris); c++ {
			if !sharesVertex(tris[a], tris[c]) && crosses(last, tris[a], tris[c]) {
				want++
			}
		}
	}
	q := rep.Quality.Checks[3]
	if want == 0 {
		t.Fatal("the sheets do not cross in out.pc2: the test scene is broken")
	}
	if int(q.Value) != want || rep.SelfIntersections != want {
		t.Errorf("self_intersections = %v (report %d), want %d crossing pairs in the last frame of out.pc2", q.Value, rep.SelfIntersections, want)
	}
	if !q.OK || !strings.Contains(q.Note, "self-collision is off") || !rep.Quality.OK {
		t.Errorf("self_intersections without self-collision: ok %v, note %q, certificate ok %v; want reported, not checked", q.OK, q.Note, rep.Quality.OK)
	}
	if q.Frame == nil || *q.Frame != sc.Frames-1 || len(q.Vertices) != 6 {
		t.Fatalf("self_intersections site: frame %v, vertices %v; want the last frame and 3 + 3 vertices", q.Frame, q.Vertices)
	}
	var ta, tb [3]int
	for k := range 3 {
		ta[k], tb[k] = int(q.Vertices[k]), int(q.Vertices[3+k])
	}
	if !isTriangle(tris, ta) || !isTriangle(tris, tb) || !crosses(last, ta, tb) {
		t.Errorf("named pair %v, %v: not two triangles of the mesh crossing in the last frame", ta, tb)
	}
	if err := rep.RequirementError(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("self_intersections<=0 (measured %d at frame 3, triangles", want)) {
		t.Errorf("require self_intersections <= 0: %v, want it missed", err)
	}

	// with self-collision on every written frame is checked: the pinned
	// sheets cross from frame 0, and that is a defect
	sc.SelfCollision = true
	sc.Require = nil
	rep, err = Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q = rep.Quality.Checks[3]
	if int(q.Value) != want || q.OK || rep.Quality.OK || q.Frame == nil || *q.Frame != 0 || countContaining(rep.Warnings, "(self_intersections)") != 1 {
		t.Errorf("self-collision on: self_intersections %v at frame %v, ok %v, warnings %q; want %d at frame 0, not ok, one warning", q.Value, q.Frame, q.OK, rep.Warnings, want)
	}
	if rep.RequirementError() != nil {
		t.Errorf("no requirement given, but RequirementError = %v", rep.RequirementError())
	}
}

func sharesVertex(a, b [3]int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// isTriangle reports whether t's vertices are those of a triangle of tris
// (in any order).
func isTriangle(tris [][3]int, t [3]int) bool {
	for _, u := range tris {
		if sharesAll(u, t) {
			return true
		}
	}
	return false
}

func sharesAll(a, b [3]int) bool {
	for _, x := range a {
		if !sharesVertex([3]int{x, x, x}, b) {
			return false
		}
	}
	return true
}

// crosses reports whether an edge of either triangle passes through the
// other (Möller and Trumbore 1997, segment form).
func crosses(pos []vec.Vec3, a, b [3]int) bool {
	hit := func(p, q vec.Vec3, t [3]int) bool {
		v0, v1, v2 := pos[t[0]], pos[t[1]], pos[t[2]]
		d := q.Sub(p)
		e1, e2 := v1.Sub(v0), v2.Sub(v0)
		h := d.Cross(e2)
		det := e1.Dot(h)
		if math.Abs(det) < 1e-12 {
			return false
		}
		s := p.Sub(v0)
		u := s.Dot(h) / det
		qv := s.Cross(e1)
		v := d.Dot(qv) / det
		w := e2.Dot(qv) / det
		return u >= 0 && v >= 0 && u+v <= 1 && w >= 0 && w <= 1
	}
	for k := range 3 {
		if hit(pos[a[k]], pos[a[(k+1)%3]], b) || hit(pos[b[k]], pos[b[(k+1)%3]], a) {
			return true
		}
	}
	return false
}

// TestStrainBounds checks where the strain bounds come from: the preset,
// raised for a fabric made softer than it, and the loosest of the cloth's
// regions.
func TestStrainBounds(t *testing.T) {
	for _, tc := range []struct {
		spec          FabricSpec
		maxS, lastS   float64
		name, because string
	}{
		{FabricSpec{}, 0.02, 0.01, "cotton", "the default preset"},
		{FabricSpec{Preset: "rubber"}, 0.042, 0.021, "rubber", "an elastic preset's own bounds"},
		{FabricSpec{Preset: "cotton", Stretch: ptr(2.5e3)}, 0.08, 0.04, "cotton", "a quarter of cotton's stretch strains four times as far"},
		{FabricSpec{Preset: "cotton", Stretch: ptr(4e4)}, 0.02, 0.01, "cotton", "a stiffer cotton keeps the woven bounds"},
	} {
		f := tc.spec.Resolve()
		if math.Abs(f.MaxStrain-tc.maxS) > 1e-12 || math.Abs(f.LastStrain-tc.lastS) > 1e-12 || f.Name != tc.name {
			t.Errorf("%+v: %s bounds %g / %g, want %s %g / %g (%s)", tc.spec, f.Name, f.MaxStrain, f.LastStrain, tc.name, tc.maxS, tc.lastS, tc.because)
		}
	}
	rubber, _ := LookupPreset("rubber")
	j := &Job{Settings: &Settings{Fabric: FabricSpec{}.Resolve(), Regions: []RegionInfo{{Name: "band", Fabric: rubber}}}}
	if m, l, note := j.strainBounds(); m != 0.042 || l != 0.021 || !strings.Contains(note, "region band") {
		t.Errorf("cotton with a rubber region: bounds %g / %g (%q), want rubber's 0.042 / 0.021 naming the region", m, l, note)
	}
}
