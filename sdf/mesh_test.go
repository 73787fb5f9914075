package sdf

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func mustMesh(t testing.TB, pos []vec.Vec3, tris [][3]int32) *Mesh {
	t.Helper()
	m, err := NewMesh(pos, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMeshCubeMatchesBox: the 12-triangle cube has exactly the sharp box's
// signed distance, including near its edges and corners, where only the
// edge and vertex pseudo-normals give the right sign.
func TestMeshCubeMatchesBox(t *testing.T) {
	h := vec.V(0.5, 0.3, 0.2)
	pos, tris := cubeMesh(h)
	box := Box{Half: h}
	for _, wind := range []string{"outward", "inside-out"} {
		tt := tris
		if wind == "inside-out" {
			tt = nil
			for _, tr := range tris {
				tt = append(tt, [3]int32{tr[0], tr[2], tr[1]})
			}
		}
		m := mustMesh(t, pos, tt)
		r := newRand(2)
		check := func(p vec.Vec3) {
			d, g := m.DistGrad(p)
			bd, bg := box.DistGrad(p)
			if math.Abs(d-bd) > 1e-12 {
				t.Fatalf("%s cube: Mesh.Dist%s = %v, Box.Dist = %v", wind, fmtV(p), d, bd)
			}
			// the gradient is only unique off the medial surface, and
			// rounding dominates it very close to the surface.
			if bd > 1e-5 && g.Sub(bg).Len() > 1e-9 {
				t.Fatalf("%s cube: Mesh.Grad%s = %s, Box.Grad = %s", wind, fmtV(p), fmtV(g), fmtV(bg))
			}
		}
		for i := 0; i < 2000; i++ {
			check(randIn(r, vec.V(-1, -1, -1), vec.V(1, 1, 1)))
		}
		// near every corner and edge midpoint, just inside and outside.
		for _, c := range pos {
			for _, s := range []float64{1e-3, 1e-6} {
				for i := 0; i < 50; i++ {
					check(c.AddScaled(randDir(r), s))
				}
			}
			for _, o := range pos {
				if diff := c.Sub(o); countZero(diff) == 2 {
					mid := c.Add(o).Scale(0.5)
					for i := 0; i < 20; i++ {
						check(mid.AddScaled(randDir(r), 1e-5))
					}
				}
			}
		}
	}
}

func countZero(v vec.Vec3) int {
	n := 0
	for _, x := range []float64{v.X, v.Y, v.Z} {
		if x == 0 {
			n++
		}
	}
	return n
}

// TestMeshSphereMatchesAnalytic: an icosphere's distance differs from the
// unit sphere's by at most the gap between the sphere and the polyhedron
// (1 - the inradius of its flattest face).
func TestMeshSphereMatchesAnalytic(t *testing.T) {
	pos, tris := icosphere(3)
	m := mustMesh(t, pos, tris)
	gap := 0.0
	for _, tr := range tris {
		n := pos[tr[1]].Sub(pos[tr[0]]).Cross(pos[tr[2]].Sub(pos[tr[0]])).Normalize()
		gap = math.Max(gap, 1-n.Dot(pos[tr[0]]))
	}
	sph := Sphere{Radius: 1}
	r := newRand(3)
	for i := 0; i < 3000; i++ {
		p := randIn(r, vec.V(-1.6, -1.6, -1.6), vec.V(1.6, 1.6, 1.6))
		d, g := m.DistGrad(p)
		sd := sph.Dist(p)
		if math.Abs(d-sd) > gap+1e-12 {
			t.Fatalf("icosphere Dist%s = %v, sphere = %v, want within %v", fmtV(p), d, sd, gap)
		}
		if math.Abs(g.Len()-1) > 1e-9 {
			t.Fatalf("icosphere |Grad%s| = %v", fmtV(p), g.Len())
		}
		if q := p.AddScaled(g, -d); math.Abs(m.Dist(q)) > 1e-9 {
			t.Fatalf("icosphere: Dist(p - d grad) = %v at p = %s", m.Dist(q), fmtV(p))
		}
	}
	if gap > 0.01 {
		t.Errorf("icosphere(3) gap = %v, want a fine mesh (< 0.01)", gap)
	}
}

// TestMeshErrors: bad input gives the documented error kinds.
func TestMeshErrors(t *testing.T) {
	pos, tris := cubeMesh(vec.V(1, 1, 1))
	flipped := append([][3]int32(nil), tris...)
	flipped[3] = [3]int32{tris[3][0], tris[3][2], tris[3][1]}
	extra := append(append([][3]int32(nil), tris...), [3]int32{0, 4, 7})
	zeroArea := append([]vec.Vec3(nil), pos...)
	zeroArea = append(zeroArea, vec.V(1, 1, 3))
	nan := append([]vec.Vec3(nil), pos...)
	nan[2] = vec.V(math.NaN(), 0, 0)
	cases := []struct {
		name string
		pos  []vec.Vec3
		tris [][3]int32
		want error
	}{
		{"empty", pos, nil, ErrDegenerate},
		{"index out of range", pos, append(append([][3]int32(nil), tris...), [3]int32{0, 1, 8}), ErrDegenerate},
		{"negative index", pos, [][3]int32{{0, 1, -1}}, ErrDegenerate},
		{"repeated vertex", pos, [][3]int32{{0, 1, 1}}, ErrDegenerate},
		{"zero area", zeroArea, [][3]int32{{0, 4, 4}, {0, 1, 3}}, ErrDegenerate},
		{"collinear", []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(2, 0, 0)}, [][3]int32{{0, 1, 2}}, ErrDegenerate},
		{"not finite", nan, tris, ErrDegenerate},
		{"open", pos, tris[1:], ErrNotClosed},
		{"three triangles on an edge", pos, extra, ErrNonManifold},
		{"inconsistent winding", pos, flipped, ErrNonManifold},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewMesh(c.pos, c.tris)
			if !errors.Is(err, c.want) {
				t.Errorf("NewMesh(%s) error = %v, want %v", c.name, err, c.want)
			}
		})
	}
}

// TestMeshTableThinTop: the 1 cm table top is solid between y = ±5 mm,
// with the right sign and gradient just above, below and inside it, near
// the centre and near the rim.
func TestMeshTableThinTop(t *testing.T) {
	pos, tris := loadOBJ(t, "testdata/table2.obj", 1)
	m := mustMesh(t, pos, tris)
	if n := m.NumTriangles(); n != 1020 {
		t.Fatalf("table2.obj triangles = %d, want 1020", n)
	}
	cases := []struct {
		p    vec.Vec3
		d    float64
		g    vec.Vec3
		tolD float64
	}{
		{vec.V(0, 0.006, 0), 0.001, vec.V(0, 1, 0), 1e-9},
		{vec.V(0.1, 0.0051, -0.2), 0.0001, vec.V(0, 1, 0), 1e-9},
		{vec.V(0.2, 0.004, 0.1), -0.001, vec.V(0, 1, 0), 1e-9},
		{vec.V(0.2, -0.004, 0.1), -0.001, vec.V(0, -1, 0), 1e-9},
		{vec.V(-0.3, -0.0055, 0.3), 0.0005, vec.V(0, -1, 0), 1e-9},
		{vec.V(0.45, 0.0049, 0), -0.0001, vec.V(0, 1, 0), 1e-9},
		{vec.V(0, 0.3, 0), 0.295, vec.V(0, 1, 0), 1e-9},
		// beyond the rim, at mid-thickness: about 1 cm from the side.
		{vec.V(0.51, 0, 0), 0.01, vec.V(1, 0, 0), 1e-3},
		// just inside the rim, at mid-thickness.
		{vec.V(0, 0, -0.4985), -0.0015, vec.V(0, 0, -1), 2e-4},
	}
	for _, c := range cases {
		d, g := m.DistGrad(c.p)
		if math.Abs(d-c.d) > c.tolD || g.Sub(c.g).Len() > 0.05 {
			t.Errorf("table Dist%s = %.6g, %s, want %.6g, %s", fmtV(c.p), d, fmtV(g), c.d, fmtV(c.g))
		}
	}
	// random points in the slab and around it: sign by ray parity.
	r := newRand(4)
	for i := 0; i < 500; i++ {
		p := randIn(r, vec.V(-0.55, -0.008, -0.55), vec.V(0.55, 0.008, 0.55))
		d := m.Dist(p)
		if in := insideByParity(p, pos, tris); in != (d < 0) {
			t.Fatalf("table Dist%s = %v, ray parity inside = %v", fmtV(p), d, in)
		}
	}
}

// TestMeshBodyBruteForce: on the MakeHuman body (27k triangles, metres) the
// BVH distance equals a brute-force scan, the sign agrees with ray parity,
// also within 0.1 mm of vertices, and DistGradWithin agrees with DistGrad.
func TestMeshBodyBruteForce(t *testing.T) {
	pos, tris, m := bodyMesh(t)
	if n := m.NumTriangles(); n != 27300 {
		t.Fatalf("male_generic.obj triangles = %d, want 27300", n)
	}
	lo, hi := m.Bounds()
	pad := vec.V(0.1, 0.1, 0.1)
	r := newRand(5)
	var pts []vec.Vec3
	for i := 0; i < 120; i++ {
		pts = append(pts, randIn(r, lo.Sub(pad), hi.Add(pad)))
	}
	for i := 0; i < 120; i++ {
		v := pos[r.IntN(len(pos))]
		pts = append(pts, v.AddScaled(randDir(r), 1e-4), v.AddScaled(randDir(r), 0.01))
	}
	nIn := 0
	for _, p := range pts {
		d, g := m.DistGrad(p)
		bf := bruteDist(p, pos, tris)
		if math.Abs(math.Abs(d)-bf) > 1e-12 {
			t.Fatalf("body |Dist%s| = %v, brute force %v", fmtV(p), math.Abs(d), bf)
		}
		in := insideByParity(p, pos, tris)
		if in != (d < 0) {
			t.Fatalf("body Dist%s = %v, ray parity inside = %v", fmtV(p), d, in)
		}
		if in {
			nIn++
		}
		if math.Abs(g.Len()-1) > 1e-9 {
			t.Fatalf("body |Grad%s| = %v", fmtV(p), g.Len())
		}
		for _, band := range []float64{0.001, 0.005, 0.05} {
			dw, gw, ok := m.DistGradWithin(p, band)
			if ok != (d <= band) || (ok && (dw != d || gw != g)) || (!ok && (dw < band || dw > d+1e-12)) {
				t.Fatalf("body DistGradWithin(%s, %v) = %v, %s, %v; DistGrad = %v, %s", fmtV(p), band, dw, fmtV(gw), ok, d, fmtV(g))
			}
		}
	}
	if nIn < 20 || nIn > len(pts)-20 {
		t.Errorf("body: %d of %d test points inside, want a mix", nIn, len(pts))
	}
}

// TestMeshGradientMatchesFiniteDifference on the body, away from kinks.
func TestMeshGradientMatchesFiniteDifference(t *testing.T) {
	pos, _, m := bodyMesh(t)
	r := newRand(6)
	bad := 0
	const n = 400
	for i := 0; i < n; i++ {
		p := pos[r.IntN(len(pos))].AddScaled(randDir(r), 0.02*r.Float64())
		g := m.Grad(p)
		const h = 1e-7
		fd := vec.V(
			m.Dist(p.Add(vec.V(h, 0, 0)))-m.Dist(p.Sub(vec.V(h, 0, 0))),
			m.Dist(p.Add(vec.V(0, h, 0)))-m.Dist(p.Sub(vec.V(0, h, 0))),
			m.Dist(p.Add(vec.V(0, 0, h)))-m.Dist(p.Sub(vec.V(0, 0, h))),
		).Scale(1 / (2 * h))
		if fd.Sub(g).Len() > 1e-3 {
			bad++
		}
	}
	if bad > n/50 {
		t.Errorf("body gradient differs from central difference at %d of %d points, want <= %d", bad, n, n/50)
	}
}

// TestMeshBandMatchesTree: near the surface the candidate lists answer,
// and they give exactly the tree search's result.
func TestMeshBandMatchesTree(t *testing.T) {
	pos, _, m := bodyMesh(t)
	r := newRand(12)
	inBand := 0
	const n = 3000
	for i := 0; i < n; i++ {
		p := pos[r.IntN(len(pos))].AddScaled(randDir(r), 0.006*r.Float64())
		if id, _ := m.band.list(p); id >= 0 {
			inBand++
		}
		d, g := m.DistGrad(p)
		td, tg := m.signed(p, math.Inf(1))
		if d != td || g != tg {
			t.Fatalf("body DistGrad%s = %v, %s from the band, %v, %s from the tree", fmtV(p), d, fmtV(g), td, fmtV(tg))
		}
	}
	if inBand < n*99/100 {
		t.Errorf("body: %d of %d points within 6 mm of a vertex used the band, want >= 99%%", inBand, n)
	}
}

// TestMeshBuildDeterministic: the parallel build gives identical
// structures at any GOMAXPROCS.
func TestMeshBuildDeterministic(t *testing.T) {
	pos, tris := loadOBJ(t, "testdata/table2.obj", 1)
	old := runtime.GOMAXPROCS(1)
	one := mustMesh(t, pos, tris)
	runtime.GOMAXPROCS(4)
	four := mustMesh(t, pos, tris)
	runtime.GOMAXPROCS(old)
	if !slices.Equal(one.band.ent, four.band.ent) || !slices.Equal(one.band.cell, four.band.cell) ||
		!slices.Equal(one.band.start, four.band.start) || !slices.Equal(one.grid.d, four.grid.d) ||
		!slices.Equal(one.nodes, four.nodes) || !slices.Equal(one.geo, four.geo) {
		t.Errorf("NewMesh(table2.obj) differs between GOMAXPROCS 1 and 4")
	}
	if len(one.band.ent) == 0 {
		t.Errorf("NewMesh(table2.obj) built no near-surface lists")
	}
}

// TestMeshComponentsOriented: a mesh of two separate cubes, one wound
// inside-out, is the union of two boxes.
func TestMeshComponentsOriented(t *testing.T) {
	pa, ta := cubeMesh(vec.V(0.5, 0.5, 0.5))
	pos := append([]vec.Vec3(nil), pa...)
	tris := append([][3]int32(nil), ta...)
	for _, p := range pa {
		pos = append(pos, p.Add(vec.V(2, 0, 0)))
	}
	for _, tr := range ta {
		tris = append(tris, [3]int32{tr[0] + 8, tr[2] + 8, tr[1] + 8})
	}
	m := mustMesh(t, pos, tris)
	a, b := Box{Half: vec.V(0.5, 0.5, 0.5)}, Box{Center: vec.V(2, 0, 0), Half: vec.V(0.5, 0.5, 0.5)}
	r := newRand(13)
	for i := 0; i < 1000; i++ {
		p := randIn(r, vec.V(-1, -1, -1), vec.V(3, 1, 1))
		want := math.Min(a.Dist(p), b.Dist(p))
		if got := m.Dist(p); math.Abs(got-want) > 1e-12 {
			t.Fatalf("two cubes Dist%s = %v, want %v", fmtV(p), got, want)
		}
	}
}

// TestMeshSignNearBumpyVertices: on a sphere with random radial bumps
// (convex, concave and saddle vertices and edges), points just off every
// vertex and edge get the sign of ray parity. This is where the vertex and
// edge pseudo-normals decide the sign.
func TestMeshSignNearBumpyVertices(t *testing.T) {
	pos, tris := icosphere(2)
	r := newRand(14)
	for i := range pos {
		pos[i] = pos[i].Scale(0.75 + 0.5*r.Float64())
	}
	m := mustMesh(t, pos, tris)
	var pts []vec.Vec3
	for _, v := range pos {
		for k := 0; k < 12; k++ {
			pts = append(pts, v.AddScaled(randDir(r), 1e-3))
		}
	}
	for _, tr := range tris {
		for k := 0; k < 3; k++ {
			mid := pos[tr[k]].Lerp(pos[tr[(k+1)%3]], 0.2+0.6*r.Float64())
			pts = append(pts, mid.AddScaled(randDir(r), 1e-3))
		}
	}
	for _, p := range pts {
		d := m.Dist(p)
		if in := insideByParity(p, pos, tris); in != (d < 0) {
			t.Fatalf("bumpy sphere Dist%s = %v, ray parity inside = %v", fmtV(p), d, in)
		}
		if bf := bruteDist(p, pos, tris); math.Abs(math.Abs(d)-bf) > 1e-12 {
			t.Fatalf("bumpy sphere |Dist%s| = %v, brute force %v", fmtV(p), math.Abs(d), bf)
		}
	}
}

// TestMeshAllowOpen: a cube with one triangle missing is rejected by
// NewMesh and accepted with AllowOpen, with the box's distance wherever
// the nearest surface point is away from the hole.
func TestMeshAllowOpen(t *testing.T) {
	h := vec.V(0.5, 0.5, 0.5)
	pos, tris := cubeMesh(h)
	// drop one triangle of the +y face (tris[6], tris[7] are +y).
	holed := append(append([][3]int32(nil), tris[:6]...), tris[7:]...)
	if _, err := NewMesh(pos, holed); !errors.Is(err, ErrNotClosed) {
		t.Fatalf("NewMesh(cube with a hole) error = %v, want ErrNotClosed", err)
	}
	m, err := NewMeshWith(pos, holed, MeshOptions{AllowOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.OpenEdges() != 3 {
		t.Errorf("OpenEdges = %d, want 3", m.OpenEdges())
	}
	box := Box{Half: h}
	r := newRand(15)
	checked := 0
	for i := 0; i < 2000; i++ {
		p := randIn(r, vec.V(-1, -1, -1), vec.V(1, 1, 1))
		bd, bg := box.DistGrad(p)
		if q := p.AddScaled(bg, -bd); q.Y > 0.4 {
			continue // nearest point on or near the +y face with the hole
		}
		checked++
		if d := m.Dist(p); math.Abs(d-bd) > 1e-12 {
			t.Fatalf("open cube Dist%s = %v, box %v", fmtV(p), d, bd)
		}
	}
	if checked < 1000 {
		t.Errorf("only %d points checked", checked)
	}
}
