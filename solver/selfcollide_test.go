package solver

import (
	"fmt"
	"github.com/drape-sim/drape/solver/internal/contact"
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

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
			best = math.Min(best, contact.PointTriangleDist(p, pos[t[0]], pos[t[1]], pos[t[2]]))
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
				sc := in.(*XPBD).col.self.Stats()
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
		reach  func(sc contact.Stats) string
	}{
		{"heap", heap, 8, func(sc contact.Stats) string {
			if sc.Classed == 0 {
				return "no sweep ran class by class: the test does not reach the parallel projections"
			}
			if sc.Narrowed == 0 {
				return "no sweep narrowed to the pairs still pushed: the test does not reach narrow"
			}
			if sc.Rescues == 0 {
				return "no rescue after the rounds: the test does not reach it"
			}
			return ""
		}},
		{"sphere drape", drape, 18, func(sc contact.Stats) string {
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
			if msg := c.reach(x.col.self.Stats()); msg != "" {
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
// far as the pair's margin (contact.Options.NoSkip turns it off), changes
// no bit of the result: a 32 x 32 heap falling onto the ground and a
// sphere, with the colliders moving vertices between the projection
// rounds; with the sweeps in pair order, and class by class in parallel
// (contact.Options.ParallelMin lowered to 256).
func TestSelfCollisionSkipExact(t *testing.T) {
	sc := verticalDrop(32)
	sc.cs = append(sc.cs, sdf.NewCollider(sdf.Sphere{Center: vec.V(0.1, 0.1, 0.2), Radius: 0.15}))
	for _, classed := range []bool{false, true} {
		var ref []vec.Vec3
		for _, skip := range []bool{false, true} {
			m, s, x := newSelfXPBD(t, sc)
			x.contactOpts = contact.Options{NoSkip: !skip}
			if classed {
				x.contactOpts.ParallelMin = 256
			}
			for k := range 16 {
				stepXPBD(t, m, s, x, sc.cs, k)
			}
			st := x.col.self.Stats()
			if n := st.Classed; classed != (n > 0) {
				t.Fatalf("classed = %v: %d sweeps ran class by class", classed, n)
			}
			if n := st.Split; n == 0 {
				t.Fatalf("classed = %v: no substep ran its rounds component by component", classed)
			}
			if !skip {
				ref = s.Pos
				continue
			}
			if n := st.Skipped; n == 0 {
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
