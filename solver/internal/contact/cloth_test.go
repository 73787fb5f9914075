package contact

import (
	"math"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver/internal/pool"
)

// testCloth is a small position-based cloth for the tests of this package,
// which the solver imports and so cannot drive it: per substep, gravity
// and damping, one Gauss-Seidel pass of rigid stretch constraints over the
// edges (PBD), the colliders (a ground plane at y = 0 that holds what it
// pushes, and frictionless spheres, each kept the thickness away), then
// Update and Project, and the velocities
// from the positions. It has no bending, so it folds more readily than the
// solver's cloth.
type testCloth struct {
	pos, prev, vel []vec.Vec3
	mesh           Mesh
	restLen        []float64 // per edge
	h              float64
	ground         bool
	spheres        []testSphere
	c              *Contact
	p              *pool.Pool
	frames         int
	stick          bool // the ground holds the vertices it pushes (static friction)
}

// testSphere is a sphere collider.
type testSphere struct {
	c vec.Vec3
	r float64
}

// testMesh returns the contact mesh of pos and tris, its edges found by
// sorting the half-edges, every vertex of inverse mass 1.
func testMesh(pos []vec.Vec3, tris [][3]int32) Mesh {
	type half struct{ a, b, t int32 }
	var hs []half
	for t, tri := range tris {
		for k := range 3 {
			a, b := tri[k], tri[(k+1)%3]
			hs = append(hs, half{min(a, b), max(a, b), int32(t)})
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		if x.b != y.b {
			return int(x.b - y.b)
		}
		return int(x.t - y.t)
	})
	m := Mesh{Rest: pos, Tris: tris, InvMass: make([]float64, len(pos))}
	for i := range m.InvMass {
		m.InvMass[i] = 1
	}
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			j++
		}
		et := [2]int32{hs[i].t, -1}
		if j-i == 2 {
			et[1] = hs[i+1].t
		}
		if j-i > 2 {
			m.NonManifold = append(m.NonManifold, int32(len(m.Edges)))
		}
		m.Edges = append(m.Edges, [2]int32{hs[i].a, hs[i].b})
		m.EdgeTris = append(m.EdgeTris, et)
		i = j
	}
	return m
}

// newTestCloth returns the cloth of pos and tris (also its rest shape) at
// rest, with the solver's default thickness (3 mm) and self friction, on
// threads goroutines.
func newTestCloth(t testing.TB, pos []vec.Vec3, tris [][3]int32, threads int) *testCloth {
	tc := &testCloth{
		pos:  slices.Clone(pos),
		prev: slices.Clone(pos),
		vel:  make([]vec.Vec3, len(pos)),
		mesh: testMesh(pos, tris),
		h:    0.003,
		p:    pool.New(threads),
	}
	t.Cleanup(tc.p.Close)
	for _, e := range tc.mesh.Edges {
		tc.restLen = append(tc.restLen, pos[e[0]].Sub(pos[e[1]]).Len())
	}
	tc.c = New(tc.mesh, tc.h, 0.3, tc.p, Options{})
	return tc
}

// Collide keeps vertex v the thickness outside the colliders (Colliders).
func (tc *testCloth) Collide(v int32) {
	x := tc.pos[v]
	if tc.ground && x.Y < tc.h {
		x.Y = tc.h
		if tc.stick {
			x.X, x.Z = tc.prev[v].X, tc.prev[v].Z
		}
	}
	for _, s := range tc.spheres {
		d := x.Sub(s.c)
		if l := d.Len(); l < s.r+tc.h && l > 0 {
			x = s.c.Add(d.Scale((s.r + tc.h) / l))
		}
	}
	tc.pos[v] = x
}

// Cost is a vertex's collider work in pool items (Colliders).
func (tc *testCloth) Cost() int { return 1 }

// frame advances the cloth by one frame at 24 fps in 15 substeps, the
// solver's default, with self-contact if self is set.
func (tc *testCloth) frame(self bool) {
	const substeps = 15
	dt := 1.0 / 24 / substeps
	g := vec.V(0, -9.81, 0)
	damp := math.Exp(-0.1 * dt)
	pos, prev, vel := tc.pos, tc.prev, tc.vel
	var col Colliders
	if tc.ground || len(tc.spheres) > 0 {
		col = tc
	}
	tc.p.Start()
	defer tc.p.Stop()
	for range substeps {
		for i := range pos {
			prev[i] = pos[i]
			vel[i] = vel[i].Scale(damp).Add(g.Scale(dt))
			pos[i] = pos[i].Add(vel[i].Scale(dt))
		}
		for k, e := range tc.mesh.Edges {
			d := pos[e[1]].Sub(pos[e[0]])
			if l := d.Len(); l > 0 {
				c := d.Scale((l - tc.restLen[k]) / l / 2)
				pos[e[0]], pos[e[1]] = pos[e[0]].Add(c), pos[e[1]].Sub(c)
			}
		}
		if col != nil {
			// the first pass with friction, those between the contact
			// rounds without
			tc.stick = true
			for v := range pos {
				tc.Collide(int32(v))
			}
			tc.stick = false
		}
		if self {
			tc.c.Update(pos, prev)
			tc.c.Project(dt, col)
		}
		for i := range pos {
			vel[i] = pos[i].Sub(prev[i]).Scale(1 / dt)
		}
	}
	tc.frames++
}

// gridMesh returns an nx x ny grid of w x h in the XY plane, from the
// origin down.
func gridMesh(nx, ny int, w, h float64) ([]vec.Vec3, [][3]int32) {
	pos := make([]vec.Vec3, 0, nx*ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			pos = append(pos, vec.V(w*float64(i)/float64(nx-1), -h*float64(j)/float64(ny-1), 0))
		}
	}
	var tris [][3]int32
	for j := 0; j+1 < ny; j++ {
		for i := 0; i+1 < nx; i++ {
			a := int32(j*nx + i)
			b, c, d := a+1, a+int32(nx), a+int32(nx)+1
			tris = append(tris, [3]int32{a, c, b}, [3]int32{b, c, d})
		}
	}
	return pos, tris
}

// flatCloth returns an n x n cloth of side w, level at the given height
// around (cx, cz).
func flatCloth(n int, w, cx, height, cz float64) ([]vec.Vec3, [][3]int32) {
	pos, tris := gridMesh(n, n, w, w)
	for i, p := range pos {
		pos[i] = vec.V(cx+p.X-w/2, height, cz-p.Y-w/2)
	}
	return pos, tris
}

// verticalDrop returns an n x n cloth of side 1 m standing on its bottom
// edge 2 cm above the ground, leaning 10 degrees and slightly rippled, so
// it collapses onto the ground in folds.
func verticalDrop(t testing.TB, n, threads int) *testCloth {
	pos, tris := gridMesh(n, n, 1, 1)
	lean := 10 * math.Pi / 180
	for i, p := range pos {
		h := 1 + p.Y // 0 at the bottom, 1 at the top
		z := 0.03 * math.Sin(9*p.X) * h
		pos[i] = vec.V(p.X-0.5, 0.02+h*math.Cos(lean), h*math.Sin(lean)+z)
	}
	tc := newTestCloth(t, pos, tris, threads)
	tc.ground = true
	return tc
}

// sphereDrape returns an n x n cloth 2 m wide, level 1 m above a sphere
// of radius 0.5 m at the origin, which it drapes over into folds.
func sphereDrape(t testing.TB, n, threads int) *testCloth {
	pos, tris := flatCloth(n, 2, 0, 1, 0)
	tc := newTestCloth(t, pos, tris, threads)
	tc.spheres = []testSphere{{r: 0.5}}
	return tc
}

// TestTestCloth checks the test cloth the other tests run: a 24 x 24
// heap collapses (its mean height falls below a tenth of its start), keeps
// its edges within 50 % of their rest length (one stretch pass a substep
// gives way where the contact pushes crowd a fold), and with self-contact
// ends with no intersecting triangles while without it they intersect.
func TestTestCloth(t *testing.T) {
	for _, self := range []bool{false, true} {
		tc := verticalDrop(t, 24, 1)
		y0 := meanY(tc.pos)
		for range 40 {
			tc.frame(self)
		}
		y := meanY(tc.pos)
		worst := 0.0
		for k, e := range tc.mesh.Edges {
			worst = max(worst, math.Abs(tc.pos[e[0]].Sub(tc.pos[e[1]]).Len()/tc.restLen[k]-1))
		}
		n := Intersections(tc.pos, tc.mesh.Tris)
		t.Logf("self = %v: mean height %.3f m (from %.3f), largest strain %.1f %%, %d intersecting pairs", self, y, y0, 100*worst, n)
		if y > y0/10 || worst > 0.5 {
			t.Errorf("self = %v: mean height %.3f m from %.3f, strain %.1f %%: want a heap below a tenth, strain within 50 %%", self, y, y0, 100*worst)
		}
		if self != (n == 0) {
			t.Errorf("self = %v: %d intersecting pairs, want 0 with self-contact and some without", self, n)
		}
	}
}

func meanY(pos []vec.Vec3) float64 {
	s := 0.0
	for _, p := range pos {
		s += p.Y
	}
	return s / float64(len(pos))
}
