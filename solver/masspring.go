package solver

import (
	"github.com/drape-sim/drape/solver/internal/pool"
	"math"
	"runtime"

	"github.com/drape-sim/drape/internal/vec"
)

// springSet is the classic mass-spring cloth model (Hooke springs, as in
// the mass-spring tutorials the project started from) on the model's
// topology: a structural spring per unique edge, a shear spring across
// the diagonal of every quad (two nearly coplanar triangles sharing their
// longest side: the spring joins the opposite vertices) and a bending
// spring between the opposite vertices of every other interior edge.
type springSet struct {
	a, b    []int32
	rest    []float64
	k, kc   []float64 // stiffness when stretched / compressed [N/m]
	vStart  []int32   // vertex -> springs (CSR)
	vSpring []int32
	kSum    []float64 // per vertex: sum of max(k, kc) over its springs (+ soft pin) [N/m]
	softK   []float64 // per soft pin: m·ω² [N/m]
	softAt  []int32   // per vertex: index into softPins, -1 if none

	structural, shear, bending int
}

// springForce returns the Hooke force [N] on a from the spring a-b,
// f = -k(1 - L/|xa-xb|)(xa-xb), with stiffness k when stretched and kc
// when compressed.
func springForce(xa, xb vec.Vec3, rest, k, kc float64) vec.Vec3 {
	d := xa.Sub(xb)
	l := d.Len()
	if l < 1e-12 {
		return vec.Vec3{}
	}
	c := l - rest
	if c < 0 {
		k = kc
	}
	return d.Scale(-k * c / l)
}

func newSpringSet(m *Model) *springSet {
	s := &springSet{}
	add := func(a, b int32, k, kc float64) {
		if m.InvMass[a] == 0 && m.InvMass[b] == 0 {
			return
		}
		s.a = append(s.a, a)
		s.b = append(s.b, b)
		s.rest = append(s.rest, m.Rest[a].Sub(m.Rest[b]).Len())
		s.k = append(s.k, k)
		s.kc = append(s.kc, kc)
	}
	// structural
	for _, e := range m.Topo.Edges {
		l := m.Rest[e.V[0]].Sub(m.Rest[e.V[1]]).Len()
		g := m.edgeArea(e) / (l * l)
		add(e.V[0], e.V[1], m.edgeValue(e, stretchOf)*g, m.edgeValue(e, compressionOf)*g)
	}
	s.structural = len(s.a)
	// shear and bending, between opposite vertices
	for _, e := range m.Topo.Edges {
		if !e.Interior() {
			continue
		}
		x0, x1, x2, x3 := m.Rest[e.V[0]], m.Rest[e.V[1]], m.Rest[e.Opp[0]], m.Rest[e.Opp[1]]
		l := x1.Sub(x0).Len()
		a1, a2 := m.triArea[e.Tri[0]], m.triArea[e.Tri[1]]
		d := x2.Sub(x3).Len()
		if a1 <= 0 || a2 <= 0 || d == 0 {
			continue
		}
		if quadDiagonal(x0, x1, x2, x3) {
			g := (a1 + a2) / 3 / (d * d)
			k := m.edgeValue(e, shearOf) * g
			add(e.Opp[0], e.Opp[1], k, k)
			s.shear++
			continue
		}
		if kb := m.edgeValue(e, bendingOf); kb > 0 {
			// match the dihedral energy ½·kθ·θ² at θ = 1 rad: the spring
			// length changes by about h1·h2·θ²/(2d)
			kTheta := kb * 3 * l * l / (a1 + a2)
			h1, h2 := 2*a1/l, 2*a2/l
			k := kTheta * 4 * d * d / (h1 * h1 * h2 * h2)
			add(e.Opp[0], e.Opp[1], k, k)
			s.bending++
		}
	}
	// CSR and per-vertex stiffness sums
	nv := len(m.Rest)
	s.vStart = make([]int32, nv+1)
	for i := range s.a {
		s.vStart[s.a[i]+1]++
		s.vStart[s.b[i]+1]++
	}
	for v := 0; v < nv; v++ {
		s.vStart[v+1] += s.vStart[v]
	}
	s.vSpring = make([]int32, s.vStart[nv])
	fill := append([]int32(nil), s.vStart[:nv]...)
	s.kSum = make([]float64, nv)
	for i := range s.a {
		for _, v := range [2]int32{s.a[i], s.b[i]} {
			s.vSpring[fill[v]] = int32(i)
			fill[v]++
			s.kSum[v] += max(s.k[i], s.kc[i])
		}
	}
	s.softAt = make([]int32, nv)
	for i := range s.softAt {
		s.softAt[i] = -1
	}
	for k, i := range m.softPins {
		v := m.Pins[i].Vertex
		kp := 1 / m.softA[k]
		s.softK = append(s.softK, kp)
		s.softAt[v] = int32(k)
		s.kSum[v] += kp
	}
	return s
}

// quadDiagonal reports whether hinge x0-x1 with opposite vertices x2, x3 is
// the diagonal of a quad: the triangles are within 20 degrees of coplanar
// and the hinge is clearly the longest side of both.
func quadDiagonal(x0, x1, x2, x3 vec.Vec3) bool {
	if math.Abs(dihedralAngle(x0, x1, x2, x3)) > 20*math.Pi/180 {
		return false
	}
	l2 := x1.Sub(x0).LenSq() / (1.05 * 1.05)
	for _, x := range [2]vec.Vec3{x2, x3} {
		if x.Sub(x0).LenSq() >= l2 || x.Sub(x1).LenSq() >= l2 {
			return false
		}
	}
	return true
}

// maxStableDt returns the largest explicit step [s] for the springs: the
// Gershgorin bound on the highest frequency, ω² <= 2·kSum/m, with step
// ω·dt <= 1 (half the leapfrog limit of 2). It is the usual mass-spring
// stability rule k·dt² < m made precise.
func (s *springSet) maxStableDt(m *Model) float64 {
	dt := math.Inf(1)
	for v, k := range s.kSum {
		if m.InvMass[v] == 0 || k == 0 {
			continue
		}
		dt = min(dt, math.Sqrt(m.Mass[v]/(2*k)))
	}
	return dt
}

// maxExplicitSteps bounds the steps per frame an explicit integrator may
// take before Step refuses with a clear error.
const maxExplicitSteps = 50000

// massSpring integrates the springSet with position Verlet, semi-implicit
// Euler or implicit Euler by Jacobi/Chebyshev (Liu et al. 2013, Wang
// 2015). Explicit integrators split each frame into at least
// Params.Substeps steps and as many more as the stability bound needs.
type massSpring struct {
	base
	sp   *springSet
	kind SolverKind

	xOld  []vec.Vec3 // start of step (verlet: previous position)
	xHat  []vec.Vec3 // implicit: inertial target
	xNew  []vec.Vec3 // implicit: Jacobi output
	xPrv  []vec.Vec3 // implicit: iterate k-1 for Chebyshev
	vHalf []vec.Vec3 // euler: staggered velocity
	sAcc  []vec.Vec3 // spring + soft pin acceleration

	omega  float64 // Chebyshev weight of the current iteration
	stage  int     // phase selector for shared phase functions
	fnSpr  func(lo, hi int)
	fnVtx  func(lo, hi int)
	fnJac  func(lo, hi int)
	fnSub  func(k, n int, t, dt float64)
	fnPred func(lo, hi int)
	fnVel  func(lo, hi int)
	first  bool
	last   bool

	pd                          *pdSystem // projective dynamics (pd.go), nil until used
	fnPDLocal, fnPDRHS, fnPDOut func(lo, hi int)
}

func newMassSpring(m *Model) *massSpring {
	nv := len(m.Rest)
	// the springs are this integrator's own model of the cloth: XPBD's
	// constraints live on the Model, the springs with their integrator
	ms := &massSpring{base: newBase(m), sp: newSpringSet(m), kind: m.Params.Solver}
	ms.xOld = make([]vec.Vec3, nv)
	ms.sAcc = make([]vec.Vec3, nv)
	if ms.kind == SolverImplicit {
		ms.xHat = make([]vec.Vec3, nv)
		ms.xNew = make([]vec.Vec3, nv)
		ms.xPrv = make([]vec.Vec3, nv)
	}
	if ms.kind == SolverEuler {
		ms.vHalf = make([]vec.Vec3, nv)
	}
	ms.fnSpr, ms.fnVtx, ms.fnJac, ms.fnSub = ms.springAccel, ms.vertexPhase, ms.jacobi, ms.substep
	ms.fnPred, ms.fnVel = ms.predict, ms.updateVel
	ms.fnPDLocal, ms.fnPDRHS, ms.fnPDOut = ms.pdLocal, ms.pdRHS, ms.pdOut
	runtime.AddCleanup(ms, func(p *pool.Pool) { p.Close() }, ms.pool)
	return ms
}

// steps returns the number of steps for a frame of length dt.
func (ms *massSpring) steps(dt float64) int {
	n := ms.m.Params.Substeps
	if ms.kind == SolverImplicit {
		return n
	}
	h := ms.sp.maxStableDt(ms.m)
	if need := math.Ceil(dt / h); need > float64(n) {
		n = int(min(need, maxExplicitSteps+1))
	}
	return n
}

// Step advances s by frame f.
func (ms *massSpring) Step(s *State, f *Frame) error {
	if err := ms.checkState(s, f); err != nil {
		return err
	}
	n := ms.steps(f.Dt)
	if n > maxExplicitSteps {
		return &DivergedError{Frame: f.Index, Vertex: -1, Substeps: n,
			Reason: "the springs are too stiff for an explicit integrator at this mesh resolution (more than 50000 steps per frame); use the xpbd or implicit solver or a lower stiffness"}
	}
	return ms.runFrame(s, f, n, ms.fnSub)
}

// substep runs step k of n of the selected integrator.
func (ms *massSpring) substep(k, n int, t, dt float64) {
	first, last := k == 0, k == n-1
	switch ms.kind {
	case SolverVerlet:
		ms.verletStep(t, dt, first, last)
	case SolverEuler:
		ms.eulerStep(t, dt, first, last)
	default:
		ms.implicitStep(t, dt, first, last)
	}
}

// accel fills b.acc (external) and ms.sAcc (springs, soft pins) at time t
// from s.Pos and s.Vel.
func (ms *massSpring) accel(t float64) {
	ms.externalAccel(t)
	ms.pool.Run(len(ms.m.Rest), ms.fnSpr)
}

// springAccel gathers each vertex's spring and soft-pin acceleration.
func (ms *massSpring) springAccel(lo, hi int) {
	m, sp := ms.m, ms.sp
	pos := ms.s.Pos
	for v := lo; v < hi; v++ {
		w := m.InvMass[v]
		if w == 0 {
			ms.sAcc[v] = vec.Vec3{}
			continue
		}
		var f vec.Vec3
		xv := pos[v]
		for _, i := range sp.vSpring[sp.vStart[v]:sp.vStart[v+1]] {
			o := sp.b[i]
			if o == int32(v) {
				o = sp.a[i]
			}
			f = f.Add(springForce(xv, pos[o], sp.rest[i], sp.k[i], sp.kc[i]))
		}
		if k := sp.softAt[v]; k >= 0 {
			f = f.Add(ms.pinTarget(m.softPins[k], ms.t).Sub(xv).Scale(sp.softK[k]))
		}
		ms.sAcc[v] = f.Scale(w)
	}
}

// Phases of vertexPhase.
const (
	stageVerletStart = iota
	stageVerlet
	stageVerletEnd
	stageEulerKick
	stageEulerFullKick
	stageEulerDrift
	stageEulerEnd
)

func (ms *massSpring) phase(stage int) {
	ms.stage = stage
	ms.pool.Run(len(ms.m.Rest), ms.fnVtx)
}

// vertexPhase runs one per-vertex update of the integrators (selected by
// ms.stage) over [lo, hi).
func (ms *massSpring) vertexPhase(lo, hi int) {
	m := ms.m
	s := ms.s
	dt := ms.dt
	for v := lo; v < hi; v++ {
		if m.InvMass[v] == 0 {
			continue
		}
		a := ms.acc[v].Add(ms.sAcc[v])
		switch ms.stage {
		case stageVerletStart:
			// x_{-1} = x - v·dt + ½·a·dt² (Taylor), so Verlet starts with velocity v
			ms.xOld[v] = s.Pos[v].Sub(s.Vel[v].Scale(dt)).Add(a.Scale(0.5 * dt * dt))
		case stageVerlet:
			// x_{n+1} = x_n + damp·(x_n - x_{n-1}) + a·dt² (position Verlet)
			x := s.Pos[v]
			s.Pos[v] = x.Add(x.Sub(ms.xOld[v]).Scale(ms.dampAt(v))).Add(a.Scale(dt * dt))
			ms.xOld[v] = x
			s.Vel[v] = s.Pos[v].Sub(x).Scale(1 / dt)
		case stageVerletEnd:
			s.Vel[v] = s.Pos[v].Sub(ms.xOld[v]).Scale(1 / dt).Add(a.Scale(0.5 * dt))
		case stageEulerKick:
			// half kick to the staggered velocity v_{1/2} = v + ½·a·dt
			ms.vHalf[v] = s.Vel[v].Add(a.Scale(0.5 * dt))
		case stageEulerFullKick:
			ms.vHalf[v] = ms.vHalf[v].Add(a.Scale(dt))
		case stageEulerDrift:
			// x ← x + v·dt with the staggered velocity (semi-implicit Euler)
			ms.vHalf[v] = ms.vHalf[v].Scale(ms.dampAt(v))
			s.Pos[v] = s.Pos[v].Add(ms.vHalf[v].Scale(dt))
			s.Vel[v] = ms.vHalf[v]
		case stageEulerEnd:
			s.Vel[v] = ms.vHalf[v].Add(a.Scale(0.5 * dt))
		}
	}
}

// pinnedPrev records the start position of hard-pinned vertices, moves them
// to their target at t and sets their velocity from the displacement.
func (ms *massSpring) movePins(t, dt float64) {
	pos, vel := ms.s.Pos, ms.s.Vel
	for _, i := range ms.m.hardPins {
		v := ms.m.Pins[i].Vertex
		x := ms.pinTarget(i, t)
		vel[v] = x.Sub(pos[v]).Scale(1 / dt)
		ms.s.Prev[v] = pos[v]
		pos[v] = x
	}
}

// verletStep is one step of position Verlet with damping
// exp(-Damping·dt) on the inertial term.
func (ms *massSpring) verletStep(t, dt float64, first, last bool) {
	ms.dt = dt
	ms.setDamping(dt)
	if first {
		ms.accel(t)
		ms.phase(stageVerletStart)
	}
	copy(ms.s.Prev, ms.s.Pos)
	ms.phase(stageVerlet)
	ms.movePins(t+dt, dt)
	ms.collide(t, dt)
	ms.accel(t + dt)
	if last {
		ms.phase(stageVerletEnd)
	}
}

// eulerStep is one step of semi-implicit Euler, v ← v + a(x)·dt then
// x ← x + v·dt (symplectic Euler), with the velocity kept half a step ahead and
// synchronised by half kicks at the frame's start and end (so it is
// leapfrog, and free fall is exact).
func (ms *massSpring) eulerStep(t, dt float64, first, last bool) {
	ms.dt = dt
	ms.setDamping(dt)
	if first {
		ms.accel(t)
		ms.phase(stageEulerKick)
	}
	copy(ms.s.Prev, ms.s.Pos)
	ms.phase(stageEulerDrift)
	ms.movePins(t+dt, dt)
	ms.collide(t, dt)
	ms.accel(t + dt)
	if last {
		ms.phase(stageEulerEnd)
	} else {
		ms.phase(stageEulerFullKick)
	}
}

// implicitStep is one step of implicit Euler for the springs, solved as
// the minimisation of ½/dt²·|x - x̂|²_M + E(x) (Liu et al. 2013): by
// Params.Iterations iterations of projective dynamics with a prefactored
// global matrix (pd.go), or, with Params.JacobiIterations > 0, by that
// many Jacobi iterations with the diagonal Hessian m/dt² + Σk, accelerated
// by Chebyshev (Wang 2015). The inertial target x̂ and the velocity update
// are XPBD's (predict, updateVelocity), with the same frame-boundary half
// kicks.
func (ms *massSpring) implicitStep(t, dt float64, first, last bool) {
	ms.dt = dt
	ms.setDamping(dt)
	ms.first, ms.last = first, last
	ms.externalAccel(t)
	ms.pool.Run(len(ms.m.Rest), ms.fnPred)
	copy(ms.xHat, ms.s.Pos)
	ms.t = t + dt
	ms.setHardPins(ms.s.Pos, t+dt)
	p := &ms.m.Params
	if p.JacobiIterations > 0 || ms.pdSolve(p.Iterations) != nil {
		ms.solveImplicit(max(p.JacobiIterations, jacobiFallback), p.Chebyshev, nil)
	}
	ms.collide(t, dt)
	ms.pool.Run(len(ms.m.Rest), ms.fnVel)
}

// jacobiFallback is the number of Jacobi iterations a step takes when
// the direct global step cannot be used (its matrix would not factor,
// which takes a mass or stiffness out of range).
const jacobiFallback = 32

func (ms *massSpring) predict(lo, hi int) {
	predict(ms.s.Pos[lo:hi], ms.s.Prev[lo:hi], ms.s.Vel[lo:hi], ms.acc[lo:hi], ms.m.InvMass[lo:hi], ms.dt, ms.damp, ms.dampSlice(lo, hi), ms.first, nil, nil)
}

func (ms *massSpring) updateVel(lo, hi int) {
	updateVelocity(ms.s.Pos[lo:hi], ms.s.Prev[lo:hi], ms.s.Vel[lo:hi], ms.acc[lo:hi], ms.m.InvMass[lo:hi], ms.dt, ms.last, nil, nil)
}

// solveImplicit runs iters Jacobi iterations on s.Pos. If res is not nil
// it receives the gradient norm before each iteration and after the last.
func (ms *massSpring) solveImplicit(iters int, cheb bool, res *[]float64) {
	p := &ms.m.Params
	rho := p.ChebyshevRho
	const delay = 10 // plain Jacobi iterations before acceleration (Wang 2015, S = 10)
	copy(ms.xPrv, ms.s.Pos)
	omega := 1.0
	for k := 0; k < iters; k++ {
		if res != nil {
			*res = append(*res, ms.gradNorm())
		}
		switch {
		case !cheb || k < delay:
			omega = 1
		case k == delay:
			omega = 2 / (2 - rho*rho)
		default:
			omega = 4 / (4 - rho*rho*omega)
		}
		ms.omega = omega
		ms.pool.Run(len(ms.m.Rest), ms.fnJac)
		// rotate buffers: xPrv ← x, x ← xNew
		ms.xPrv, ms.s.Pos, ms.xNew = ms.s.Pos, ms.xNew, ms.xPrv
	}
	if res != nil {
		*res = append(*res, ms.gradNorm())
	}
}

// jacobi computes one Jacobi update into ms.xNew from s.Pos, blended by the
// Chebyshev weight: x_{k+1} = ω·(x̃_{k+1} - x_{k-1}) + x_{k-1}.
func (ms *massSpring) jacobi(lo, hi int) {
	m, sp := ms.m, ms.sp
	pos := ms.s.Pos
	inv := 1 / (ms.dt * ms.dt)
	for v := lo; v < hi; v++ {
		if m.InvMass[v] == 0 {
			ms.xNew[v] = pos[v]
			continue
		}
		g := ms.gradient(v, inv)
		h := m.Mass[v]*inv + sp.kSum[v]
		xt := pos[v].Sub(g.Scale(1 / h))
		ms.xNew[v] = xt.Sub(ms.xPrv[v]).Scale(ms.omega).Add(ms.xPrv[v])
	}
}

// gradient returns the gradient of the implicit objective at vertex v:
// m/dt²·(x - x̂) - f_springs - f_soft pins.
func (ms *massSpring) gradient(v int, invDt2 float64) vec.Vec3 {
	m, sp := ms.m, ms.sp
	pos := ms.s.Pos
	xv := pos[v]
	g := xv.Sub(ms.xHat[v]).Scale(m.Mass[v] * invDt2)
	for _, i := range sp.vSpring[sp.vStart[v]:sp.vStart[v+1]] {
		o := sp.b[i]
		if o == int32(v) {
			o = sp.a[i]
		}
		g = g.Sub(springForce(xv, pos[o], sp.rest[i], sp.k[i], sp.kc[i]))
	}
	if k := sp.softAt[v]; k >= 0 {
		g = g.Sub(ms.pinTarget(m.softPins[k], ms.t).Sub(xv).Scale(sp.softK[k]))
	}
	return g
}

// gradNorm returns the Euclidean norm of the implicit objective's gradient
// over the free vertices, summed in vertex order.
func (ms *massSpring) gradNorm() float64 {
	inv := 1 / (ms.dt * ms.dt)
	sum := 0.0
	for v := range ms.m.Rest {
		if ms.m.InvMass[v] == 0 {
			continue
		}
		sum += ms.gradient(v, inv).LenSq()
	}
	return math.Sqrt(sum)
}
