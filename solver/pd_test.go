package solver

import (
	"testing"
)

// TestProjectiveDynamicsConverges starts the implicit solver's step from
// the stretched cloth of TestChebyshevAcceleration and checks that its
// local-global iterations come closer to the step's solution with every
// iteration and converge to the minimiser of the implicit objective that
// the Jacobi iterations converge to: the direct step solves the same
// equations.
func TestProjectiveDynamicsConverges(t *testing.T) {
	pos, tris := gridMesh(20, 20, 1, 1)
	p := DefaultParams()
	p.Solver = SolverImplicit
	m := newModel(t, pos, tris, topPins(20), p)
	start := func() *massSpring { return stretchedStep(m) }
	run := func(iters int) *massSpring {
		ms := start()
		if err := ms.pdSolve(iters); err != nil {
			t.Fatal(err)
		}
		return ms
	}
	ref := run(400)
	defer ref.pool.Close()
	g0 := start()
	defer g0.pool.Close()
	if g, g0 := ref.gradNorm(), g0.gradNorm(); !(g < 1e-6*g0) {
		t.Fatalf("after 400 iterations the gradient norm is %.3e of %.3e at the start: want below 1e-6 of it", g, g0)
	}
	dist := func(ms *massSpring) float64 {
		d := 0.0
		for i, x := range ms.s.Pos {
			d = max(d, x.Sub(ref.s.Pos[i]).Len())
		}
		return d
	}
	pd := make([]float64, 5)
	for k := range pd {
		ms := run(k)
		pd[k] = dist(ms)
		ms.pool.Close()
		if k > 0 && !(pd[k] < pd[k-1]) {
			t.Errorf("iteration %d: %.3e m from the solution, was %.3e: want closer", k, pd[k], pd[k-1])
		}
	}
	jac := start()
	defer jac.pool.Close()
	jac.solveImplicit(4000, true, nil)
	dj := dist(jac)
	t.Logf("largest distance from the solution: start %.3e m; after 1 / 2 / 4 local-global iterations %.3e / %.3e / %.3e m; after 4000 Chebyshev-Jacobi iterations %.3e m",
		pd[0], pd[1], pd[2], pd[4], dj)
	if !(dj < 1e-6) {
		t.Errorf("4000 Chebyshev-Jacobi iterations end %.3e m from the solution of 400 local-global iterations: want them within 1e-6 m", dj)
	}
}

// TestImplicitHangingStrain hangs the 64 x 64 cotton curtain of
// TestHangingCurtainStrain with the implicit solver: its direct global
// step carries the curtain's weight to the pins in each step, so no edge
// stretches more than 1 % (32 Jacobi iterations per step left 2.2 %).
func TestImplicitHangingStrain(t *testing.T) {
	p := DefaultParams()
	p.Solver = SolverImplicit
	m, s := hangingCurtain(t, 64, p)
	st := runStrain(t, m, s, nil, 48)
	t.Logf("implicit, 64 x 64 curtain: %v", st)
	if st.maxStrain > 0.01 {
		t.Errorf("implicit 64 x 64 hanging curtain: max edge strain %.3f%% in frame %d, want <= 1%%", 100*st.maxStrain, st.maxFrame)
	}
	if st.lowY < -1.01 || st.lowY > -0.99 {
		t.Errorf("implicit 64 x 64 hanging curtain: lowest point at y = %.4f m, want -1 ± 0.01 m", st.lowY)
	}
}
