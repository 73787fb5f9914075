package solver

import (
	"errors"
	"fmt"
	"github.com/drape-sim/drape/solver/internal/contact"
	"github.com/drape-sim/drape/solver/internal/pool"
	"math"
	"runtime"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// ErrDiverged reports a simulation that produced NaN, Inf or a speed above
// Params.MaxSpeed. Errors returned by Step wrap it in a *DivergedError.
var ErrDiverged = errors.New("simulation diverged")

// DivergedError names the frame and vertex where a simulation diverged and
// the likely fix. It wraps ErrDiverged.
type DivergedError struct {
	// Frame is the frame index.
	Frame int
	// Vertex is the first vertex found diverged.
	Vertex int32
	// Speed is its speed [m/s] (NaN or Inf if not finite).
	Speed float64
	// Substeps is the substep count of the last attempt.
	Substeps int
	// Reason says what was wrong ("position is not finite", ...).
	Reason string
}

// Error implements error.
func (e *DivergedError) Error() string {
	return fmt.Sprintf("frame %d: vertex %d: %s: %v; try more substeps (now %d), a softer stiffness, or retry divergence",
		e.Frame, e.Vertex, e.Reason, ErrDiverged, e.Substeps)
}

// Unwrap returns ErrDiverged.
func (e *DivergedError) Unwrap() error { return ErrDiverged }

// Frame is what changes from one frame to the next outside the cloth.
type Frame struct {
	// Index is the frame number (for error messages).
	Index int
	// Time is the time at the start of the frame [s].
	Time float64
	// Dt is the frame's duration [s].
	Dt float64
	// Gravity is the gravitational acceleration [m/s²].
	Gravity vec.Vec3
	// Wind is the wind field.
	Wind Wind
	// Colliders are the frame's colliders, evaluated at each substep's
	// time through their keyframed motion (sdf.Collider.PoseAt).
	Colliders []sdf.Collider
}

// FrameAt returns frame index of a sequence at fps frames per second with
// the model's gravity and no wind.
func (m *Model) FrameAt(index int, fps float64) Frame {
	return Frame{Index: index, Time: float64(index) / fps, Dt: 1 / fps, Gravity: m.Params.Gravity}
}

// Integrator advances a State by one frame. XPBD and the mass-spring
// integrators implement it; they share topology, pins, forces and
// colliders.
type Integrator interface {
	Step(s *State, f *Frame) error
}

// NewIntegrator returns the integrator m.Params.Solver selects.
func NewIntegrator(m *Model) (Integrator, error) {
	switch m.Params.Solver {
	case SolverXPBD:
		return NewXPBD(m), nil
	case SolverVerlet, SolverEuler, SolverImplicit:
		return newMassSpring(m), nil
	}
	return nil, fmt.Errorf("solver = %d: must be one of xpbd, verlet, euler, implicit", int(m.Params.Solver))
}

// base is the bookkeeping every integrator shares: the worker pool, the
// external forces (gravity, drag, wind), pins, the divergence guard and
// frame retry.
type base struct {
	m    *Model // shared and only read
	pool *pool.Pool
	// w is the inverse masses [1/kg] the integrator moves the vertices
	// with: the model's, or with sleeping (XPBD) a copy of them that is 0
	// for the vertices asleep in the current frame
	w    []float64
	save State // frame start, for retries

	// per-substep external acceleration [m/s²] and per-triangle aero force [N]
	acc  []vec.Vec3
	triF []vec.Vec3

	// current step context, read by the phase functions
	s      *State
	f      *Frame
	t, dt  float64
	damp   float64   // velocity factor exp(-Damping·dt)
	dampV  []float64 // per vertex, where fabrics differ in damping (else nil)
	dampDt float64   // the dt of dampV
	aero   bool
	fnTri  func(lo, hi int)
	fnDrag func(lo, hi int)
	dragK  float64 // the drag coefficient triForces uses
	fnAcc  func(lo, hi int)
	pinsAt float64

	col *collision // collision response and self-collision (collide.go)
	// contactOpts are the self-contact's options (tests set them before
	// the first Step)
	contactOpts contact.Options
}

func newBase(m *Model) base {
	n := m.Params.Threads
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	nv := len(m.Rest)
	b := base{
		m:    m,
		pool: pool.New(n),
		w:    m.InvMass,
		acc:  make([]vec.Vec3, nv),
		triF: make([]vec.Vec3, len(m.Topo.Tris)),
	}
	return b
}

// checkState reports a State that does not belong to the model.
func (b *base) checkState(s *State, f *Frame) error {
	nv := len(b.m.Rest)
	if len(s.Pos) != nv || len(s.Prev) != nv || len(s.Vel) != nv {
		return fmt.Errorf("%w: %d, %d, %d positions, previous positions, velocities for %d vertices",
			errStateSize, len(s.Pos), len(s.Prev), len(s.Vel), nv)
	}
	if !(f.Dt > 0) || math.IsInf(f.Dt, 0) {
		return fmt.Errorf("frame %d: dt = %g: must be positive and finite", f.Index, f.Dt)
	}
	return nil
}

// runFrame advances s by frame f with substep, checking for divergence and
// retrying with doubled substeps as Params.RetryDivergence allows.
func (b *base) runFrame(s *State, f *Frame, n int, substep func(k, n int, t, dt float64)) error {
	p := &b.m.Params
	for i, x := range s.Pos {
		if !x.IsFinite() || !s.Vel[i].IsFinite() {
			return &DivergedError{Frame: f.Index, Vertex: int32(i), Speed: s.Vel[i].Len(), Substeps: n,
				Reason: "position or velocity is not finite at the start of the frame"}
		}
	}
	retry := p.RetryDivergence
	if retry > 0 {
		if len(b.save.Pos) != len(s.Pos) {
			b.save = State{Pos: make([]vec.Vec3, len(s.Pos)), Prev: make([]vec.Vec3, len(s.Pos)), Vel: make([]vec.Vec3, len(s.Pos))}
		}
		b.save.copyFrom(s)
	}
	b.pool.Start()
	defer b.pool.Stop()
	for attempt := 0; ; attempt++ {
		b.s, b.f = s, f
		dt := f.Dt / float64(n)
		for k := 0; k < n; k++ {
			substep(k, n, f.Time+float64(k)*dt, dt)
		}
		err := b.diverged(s, f, n)
		if err == nil {
			return nil
		}
		if attempt >= retry {
			return err
		}
		s.copyFrom(&b.save)
		n *= 2
	}
}

// diverged returns a *DivergedError for the first vertex with a non-finite
// position or velocity or a speed above MaxSpeed, or nil.
func (b *base) diverged(s *State, f *Frame, substeps int) error {
	maxV2 := b.m.Params.MaxSpeed * b.m.Params.MaxSpeed
	for i := range s.Pos {
		v2 := s.Vel[i].LenSq()
		if s.Pos[i].IsFinite() && s.Vel[i].IsFinite() && v2 <= maxV2 {
			continue
		}
		e := &DivergedError{Frame: f.Index, Vertex: int32(i), Speed: math.Sqrt(v2), Substeps: substeps}
		switch {
		case !s.Pos[i].IsFinite():
			e.Reason = "position is not finite"
		case !s.Vel[i].IsFinite():
			e.Reason = "velocity is not finite"
		default:
			e.Reason = fmt.Sprintf("speed %.3g m/s exceeds max speed %g m/s", e.Speed, b.m.Params.MaxSpeed)
		}
		return e
	}
	return nil
}

// externalAccel fills b.acc with each free vertex's external acceleration
// at time t: gravity plus the aerodynamic forces (air drag and wind, seed
// 002) of its triangles divided by its mass. Velocities are s.Vel.
func (b *base) externalAccel(t float64) {
	b.triPhase(t)
	b.pool.Run(len(b.acc), b.fnAcc)
}

// triPhase computes the per-triangle aerodynamic forces at time t into
// b.triF (if there is air drag); gatherAccel then sums them per vertex.
func (b *base) triPhase(t float64) {
	b.t = t
	p := &b.m.Params
	b.aero = p.AirDrag > 0 || b.m.triDrag != nil
	if b.fnTri == nil {
		b.fnTri, b.fnAcc, b.fnDrag = b.triForces, b.gatherAccel, b.scaleDrag
	}
	// the force is linear in the drag coefficient: with drag per triangle
	// (fabric regions) it is computed for 1, then scaled
	b.dragK = p.AirDrag
	if b.m.triDrag != nil {
		b.dragK = 1
	}
	if b.aero {
		b.pool.Run(len(b.triF), b.fnTri)
		if b.m.triDrag != nil {
			b.pool.Run(len(b.triF), b.fnDrag)
		}
	}
}

// scaleDrag scales the forces of triangles [lo, hi) by their drag.
func (b *base) scaleDrag(lo, hi int) {
	for i := lo; i < hi; i++ {
		b.triF[i] = b.triF[i].Scale(b.m.triDrag[i])
	}
}

func (b *base) triForces(lo, hi int) {
	pos, vel, tris := b.s.Pos, b.s.Vel, b.m.Topo.Tris
	k := b.dragK
	wind := &b.f.Wind
	windOn := wind.active()
	for i := lo; i < hi; i++ {
		tr := tris[i]
		x0, x1, x2 := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		v := vel[tr[0]].Add(vel[tr[1]]).Add(vel[tr[2]]).Scale(1.0 / 3)
		var w vec.Vec3
		if windOn {
			w = wind.At(x0.Add(x1).Add(x2).Scale(1.0/3), b.t)
		}
		b.triF[i] = aeroForce(x0, x1, x2, v, w, k)
	}
}

func (b *base) gatherAccel(lo, hi int) {
	g := b.f.Gravity
	m := b.m
	for v := lo; v < hi; v++ {
		a := g
		if b.aero && b.w[v] > 0 {
			var f vec.Vec3
			for _, t := range m.vtTri[m.vtStart[v]:m.vtStart[v+1]] {
				f = f.Add(b.triF[t])
			}
			a = a.AddScaled(f, b.w[v]/3)
		}
		b.acc[v] = a
	}
}

// setDamping sets the velocity factors exp(-damping·dt) of a substep of
// dt: damp, and dampV where the model's fabrics differ in damping.
func (b *base) setDamping(dt float64) {
	b.damp = math.Exp(-b.m.Params.Damping * dt)
	if b.m.vDamping != nil && (b.dampV == nil || dt != b.dampDt) {
		b.dampV, b.dampDt = b.m.dampFactors(b.dampV, dt), dt
	}
}

// dampSlice returns dampV[lo:hi], or nil where damping is uniform.
func (b *base) dampSlice(lo, hi int) []float64 {
	if b.dampV == nil {
		return nil
	}
	return b.dampV[lo:hi]
}

// dampAt returns vertex v's velocity factor.
func (b *base) dampAt(v int) float64 {
	if b.dampV != nil {
		return b.dampV[v]
	}
	return b.damp
}

// pinTarget returns the target of pin i at time t [m].
func (b *base) pinTarget(i int32, t float64) vec.Vec3 {
	pn := &b.m.Pins[i]
	if pn.Track != nil {
		return pn.Track.Position(pn.Vertex, t)
	}
	x := b.m.Rest[pn.Vertex]
	if pn.Motion == nil {
		return x
	}
	return pn.Motion.At(t).MulPoint(x)
}

// setHardPins moves every hard-pinned vertex to its target at time t.
func (b *base) setHardPins(pos []vec.Vec3, t float64) {
	for _, i := range b.m.hardPins {
		pos[b.m.Pins[i].Vertex] = b.pinTarget(i, t)
	}
}
