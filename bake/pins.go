package bake

import (
	"fmt"
	"math"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
	"github.com/drape-sim/drape/solver"
)

// pinSel is one pinned simulation vertex: its strength (1 = hard) and the
// scene pin entry it came from.
type pinSel struct {
	vertex   int32
	strength float64
	entry    int
}

// sourceToSim maps the file's own vertex numbers (OBJ `v` lines, STL facet
// corners, glTF render vertices) to simulation vertices; -1 where a source
// vertex is used by no triangle.
func sourceToSim(m *meshio.Mesh, w *meshio.Welded) []int32 {
	n := m.SourceVertices
	if n == 0 {
		n = m.NumVertices()
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
	}
	r := 0
	for _, p := range m.Primitives {
		for i := range p.Positions {
			src := r
			if p.Source != nil {
				src = int(p.Source[i])
			}
			if src >= 0 && src < n && out[src] < 0 {
				out[src] = w.RenderToSim[r]
			}
			r++
		}
	}
	return out
}

// selectPins turns the scene's pin entries into pinned simulation vertices,
// sorted by vertex; a vertex chosen twice keeps its largest strength. An
// entry that selects nothing is an error: the user meant to pin something.
func selectPins(sc *Scene, m *meshio.Mesh, w *meshio.Welded) ([]pinSel, error) {
	if len(sc.Pins) == 0 {
		return nil, nil
	}
	strength := make([]float64, len(w.Positions))
	entry := make([]int, len(w.Positions))
	for i := range entry {
		entry[i] = -1
	}
	set := func(v int32, s float64, e int) {
		if s > strength[v] || entry[v] < 0 {
			strength[v], entry[v] = math.Max(s, strength[v]), e
		}
	}
	lo, hi := bounds(w.Positions)
	diag := hi.Sub(lo).Len()
	var src []int32
	for e, p := range sc.Pins {
		key := fmt.Sprintf("pins[%d]", e)
		stiff := 1.0
		if p.Stiffness != nil {
			stiff = *p.Stiffness
		}
		count := 0
		switch {
		case p.Top:
			tol := math.Max(1e-3*diag, 1e-6)
			for v, x := range w.Positions {
				if x.Y >= hi.Y-tol {
					set(int32(v), stiff, e)
					count++
				}
			}
		case len(p.Indices) > 0:
			if src == nil {
				src = sourceToSim(m, w)
			}
			for j, ix := range p.Indices {
				if ix >= len(src) {
					return nil, sc.rangeError(fmt.Sprintf("%s.indices[%d]", key, j), ix,
						fmt.Sprintf("must be below %d, the number of vertices in %s", len(src), m.Path))
				}
				v := src[ix]
				if v < 0 {
					continue // a vertex no triangle uses: nothing to hold
				}
				s := stiff
				if p.Weights != nil {
					s = p.Weights[j]
				}
				if s > 0 {
					set(v, s, e)
					count++
				}
			}
		case p.Box != nil:
			bmin, bmax := vec.V(p.Box[0], p.Box[1], p.Box[2]), vec.V(p.Box[3], p.Box[4], p.Box[5])
			for v, x := range w.Positions {
				if x.X >= bmin.X && x.X <= bmax.X && x.Y >= bmin.Y && x.Y <= bmax.Y && x.Z >= bmin.Z && x.Z <= bmax.Z {
					set(int32(v), stiff, e)
					count++
				}
			}
		case p.Attribute != "":
			vals, ok := vertexAttribute(m, p.Attribute)
			if !ok {
				return nil, sc.rangeError(key+".attribute", fmt.Sprintf("%q", p.Attribute),
					fmt.Sprintf("%s has no per-vertex attribute of that name (glTF custom attributes start with _, e.g. _PIN)", m.Path))
			}
			for r, val := range vals {
				if val > 0 {
					set(w.RenderToSim[r], math.Min(float64(val), 1)*stiff, e)
					count++
				}
			}
		}
		if count == 0 {
			return nil, sc.rangeError(key, describePin(p), fmt.Sprintf("selects no vertex of %s (bounds %v .. %v)", m.Path, fmt3(lo), fmt3(hi)))
		}
	}
	var out []pinSel
	for v := range strength {
		if entry[v] >= 0 && strength[v] > 0 {
			out = append(out, pinSel{vertex: int32(v), strength: strength[v], entry: entry[v]})
		}
	}
	return out, nil
}

// minTopPins is the fewest vertices a top pin may hold before the bake
// warns that the cloth hangs from a point.
const minTopPins = 3

// topPinWarning warns when a top pin holds fewer than minTopPins vertices:
// on a garment or a crumpled cloth the highest point is a vertex or two,
// and the cloth hangs from it.
func topPinWarning(sc *Scene, m *meshio.Mesh, w *meshio.Welded, pins []pinSel) string {
	for e, p := range sc.Pins {
		if !p.Top {
			continue
		}
		n, at := 0, int32(-1)
		for _, ps := range pins {
			if ps.entry == e {
				n++
				at = ps.vertex
			}
		}
		if n > 0 && n < minTopPins {
			return fmt.Sprintf("%s: pins[%d] (top) holds only %d vertex(es) at the cloth's highest point %s: the cloth will hang from a point; to hold a garment or an uneven cloth along a line use a box pin (--pin box:x0,y0,z0,x1,y1,z1) or a pin attribute (--pin attribute:_PIN)",
				m.Path, e, n, fmt3(w.Positions[at]))
		}
	}
	return ""
}

func describePin(p PinSpec) string {
	switch {
	case p.Top:
		return "top"
	case p.Box != nil:
		return fmt.Sprintf("box %v", p.Box)
	case p.Attribute != "":
		return "attribute " + p.Attribute
	}
	return fmt.Sprintf("%d indices", len(p.Indices))
}

func bounds(ps []vec.Vec3) (lo, hi vec.Vec3) {
	if len(ps) == 0 {
		return
	}
	lo, hi = ps[0], ps[0]
	for _, p := range ps[1:] {
		lo, hi = lo.Min(p), hi.Max(p)
	}
	return
}

func fmt3(v vec.Vec3) string { return fmt.Sprintf("(%.4g, %.4g, %.4g)", v.X, v.Y, v.Z) }

// vertexAttribute returns a scalar per-vertex attribute of the render mesh
// over all primitives in order, when every primitive has it.
func vertexAttribute(m *meshio.Mesh, name string) ([]float32, bool) {
	var out []float32
	for _, p := range m.Primitives {
		a, ok := p.Attributes[name]
		if !ok || len(a) != len(p.Positions) {
			return nil, false
		}
		out = append(out, a...)
	}
	return out, len(out) > 0
}

// pinTrack reads the point cache of scene pin entry e: the input's
// vertices (OBJ v lines) at time k/fps for sample k, in the input's axes
// and units, of which the entry's pinned vertices follow theirs. A note
// says when sample 0 is not the input pose: the pinned vertices then jump
// at the first frame.
func pinTrack(sc *Scene, e int, m *meshio.Mesh, w *meshio.Welded, sel []pinSel) (tr *solver.SampledTrack, note string, err error) {
	key := fmt.Sprintf("pins[%d].cache", e)
	path := sc.Resolve(sc.Pins[e].Cache)
	if m.Format != meshio.FormatOBJ {
		return nil, "", badInput(fmt.Errorf("%s: %s is not OBJ, whose v lines number a cache's points", key, m.Path),
			"give the cloth as OBJ to pin it to a point cache")
	}
	pc, err := meshio.ReadPointCacheFile(path)
	if err != nil {
		return nil, "", badInput(fmt.Errorf("%s: %w", key, err), "")
	}
	if n := len(pc.Frames[0]); n != m.SourceVertices {
		return nil, "", badInput(fmt.Errorf("%s: %s holds %d points, %s has %d vertices", key, path, n, m.Path, m.SourceVertices),
			"write the cache from the cloth's own mesh, every vertex in the file's order (its v lines)")
	}
	// the first of the file's vertices welded into each pinned one
	first := map[int32]int{}
	for i, v := range sourceToSim(m, w) {
		if _, ok := first[v]; !ok && v >= 0 {
			first[v] = i
		}
	}
	tr = &solver.SampledTrack{Step: 1 / sc.FPS, Vertices: entryVertices(sel, e)}
	opt := inputReadOptions(sc)
	tr.Samples = make([][]vec.Vec3, len(pc.Frames))
	for k, f := range pc.Frames {
		row := make([]vec.Vec3, len(tr.Vertices))
		for i, v := range tr.Vertices {
			p := opt.Place(m.Format, f[first[v]])
			if !finite(p.X) || !finite(p.Y) || !finite(p.Z) {
				return nil, "", badInput(fmt.Errorf("%s: %s sample %d, point %d is not finite", key, path, k, first[v]), "write the cache again")
			}
			row[i] = p
		}
		tr.Samples[k] = row
	}
	off, at := 0.0, int32(-1)
	for i, v := range tr.Vertices {
		if d := tr.Samples[0][i].Sub(w.Positions[v]).Len(); d > off {
			off, at = d, v
		}
	}
	lo, hi := bounds(w.Positions)
	if off > 1e-3*hi.Sub(lo).Len() {
		note = fmt.Sprintf("%s: sample 0 of %s is up to %.3g m from the input's vertices (simulation vertex %d): the pinned vertices jump there at the first frame; write the cache from the input's pose",
			key, path, off, at)
	}
	return tr, note, nil
}

// entryVertices returns the vertices sel pins for scene pin entry e, in
// sel's order.
func entryVertices(sel []pinSel, e int) []int32 {
	var out []int32
	for _, ps := range sel {
		if ps.entry == e {
			out = append(out, ps.vertex)
		}
	}
	return out
}

// pinTargets builds the solver's pins from j.Pins: the vertices of each
// scene pin entry share its keyed motion, its point cache (pinTrack) or
// the collider it is attached to (attachPins); notes go to warn and
// j.Warnings.
func (j *Job) pinTargets(m *meshio.Mesh, w *meshio.Welded, warn func(string)) ([]solver.Pin, error) {
	sc := j.Scene
	motions := make([]solver.Motion, len(sc.Pins))
	tracks := make([]solver.Track, len(sc.Pins))
	for e, p := range sc.Pins {
		var note string
		var err error
		switch {
		case len(p.Keys) > 0:
			// the sphere only makes the sdf.Animated valid; pins use its
			// transform
			motions[e] = motion{&sdf.Animated{Shape: sdf.Sphere{Radius: 1}, Keys: toKeys(p.Keys)}}
		case p.Cache != "":
			tracks[e], note, err = pinTrack(sc, e, m, w, j.Pins)
		case p.Attach != "":
			motions[e], tracks[e], note, err = j.attachPins(e, m, w)
		}
		if err != nil {
			return nil, err
		}
		if note != "" {
			warn(note)
			j.Warnings = append(j.Warnings, note)
		}
	}
	pins := make([]solver.Pin, len(j.Pins))
	for i, ps := range j.Pins {
		pins[i] = solver.Pin{Vertex: ps.vertex, Stiffness: ps.strength, Motion: motions[ps.entry], Track: tracks[ps.entry]}
	}
	return pins, nil
}

// attachPins makes the pinned vertices of scene pin entry e ride on the
// collider it names: on a deforming mesh collider (a point cache, a
// skinned glTF node) each vertex is tacked to its nearest triangle
// (sdf.MeshSequence.Follow); a keyed collider carries them rigidly; a
// still one holds them (with a note).
func (j *Job) attachPins(e int, m *meshio.Mesh, w *meshio.Welded) (solver.Motion, solver.Track, string, error) {
	sc := j.Scene
	key := fmt.Sprintf("pins[%d].attach", e)
	name := sc.Pins[e].Attach
	ci := -1
	var names []string
	for i, c := range sc.Colliders {
		if c.Name == name && ci < 0 {
			ci = i
		}
		if c.Name != "" {
			names = append(names, fmt.Sprintf("%q", c.Name))
		}
	}
	for k, n := range m.Colliders {
		if n.Name == name && ci < 0 {
			ci = len(sc.Colliders) + k
		}
		names = append(names, fmt.Sprintf("%q", n.Name))
	}
	if ci < 0 {
		have := "none has a name"
		if len(names) > 0 {
			have = "named: " + strings.Join(names, ", ")
		}
		return nil, nil, "", sc.rangeError(key, fmt.Sprintf("%q", name),
			fmt.Sprintf("names no collider (%s); give the collider a \"name\" or use a collider node's name", have))
	}
	c := &j.Colliders[ci]
	verts := entryVertices(j.Pins, e)
	if seq, ok := c.Shape.(*sdf.MeshSequence); ok && len(c.Keys) == 0 {
		points := make([]vec.Vec3, len(verts))
		for i, v := range verts {
			points[i] = w.Positions[v]
		}
		paths, err := seq.Follow(points)
		if err != nil {
			return nil, nil, "", badInput(fmt.Errorf("%s: %s: %w", key, j.colliderNames[ci], err), "")
		}
		// a vertex far off the surface rides on it at arm's length: most
		// likely the wrong vertices or the wrong collider
		far, at := 0.0, int32(-1)
		for i, p := range points {
			if d := math.Abs(seq.Dist(p)); d > far {
				far, at = d, verts[i]
			}
		}
		note := ""
		lo, hi := bounds(w.Positions)
		if far > attachFar*hi.Sub(lo).Len() {
			note = fmt.Sprintf("%s: pinned vertex %d is %.3g m from the surface of %s at the first frame: it rides there, held off the surface by that much; pin the vertices that lie on the collider",
				key, at, far, j.colliderNames[ci])
		}
		return nil, &solver.SampledTrack{Step: seq.Step(), Vertices: verts, Samples: paths}, note, nil
	}
	if len(c.Keys) > 0 {
		return attached{a: &c.Animated, inv0: c.Animated.Transform(0).Inverse()}, nil, "", nil
	}
	return nil, nil, fmt.Sprintf("%s: %s does not move: its pinned vertices hold still", key, j.colliderNames[ci]), nil
}

// attachFar is the distance from a deforming collider's surface, relative
// to the cloth's size, beyond which a pinned vertex attached to it gets a
// note.
const attachFar = 0.1

// attached carries pins rigidly with a keyed collider: its transform at t
// after undoing the one at time 0, where the pins start.
type attached struct {
	a    *sdf.Animated
	inv0 vec.Mat4 // the inverse of a's transform at time 0
}

func (m attached) At(t float64) vec.Mat4 {
	return m.a.Transform(t).Mul(m.inv0)
}
