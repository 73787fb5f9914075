package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
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
		got := segmentDist(c[0], c[1], c[2], c[3])
		best := math.Inf(1)
		const n = 200
		for j := 0; j <= n; j++ {
			p := c[0].Lerp(c[1], float64(j)/n)
			for k := 0; k <= n; k++ {
				best = math.Min(best, p.Sub(c[2].Lerp(c[3], float64(k)/n)).Len())
			}
		}
		if got > best+1e-12 || got < best-0.02 {
			t.Errorf("segmentDist case %d = %g, brute force %g", i, got, best)
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

// minVertexTriangle returns the smallest distance [m] between a vertex and
// a triangle it does not belong to, among pairs closer than cutoff (cutoff
// if none), found with a uniform grid.
func minVertexTriangle(pos []vec.Vec3, tris [][3]int32, cutoff float64) float64 {
	cell := 0.02
	key := func(p vec.Vec3) [3]int {
		return [3]int{int(math.Floor(p.X / cell)), int(math.Floor(p.Y / cell)), int(math.Floor(p.Z / cell))}
	}
	cells := map[[3]int][]int32{}
	for i, t := range tris {
		lo := pos[t[0]].Min(pos[t[1]]).Min(pos[t[2]]).Sub(vec.V(cutoff, cutoff, cutoff))
		hi := pos[t[0]].Max(pos[t[1]]).Max(pos[t[2]]).Add(vec.V(cutoff, cutoff, cutoff))
		a, b := key(lo), key(hi)
		for x := a[0]; x <= b[0]; x++ {
			for y := a[1]; y <= b[1]; y++ {
				for z := a[2]; z <= b[2]; z++ {
					k := [3]int{x, y, z}
					cells[k] = append(cells[k], int32(i))
				}
			}
		}
	}
	best := cutoff
	for v, p := range pos {
		for _, ti := range cells[key(p)] {
			t := tris[ti]
			if t[0] == int32(v) || t[1] == int32(v) || t[2] == int32(v) {
				continue
			}
			best = math.Min(best, pointTriangleDist(p, pos[t[0]], pos[t[1]], pos[t[2]]))
		}
	}
	return best
}

// heapScene is a cloth (or two) falling onto the ground into folds.
type heapScene struct {
	pos  []vec.Vec3
	tris [][3]int32
	cs   []sdf.Collider
}

// verticalDrop is an n x n cloth of side 1 m standing on its bottom edge
// 2 cm above the ground, leaning 10 degrees and slightly rippled, so it
// collapses onto the ground in folds.
func verticalDrop(n int) heapScene {
	pos, tris := gridMesh(n, n, 1, 1)
	lean := 10 * math.Pi / 180
	for i, p := range pos {
		h := 1 + p.Y // 0 at the bottom, 1 at the top
		z := 0.03 * math.Sin(9*p.X) * h
		pos[i] = vec.V(p.X-0.5, 0.02+h*math.Cos(lean), h*math.Sin(lean)+z)
	}
	ground := sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0)})
	return heapScene{pos, tris, []sdf.Collider{ground}}
}

// twoCloths drops cloth B (n x n, 0.7 m, turned 30 degrees) onto cloth A
// (same size), which drapes over a small sphere on the ground.
func twoCloths(n int) heapScene {
	a, ta := flatCloth(n, 0.7, 0, 0.14, 0)
	b, tb := flatCloth(n, 0.7, 0.05, 0.3, 0)
	rot := vec.AxisAngle(vec.V(0, 1, 0), 30*math.Pi/180)
	for i := range b {
		b[i] = rot.Rotate(b[i])
	}
	pos := append(a, b...)
	tris := append([][3]int32{}, ta...)
	off := int32(len(a))
	for _, t := range tb {
		tris = append(tris, [3]int32{t[0] + off, t[1] + off, t[2] + off})
	}
	cs := []sdf.Collider{
		sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0)}),
		sdf.NewCollider(sdf.Sphere{Center: vec.V(0, 0.06, 0), Radius: 0.06}),
	}
	return heapScene{pos, tris, cs}
}

// TestSelfCollisionHeap drops a 64 x 64 cloth into a heap on the ground,
// and a 64 x 64 cloth onto another, with self-collision: at every frame there
// must be no intersecting pair of non-adjacent triangles and no vertex
// closer than 0.5 x thickness to a triangle it does not belong to. The
// same scene without self-collision must intersect (so the test can fail).
func TestSelfCollisionHeap(t *testing.T) {
	cases := []struct {
		name   string
		scene  heapScene
		frames int
	}{
		{"heap64", verticalDrop(64), 24},
		{"two-cloths64", twoCloths(64), 16},
	}
	for _, c := range cases {
		for _, self := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/self=%v", c.name, self), func(t *testing.T) {
				p := DefaultParams()
				p.SelfCollision = self
				m := newModel(t, c.scene.pos, c.scene.tris, nil, p)
				s := NewState(m)
				h := p.Thickness
				worstX, worstXFrame := 0, -1
				minD, minFrame := math.Inf(1), -1
				in := stepFrames(t, m, s, c.scene.cs, c.frames, 24, func(i int, _ float64) {
					if n := SelfIntersections(s.Pos, m.Topo.Tris); n > worstX {
						worstX, worstXFrame = n, i
					}
					if !self {
						return
					}
					if d := minVertexTriangle(s.Pos, m.Topo.Tris, h); d < minD {
						minD, minFrame = d, i
					}
				})
				if !self {
					if worstX == 0 {
						t.Errorf("without self-collision no triangles intersect: the scene does not test self-collision")
					}
					t.Logf("%s without self-collision: up to %d intersecting pairs", c.name, worstX)
					return
				}
				if worstX > 0 {
					t.Errorf("%d intersecting pairs of non-adjacent triangles at frame %d, want 0 at every frame", worstX, worstXFrame)
				}
				if minD < 0.5*h {
					t.Errorf("minimum vertex-triangle distance %.3f mm at frame %d, want >= %.2f mm (0.5 x thickness)", 1e3*minD, minFrame, 0.5e3*h)
				}
				// the bounds hold where the sweeps narrowed to the pairs
				// still pushed, too (see narrow)
				sc := in.(*XPBD).col.self
				if sc.Narrowed == 0 {
					t.Errorf("no sweep narrowed: the test does not reach the narrowed rounds")
				}
				// and where vertices left their allowances far (see rescue)
				if sc.Rescues == 0 {
					t.Errorf("no rescue: the test does not reach the search after the rounds")
				}
				t.Logf("%s: 0 intersections over %d frames, min vertex-triangle distance %.4f mm (thickness %.1f mm), mean height %.3f m; %d sweeps narrowed, to %.1f %% of the pairs on average; %d rescues", c.name, c.frames, 1e3*minD, 1e3*h, meanY(s.Pos), sc.Narrowed, 100*sc.NarrowedPart/float64(sc.Narrowed), sc.Rescues)
			})
		}
	}
}

// TestCollisionThreadsDeterministic runs two scenes with colliders and
// self-collision at 1, 2 and 8 threads: positions must be bit-identical.
// A 48 x 48 heap (2304 vertices, above the pool's serial threshold, so the
// phases really split) reaches the sweeps run class by class; a 48 x 48
// cloth draping a sphere reaches the rounds run component by component.
func TestCollisionThreadsDeterministic(t *testing.T) {
	heap := verticalDrop(48)
	heap.cs = append(heap.cs, sdf.NewCollider(sdf.Sphere{Center: vec.V(0.1, 0.1, 0.3), Radius: 0.1}))
	drapePos, drapeTris := benchGrid(48)
	drape := heapScene{pos: drapePos, tris: drapeTris, cs: []sdf.Collider{sdf.NewCollider(sdf.Sphere{Radius: 0.5})}}
	for _, c := range []struct {
		name   string
		scene  heapScene
		frames int
		reach  func(sc *selfCollision) string
	}{
		{"heap", heap, 8, func(sc *selfCollision) string {
			if sc.Classed == 0 {
				return fmt.Sprintf("no sweep ran class by class (selfParMin = %d): the test does not reach the parallel projections", selfParMin)
			}
			if sc.Narrowed == 0 {
				return "no sweep narrowed to the pairs still pushed: the test does not reach narrow"
			}
			if sc.Rescues == 0 {
				return "no rescue after the rounds: the test does not reach it"
			}
			return ""
		}},
		{"sphere drape", drape, 18, func(sc *selfCollision) string {
			if sc.Split == 0 {
				return "no substep ran its rounds component by component: the test does not reach them"
			}
			return ""
		}},
	} {
		var ref []vec.Vec3
		for _, threads := range []int{1, 2, 8} {
			p := DefaultParams()
			p.SelfCollision = true
			p.Threads = threads
			m := newModel(t, c.scene.pos, c.scene.tris, nil, p)
			s := NewState(m)
			x := NewXPBD(m)
			for k := range c.frames {
				stepXPBD(t, m, s, x, c.scene.cs, k)
			}
			if msg := c.reach(x.col.self); msg != "" {
				t.Fatalf("%s, threads = %d: %s", c.name, threads, msg)
			}
			if ref == nil {
				ref = s.Pos
				continue
			}
			for i := range ref {
				if s.Pos[i] != ref[i] {
					t.Fatalf("%s, threads = %d: vertex %d at %v, want %v (as with 1 thread)", c.name, threads, i, s.Pos[i], ref[i])
				}
			}
		}
	}
}

// newSelfXPBD returns the model, state and XPBD integrator of scene sc
// with self-collision on, at 2 threads.
func newSelfXPBD(t testing.TB, sc heapScene) (*Model, *State, *XPBD) {
	p := DefaultParams()
	p.SelfCollision = true
	p.Threads = 2
	m := newModel(t, sc.pos, sc.tris, nil, p)
	return m, NewState(m), NewXPBD(m)
}

// stepXPBD advances s by frame k of m (24 fps) with colliders cs.
func stepXPBD(t testing.TB, m *Model, s *State, x *XPBD, cs []sdf.Collider, k int) {
	t.Helper()
	f := m.FrameAt(k, 24)
	f.Colliders = cs
	if err := x.Step(s, &f); err != nil {
		t.Fatal(err)
	}
}

// TestSelfCollisionSkipExact checks that skipping the pairs found out of
// contact until a vertex of theirs moves, or until their vertices moved as
// far as the pair's margin (selfSkipStill), changes no bit of the result: a 32 x 32 heap falling onto the ground and a sphere, with
// the colliders moving vertices between the projection rounds; with the
// sweeps in pair order, and class by class in parallel (see classify).
func TestSelfCollisionSkipExact(t *testing.T) {
	parMin := selfParMin
	defer func() { selfSkipStill, selfParMin = true, parMin }()
	sc := verticalDrop(32)
	sc.cs = append(sc.cs, sdf.NewCollider(sdf.Sphere{Center: vec.V(0.1, 0.1, 0.2), Radius: 0.15}))
	for _, classed := range []bool{false, true} {
		selfParMin = parMin
		if classed {
			selfParMin = 256
		}
		var ref []vec.Vec3
		for _, skip := range []bool{false, true} {
			selfSkipStill = skip
			m, s, x := newSelfXPBD(t, sc)
			for k := range 16 {
				stepXPBD(t, m, s, x, sc.cs, k)
			}
			if n := x.col.self.Classed; classed != (n > 0) {
				t.Fatalf("classed = %v: %d sweeps ran class by class", classed, n)
			}
			if n := x.col.self.Split; n == 0 {
				t.Fatalf("classed = %v: no substep ran its rounds component by component", classed)
			}
			if !skip {
				ref = s.Pos
				continue
			}
			if n := x.col.self.Skipped; n == 0 {
				t.Fatal("no pair projection was skipped: the test checks nothing")
			} else {
				t.Logf("classed = %v: %d pair projections skipped", classed, n)
			}
			for i := range ref {
				if s.Pos[i] != ref[i] {
					t.Fatalf("classed = %v: vertex %d at %v with skipping, %v without", classed, i, s.Pos[i], ref[i])
				}
			}
		}
	}
}

// TestNewPairSideFromStart checks that a pair listed for the first time
// remembers the side its vertex (or edge) is on at the substep's start,
// not at the references the search measures from, which a partial rebuild
// leaves several substeps old for vertices that did not move much. Here
// triangle A lies on the ground one thickness up, and triangle B's edge
// lies 1 mm above it, crossing A's edge 0-1; A's references are 2 mm
// higher (within its allowance), so at the references B's vertex 3 and
// edge 3-4 are below A. Remembered so, the pushes would drive B through A
// into the ground, where the ground pushes it back: B must instead stay at
// least 0.5 x thickness above A while it settles onto it.
func TestNewPairSideFromStart(t *testing.T) {
	p := DefaultParams()
	p.SelfCollision = true
	p.Threads = 1
	h := p.Thickness
	pos := []vec.Vec3{
		vec.V(-0.1, h, 0.1), vec.V(0.1, h, 0.1), vec.V(0, h, -0.1), // A, normal +Y
		vec.V(0, h+0.001, 0.05), vec.V(0, h+0.001, 0.15), vec.V(0.02, h+0.04, 0.1), // B
	}
	tris := [][3]int32{{0, 1, 2}, {3, 4, 5}}
	// B's rest shape lies well above A, so the pairs keep the thickness
	// (not a closer rest distance)
	rest := slices.Clone(pos)
	for v := 3; v < 6; v++ {
		rest[v].Y += 0.1
	}
	m := newModel(t, rest, tris, nil, p)
	s := NewState(m)
	copy(s.Pos, pos)
	copy(s.Prev, pos)
	x := NewXPBD(m)
	ground := []sdf.Collider{sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0)})}
	f := m.FrameAt(0, 24)
	f.Colliders = ground
	x.s, x.f = s, &f
	x.col = newCollision(&x.base)
	sc := x.col.self
	var mean vec.Vec3
	for _, q := range pos {
		mean = mean.Add(q.Scale(1.0 / float64(len(pos))))
	}
	for v, q := range pos {
		sc.ref[v] = q.Sub(mean)
		sc.skin[v] = selfSkinMin*h + 0.002
		if v < 3 {
			sc.ref[v].Y += 0.002
		}
	}
	sc.rebuild()
	var vt *vtPair
	for i := range sc.vt {
		if q := &sc.vt[i]; q.v == 3 && q.t == 0 {
			vt = q
		}
	}
	var ee *eePair
	a01, b34 := int32(-1), int32(-1)
	for i, e := range sc.edges {
		switch e {
		case [2]int32{0, 1}, [2]int32{1, 0}:
			a01 = int32(i)
		case [2]int32{3, 4}, [2]int32{4, 3}:
			b34 = int32(i)
		}
	}
	for i := range sc.ee {
		if q := &sc.ee[i]; q.e0 == min(a01, b34) && q.e1 == max(a01, b34) {
			ee = q
		}
	}
	if vt == nil || ee == nil {
		t.Fatalf("vertex 3 and triangle 0 listed: %v, edges 3-4 and 0-1 listed: %v; want both", vt != nil, ee != nil)
	}
	if vt.side != 1 {
		t.Errorf("vertex 3 remembers side %g of triangle 0, want +1 (above, where it starts)", vt.side)
	}
	// n points from edge e1 to edge e0: up if e0 is B's edge
	up := 1.0
	if ee.e0 == a01 {
		up = -1
	}
	if ee.n.Y*up < 0.99 {
		t.Errorf("edges 3-4 and 0-1 remember direction %v from edge %d to edge %d, want B's edge above A's", ee.n, ee.e1, ee.e0)
	}
	// B settles onto A, which lies on the ground
	minD := math.Inf(1)
	for k := range 12 {
		stepXPBD(t, m, s, x, ground, k)
		if k == 0 {
			continue // B starts 1 mm above A
		}
		for _, v := range tris[1] {
			minD = math.Min(minD, pointTriangleDist(s.Pos[v], s.Pos[0], s.Pos[1], s.Pos[2]))
		}
		minD = math.Min(minD, segmentDist(s.Pos[3], s.Pos[4], s.Pos[0], s.Pos[1]))
		if below := s.Pos[3].Y < (s.Pos[0].Y+s.Pos[1].Y+s.Pos[2].Y)/3; below {
			t.Fatalf("frame %d: vertex 3 at y = %.2f mm, below triangle A (%.2f mm)", k, 1e3*s.Pos[3].Y, 1e3*s.Pos[0].Y)
		}
	}
	if minD < 0.5*h {
		t.Errorf("B came %.3f mm close to A, want >= %.2f mm (0.5 x thickness)", 1e3*minD, 0.5e3*h)
	}
	t.Logf("B's closest approach to A while settling: %.3f mm (thickness %.1f mm)", 1e3*minD, 1e3*h)
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
		if got := pointTriangleDist(x, b, onPlane(c), onPlane(d)); got < sep {
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
	p := DefaultParams()
	p.SelfCollision = true
	m := newModel(t, rest, tris, []Pin{{Vertex: 0, Stiffness: 1}}, p)
	x := NewXPBD(m)
	stepXPBD(t, m, NewState(m), x, nil, 0) // sets up the self-collision
	sc := x.col.self
	// vertex 4 swings through A: edge 3-4 pierces it at (0.25, 0.2, 0)
	moved := slices.Clone(rest)
	moved[4] = vec.V(0.3, 0.2, -0.5)
	run := func(prev, pos []vec.Vec3, converged bool) (*State, int) {
		s := NewState(m)
		copy(s.Prev, prev)
		copy(s.Pos, pos)
		sc.b.s = s
		sc.vt = []vtPair{{v: 3, t: 0, h: m.Params.Thickness, side: 1}}
		sc.ee = nil
		sc.all.near, sc.all.converged = []int32{0}, converged
		sc.comps.ok = false
		return s, sc.untangle()
	}
	if !trianglesIntersect(moved, tris[0], tris[1]) || trianglesIntersect(rest, tris[0], tris[1]) {
		t.Fatal("the set-up does not pierce A at the end only")
	}
	s, n := run(rest, moved, false)
	if n != 1 || s.Pos[4] != rest[4] || trianglesIntersect(s.Pos, tris[0], tris[1]) {
		t.Errorf("untangle put back %d vertices, vertex 4 at %v: want 1 (vertex 4, back at %v) and no crossing", n, s.Pos[4], rest[4])
	}
	if s.Pos[0] != rest[0] {
		t.Errorf("the pinned vertex moved to %v", s.Pos[0])
	}
	if _, n := run(rest, moved, true); n != 0 {
		t.Errorf("converged rounds: untangle put back %d vertices, want 0", n)
	}
	if _, n := run(moved, moved, false); n != 0 {
		t.Errorf("already crossed at the start: untangle put back %d vertices, want 0 (putting back cannot help)", n)
	}
}
