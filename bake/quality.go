package bake

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver"
)

// The quality certificate: every bake measures its largest edge strain (over
// all frames and at the last frame), its deepest collider penetration and
// its intersecting triangle pairs, says where each happens, and checks each
// against the fabric's bounds. An exceeded bound is a warning; a
// requirement (scene key require, flag --require KEY<=VALUE) turns a bound
// into a gate: the outputs are still written and the bake exits with
// ExitRequirement.

// The certificate's keys, in the order of Quality.Checks.
const (
	KeyMaxStrain         = "max_strain"
	KeyLastStrain        = "last_strain"
	KeyPenetration       = "penetration_m"
	KeySelfIntersections = "self_intersections"
)

// QualityKeys lists the certificate's keys in the order of Quality.Checks.
var QualityKeys = []string{KeyMaxStrain, KeyLastStrain, KeyPenetration, KeySelfIntersections}

// penetrationBound is the deepest collider penetration a bake may show, as a
// fraction of the cloth's thickness: contact keeps the cloth a thickness
// away from a collider's surface, so a tenth of it inside the surface is
// already a visible dent in the collider.
const penetrationBound = 0.1

// Requirements are the bounds a bake must meet (scene key require, flag
// --require KEY<=VALUE). A bake that misses one still writes its outputs
// and exits with ExitRequirement, so a build script can stop on rubbery or
// intersecting results.
type Requirements struct {
	// MaxStrain bounds the largest edge strain (length/rest - 1) in any frame.
	MaxStrain *float64 `json:"max_strain,omitempty"`
	// LastStrain bounds the largest edge strain at the last frame.
	LastStrain *float64 `json:"last_strain,omitempty"`
	// Penetration bounds the deepest collider penetration in any frame [m].
	Penetration *float64 `json:"penetration_m,omitempty"`
	// SelfIntersections bounds the intersecting triangle pairs in any
	// checked frame.
	SelfIntersections *int `json:"self_intersections,omitempty"`
}

// get returns the requirement of key (ok false when unset).
func (r *Requirements) get(key string) (float64, bool) {
	if r == nil {
		return 0, false
	}
	switch key {
	case KeyMaxStrain:
		if r.MaxStrain != nil {
			return *r.MaxStrain, true
		}
	case KeyLastStrain:
		if r.LastStrain != nil {
			return *r.LastStrain, true
		}
	case KeyPenetration:
		if r.Penetration != nil {
			return *r.Penetration, true
		}
	case KeySelfIntersections:
		if r.SelfIntersections != nil {
			return float64(*r.SelfIntersections), true
		}
	}
	return 0, false
}

// List returns the requirements as KEY<=VALUE strings in the order of
// QualityKeys.
func (r *Requirements) List() []string {
	out := []string{}
	if r == nil {
		return out
	}
	for _, k := range QualityKeys {
		if v, ok := r.get(k); ok {
			out = append(out, k+"<="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return out
}

// Merge sets every requirement o sets, replacing r's (flags over the scene
// file).
func (r *Requirements) Merge(o Requirements) {
	if o.MaxStrain != nil {
		r.MaxStrain = o.MaxStrain
	}
	if o.LastStrain != nil {
		r.LastStrain = o.LastStrain
	}
	if o.Penetration != nil {
		r.Penetration = o.Penetration
	}
	if o.SelfIntersections != nil {
		r.SelfIntersections = o.SelfIntersections
	}
}

func (r *Requirements) validate(s *Scene, key string) error {
	for _, c := range []struct {
		name string
		v    *float64
		what string
	}{
		{KeyMaxStrain, r.MaxStrain, "a strain >= 0 (0.02 is 2 %)"},
		{KeyLastStrain, r.LastStrain, "a strain >= 0 (0.01 is 1 %)"},
		{KeyPenetration, r.Penetration, "a depth >= 0 [m]"},
	} {
		if c.v != nil && (!finite(*c.v) || *c.v < 0) {
			return s.rangeError(key+"."+c.name, *c.v, "must be "+c.what)
		}
	}
	if r.SelfIntersections != nil && *r.SelfIntersections < 0 {
		return s.rangeError(key+"."+KeySelfIntersections, *r.SelfIntersections, "must be a count >= 0")
	}
	return nil
}

// ParseRequireFlag parses one --require value, KEY<=VALUE, into r. A key
// given twice keeps the tighter bound.
func ParseRequireFlag(s string, r *Requirements) error {
	const example = "e.g. --require 'max_strain<=0.02' (keys: max_strain, last_strain, penetration_m, self_intersections; quoted, as a shell reads < as a redirection)"
	key, val, ok := strings.Cut(s, "<=")
	if !ok {
		for _, op := range []string{">=", "==", "<", ">", "="} {
			if strings.Contains(s, op) {
				return fmt.Errorf("--require %q: %q is not allowed: a requirement is an upper bound, KEY<=VALUE; %s", s, op, example)
			}
		}
		return fmt.Errorf("--require %q: want KEY<=VALUE; %s", s, example)
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	known := false
	for _, k := range QualityKeys {
		known = known || k == key
	}
	if !known {
		return fmt.Errorf("--require %q: unknown key %q%s; keys: %s (e.g. --require 'max_strain<=0.02')", s, key, suggest(key, QualityKeys), strings.Join(QualityKeys, ", "))
	}
	v, err := strconv.ParseFloat(val, 64)
	if err != nil || !finite(v) || v < 0 {
		return fmt.Errorf("--require %q: %q is not a number >= 0; %s", s, val, example)
	}
	tighter := func(dst **float64) {
		if *dst == nil || v < **dst {
			*dst = &v
		}
	}
	switch key {
	case KeyMaxStrain:
		tighter(&r.MaxStrain)
	case KeyLastStrain:
		tighter(&r.LastStrain)
	case KeyPenetration:
		tighter(&r.Penetration)
	case KeySelfIntersections:
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Errorf("--require %q: %q is not a whole number >= 0 (a count of triangle pairs), e.g. --require 'self_intersections<=0'", s, val)
		}
		if r.SelfIntersections == nil || n < *r.SelfIntersections {
			r.SelfIntersections = &n
		}
	}
	return nil
}

// Quality is a bake's quality certificate.
type Quality struct {
	// OK says every check is within its bound.
	OK bool `json:"ok"`
	// Checks are always max_strain, last_strain, penetration_m and
	// self_intersections, in this order.
	Checks []Check `json:"checks"`
	// Required are the requirements the bake was given, as KEY<=VALUE.
	Required []string `json:"required"`
	// Failed are the requirements the bake missed, each with what was
	// measured and where.
	Failed []string `json:"failed"`
}

// Check is one measurement of the certificate against its bound. Frame,
// Vertices and Position say where the worst value happened; they are
// omitted when there is nothing to locate (a value of 0).
type Check struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
	// Bound is the fabric's bound on Value (strain: its preset's; a
	// penetration: a tenth of the thickness; intersections: 0).
	Bound float64 `json:"bound"`
	OK    bool    `json:"ok"`
	// Frame is the baked frame number (0 is the input pose).
	Frame *int `json:"frame,omitempty"`
	// Vertices are vertex ids in the input's own order, as the point caches
	// and OBJ sequences number them (OBJ: its v lines from 0): the worst
	// edge's two ends, the deepest vertex, or the first intersecting pair's
	// two triangles.
	Vertices []int32 `json:"vertices,omitempty"`
	// Position is where it happened, in drape's space (Y-up, metres): the
	// edge's midpoint, the vertex, or the midpoint of the two triangles'
	// centroids.
	Position *[3]float64 `json:"position,omitempty"`
	// Collider names the collider of the deepest penetration.
	Collider string `json:"collider,omitempty"`
	// Note says where the bound comes from, or why it is not checked.
	Note string `json:"note,omitempty"`
}

// site is where a worst value happened, in simulation vertex ids.
type site struct {
	frame int
	verts []int32
	pos   vec.Vec3
	// collider is the index of the collider of a penetration (-1 for none).
	collider int
}

// strainSite is where edge e is at its strain in pos.
func (j *Job) strainSite(frame, e int, pos []vec.Vec3) site {
	v := j.Model.Topo.Edges[e].V
	return site{frame: frame, verts: []int32{v[0], v[1]}, pos: pos[v[0]].Add(pos[v[1]]).Scale(0.5), collider: -1}
}

// intersectionCount is the intersecting triangle pairs of a bake.
type intersectionCount struct {
	worst int   // the most in a checked frame
	at    *site // the first pair of the first frame with the most (nil for none)
	last  int   // at the last frame
}

// intersections counts the intersecting triangle pairs in the checked
// frames: every stored frame with self-collision on (a pair the solver let
// through in any frame the user gets is a defect), the last frame without
// (where the cloth is free to pass through itself). Frames are measured
// side by side on the bake's threads; the result does not depend on their
// number.
func (j *Job) intersections(rec *Recording) intersectionCount {
	if rec.inter != nil {
		return *rec.inter
	}
	acc := j.newInterAccum()
	first := len(rec.Pos) - 1
	if j.Scene.SelfCollision {
		first = 0
	}
	pairs := make([][][2]int32, len(rec.Pos))
	workers := j.Params.Threads
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(rec.Pos)-first) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				pairs[k] = solver.SelfIntersectingPairs(rec.Pos[k], acc.tris)
			}
		}()
	}
	for k := first; k < len(rec.Pos); k++ {
		next <- k
	}
	close(next)
	wg.Wait()
	for k := first; k < len(rec.Pos); k++ {
		acc.add(rec.Frames[k], rec.Pos[k], pairs[k])
	}
	return acc.n
}

// interAccum counts intersecting triangle pairs frame by frame, in frame
// order, as intersections does over a whole recording. Frames given to
// frame are searched on the bake's threads beside the simulation, a few
// frames in flight at most, and added in frame order, so the count does
// not depend on the threads.
type interAccum struct {
	j    *Job
	tris [][3]int32
	n    intersectionCount

	queue chan *interJob // every job in frame order, to the reducer
	work  chan *interJob // jobs to search, to the workers
	free  chan []vec.Vec3
	wg    sync.WaitGroup
}

// interJob is one frame to search.
type interJob struct {
	frame int
	pos   []vec.Vec3
	pairs [][2]int32
	done  chan struct{}
}

func (j *Job) newInterAccum() *interAccum {
	return &interAccum{j: j, tris: j.Model.SewnTriangles()}
}

// start starts the workers and the reducer of frame.
func (a *interAccum) start() {
	workers := a.j.Params.Threads
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	inFlight := workers + 1
	a.queue = make(chan *interJob, inFlight)
	a.work = make(chan *interJob, inFlight)
	a.free = make(chan []vec.Vec3, inFlight+1)
	for range workers {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for jb := range a.work {
				jb.pairs = solver.SelfIntersectingPairs(jb.pos, a.tris)
				close(jb.done)
			}
		}()
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for jb := range a.queue {
			<-jb.done
			a.add(jb.frame, jb.pos, jb.pairs)
			select {
			case a.free <- jb.pos:
			default:
			}
		}
	}()
}

// frame hands stored frame k to the search as it comes: every stored frame
// with self-collision on, only the last without. pos is copied.
func (a *interAccum) frame(k int, pos []vec.Vec3, last bool) {
	if !a.j.Scene.SelfCollision && !last {
		return
	}
	if a.queue == nil {
		a.start()
	}
	var buf []vec.Vec3
	select {
	case buf = <-a.free:
	default:
		buf = make([]vec.Vec3, len(pos))
	}
	copy(buf, pos)
	jb := &interJob{frame: k, pos: buf, done: make(chan struct{})}
	a.queue <- jb
	a.work <- jb
}

// wait finishes the search of every frame given and returns the count.
func (a *interAccum) wait() intersectionCount {
	if a.queue != nil {
		close(a.work)
		close(a.queue)
		a.wg.Wait()
		a.queue = nil
	}
	return a.n
}

// add counts the pairs of a checked frame; the frames come in order and
// the last one added is the bake's last.
func (a *interAccum) add(frame int, pos []vec.Vec3, pairs [][2]int32) {
	a.n.last = len(pairs)
	if len(pairs) <= a.n.worst {
		return
	}
	a.n.worst = len(pairs)
	t0, t1 := a.tris[pairs[0][0]], a.tris[pairs[0][1]]
	ca := pos[t0[0]].Add(pos[t0[1]]).Add(pos[t0[2]]).Scale(1.0 / 3)
	cb := pos[t1[0]].Add(pos[t1[1]]).Add(pos[t1[2]]).Scale(1.0 / 3)
	a.n.at = &site{frame: frame, verts: []int32{t0[0], t0[1], t0[2], t1[0], t1[1], t1[2]}, pos: ca.Add(cb).Scale(0.5), collider: -1}
}

// strainBounds returns the bounds on the largest edge strain in any frame
// and at the last frame: the loosest of the cloth's fabrics (the whole
// cloth's and every region's).
func (j *Job) strainBounds() (maxS, lastS float64, note string) {
	maxS, lastS = j.Fabric.MaxStrain, j.Fabric.LastStrain
	note = fmt.Sprintf("bound of the fabric %s", j.Fabric.Name)
	for _, r := range j.Regions {
		m, l := r.Fabric.MaxStrain, r.Fabric.LastStrain
		if m > maxS || l > lastS {
			note = fmt.Sprintf("bound of the fabric %s (region %s), the loosest in the cloth", r.Fabric.Name, r.Name)
		}
		maxS, lastS = math.Max(maxS, m), math.Max(lastS, l)
	}
	return maxS, lastS, note
}

// quality builds the certificate of a recording whose last frame reached
// lastStrain at lastSite, with its intersecting pairs inter, and the
// warning line of every exceeded bound.
func (j *Job) quality(rec *Recording, lastStrain float64, lastSite site, inter intersectionCount) (Quality, []string) {
	maxB, lastB, strainNote := j.strainBounds()
	interNote := "self-collision is on: every written frame is checked"
	if !j.Scene.SelfCollision {
		interNote = "self-collision is off: the last frame's pairs are reported, not checked"
	}
	pen := rec.MaxPen
	checks := []Check{
		j.check(KeyMaxStrain, rec.MaxStretch, maxB, &rec.maxStretchAt, strainNote),
		j.check(KeyLastStrain, lastStrain, lastB, &lastSite, strainNote),
		j.check(KeyPenetration, pen, penetrationBound*j.Params.Thickness, &rec.maxPenAt,
			fmt.Sprintf("bound: a tenth of the thickness %.3g mm", 1000*j.Params.Thickness)),
		j.check(KeySelfIntersections, float64(inter.worst), 0, inter.at, interNote),
	}
	if !j.Scene.SelfCollision {
		checks[3].OK = true
	}
	q := Quality{OK: true, Checks: checks, Required: j.Scene.Require.List(), Failed: []string{}}
	var warnings []string
	for _, c := range checks {
		if !c.OK {
			q.OK = false
			warnings = append(warnings, c.warning())
		}
		if v, ok := j.Scene.Require.get(c.Key); ok && c.Value > v {
			q.Failed = append(q.Failed, fmt.Sprintf("%s<=%s (measured %.4g%s)", c.Key, strconv.FormatFloat(v, 'g', -1, 64), c.Value, c.location()))
		}
	}
	return q, warnings
}

// check measures one value against its bound; at locates it (nil or a
// value of 0: nothing to locate).
func (j *Job) check(key string, value, bound float64, at *site, note string) Check {
	c := Check{Key: key, Value: value, Bound: bound, OK: value <= bound, Note: note}
	if key != KeySelfIntersections {
		c.Value, c.Bound = round9(value), round9(bound)
	}
	if at == nil || value == 0 || at.verts == nil {
		return c
	}
	f := at.frame
	c.Frame = &f
	for _, v := range at.verts {
		c.Vertices = append(c.Vertices, j.sourceVertex(v))
	}
	c.Position = &[3]float64{round9(at.pos.X), round9(at.pos.Y), round9(at.pos.Z)}
	if at.collider >= 0 && at.collider < len(j.colliderNames) {
		c.Collider = j.colliderNames[at.collider]
	}
	return c
}

// sourceVertex returns the input's own number of simulation vertex v: the
// lowest file vertex welded into it.
func (j *Job) sourceVertex(v int32) int32 {
	if j.simToSource == nil {
		j.simToSource = make([]int32, len(j.Welded.Positions))
		for i := range j.simToSource {
			j.simToSource[i] = -1
		}
		r := 0
		for _, p := range j.Mesh.Primitives {
			for k := range p.Positions {
				src := int32(r + k)
				if p.Source != nil {
					src = p.Source[k]
				}
				s := j.Welded.RenderToSim[r+k]
				if j.simToSource[s] < 0 || src < j.simToSource[s] {
					j.simToSource[s] = src
				}
			}
			r += len(p.Positions)
		}
	}
	return j.simToSource[v]
}

// measured formats a check's value for a person.
func (c Check) measured() string {
	switch c.Key {
	case KeyPenetration:
		return fmt.Sprintf("%.3g mm", 1000*c.Value)
	case KeySelfIntersections:
		return fmt.Sprintf("%d pairs", int(c.Value))
	}
	return fmt.Sprintf("%.3g %%", 100*c.Value)
}

// bounded formats a check's bound for a person.
func (c Check) bounded() string {
	switch c.Key {
	case KeyPenetration:
		return fmt.Sprintf("%.3g mm", 1000*c.Bound)
	case KeySelfIntersections:
		return fmt.Sprintf("%d", int(c.Bound))
	}
	return fmt.Sprintf("%.3g %%", 100*c.Bound)
}

// where formats a check's location with its position: " at frame 37,
// vertices 12-13 (x, y, z m)".
func (c Check) where() string {
	if c.Frame == nil {
		return ""
	}
	p := c.Position
	return c.location() + fmt.Sprintf(" (%.3f, %.3f, %.3f m)", p[0], p[1], p[2])
}

// location formats a check's frame and vertices: " at frame 37, vertices
// 12-13".
func (c Check) location() string {
	if c.Frame == nil {
		return ""
	}
	vs := make([]string, len(c.Vertices))
	for i, v := range c.Vertices {
		vs[i] = strconv.Itoa(int(v))
	}
	s := fmt.Sprintf(" at frame %d", *c.Frame)
	switch c.Key {
	case KeyPenetration:
		s += fmt.Sprintf(", vertex %s in %s", vs[0], c.Collider)
	case KeySelfIntersections:
		s += fmt.Sprintf(", triangles %s and %s", strings.Join(vs[:3], "-"), strings.Join(vs[3:], "-"))
	default:
		s += ", vertices " + strings.Join(vs, "-")
	}
	return s
}

// warning is the one line a bake prints when c exceeds its bound.
func (c Check) warning() string {
	what := map[string]string{
		KeyMaxStrain:         "largest edge strain",
		KeyLastStrain:        "largest edge strain at the last frame",
		KeyPenetration:       "deepest collider penetration",
		KeySelfIntersections: "intersecting triangle pairs",
	}[c.Key]
	fix := map[string]string{
		KeyMaxStrain:         "the cloth stretches like rubber; raise --substeps",
		KeyLastStrain:        "the cloth rests stretched; raise --substeps",
		KeyPenetration:       "raise --substeps or --thickness",
		KeySelfIntersections: "raise --substeps or --thickness",
	}[c.Key]
	return fmt.Sprintf("quality: %s %s (%s) exceeds its bound %s%s: %s", what, c.measured(), c.Key, c.bounded(), c.where(), fix)
}

// RequirementError returns the error of a bake that missed a requirement
// (exit code ExitRequirement), or nil. The outputs and the report are
// written before it is returned.
func (r *Report) RequirementError() error {
	if len(r.Quality.Failed) == 0 {
		return nil
	}
	name := r.Scene
	if name == "" {
		name = r.Input
	}
	return &Error{Code: ExitRequirement,
		Err: fmt.Errorf("%s: requirement not met: %s", name, strings.Join(r.Quality.Failed, "; ")),
		Fix: "the outputs were written; raise --substeps (strain, penetration) or --thickness (penetration, intersections), or loosen the requirement"}
}

// Summary is the certificate in one line: each value against its bound.
func (q Quality) Summary() string {
	parts := make([]string, len(q.Checks))
	for i, c := range q.Checks {
		rel := "<="
		if c.Value > c.Bound {
			rel = ">"
		}
		parts[i] = fmt.Sprintf("%s %s %s %s", c.Key, c.measured(), rel, c.bounded())
		if c.Value > c.Bound && c.OK {
			parts[i] += " (not checked: self-collision is off)"
		}
	}
	verdict := "within the fabric's bounds"
	if !q.OK {
		verdict = "EXCEEDS the fabric's bounds"
	}
	return fmt.Sprintf("quality %s: %s", verdict, strings.Join(parts, ", "))
}
