package bake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
	"github.com/drape-sim/drape/solver"
)

// Version is drape's version, reported by `drape version` and in reports.
const Version = "0.1.0"

// Options are the caller's hooks into a bake.
type Options struct {
	// Progress, if set, is called after every baked frame.
	Progress func(Progress)
	// Warn, if set, receives non-fatal problems (suspicious scale, vertices
	// starting inside a collider).
	Warn func(string)
	// MaxMemory is the most memory [bytes] a bake may plan to hold; a bake
	// whose estimate is larger is refused before it allocates (0: 80 % of
	// physical memory; < 0: no limit). On Linux the budget is never more
	// than 80 % of what the process's cgroup memory limit, RLIMIT_AS and
	// RLIMIT_DATA leave (unless < 0).
	MaxMemory int64
	// Memory, if set, is the bake's claim on a budget it shares with
	// other bakes that run at once (a batch's -j jobs): Run reserves its
	// estimate there before it allocates, waiting while the others hold
	// too much, and gives it back when it returns.
	Memory *MemoryClaim
}

// Progress describes a bake in flight; it is also the JSON object that
// `--progress json` prints per frame.
type Progress struct {
	Frame      int     `json:"frame"`       // frames done
	Frames     int     `json:"frames"`      // frames in all
	Elapsed    float64 `json:"elapsed_s"`   // since the simulation started [s]
	ETA        float64 `json:"eta_s"`       // estimated time left [s]
	MaxStretch float64 `json:"max_stretch"` // largest edge strain of this frame
	// WaitingMemory, set on the one line a bake sends before its first
	// frame when it waits for memory that other bakes sharing its budget
	// hold (Options.Memory), is its estimate [bytes]; MemoryHeld is what
	// the others hold and MemoryBudget the shared budget [bytes].
	WaitingMemory int64 `json:"waiting_for_memory,omitempty"`
	MemoryHeld    int64 `json:"memory_held,omitempty"`
	MemoryBudget  int64 `json:"memory_budget,omitempty"`
}

// Job is a prepared bake: the mesh read and welded, the model built, the
// colliders set up. Prepare does everything a bake does before the first
// step, so `drape validate` can check a scene completely without baking.
type Job struct {
	Scene  *Scene
	Mesh   *meshio.Mesh
	Welded *meshio.Welded
	Model  *solver.Model
	// Settings are the final parameters, resolved before the model was
	// built from them (Params, Fabric, Regions, ...).
	*Settings
	Colliders []sdf.Collider
	Pins      []pinSel
	Warnings  []string
	inputHash string
	restLen   []float64
	// colliderNames describe each collider for messages: the scene's kind
	// and index, or the input's node.
	colliderNames []string
	wind          *windField
	// simToSource maps simulation vertices to the input's own vertex ids
	// (built on first use by sourceVertex).
	simToSource []int32
	// warn is the caller's Warn hook (Options.Warn), or nil.
	warn func(string)
}

// inputReadOptions are the read options of the scene's input mesh.
func inputReadOptions(sc *Scene) meshio.ReadOptions {
	ropt := meshio.DefaultReadOptions()
	ropt.Scale = sc.Scale
	ropt.MeshName = sc.Mesh
	ropt.Up = sc.Up
	return ropt
}

// Prepare reads the scene's meshes and builds the simulation model.
func Prepare(sc *Scene, opt Options) (*Job, error) {
	warn := func(s string) {
		if opt.Warn != nil {
			opt.Warn(s)
		}
	}
	j := &Job{Scene: sc, warn: opt.Warn}
	if err := j.checkOutputs(); err != nil {
		return nil, err
	}
	input := sc.Resolve(sc.Input)
	if err := checkInputSize(input, opt.MaxMemory); err != nil {
		return nil, err
	}
	m, err := meshio.Read(input, inputReadOptions(sc))
	if err != nil {
		return nil, badInput(err, readFix(err))
	}
	for _, w := range m.Warnings {
		warn(w)
		j.Warnings = append(j.Warnings, w)
	}
	wopt := meshio.DefaultWeldOptions()
	if sc.Weld > 0 {
		wopt.Tolerance = sc.Weld
	}
	w, err := meshio.Weld(m, wopt)
	if err != nil {
		return nil, badInput(err, "the cloth needs at least one triangle with non-zero area")
	}
	j.Mesh, j.Welded = m, w
	if err := j.checkMemory(opt.MaxMemory); err != nil {
		return nil, err
	}
	if opt.Memory != nil {
		est := j.memoryEstimate()
		err := opt.Memory.reserve(est, func(held int64) {
			if opt.Progress != nil {
				opt.Progress(Progress{Frames: sc.Frames, WaitingMemory: est, MemoryHeld: held, MemoryBudget: opt.Memory.s.budget})
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if j.inputHash, err = hashFile(input); err != nil {
		return nil, badInput(err, "check the input path")
	}

	s, err := resolveSettings(sc, m, w)
	if err != nil {
		return nil, err
	}
	j.Settings = s
	notes := 0 // s.Notes already warned
	flushNotes := func() {
		for _, n := range s.Notes[notes:] {
			warn(n)
			j.Warnings = append(j.Warnings, n)
		}
		notes = len(s.Notes)
	}
	flushNotes()

	if j.Pins, err = selectPins(sc, m, w); err != nil {
		return nil, err
	}
	if msg := topPinWarning(sc, m, w, j.Pins); msg != "" {
		warn(msg)
		j.Warnings = append(j.Warnings, msg)
	}
	if j.Colliders, err = buildColliders(sc, s.Friction); err != nil {
		return nil, err
	}
	fromFile, names, err := nodeColliders(m, s.Friction, sc.FPS, sc.Frames)
	if err != nil {
		return nil, err
	}
	j.Colliders = append(j.Colliders, fromFile...)
	j.colliderNames = colliderLabels(sc)
	j.colliderNames = append(j.colliderNames, names...)
	if sc.Wind != nil {
		j.wind = newWindField(sc.Wind, sc.Seed)
	}
	pins, err := j.pinTargets(m, w, warn)
	if err != nil {
		return nil, err
	}
	if err := s.resolveSubsteps(sc, w, pins); err != nil {
		return nil, err
	}
	flushNotes()
	model, err := solver.NewModel(w.Positions, w.Triangles, pins, s.Params)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %w", input, err), "")
	}
	j.Model = model
	j.restLen = edgeLengths(model.Topo, w.Positions)
	if msg := preflight(j); msg != "" {
		warn(msg)
		j.Warnings = append(j.Warnings, msg)
	}
	return j, nil
}

// motion adapts sdf's keyframed transform to the solver's pin motion.
type motion struct{ a *sdf.Animated }

func (m motion) At(t float64) vec.Mat4 { return m.a.Transform(t) }

func readFix(err error) string {
	switch {
	case errors.Is(err, meshio.ErrVersion):
		return "convert the file to glTF 2.0: gltf-pipeline upgrades glTF 1.0 (npx gltf-pipeline -i IN.gltf -o OUT.gltf); Blender's importer reads 2.0 only"
	case errors.Is(err, meshio.ErrUnsupported):
		return "re-export the file without compression or the named extension (e.g. Blender: glTF export with Draco off)"
	case errors.Is(err, os.ErrNotExist):
		return "check the path; paths in a scene file are relative to the scene file"
	case errors.Is(err, meshio.ErrNotRegular):
		return "give the path of a regular mesh file (not a device, FIFO or folder)"
	}
	return ""
}

func hashFile(path string) (string, error) {
	data, err := meshio.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

func edgeLengths(t *solver.Topology, pos []vec.Vec3) []float64 {
	out := make([]float64, len(t.Edges))
	for i, e := range t.Edges {
		out[i] = pos[e.V[0]].Sub(pos[e.V[1]]).Len()
	}
	return out
}

// maxStretch returns the largest relative elongation of any edge and the
// first edge with it (-1 when no edge is longer than at rest).
func (j *Job) maxStretch(pos []vec.Vec3) (float64, int) {
	worst, at := 0.0, -1
	for i, e := range j.Model.Topo.Edges {
		if j.restLen[i] <= 0 {
			continue
		}
		s := pos[e.V[0]].Sub(pos[e.V[1]]).Len()/j.restLen[i] - 1
		if s > worst {
			worst, at = s, i
		}
	}
	return worst, at
}

// Run bakes a scene: prepare, simulate every frame, write every output
// atomically, and report. A cancelled context stops within one frame and
// leaves no output; existing outputs stay as they were.
func Run(ctx context.Context, sc *Scene, opt Options) (*Report, error) {
	defer opt.Memory.Release()
	t0 := time.Now()
	j, err := prepare(ctx, sc, opt)
	if err != nil {
		return nil, err
	}
	if jobLive != nil {
		est := j.memoryEstimate()
		jobLive(est)
		defer jobLive(-est)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rec *Recording
	var outs []OutputInfo
	var simTime, writeTime time.Duration
	if j.streams() {
		// Every output is written frame by frame as the simulation
		// produces it; only the commit remains after it.
		var sinks *streamSinks
		if sinks, err = j.openSinks(); err != nil {
			return nil, err
		}
		rec, err = j.simulate(ctx, opt, sinks.frame)
		simTime = time.Since(t0)
		tw := time.Now()
		if outs, err = sinks.close(ctx, err); err != nil {
			return nil, err
		}
		writeTime = time.Since(tw)
	} else {
		if rec, err = j.Simulate(ctx, opt); err != nil {
			return nil, err
		}
		simTime = time.Since(t0)
		tw := time.Now()
		if outs, err = j.Write(ctx, rec); err != nil {
			return nil, err
		}
		writeTime = time.Since(tw)
	}
	tq := time.Now()
	rep := j.report(rec, outs)
	if opt.Warn != nil {
		for _, w := range rep.Warnings[len(j.Warnings):] {
			opt.Warn(w)
		}
	}
	rep.PrepareSeconds = rec.started.Sub(t0).Seconds()
	rep.SimSeconds = simTime.Seconds() - rep.PrepareSeconds
	rep.WriteSeconds = writeTime.Seconds()
	rep.QualitySeconds = time.Since(tq).Seconds()
	rep.SecondsPerFrame = rep.SimSeconds / float64(max(1, sc.Frames-1))
	return rep, nil
}

// jobLive, set by tests, is called with a bake's memory estimate when it
// has prepared (and reserved it from its share) and with its negation
// when it ends.
var jobLive func(bytes int64)

// prepare runs Prepare but returns ctx's error as soon as ctx is done:
// reading a large input and the pre-flight checks take seconds on a big
// mesh and do not look at ctx themselves. Prepare writes nothing, so the
// abandoned call only finishes its work, unseen: its warnings are
// dropped and its Job is discarded. One waiting for memory (Options.Memory)
// ends when Run releases its claim.
func prepare(ctx context.Context, sc *Scene, opt Options) (*Job, error) {
	if ctx.Done() == nil {
		return Prepare(sc, opt)
	}
	var mu sync.Mutex
	abandoned := false
	inner := opt
	if opt.Warn != nil {
		inner.Warn = func(s string) {
			mu.Lock()
			defer mu.Unlock()
			if !abandoned {
				opt.Warn(s)
			}
		}
	}
	if opt.Progress != nil { // the line of a bake waiting for memory
		inner.Progress = func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			if !abandoned {
				opt.Progress(p)
			}
		}
	}
	type result struct {
		j   *Job
		err error
	}
	done := make(chan result, 1)
	go func() {
		j, err := Prepare(sc, inner)
		done <- result{j, err}
	}()
	select {
	case r := <-done:
		return r.j, r.err
	case <-ctx.Done():
		mu.Lock()
		abandoned = true
		mu.Unlock()
		return nil, ctx.Err()
	}
}

// Recording holds the baked simulation positions of every stored frame
// (a streamed bake, whose outputs took each frame as it came, holds only
// the last).
type Recording struct {
	Frames     []int        // baked frame number of each stored frame
	Pos        [][]vec.Vec3 // simulation positions per stored frame (nil when streamed)
	MaxStretch float64      // over all frames
	MaxPen     float64      // deepest collider penetration over all frames [m]
	Sleeping   int          // frames in which some vertices slept (scene "sleep")
	started    time.Time
	// maxStretchAt and maxPenAt say where MaxStretch and MaxPen happened.
	maxStretchAt site
	maxPenAt     site
	// last is the last stored frame, and inter the intersecting pairs of
	// the checked frames, measured as the frames came when streamed (nil:
	// measured from Pos by report).
	last  []vec.Vec3
	inter *intersectionCount
}

// lastPos returns the positions of the last stored frame.
func (rec *Recording) lastPos() []vec.Vec3 {
	if rec.last != nil {
		return rec.last
	}
	return rec.Pos[len(rec.Pos)-1]
}

// Simulate steps the scene's frames. Frame 0 is the rest pose; frame k is
// k/fps seconds later.
func (j *Job) Simulate(ctx context.Context, opt Options) (*Recording, error) {
	return j.simulate(ctx, opt, nil)
}

// simulate steps the scene's frames and passes every stored frame to
// stored, or keeps it in the Recording when stored is nil. With stored,
// the Recording keeps only the last frame, and the intersecting pairs of
// the checked frames are counted as the frames come.
func (j *Job) simulate(ctx context.Context, opt Options, stored func(k int, pos []vec.Vec3) error) (*Recording, error) {
	sc := j.Scene
	integ, err := solver.NewIntegrator(j.Model)
	if err != nil {
		return nil, err
	}
	st := solver.NewState(j.Model)
	if err := j.checkSettle(st); err != nil {
		return nil, err
	}
	dt := 1 / sc.FPS
	rec := &Recording{started: time.Now()}
	var inter *interAccum
	if stored != nil {
		inter = j.newInterAccum()
		defer inter.wait() // also when the bake fails or is cancelled
	}
	keep := func(k int, pos []vec.Vec3) error {
		s, e := j.maxStretch(pos)
		if s > rec.MaxStretch {
			rec.MaxStretch, rec.maxStretchAt = s, j.strainSite(k, e, pos)
		}
		if k > 0 { // frame 0 is the input pose, before the settle phase
			if d, v, c := j.penetration(pos, float64(k)*dt); d > rec.MaxPen {
				rec.MaxPen = d
				rec.maxPenAt = site{frame: k, verts: []int32{int32(v)}, pos: pos[v], collider: c}
			}
		}
		if k%sc.FrameStep == 0 || k == sc.Frames-1 {
			rec.Frames = append(rec.Frames, k)
			if stored == nil {
				rec.Pos = append(rec.Pos, append([]vec.Vec3(nil), pos...))
			} else {
				if err := stored(k, pos); err != nil {
					return err
				}
				inter.frame(k, pos, k == sc.Frames-1)
				if k == sc.Frames-1 {
					rec.last = append([]vec.Vec3(nil), pos...)
				}
			}
		}
		if opt.Progress != nil {
			el := time.Since(rec.started).Seconds()
			eta := 0.0
			if k > 0 {
				eta = el / float64(k) * float64(sc.Frames-1-k)
			}
			opt.Progress(Progress{Frame: k + 1, Frames: sc.Frames, Elapsed: el, ETA: eta, MaxStretch: s})
		}
		return nil
	}
	if err := keep(0, st.Pos); err != nil {
		return nil, err
	}
	f := &solver.Frame{Gravity: j.Params.Gravity, Colliders: j.Colliders}
	for k := 1; k < sc.Frames; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f.Index, f.Time, f.Dt = k, float64(k-1)*dt, dt
		if j.wind != nil {
			f.Wind = j.wind.at(f.Time)
		}
		if err := integ.Step(st, f); err != nil {
			if errors.Is(err, solver.ErrDiverged) {
				return nil, &Error{Code: ExitDiverged, Err: fmt.Errorf("%s: %w", sc.Input, err),
					Fix: "raise --substeps, use --retry 3, or soften the fabric (lower stretch/bend); check colliders that start inside the cloth"}
			}
			return nil, err
		}
		if a, ok := integ.(interface{ Asleep() int }); ok && a.Asleep() > 0 {
			rec.Sleeping++
		}
		if err := keep(k, st.Pos); err != nil {
			return nil, err
		}
	}
	if inter != nil {
		n := inter.wait()
		rec.inter = &n
	}
	return rec, nil
}

// penetration is the deepest any vertex lies inside any collider at time t
// [m], measured from the collider surface (not from the thickness shell),
// with that vertex and collider (the first, for a tie; -1 and -1 when no
// vertex is inside).
func (j *Job) penetration(pos []vec.Vec3, t float64) (float64, int, int) {
	worst, wv, wc := 0.0, -1, -1
	var pose sdf.Pose
	for ci := range j.Colliders {
		c := &j.Colliders[ci]
		if err := c.PoseAt(t, &pose); err != nil {
			continue
		}
		for i, p := range pos {
			d, _, ok := pose.DistGradWithin(p, 0)
			if ok && -d > worst {
				worst, wv, wc = -d, i, ci
			}
		}
	}
	return worst, wv, wc
}

// outputPaths returns the scene's outputs resolved, or the default
// <input>_baked.glb beside the input.
func (j *Job) outputPaths() []string {
	sc := j.Scene
	if len(sc.Output) == 0 {
		in := sc.Resolve(sc.Input)
		return []string{strings.TrimSuffix(in, filepath.Ext(in)) + "_baked.glb"}
	}
	out := make([]string, len(sc.Output))
	for i, o := range sc.Output {
		out[i] = sc.Resolve(o)
		if strings.HasSuffix(o, "/") {
			out[i] += "/"
		}
	}
	return out
}

func colliderLabels(sc *Scene) []string {
	out := make([]string, len(sc.Colliders))
	for i, c := range sc.Colliders {
		out[i] = fmt.Sprintf("%s colliders[%d]", c.Type, i)
	}
	return out
}

// checkSettle runs the settle phase on a copy of the start state: cloth
// vertices that start inside colliders are pushed out during frame 1, and
// when no position outside every collider exists for some of them (the
// colliders overlap around the cloth), the bake stops here with an error
// instead of exploding.
func (j *Job) checkSettle(st *solver.State) error {
	if len(j.Colliders) == 0 {
		return nil
	}
	cp := &solver.State{
		Pos:  append([]vec.Vec3(nil), st.Pos...),
		Prev: append([]vec.Vec3(nil), st.Prev...),
		Vel:  append([]vec.Vec3(nil), st.Vel...),
	}
	rep, err := solver.Settle(j.Model, cp, j.Colliders, 0)
	if err != nil {
		return err
	}
	if rep.Remaining > 0 {
		return &Error{Code: ExitBadInput,
			Err: fmt.Errorf("%s: %d cloth vertices start inside the colliders and cannot be pushed out (deepest %.1f mm, vertex %d in %s)",
				j.Scene.Input, rep.Remaining, 1000*rep.Deepest, rep.Vertex, j.colliderNames[rep.Collider]),
			Fix: "move the cloth or the colliders so the cloth starts outside them, or remove overlapping colliders"}
	}
	return nil
}
