package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// flatCloth returns an n x n grid of side w [m] in the horizontal plane
// y = height, centred on (cx, cz).
func flatCloth(n int, w, cx, height, cz float64) ([]vec.Vec3, [][3]int32) {
	pos, tris := gridMesh(n, n, w, w)
	for i, p := range pos {
		pos[i] = vec.V(cx+p.X-w/2, height, cz-p.Y-w/2)
	}
	return pos, tris
}

// boxMesh returns the closed triangle mesh of the box centre ± half.
func boxMesh(centre, half vec.Vec3) ([]vec.Vec3, [][3]int32) {
	pos, tris := cubeMesh() // unit cube [0,1]³, outward winding
	for i, p := range pos {
		pos[i] = centre.Add(p.Scale(2).Sub(vec.V(1, 1, 1)).Mul(half))
	}
	return pos, tris
}

// icoMesh returns a closed icosphere (subdivided n times) of radius r
// around c.
func icoMesh(c vec.Vec3, r float64, n int) ([]vec.Vec3, [][3]int32) {
	g := (1 + math.Sqrt(5)) / 2
	pos := []vec.Vec3{
		{X: -1, Y: g}, {X: 1, Y: g}, {X: -1, Y: -g}, {X: 1, Y: -g},
		{Y: -1, Z: g}, {Y: 1, Z: g}, {Y: -1, Z: -g}, {Y: 1, Z: -g},
		{X: g, Z: -1}, {X: g, Z: 1}, {X: -g, Z: -1}, {X: -g, Z: 1},
	}
	for i := range pos {
		pos[i] = pos[i].Normalize()
	}
	tris := [][3]int32{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}
	for ; n > 0; n-- {
		mid := map[[2]int32]int32{}
		half := func(a, b int32) int32 {
			k := [2]int32{min(a, b), max(a, b)}
			if i, ok := mid[k]; ok {
				return i
			}
			pos = append(pos, pos[a].Add(pos[b]).Normalize())
			mid[k] = int32(len(pos) - 1)
			return mid[k]
		}
		var nt [][3]int32
		for _, t := range tris {
			a, b, c := half(t[0], t[1]), half(t[1], t[2]), half(t[2], t[0])
			nt = append(nt, [3]int32{t[0], a, c}, [3]int32{t[1], b, a}, [3]int32{t[2], c, b}, [3]int32{a, b, c})
		}
		tris = nt
	}
	for i := range pos {
		pos[i] = c.Add(pos[i].Scale(r))
	}
	return pos, tris
}

// stepFrames steps frames frames at fps with colliders cs and calls each
// (if not nil) after every frame with the frame's end time. It returns the
// integrator (for its statistics).
func stepFrames(t testing.TB, m *Model, s *State, cs []sdf.Collider, frames int, fps float64, each func(frame int, tEnd float64)) Integrator {
	t.Helper()
	in, err := NewIntegrator(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < frames; i++ {
		f := m.FrameAt(i, fps)
		f.Colliders = cs
		if err := in.Step(s, &f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if each != nil {
			each(i, f.Time+f.Dt)
		}
	}
	return in
}

// deepest returns the largest depth [m] of any vertex inside any collider
// at time tm (measured from the collider surface, positive inside), and
// the vertex.
func deepest(t testing.TB, pos []vec.Vec3, cs []sdf.Collider, tm float64) (float64, int) {
	t.Helper()
	worst, at := 0.0, -1
	var ps sdf.Pose
	for i := range cs {
		if err := cs[i].PoseAt(tm, &ps); err != nil {
			t.Fatal(err)
		}
		for v, p := range pos {
			if d := ps.Dist(p); -d > worst {
				worst, at = -d, v
			}
		}
	}
	return worst, at
}

func meanY(pos []vec.Vec3) float64 {
	s := 0.0
	for _, p := range pos {
		s += p.Y
	}
	return s / float64(len(pos))
}

func centroid(pos []vec.Vec3) vec.Vec3 {
	var s vec.Vec3
	for _, p := range pos {
		s = s.Add(p)
	}
	return s.Scale(1 / float64(len(pos)))
}

func mustMesh(t testing.TB, pos []vec.Vec3, tris [][3]int32) *sdf.Mesh {
	t.Helper()
	m, err := sdf.NewMesh(pos, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDropOnColliders drops a 0.8 m cloth on each collider kind. At every
// frame no vertex may lie deeper than 0.1 x thickness inside the collider
// (Dist(x) >= -0.1·h, measured from the collider surface), and the cloth
// must come to rest draped over it: its mean height changes by less than
// 2 mm over the last 0.5 s and it stays above the collider's bottom.
func TestDropOnColliders(t *testing.T) {
	bpos, btris := boxMesh(vec.V(0, 0, 0), vec.V(0.2, 0.2, 0.2))
	ipos, itris := icoMesh(vec.V(0, 0, 0), 0.25, 3)
	cases := []struct {
		name  string
		shape sdf.SDF
		top   float64 // highest point of the collider [m]
	}{
		{"sphere", sdf.Sphere{Center: vec.V(0, 0, 0), Radius: 0.25}, 0.25},
		{"capsule", sdf.Capsule{A: vec.V(-0.3, 0, 0), B: vec.V(0.3, 0, 0), Radius: 0.15}, 0.15},
		{"cone", sdf.CappedCone{A: vec.V(0, -0.3, 0), B: vec.V(0, 0.1, 0), RA: 0.3, RB: 0.1}, 0.1},
		{"plane", sdf.Plane{Normal: vec.V(0, 1, 0), Offset: 0}, 0},
		{"box", sdf.Box{Center: vec.V(0, 0, 0), Half: vec.V(0.2, 0.2, 0.2)}, 0.2},
		{"mesh-box", mustMesh(t, bpos, btris), 0.2},
		{"mesh-icosphere", mustMesh(t, ipos, itris), 0.25},
	}
	const fps, frames = 24.0, 60
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			pos, tris := flatCloth(25, 0.8, 0.03, c.top+0.05, -0.02)
			m := newModel(t, pos, tris, nil, p)
			s := NewState(m)
			cs := []sdf.Collider{sdf.NewCollider(c.shape)}
			h := p.Thickness
			worst, worstFrame := 0.0, -1
			var heights []float64
			stepFrames(t, m, s, cs, frames, fps, func(i int, tm float64) {
				if d, _ := deepest(t, s.Pos, cs, tm); d > worst {
					worst, worstFrame = d, i
				}
				heights = append(heights, meanY(s.Pos))
			})
			if worst > 0.1*h {
				t.Errorf("deepest vertex %.3g mm inside at frame %d, want <= %.3g mm (0.1 x thickness)", 1e3*worst, worstFrame, 0.1e3*h)
			}
			last := heights[len(heights)-1]
			change := math.Abs(last - heights[len(heights)-1-int(fps/2)])
			if change > 0.002 {
				t.Errorf("mean height changed %.2f mm over the last 0.5 s (now %.3f m), want < 2 mm (at rest)", 1e3*change, last)
			}
			if last < c.top-0.6 || last > c.top+0.05 {
				t.Errorf("mean height %.3f m, want draped over the collider top %.3f m", last, c.top)
			}
			t.Logf("%s: deepest %.4f mm (limit %.2f), mean height %.4f m, last 0.5 s change %.3f mm", c.name, 1e3*worst, 0.1e3*h, last, 1e3*change)
		})
	}
}

// slopeCollider returns a frictional slope at angle deg through the
// origin, rising towards -X: a plane, or the top face of a rotated box.
func slopeCollider(kind string, deg, mu float64) sdf.Collider {
	a := deg * math.Pi / 180
	n := vec.V(math.Sin(a), math.Cos(a), 0)
	var shape sdf.SDF = sdf.Plane{Normal: n, Offset: 0}
	if kind == "box" {
		rot := vec.AxisAngle(vec.V(0, 0, 1), -a)
		box := sdf.Box{Center: vec.V(0, -0.5, 0), Half: vec.V(3, 0.5, 3)}
		tf, err := sdf.NewTransformed(box, vec.TRS(vec.Vec3{}, rot, vec.V(1, 1, 1)))
		if err != nil {
			panic(err)
		}
		shape = tf
	}
	c := sdf.NewCollider(shape)
	c.StaticFriction, c.KineticFriction = mu, mu
	return c
}

// TestSlopeFriction lays a small cloth on a 30 degree slope (a plane and
// a rotated box). Frictionless, it must slide with the analytic
// acceleration g·sin 30° (fitted from the distance slid in 0.5 s, within
// 10 %); with friction 1 (> tan 30°) it must move less than 1 cm in 2 s.
func TestSlopeFriction(t *testing.T) {
	const deg, fps = 30.0, 24.0
	a := deg * math.Pi / 180
	n := vec.V(math.Sin(a), math.Cos(a), 0)
	down := vec.V(math.Cos(a), -math.Sin(a), 0) // down the slope
	for _, kind := range []string{"plane", "box"} {
		for _, mu := range []float64{0, 1} {
			t.Run(fmt.Sprintf("%s/friction=%g", kind, mu), func(t *testing.T) {
				p := DefaultParams()
				p.Damping, p.AirDrag = 0, 0
				p.Friction = mu
				// a 0.2 m cloth lying on the slope at the thickness
				pos, tris := flatCloth(9, 0.2, 0, 0, 0)
				rot := vec.AxisAngle(vec.V(0, 0, 1), -a)
				for i := range pos {
					pos[i] = rot.Rotate(pos[i]).AddScaled(n, p.Thickness)
				}
				m := newModel(t, pos, tris, nil, p)
				s := NewState(m)
				cs := []sdf.Collider{slopeCollider(kind, deg, mu)}
				c0 := centroid(s.Pos)
				frames := 12
				if mu > 0 {
					frames = 48
				}
				worst := 0.0
				stepFrames(t, m, s, cs, frames, fps, func(_ int, tm float64) {
					worst = math.Max(worst, must(deepest(t, s.Pos, cs, tm)))
				})
				if worst > 0.1*p.Thickness {
					t.Errorf("deepest vertex %.3g mm inside the slope, want <= %.3g mm", 1e3*worst, 0.1e3*p.Thickness)
				}
				d := centroid(s.Pos).Sub(c0)
				T := float64(frames) / fps
				if mu == 0 {
					acc := 2 * d.Dot(down) / (T * T)
					want := 9.81 * math.Sin(a)
					if rel := math.Abs(acc-want) / want; rel > 0.1 {
						t.Errorf("frictionless slide acceleration = %.3f m/s², want %.3f (g·sin30°) within 10%% (error %.1f%%)", acc, want, 100*rel)
					}
					t.Logf("%s: acceleration %.4f m/s², analytic %.4f (error %.2f%%)", kind, acc, want, 100*math.Abs(acc-want)/want)
				} else {
					if d.Len() > 0.01 {
						t.Errorf("friction 1: cloth moved %.2f cm in %.0f s, want < 1 cm", 100*d.Len(), T)
					}
					t.Logf("%s: friction 1 moved %.3f mm in %.0f s", kind, 1e3*d.Len(), T)
				}
			})
		}
	}
}

func must(d float64, _ int) float64 { return d }

// TestMovingCapsuleCarriesCloth lays a cloth over a horizontal capsule that
// rests for 0.5 s and then moves 0.3 m sideways in 1 s: friction must carry
// the cloth along (its centroid follows by at least 80 %) with no vertex
// inside the capsule at any frame.
func TestMovingCapsuleCarriesCloth(t *testing.T) {
	const fps = 24.0
	p := DefaultParams()
	caps := sdf.Capsule{A: vec.V(0, 0, -0.3), B: vec.V(0, 0, 0.3), Radius: 0.1}
	c := sdf.NewCollider(caps)
	id := vec.QuatIdentity()
	one := vec.V(1, 1, 1)
	c.Keys = []sdf.Key{
		{Time: 0.5, Rotation: id, Scale: one},
		{Time: 1.5, Translation: vec.V(0.3, 0, 0), Rotation: id, Scale: one},
	}
	cs := []sdf.Collider{c}
	pos, tris := flatCloth(17, 0.3, 0, 0.11, 0)
	m := newModel(t, pos, tris, nil, p)
	s := NewState(m)
	var x0 float64
	worst := 0.0
	stepFrames(t, m, s, cs, 48, fps, func(i int, tm float64) {
		worst = math.Max(worst, must(deepest(t, s.Pos, cs, tm)))
		if i == 11 {
			x0 = centroid(s.Pos).X
		}
	})
	moved := centroid(s.Pos).X - x0
	if moved < 0.8*0.3 || moved > 0.3*1.1 {
		t.Errorf("cloth centroid moved %.3f m with the capsule's 0.3 m, want >= 0.24 m (carried)", moved)
	}
	if worst > 0.1*p.Thickness {
		t.Errorf("deepest vertex %.3g mm inside the moving capsule, want <= %.3g mm", 1e3*worst, 0.1e3*p.Thickness)
	}
	t.Logf("carried %.4f m of 0.3 m; deepest %.4f mm", moved, 1e3*worst)
}

// TestFastSphereNoTunnelling pushes a sphere at 10 m/s through a hanging
// sheet at the default substeps: no vertex may end a frame inside it.
func TestFastSphereNoTunnelling(t *testing.T) {
	const fps = 24.0
	for _, r := range []float64{0.15, 0.05} {
		t.Run(fmt.Sprintf("radius=%g", r), func(t *testing.T) {
			p := DefaultParams()
			pos, tris := gridMesh(32, 32, 1, 1)
			for i := range pos {
				pos[i] = pos[i].Add(vec.V(-0.5, 1, 0)) // x in [-0.5, 0.5], y in [0, 1], z = 0
			}
			m := newModel(t, pos, tris, topPins(32), p)
			s := NewState(m)
			c := sdf.NewCollider(sdf.Sphere{Radius: r})
			id, one := vec.QuatIdentity(), vec.V(1, 1, 1)
			// from z = -0.6 to z = +1.4 in 0.2 s: 10 m/s, through the sheet's middle
			c.Keys = []sdf.Key{
				{Time: 0, Translation: vec.V(0, 0.5, -0.6), Rotation: id, Scale: one},
				{Time: 0.2, Translation: vec.V(0, 0.5, 1.4), Rotation: id, Scale: one},
			}
			cs := []sdf.Collider{c}
			worst, wf := 0.0, -1
			maxZ := 0.0
			stepFrames(t, m, s, cs, 8, fps, func(i int, tm float64) {
				if d := must(deepest(t, s.Pos, cs, tm)); d > worst {
					worst, wf = d, i
				}
				for _, x := range s.Pos {
					maxZ = math.Max(maxZ, x.Z)
				}
			})
			if worst > 0.1*p.Thickness {
				t.Errorf("deepest vertex %.3g mm inside the 10 m/s sphere at frame %d, want <= %.3g mm", 1e3*worst, wf, 0.1e3*p.Thickness)
			}
			// the small sphere pokes through between vertices once the
			// stretched triangles are wider than it (vertex-only contact)
			if r > 0.1 && maxZ < 0.1 {
				t.Errorf("sheet pushed to z = %.3f m at most, want > 0.1 m (the sphere must push it)", maxZ)
			}
			t.Logf("radius %g: deepest %.4f mm, sheet pushed to z = %.3f m", r, 1e3*worst, maxZ)
		})
	}
}

// TestSettle starts a cloth with a patch of vertices 3 cm inside a sphere:
// the settle phase (Settle, or Params.Settle in the first substep) must
// move every vertex out, and the first frame must stay slow: its fastest
// vertex under 1 m/s (free fall alone gives 0.41 m/s), where pushing the
// vertices out in one substep without settling leaves them at > 1.5 m/s.
func TestSettle(t *testing.T) {
	sphere := sdf.Sphere{Center: vec.V(0, 0, 0), Radius: 0.2}
	cs := []sdf.Collider{sdf.NewCollider(sphere)}
	for _, mode := range []string{"Settle", "auto", "none"} {
		t.Run(mode, func(t *testing.T) {
			p := DefaultParams()
			p.Settle = mode == "auto"
			pos, tris := flatCloth(21, 0.6, 0, 0.17, 0) // 3 cm into the sphere's top
			m := newModel(t, pos, tris, nil, p)
			s := NewState(m)
			if mode == "Settle" {
				r, err := Settle(m, s, cs, 0)
				if err != nil {
					t.Fatal(err)
				}
				if r.Inside == 0 || r.Remaining != 0 || math.Abs(r.Deepest-0.03) > 1e-3 {
					t.Errorf("Settle = %+v, want some inside, 30 mm deepest, none remaining", r)
				}
				if d, v := deepest(t, s.Pos, cs, 0); d > 0 {
					t.Errorf("after Settle vertex %d is %.3g mm inside", v, 1e3*d)
				}
			}
			maxV := 0.0
			stepFrames(t, m, s, cs, 1, 24, func(int, float64) {
				for _, v := range s.Vel {
					maxV = math.Max(maxV, v.Len())
				}
			})
			if d, v := deepest(t, s.Pos, cs, 1.0/24); d > 0.1*p.Thickness {
				t.Errorf("vertex %d is %.3g mm inside after the first frame", v, 1e3*d)
			}
			switch {
			case mode != "none" && maxV > 1:
				t.Errorf("%s: max speed %.2f m/s after the first frame, want < 1 m/s (no explosion)", mode, maxV)
			case mode == "none" && maxV < 1.5:
				t.Errorf("without settling max speed %.2f m/s, want > 1.5 m/s (the test scene must need settling)", maxV)
			}
			t.Logf("%s: max speed after frame 1 %.3f m/s", mode, maxV)
		})
	}
}
