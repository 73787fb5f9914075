package solver

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver/internal/chol"
)

// pdSystem solves the implicit Euler step of the springs by projective
// dynamics (Liu, Bargteil, O'Brien, Kavan 2013, "Fast Simulation of
// Mass-Spring Systems"; Bouaziz et al. 2014): each iteration projects
// every spring onto its rest length (local step) and then solves
//
//	(M/dt² + Σ k_s A_sᵀA_s) x = M/dt²·x̂ + Σ k_s A_sᵀ d_s
//
// for all free vertices at once (global step), with a matrix that stays
// the same while dt does: it is factored once (chol) and each iteration
// costs two triangular solves. Hard-pinned vertices are not unknowns;
// their springs pull the free end towards the pin's position.
type pdSystem struct {
	dt  float64
	err error // why the matrix for dt did not factor, or nil
	f   *chol.Factor
	idx []int32    // vertex -> unknown, -1 for a hard-pinned vertex
	d   []vec.Vec3 // per spring: the projected x_a - x_b
	b   []vec.Vec3 // per unknown: right-hand side, then solution
}

// pdBuild factors the global matrix for steps of dt.
func (ms *massSpring) pdBuild(dt float64) error {
	m, sp := ms.m, ms.sp
	ps := ms.pd
	if ps == nil {
		ps = &pdSystem{}
		ms.pd = ps
		ps.idx = make([]int32, len(m.Rest))
		n := int32(0)
		for v := range ps.idx {
			if m.InvMass[v] == 0 {
				ps.idx[v] = -1
				continue
			}
			ps.idx[v] = n
			n++
		}
		ps.d = make([]vec.Vec3, len(sp.a))
		ps.b = make([]vec.Vec3, n)
	}
	a := chol.NewMatrix(len(ps.b))
	inv := 1 / (dt * dt)
	for v, i := range ps.idx {
		if i >= 0 {
			a.Diag[i] = m.Mass[v] * inv
			if k := sp.softAt[v]; k >= 0 {
				a.Diag[i] += sp.softK[k]
			}
		}
	}
	for s := range sp.a {
		ia, ib := ps.idx[sp.a[s]], ps.idx[sp.b[s]]
		k := sp.k[s]
		if ia >= 0 {
			a.Diag[ia] += k
		}
		if ib >= 0 {
			a.Diag[ib] += k
		}
		if ia >= 0 && ib >= 0 {
			a.Add(ia, ib, -k)
		}
	}
	f, err := chol.Factorize(a)
	if err != nil {
		return err
	}
	ps.f, ps.dt = f, dt
	return nil
}

// pdSolve runs iters projective dynamics iterations on s.Pos from the
// inertial target ms.xHat.
func (ms *massSpring) pdSolve(iters int) error {
	if ms.pd == nil || ms.pd.dt != ms.dt {
		if err := ms.pdBuild(ms.dt); err != nil {
			ms.pd.dt, ms.pd.err, ms.pd.f = ms.dt, err, nil
			return err
		}
		ms.pd.err = nil
	}
	if ms.pd.err != nil {
		return ms.pd.err
	}
	for range iters {
		ms.pool.Run(len(ms.sp.a), ms.fnPDLocal)
		ms.pool.Run(len(ms.m.Rest), ms.fnPDRHS)
		ms.pd.f.Solve(ms.pd.b, ms.pd.b)
		ms.pool.Run(len(ms.m.Rest), ms.fnPDOut)
	}
	return nil
}

// pdLocal projects springs [lo, hi): a stretched spring onto its rest
// length; a compressed one to the length at which the matrix's stiffness
// k gives the spring's own compression force kc·(l - rest).
func (ms *massSpring) pdLocal(lo, hi int) {
	sp, pos, d := ms.sp, ms.s.Pos, ms.pd.d
	for s := lo; s < hi; s++ {
		e := pos[sp.a[s]].Sub(pos[sp.b[s]])
		l := e.Len()
		if l < 1e-12 {
			d[s] = vec.Vec3{}
			continue
		}
		c := l - sp.rest[s]
		target := sp.rest[s]
		if c < 0 && sp.k[s] > 0 {
			target = l - sp.kc[s]/sp.k[s]*c
		}
		d[s] = e.Scale(target / l)
	}
}

// pdRHS gathers the right-hand side of vertices [lo, hi).
func (ms *massSpring) pdRHS(lo, hi int) {
	m, sp, ps := ms.m, ms.sp, ms.pd
	pos := ms.s.Pos
	inv := 1 / (ms.dt * ms.dt)
	for v := lo; v < hi; v++ {
		i := ps.idx[v]
		if i < 0 {
			continue
		}
		r := ms.xHat[v].Scale(m.Mass[v] * inv)
		for _, s := range sp.vSpring[sp.vStart[v]:sp.vStart[v+1]] {
			k := sp.k[s]
			o := sp.b[s]
			ds := ps.d[s]
			if o == int32(v) {
				o = sp.a[s]
				ds = ds.Scale(-1)
			}
			r = r.Add(ds.Scale(k))
			if ps.idx[o] < 0 {
				r = r.Add(pos[o].Scale(k))
			}
		}
		if k := sp.softAt[v]; k >= 0 {
			r = r.Add(ms.pinTarget(m.softPins[k], ms.t).Scale(sp.softK[k]))
		}
		ps.b[i] = r
	}
}

// pdOut copies the solution of vertices [lo, hi) to s.Pos.
func (ms *massSpring) pdOut(lo, hi int) {
	ps := ms.pd
	for v := lo; v < hi; v++ {
		if i := ps.idx[v]; i >= 0 {
			ms.s.Pos[v] = ps.b[i]
		}
	}
}

// DirectSolveBytes is an upper estimate of the memory [bytes] the
// implicit solver's factored global matrix takes for a cloth of n
// vertices: nested dissection leaves about 6·log2(n) entries per row of L
// on a cloth mesh with its bending springs (56, 75 and 93 at 64², 128²
// and 256² vertices), 12 bytes each, and the factorisation's scratch.
func DirectSolveBytes(n int) int64 {
	if n < 2 {
		return 1024
	}
	perRow := 8 * math.Log2(float64(n)) // with room above the measured 6
	return int64(float64(n) * (12*perRow + 256))
}
