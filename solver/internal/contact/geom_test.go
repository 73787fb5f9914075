package contact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver/internal/pool"
)

func TestClosestOnTriangle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func() vec.Vec3 { return vec.V(r.Float64()*2-1, r.Float64()*2-1, r.Float64()*2-1) }
	for i := 0; i < 300; i++ {
		a, b, c, p := rnd(), rnd(), rnd(), rnd().Scale(2)
		u, v, w := closestOnTriangle(p, a, b, c)
		if u < -1e-12 || v < -1e-12 || w < -1e-12 || math.Abs(u+v+w-1) > 1e-9 {
			t.Fatalf("closestOnTriangle case %d: barycentrics (%g, %g, %g) not in the triangle", i, u, v, w)
		}
		got := p.Sub(a.Scale(u).Add(b.Scale(v)).Add(c.Scale(w))).Len()
		// brute force over a barycentric lattice
		best := math.Inf(1)
		const n = 60
		for j := 0; j <= n; j++ {
			for k := 0; j+k <= n; k++ {
				q := a.Scale(float64(n-j-k) / n).Add(b.Scale(float64(j) / n)).Add(c.Scale(float64(k) / n))
				best = math.Min(best, p.Sub(q).Len())
			}
		}
		if got > best+1e-12 || got < best-0.05 {
			t.Fatalf("closestOnTriangle case %d: distance %g, brute force %g", i, got, best)
		}
	}
}

func TestClosestSegments(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rnd := func() vec.Vec3 { return vec.V(r.Float64()*2-1, r.Float64()*2-1, r.Float64()*2-1) }
	cases := [][4]vec.Vec3{
		{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0), vec.V(1, 1, 0)},           // parallel
		{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0.5, 1, -1), vec.V(0.5, 1, 1)},      // crossing above
		{vec.V(0, 0, 0), vec.V(0, 0, 0), vec.V(0.5, 1, -1), vec.V(0.5, 1, 1)},      // point segment
		{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(2, 0, 0), vec.V(3, 0, 0)},           // collinear
		{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0.25, 0.5, 0), vec.V(0.75, 0.5, 0)}, // parallel overlap
	}
	for i := 0; i < 200; i++ {
		cases = append(cases, [4]vec.Vec3{rnd(), rnd(), rnd(), rnd()})
	}
	for i, c := range cases {
		got := SegmentDist(c[0], c[1], c[2], c[3])
		best := math.Inf(1)
		const n = 200
		for j := 0; j <= n; j++ {
			p := c[0].Lerp(c[1], float64(j)/n)
			for k := 0; k <= n; k++ {
				best = math.Min(best, p.Sub(c[2].Lerp(c[3], float64(k)/n)).Len())
			}
		}
		if got > best+1e-12 || got < best-0.02 {
			t.Errorf("SegmentDist case %d = %g, brute force %g", i, got, best)
		}
	}
}

// solveVertexTriangle and solveEdgeEdge solve one pair as the sweeps do
// (sweepRange): the separation test first, then the projection.
func solveVertexTriangle(q4, p4 [4]vec.Vec3, w4 [4]float64, h, mu, side float64) ([4]vec.Vec3, bool) {
	if _, apart := vertexTriangleApart(q4, h, side); apart {
		return [4]vec.Vec3{}, false
	}
	return projectVertexTriangle(q4, p4, w4, h, mu, side)
}

func solveEdgeEdge(q4, p4 [4]vec.Vec3, w4 [4]float64, h, mu float64, n0 vec.Vec3) ([4]vec.Vec3, bool) {
	if _, apart := edgeEdgeApart(q4, h, n0); apart {
		return [4]vec.Vec3{}, false
	}
	return projectEdgeEdge(q4, p4, w4, h, mu, n0)
}

func TestSolveVertexTriangle(t *testing.T) {
	tri := [3]vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 0, -1)} // normal +Y
	const h = 0.01
	w := [4]float64{1, 1, 1, 1}
	cases := []struct {
		name   string
		x      vec.Vec3
		side   float64
		wantY  float64 // vertex height after applying its correction alone
		active bool
	}{
		{"apart", vec.V(0.2, 0.05, -0.2), 1, 0.05, false},
		{"close above", vec.V(0.2, 0.004, -0.2), 1, 0.004 + (h-0.004)*1/(1+0.36+0.04+0.04)*1, true},
		{"crossed from above", vec.V(0.2, -0.004, -0.2), 1, -0.004 + (h+0.004)/(1+0.36+0.04+0.04), true},
		{"close below", vec.V(0.2, -0.004, -0.2), -1, -0.004 - (h-0.004)/(1+0.36+0.04+0.04), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			side := c.side
			q4 := [4]vec.Vec3{c.x, tri[0], tri[1], tri[2]}
			dx, on := solveVertexTriangle(q4, q4, w, h, 0, side)
			if on != c.active {
				t.Fatalf("active = %v, want %v", on, c.active)
			}
			if y := c.x.Add(dx[0]).Y; math.Abs(y-c.wantY) > 1e-12 {
				t.Errorf("vertex y after correction = %.6g, want %.6g", y, c.wantY)
			}
			// the full correction restores the distance exactly (linear constraint)
			if on {
				var p [4]vec.Vec3
				for i := range p {
					p[i] = q4[i].Add(dx[i])
				}
				u, v, ww := closestOnTriangle(p[0], p[1], p[2], p[3])
				d := p[0].Sub(p[1].Scale(u).Add(p[2].Scale(v)).Add(p[3].Scale(ww))).Dot(vec.V(0, c.side, 0))
				if math.Abs(d-h) > 1e-4*h { // the tilted triangle moves its closest point a little
					t.Errorf("signed distance after correction = %.6g, want %g on side %g", d, h, c.side)
				}
			}
		})
	}
	// friction: a sliding vertex loses tangential motion up to mu·δ
	side := 1.0
	x := vec.V(0.2, 0.005, -0.2)
	prev := x.Add(vec.V(-0.01, 0.001, 0)) // moved 1 cm along +X this substep
	q4 := [4]vec.Vec3{x, tri[0], tri[1], tri[2]}
	p4 := [4]vec.Vec3{prev, tri[0], tri[1], tri[2]}
	wv := [4]float64{1, 0, 0, 0}
	dx, _ := solveVertexTriangle(q4, p4, wv, h, 0.5, side)
	if got := dx[0].X; math.Abs(got-(-0.5*0.005)) > 1e-12 {
		t.Errorf("friction correction = %.6g, want %.6g (mu x normal correction)", got, -0.5*0.005)
	}
	dx, _ = solveVertexTriangle(q4, p4, wv, h, 5, side)
	if got := dx[0].X; math.Abs(got-(-0.01)) > 1e-12 {
		t.Errorf("static friction correction = %.6g, want %.6g (stick)", got, -0.01)
	}
}

func TestSolveEdgeEdge(t *testing.T) {
	const h = 0.01
	w := [4]float64{1, 1, 1, 1}
	a, b := vec.V(-1, 0, 0), vec.V(1, 0, 0)
	for _, c := range []struct {
		name string
		y    float64 // height of the crossing edge
		n0   vec.Vec3
		want float64 // signed gap along n0 after correction
	}{
		{"close", -0.004, vec.V(0, 1, 0), h},
		{"crossed", 0.004, vec.V(0, 1, 0), h},
		{"apart", -0.02, vec.V(0, 1, 0), 0.02},
	} {
		t.Run(c.name, func(t *testing.T) {
			q4 := [4]vec.Vec3{a, b, vec.V(0.2, c.y, -1), vec.V(0.2, c.y, 1)}
			n0 := c.n0
			dx, _ := solveEdgeEdge(q4, q4, w, h, 0, n0)
			var p [4]vec.Vec3
			for i := range p {
				p[i] = q4[i].Add(dx[i])
			}
			s, tt := closestSegments(p[0], p[1], p[2], p[3])
			gap := p[0].Lerp(p[1], s).Sub(p[2].Lerp(p[3], tt)).Dot(vec.V(0, 1, 0))
			if math.Abs(gap-c.want) > 1e-4*h {
				t.Errorf("gap after correction = %.6g, want %.6g", gap, c.want)
			}
		})
	}
}

// TestApartAlong checks the cheap separation test the projections and
// picks rule pairs out with: whenever it holds, the segments' closest
// points are at least r apart along n (so at least r apart), and a vertex
// r off a triangle's plane is at least r from the triangle.
func TestApartAlong(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rnd := func() vec.Vec3 { return vec.V(r.Float64()*2-1, r.Float64()*2-1, r.Float64()*2-1) }
	held := 0
	for i := range 20000 {
		a, b, c, d := rnd(), rnd(), rnd(), rnd()
		n := rnd().Normalize()
		sep := r.Float64() * 0.5
		if _, ok := edgeEdgeApart([4]vec.Vec3{a, b, c, d}, sep, n); !ok {
			continue
		}
		held++
		s, u := closestSegments(a, b, c, d)
		diff := a.Lerp(b, s).Sub(c.Lerp(d, u))
		if diff.Dot(n) < sep || diff.Len() < sep {
			t.Fatalf("case %d: apart by %g along %v, but the closest points are %g apart (%g along n)", i, sep, n, diff.Len(), diff.Dot(n))
		}
		// a vertex that far off a triangle's plane (the plane through b
		// across n)
		onPlane := func(q vec.Vec3) vec.Vec3 { return q.Sub(n.Scale(q.Sub(b).Dot(n))) }
		x := onPlane(a).Add(n.Scale(sep * apartMargin))
		if got := PointTriangleDist(x, b, onPlane(c), onPlane(d)); got < sep {
			t.Fatalf("case %d: a vertex %g off a triangle's plane is %g from the triangle", i, sep, got)
		}
	}
	if held < 1000 {
		t.Fatalf("the test held in %d cases only: it checks too little", held)
	}
}

// TestUntangle: an edge of triangle B pierces triangle A's interior at the
// end of a substep while both its ends stay far from A (no listed pair is
// flagged crossed): untangle puts both triangles' free vertices back where
// the substep started, unless the group's rounds converged or the two
// already crossed at the start.
func TestUntangle(t *testing.T) {
	rest := []vec.Vec3{
		{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, // A, in z = 0
		{X: 0.2, Y: 0.2, Z: 0.5}, {X: 0.3, Y: 0.2, Z: 0.6}, {X: 0.2, Y: 0.3, Z: 0.6}, // B, above A
	}
	tris := [][3]int32{{0, 1, 2}, {3, 4, 5}}
	m := testMesh(rest, tris)
	m.InvMass[0] = 0 // pinned
	const h = 0.003
	p := pool.New(1)
	defer p.Close()
	sc := New(m, h, 0, p, Options{})
	// vertex 4 swings through A: edge 3-4 pierces it at (0.25, 0.2, 0)
	moved := slices.Clone(rest)
	moved[4] = vec.V(0.3, 0.2, -0.5)
	run := func(prev, pos []vec.Vec3, converged bool) ([]vec.Vec3, int) {
		sc.pos, sc.prev = slices.Clone(pos), slices.Clone(prev)
		sc.vt = []vtPair{{v: 3, t: 0, h: h, side: 1}}
		sc.ee = nil
		sc.all.near, sc.all.converged = []int32{0}, converged
		sc.comps.ok = false
		return sc.pos, sc.untangle()
	}
	if !trianglesIntersect(moved, tris[0], tris[1]) || trianglesIntersect(rest, tris[0], tris[1]) {
		t.Fatal("the set-up does not pierce A at the end only")
	}
	pos, n := run(rest, moved, false)
	if n != 1 || pos[4] != rest[4] || trianglesIntersect(pos, tris[0], tris[1]) {
		t.Errorf("untangle put back %d vertices, vertex 4 at %v: want 1 (vertex 4, back at %v) and no crossing", n, pos[4], rest[4])
	}
	if pos[0] != rest[0] {
		t.Errorf("the pinned vertex moved to %v", pos[0])
	}
	if _, n := run(rest, moved, true); n != 0 {
		t.Errorf("converged rounds: untangle put back %d vertices, want 0", n)
	}
	if _, n := run(moved, moved, false); n != 0 {
		t.Errorf("already crossed at the start: untangle put back %d vertices, want 0 (putting back cannot help)", n)
	}
}
