package bake

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/solver"
)

// Settings are a bake's final parameters: the scene (flags already applied
// over it), the fabric presets and drape's defaults resolved into what
// the solver runs with, automatic substeps included. Prepare resolves them
// once, before it builds the model, which is never changed afterwards;
// the report and `drape presets --json` read them.
//
// Each setting has one default, in one place: the scene's (DefaultScene:
// frames, fps, up axis, solver, seed), the fabric preset's (density,
// stiffness, damping, drag, friction; DefaultPreset), the thickness rule
// (defaultThickness), the automatic substeps (resolveSubsteps), or else
// solver.DefaultParams (iterations, self friction, divergence bound, sleep
// thresholds).
type Settings struct {
	// Params are the solver's parameters.
	Params solver.Params
	// Fabric is the cloth's fabric: the scene's preset with its overrides.
	Fabric Fabric
	// Regions are the scene's fabric regions as resolved on the cloth.
	Regions []RegionInfo
	// Friction is the cloth-collider friction of colliders that set none:
	// the scene's, else the fabric's.
	Friction float64
	// BendingSubsteps are the substeps per frame the stiffest hinge needs
	// to be felt fully (solver.Model.BendingSubsteps; 0 when not measured:
	// not XPBD, or bending too soft to show on this mesh).
	BendingSubsteps int
	// Notes are what resolving found worth a warning.
	Notes []string
}

// Limits of the thickness a bake picks without a thickness setting, and
// the fraction of the mean edge length it takes within them.
const (
	minAutoThickness      = 0.001 // [m]
	maxAutoThickness      = 0.005 // [m]
	autoThicknessFraction = 0.2
)

// defaultThickness is a few millimetres, scaled down for fine meshes:
// autoThicknessFraction of the mean edge length, kept within
// minAutoThickness..maxAutoThickness.
func defaultThickness(w *meshio.Welded) float64 {
	sum, n := 0.0, 0
	for _, t := range w.Triangles {
		for k := 0; k < 3; k++ {
			sum += w.Positions[t[k]].Sub(w.Positions[t[(k+1)%3]]).Len()
			n++
		}
	}
	if n == 0 {
		return maxAutoThickness
	}
	return math.Min(maxAutoThickness, math.Max(minAutoThickness, autoThicknessFraction*sum/float64(n)))
}

// resolveSettings resolves everything but the automatic substeps (which
// need the pins: resolveSubsteps) for the cloth m welded into w. The
// scene's values were validated by Scene.Validate against the solver's
// ranges; the solver's own validation runs again here as a guard.
func resolveSettings(sc *Scene, m *meshio.Mesh, w *meshio.Welded) (*Settings, error) {
	s := &Settings{Fabric: sc.Fabric.Resolve()}
	p := solver.DefaultParams()
	var err error
	if p.Solver, err = solver.ParseSolverKind(sc.Solver); err != nil {
		return nil, badInput(err, "")
	}
	p.SetFabric(solverFabric(s.Fabric))
	if p.Regions, s.Regions, err = selectRegions(sc, m, w, s.Fabric); err != nil {
		return nil, err
	}
	if sc.Substeps > 0 {
		p.Substeps = sc.Substeps
	}
	if sc.Iterations > 0 {
		p.Iterations = sc.Iterations
	}
	p.BendingInterval = sc.BendInterval
	p.Threads = sc.Threads
	p.Tethers = sc.Tethers
	p.RetryDivergence = sc.Retry
	p.Sleep = sc.Sleep
	p.Volume = sc.Volume
	var seamNote string
	if p.Seams, seamNote, err = selectSeams(sc, m, w); err != nil {
		return nil, err
	}
	if seamNote != "" {
		s.Notes = append(s.Notes, seamNote)
	}
	p.SewSpeed = sc.Sewing
	if sc.Gravity != nil {
		p.Gravity = vec.V(sc.Gravity[0], sc.Gravity[1], sc.Gravity[2])
	}
	thickness := sc.Thickness
	if thickness == 0 {
		thickness = defaultThickness(w)
	}
	s.Friction = s.Fabric.Friction
	if sc.Friction != nil {
		s.Friction = *sc.Friction
	}
	applyCollisionParams(&p, thickness, s.Friction, sc.SelfCollision)
	if err := p.Validate(); err != nil {
		return nil, badInput(fmt.Errorf("settings: %w", err), "see docs/scene.md for the allowed ranges")
	}
	s.Params = p
	return s, nil
}

// resolveSubsteps settles the substeps: stiff bending on a fine mesh
// needs more substeps to be felt fully (solver.Model.BendingSubsteps), so
// without a substeps setting the bake takes them, up to maxAutoSubsteps,
// and otherwise warns. Only where the fabric's bending length under
// gravity, (D/(ρ·g))^(1/3), spans several edges: below that the cloth
// drapes as a limp membrane at the mesh's resolution and softer bending
// does not show (cotton on 8 mm edges: 9 mm). pins are the model's pins.
func (s *Settings) resolveSubsteps(sc *Scene, w *meshio.Welded, pins []solver.Pin) error {
	p := &s.Params
	if p.Solver != solver.SolverXPBD {
		return nil
	}
	tp, err := solver.NewTopology(len(w.Positions), w.Triangles)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", sc.Resolve(sc.Input), err), "")
	}
	if maxBendingLength(*p) < bendingLengthEdges*meanOf(edgeLengths(tp, w.Positions)) {
		return nil
	}
	need, err := solver.BendingSubstepsFor(w.Positions, w.Triangles, pins, *p, sc.FPS)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", sc.Resolve(sc.Input), err), "")
	}
	s.BendingSubsteps = need
	if need <= p.Substeps {
		return nil
	}
	if sc.Substeps == 0 {
		p.Substeps = min(need, maxAutoSubsteps)
	}
	if need > p.Substeps {
		advice := fmt.Sprintf("use --substeps %d, a coarser mesh or a softer fabric", need)
		if need > maxSubsteps {
			advice = fmt.Sprintf("more than the %d substeps allowed: use a coarser mesh or a softer fabric", maxSubsteps)
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%s: the fabric's bending stiffness (%.3g N·m) on this mesh needs %d substeps per frame to be felt fully; with %d the cloth bends softer than set (%s)",
			sc.Resolve(sc.Input), p.BendingStiffness, need, p.Substeps, advice))
	}
	return nil
}

// bendingLengthEdges is how many mean edge lengths the fabric's bending
// length must span for its bending to need resolving.
const bendingLengthEdges = 4

// bendingLength returns (D/(ρ·g))^(1/3) [m] of the settings p, the length
// over which bending stiffness holds cloth up against gravity (+Inf
// without gravity).
func bendingLength(p solver.Params) float64 {
	return math.Cbrt(p.BendingStiffness / (p.Density * p.Gravity.Len()))
}

// maxBendingLength returns the largest bendingLength of the settings'
// fabric and their regions' fabrics.
func maxBendingLength(p solver.Params) float64 {
	l := bendingLength(p)
	for _, r := range p.Regions {
		q := p
		q.Density, q.BendingStiffness = r.Fabric.Density, r.Fabric.BendingStiffness
		l = math.Max(l, bendingLength(q))
	}
	return l
}

// meanOf returns the mean of xs (0 for none).
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// maxSubsteps is the most substeps solver.Params.Validate allows.
const maxSubsteps = 1000

// maxAutoSubsteps bounds the substeps a bake without a substeps setting
// takes for stiff bending (four times the solver's default).
const maxAutoSubsteps = 60

// Defaults are drape's defaults for the settings a scene file or flag may
// leave out, as `drape presets --json` prints them for programs (the
// Blender add-on) that would otherwise repeat them. Each comes from where
// the bake takes it.
type Defaults struct {
	Frames    int     `json:"frames"`
	FPS       float64 `json:"fps"`
	FrameStep int     `json:"frame_step"`
	Up        Axis    `json:"up"`
	Scale     float64 `json:"scale"`
	Solver    string  `json:"solver"`
	Seed      int64   `json:"seed"`
	// Fabric is the preset of a scene that names none.
	Fabric string `json:"fabric"`
	// Substeps per frame; a bake without a substeps setting raises them
	// for stiff bending up to MaxAutoSubsteps.
	Substeps        int `json:"substeps"`
	MaxAutoSubsteps int `json:"max_auto_substeps"`
	Iterations      int `json:"iterations"`
	// Thickness: without a thickness setting, ThicknessFraction of the
	// mesh's mean edge length within ThicknessMin..ThicknessMax [m];
	// a setting must lie in ThicknessRange.
	ThicknessMin      float64    `json:"thickness_min"`
	ThicknessMax      float64    `json:"thickness_max"`
	ThicknessFraction float64    `json:"thickness_edge_fraction"`
	ThicknessRange    [2]float64 `json:"thickness_range"`
	Gravity           [3]float64 `json:"gravity"`
	// Weld is the weld tolerance relative to the mesh's size.
	Weld float64 `json:"weld"`
	// SelfFriction is the friction of cloth sliding on itself.
	SelfFriction float64 `json:"self_friction"`
}

// DefaultSettings returns drape's defaults.
func DefaultSettings() Defaults {
	sc, p := DefaultScene(), solver.DefaultParams()
	return Defaults{
		Frames: sc.Frames, FPS: sc.FPS, FrameStep: sc.FrameStep, Up: sc.Up, Scale: sc.Scale,
		Solver: sc.Solver, Seed: sc.Seed, Fabric: DefaultPreset,
		Substeps: p.Substeps, MaxAutoSubsteps: maxAutoSubsteps, Iterations: p.Iterations,
		ThicknessMin: minAutoThickness, ThicknessMax: maxAutoThickness, ThicknessFraction: autoThicknessFraction,
		ThicknessRange: [2]float64{solver.MinThickness, solver.MaxThickness},
		Gravity:        [3]float64{p.Gravity.X, p.Gravity.Y, p.Gravity.Z},
		Weld:           meshio.DefaultWeldOptions().Tolerance,
		SelfFriction:   p.SelfFriction,
	}
}
