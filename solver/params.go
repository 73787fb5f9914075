package solver

import (
	"fmt"
	"math"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
)

// SolverKind selects the time integrator. The zero value is invalid.
type SolverKind int

// Solver kinds.
const (
	_ SolverKind = iota
	// SolverXPBD is extended position-based dynamics with substeps
	// (Macklin, Müller, Chentanez 2016; Macklin et al. 2019): the default.
	SolverXPBD
	// SolverVerlet is the mass-spring model with position Verlet.
	SolverVerlet
	// SolverEuler is the mass-spring model with semi-implicit (symplectic)
	// Euler.
	SolverEuler
	// SolverImplicit is the mass-spring model with implicit Euler solved as
	// an optimisation by projective dynamics with a prefactored global
	// matrix (Liu et al. 2013), or by diagonal-Hessian Jacobi iterations
	// with Chebyshev acceleration (Wang 2015) when JacobiIterations > 0.
	SolverImplicit
)

var solverNames = [...]string{"", "xpbd", "verlet", "euler", "implicit"}

// String returns the kind's command-line name ("xpbd", "verlet", ...).
func (k SolverKind) String() string {
	if k <= 0 || int(k) >= len(solverNames) {
		return fmt.Sprintf("SolverKind(%d)", int(k))
	}
	return solverNames[k]
}

// ParseSolverKind parses a command-line solver name (case-insensitive).
func ParseSolverKind(s string) (SolverKind, error) {
	for k := SolverXPBD; int(k) < len(solverNames); k++ {
		if strings.EqualFold(s, solverNames[k]) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown solver %q: must be one of xpbd, verlet, euler, implicit", s)
}

// Params are the physical and numerical settings of a simulation. All are
// in SI units; DefaultParams sets every default.
type Params struct {
	// Solver selects the integrator.
	Solver SolverKind
	// Density is the fabric's areal density [kg/m²].
	Density float64
	// StretchStiffness is the fabric's tensile stiffness [N/m]: a uniform
	// isotropic strain e stores 1/2·StretchStiffness·e² of energy per unit
	// area. Each edge becomes a spring of stiffness StretchStiffness·A/L²,
	// with A a third of its triangles' area and L its rest length, so the
	// response does not depend on mesh resolution.
	StretchStiffness float64
	// CompressionStiffness is the stiffness [N/m] used instead of
	// StretchStiffness when an edge is shorter than its rest length; cloth
	// buckles rather than compresses, so it is usually lower.
	CompressionStiffness float64
	// ShearStiffness is the stiffness [N/m] of the mass-spring model's
	// shear springs across the diagonals of quads (two nearly coplanar
	// triangles sharing their longest side). XPBD gets its shear
	// resistance from the triangle edges and ignores it.
	ShearStiffness float64
	// BendingStiffness is the flexural rigidity [N·m] (bending moment per
	// unit width per unit curvature). Each interior edge gets a dihedral
	// stiffness BendingStiffness·3L²/(A1+A2) [N·m/rad²] (Grinspun et al.
	// 2003, "Discrete Shells"), independent of mesh resolution.
	BendingStiffness float64
	// Damping is the velocity damping rate [1/s]: with no other force a
	// speed decays as exp(-Damping·t).
	Damping float64
	// AirDrag is the aerodynamic coefficient [kg/(m²·s)] of the
	// per-triangle model F = AirDrag·A·(n·(wind - v))·n (see aeroForce).
	AirDrag float64
	// Gravity is the default gravitational acceleration [m/s²]; Frame
	// carries the value used each frame.
	Gravity vec.Vec3
	// Substeps is the number of substeps per frame.
	Substeps int
	// Iterations is the number of constraint projections per substep
	// (XPBD), or of local-global iterations per step (the implicit
	// solver's projective dynamics).
	Iterations int
	// BendingInterval bounds how many substeps the bending moves found in
	// one projection span (XPBD): 1 projects every hinge in every
	// substep; 0, the default, lets soft bending span up to 5 substeps
	// (a multiple time step, see bendClasses): bending is the cloth's
	// softest force and its costliest constraint.
	BendingInterval int
	// JacobiIterations, when above 0, has the implicit solver take that
	// many Jacobi iterations per substep (the implicit mass-spring
	// tutorial the project started from uses 32) instead of its direct
	// global step; 0, the default, uses the direct step.
	JacobiIterations int
	// Chebyshev enables Chebyshev acceleration of the implicit solver's
	// Jacobi iterations (Wang 2015).
	Chebyshev bool
	// ChebyshevRho is the estimated spectral radius of the Jacobi iteration
	// used by the Chebyshev weights, in (0, 1).
	ChebyshevRho float64
	// Threads is the number of worker goroutines; 0 means GOMAXPROCS. The
	// output does not depend on it.
	Threads int
	// Tethers adds long-range attachments from each vertex to its nearest
	// hard-pinned vertex (by rest geodesic distance along edges).
	Tethers bool
	// TetherSlack is the tethers' allowed extra length, relative to the rest
	// geodesic distance.
	TetherSlack float64
	// MaxSpeed is the divergence bound [m/s]: a vertex faster than this at
	// the end of a frame stops the simulation with ErrDiverged.
	MaxSpeed float64
	// RetryDivergence is how many times a diverged frame is retried from its
	// start with twice the substeps before giving up (0 = never).
	RetryDivergence int

	// Collision (collide.go; self-collision: package solver/internal/contact).

	// Thickness is the collision thickness [m]: every vertex is kept at
	// least this far outside each collider (unless the collider sets its
	// own) and, with SelfCollision, from every non-adjacent triangle and
	// edge of the cloth.
	Thickness float64
	// Friction is the Coulomb coefficient (static and kinetic) of cloth on
	// colliders whose own StaticFriction and KineticFriction are both 0.
	Friction float64
	// SelfCollision keeps the cloth Thickness away from itself
	// (vertex-triangle and edge-edge proximity constraints).
	SelfCollision bool
	// SelfFriction is the Coulomb coefficient of cloth sliding on itself.
	SelfFriction float64
	// Settle pushes vertices that start inside a collider out (to
	// Thickness) with zero velocity in the first substep an integrator
	// runs, before they can explode outwards.
	Settle bool

	// Sleeping (sleep.go, XPBD only; the mass-spring integrators ignore it).

	// Sleep lets vertices that have come to rest sleep: once no vertex of
	// the cloth moves faster than SleepSpeed, a vertex that stayed below it
	// for SleepFrames consecutive frames is held where it is (zero
	// velocity, treated as pinned) and the constraints whose vertices all
	// sleep are skipped; a frame in which every vertex sleeps costs almost
	// nothing. A vertex wakes when an edge neighbour moves faster than
	// SleepSpeed; wind, pins with a Motion or a Track, keyframed
	// colliders, a change of gravity, frame time or colliders, or positions
	// edited between Steps wake every vertex for that frame. With SelfCollision the cloth
	// sleeps only as a whole. XPBD only; off by default.
	Sleep bool
	// SleepSpeed is the speed [m/s] below which a vertex counts as at rest.
	SleepSpeed float64
	// SleepFrames is how many consecutive frames a vertex must stay below
	// SleepSpeed before it sleeps.
	SleepFrames int

	// Volume, when not 0, holds every closed piece of the cloth at Volume
	// times its rest volume (volume.go): 1 keeps a pillow lofted, above 1
	// inflates. XPBD only.
	Volume float64

	// Seams sew pairs of vertices together (sewing.go): each pair's
	// distance shrinks at SewSpeed until they meet. XPBD only.
	Seams [][2]int32
	// SewSpeed is the speed [m/s] at which seams close.
	SewSpeed float64

	// Regions give parts of the cloth fabrics of their own (fabric.go);
	// the fields above are the fabric of the rest.
	Regions []Region
}

// Ranges Validate allows for the settings a scene file also sets, so that
// a scene is checked against the same bounds.
const (
	MinThickness = 1e-5 // [m]
	MaxThickness = 1.0  // [m]
	MaxThreads   = 256
)

// DefaultParams returns the default settings: a light cotton (150 g/m²)
// simulated with XPBD at 15 substeps per frame.
func DefaultParams() Params {
	return Params{
		Solver:               SolverXPBD,
		Density:              0.15,
		StretchStiffness:     1e4,
		CompressionStiffness: 1e3,
		ShearStiffness:       1e3,
		BendingStiffness:     1e-5,
		Damping:              0.1,
		AirDrag:              0.5,
		Gravity:              vec.V(0, -9.81, 0),
		Substeps:             15,
		Iterations:           1,
		JacobiIterations:     0,
		Chebyshev:            true,
		ChebyshevRho:         0.99,
		Threads:              0,
		Tethers:              true,
		TetherSlack:          0,
		MaxSpeed:             100,
		RetryDivergence:      0,
		Thickness:            0.003,
		Friction:             0.5,
		SelfCollision:        false,
		SelfFriction:         0.2,
		Settle:               true,
		Sleep:                false,
		SleepSpeed:           1e-3,
		SleepFrames:          12,
	}
}

// Validate checks every field and names the first one out of range.
func (p Params) Validate() error {
	fin := func(name string, v, lo, hi float64, rng string) error {
		if math.IsNaN(v) || v < lo || v > hi {
			return fmt.Errorf("%s = %g: must be in %s", name, v, rng)
		}
		return nil
	}
	in := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("%s = %d: must be in %d..%d", name, v, lo, hi)
		}
		return nil
	}
	if p.Solver <= 0 || int(p.Solver) >= len(solverNames) {
		return fmt.Errorf("solver = %d: must be one of xpbd, verlet, euler, implicit", int(p.Solver))
	}
	checks := []error{
		fin("density", p.Density, 1e-6, 1e3, "1e-6..1e3 kg/m²"),
		fin("stretch stiffness", p.StretchStiffness, 0, 1e9, "0..1e9 N/m"),
		fin("compression stiffness", p.CompressionStiffness, 0, 1e9, "0..1e9 N/m"),
		fin("shear stiffness", p.ShearStiffness, 0, 1e9, "0..1e9 N/m"),
		fin("bending stiffness", p.BendingStiffness, 0, 1e3, "0..1e3 N·m"),
		fin("damping", p.Damping, 0, 1e3, "0..1e3 1/s"),
		fin("air drag", p.AirDrag, 0, 1e3, "0..1e3 kg/(m²·s)"),
		fin("chebyshev rho", p.ChebyshevRho, 0, 0.9999, "0..0.9999"),
		fin("tether slack", p.TetherSlack, 0, 10, "0..10"),
		fin("max speed", p.MaxSpeed, 1e-3, 1e6, "1e-3..1e6 m/s"),
		in("substeps", p.Substeps, 1, 1000),
		in("iterations", p.Iterations, 1, 100),
		in("bending interval", p.BendingInterval, 0, 100),
		in("jacobi iterations", p.JacobiIterations, 0, 1000),
		in("threads", p.Threads, 0, MaxThreads),
		in("retry divergence", p.RetryDivergence, 0, 10),
		fin("thickness", p.Thickness, MinThickness, MaxThickness, fmt.Sprintf("%g..%g m", MinThickness, MaxThickness)),
		fin("friction", p.Friction, 0, 10, "0..10"),
		fin("self friction", p.SelfFriction, 0, 10, "0..10"),
		fin("sleep speed", p.SleepSpeed, 0, 10, "0..10 m/s"),
		in("sleep frames", p.SleepFrames, 1, 1000000),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if err := p.validateRegions(); err != nil {
		return err
	}
	if len(p.Seams) > 0 && !(p.SewSpeed > 0 && p.SewSpeed <= 100) {
		return fmt.Errorf("sew speed = %g: must be in (0, 100] m/s when there are seams", p.SewSpeed)
	}
	if p.Volume != 0 && !(p.Volume > 0 && p.Volume <= 10) {
		return fmt.Errorf("volume = %g: must be in (0, 10] (times the rest volume; 0 = off)", p.Volume)
	}
	if p.Volume != 0 && p.Solver != SolverXPBD {
		return fmt.Errorf("volume = %g: closed pieces hold a volume with the xpbd solver only (now %s)", p.Volume, p.Solver)
	}
	if p.Sleep && p.SleepSpeed == 0 {
		return fmt.Errorf("sleep speed = 0: must be > 0 when sleep is on (1e-3 m/s is a good start)")
	}
	for i, g := range []float64{p.Gravity.X, p.Gravity.Y, p.Gravity.Z} {
		if math.IsNaN(g) || math.IsInf(g, 0) || math.Abs(g) > 1e4 {
			return fmt.Errorf("gravity %c = %g: must be finite and within ±1e4 m/s²", "xyz"[i], g)
		}
	}
	return nil
}
