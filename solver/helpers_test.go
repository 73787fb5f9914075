package solver

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// topPins pins the top row (y = 0) of a grid hard.
func topPins(nx int) []Pin {
	pins := make([]Pin, nx)
	for i := range pins {
		pins[i] = Pin{Vertex: int32(i), Stiffness: 1}
	}
	return pins
}

// simulate runs frames frames at fps and calls each (if not nil) after
// every frame.
func simulate(t testing.TB, m *Model, s *State, frames int, fps float64, each func(frame int)) {
	t.Helper()
	in, err := NewIntegrator(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < frames; i++ {
		f := m.FrameAt(i, fps)
		if err := in.Step(s, &f); err != nil {
			t.Fatalf("%v frame %d: %v", m.Params.Solver, i, err)
		}
		if each != nil {
			each(i)
		}
	}
}

// maxStretch returns the largest relative edge elongation (l - L)/L.
func maxStretch(m *Model, pos []vec.Vec3) float64 {
	worst := 0.0
	for _, e := range m.Topo.Edges {
		l0 := m.Rest[e.V[0]].Sub(m.Rest[e.V[1]]).Len()
		l := pos[e.V[0]].Sub(pos[e.V[1]]).Len()
		worst = math.Max(worst, (l-l0)/l0)
	}
	return worst
}

// kinetic returns the kinetic energy [J], summed in vertex order.
func kinetic(m *Model, s *State) float64 {
	e := 0.0
	for i, v := range s.Vel {
		e += 0.5 * m.Mass[i] * v.LenSq()
	}
	return e
}

// energy returns kinetic plus gravitational potential energy [J] for
// gravity g.
func energy(m *Model, s *State, g vec.Vec3) float64 {
	e := kinetic(m, s)
	for i, x := range s.Pos {
		e -= m.Mass[i] * g.Dot(x)
	}
	return e
}

func newModel(t testing.TB, pos []vec.Vec3, tris [][3]int32, pins []Pin, p Params) *Model {
	t.Helper()
	m, err := NewModel(pos, tris, pins, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var allSolvers = []SolverKind{SolverXPBD, SolverVerlet, SolverEuler, SolverImplicit}

// benchGrid returns the bench's cloth (bench/main.go writeGrid): n x n
// vertices, 2 m wide, 1 m above the origin in the XZ plane, with the quad
// diagonals alternating in a checkerboard.
func benchGrid(n int) ([]vec.Vec3, [][3]int32) {
	pos := make([]vec.Vec3, 0, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			pos = append(pos, vec.V(-1+2*float64(i)/float64(n-1), 1, -1+2*float64(j)/float64(n-1)))
		}
	}
	var tris [][3]int32
	for j := 0; j+1 < n; j++ {
		for i := 0; i+1 < n; i++ {
			a := int32(j*n + i)
			b, c, d := a+1, a+int32(n), a+int32(n)+1
			if (i+j)%2 == 0 {
				tris = append(tris, [3]int32{a, d, b}, [3]int32{a, c, d})
			} else {
				tris = append(tris, [3]int32{a, c, b}, [3]int32{b, c, d})
			}
		}
	}
	return pos, tris
}

// sphereDrape returns the model, state and XPBD integrator of an n x n
// benchGrid cloth with self-collision on, at the given threads, and the
// 0.5 m sphere at the origin it drapes over.
func sphereDrape(t testing.TB, n, threads int) (*Model, *State, *XPBD, []sdf.Collider) {
	pos, tris := benchGrid(n)
	p := DefaultParams()
	p.SelfCollision = true
	p.Threads = threads
	m := newModel(t, pos, tris, nil, p)
	return m, NewState(m), NewXPBD(m), []sdf.Collider{sdf.NewCollider(sdf.Sphere{Radius: 0.5})}
}
