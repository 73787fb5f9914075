package meshio

import (
	"fmt"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
)

// Baked is a baked animation read back from a glTF file with morph-target
// frames, such as drape's own output: the animated primitives and their
// world-space positions at every frame.
type Baked struct {
	// Mesh holds only the primitives that have POSITION morph targets, in
	// world space, at the base pose.
	Mesh *Mesh
	// Times are the frame times [s], from the weights animation when the
	// file has one, else k/24.
	Times []float64
	// Frames are the positions of Mesh's render vertices (primitives
	// concatenated) at each time: the weights animation's keys applied to
	// the morph targets (a compressed basis plays the same way), or, in a
	// file without one, target k fully applied.
	Frames [][]vec.Vec3
	// Targets is the number of morph targets.
	Targets int
}

// ReadBaked reads every primitive with POSITION morph targets from a glTF
// or GLB file and evaluates one frame per key of its weights animation
// (base + sum of weight x target, through the node transforms), or one
// frame per target when no animation drives the weights. It is how drape
// preview reads a bake, and how tests read back what a file plays.
func ReadBaked(path string) (*Baked, error) {
	opt := DefaultReadOptions()
	opt.AllMeshes = true
	m, err := Read(path, opt)
	if err != nil {
		return nil, err
	}
	if m.gltf == nil {
		return nil, &ParseError{Path: path, Msg: "not a glTF file: a baked animation is read from .glb or .gltf"}
	}
	doc := m.gltf.doc
	r := &gltfReader{name: path, doc: doc, opt: opt}
	insts, err := r.instances()
	if err != nil {
		return nil, err
	}
	world := map[int]vec.Mat4{}
	for _, in := range insts {
		world[in.node] = in.world
	}
	out := &Baked{Mesh: &Mesh{Path: m.Path, Format: m.Format, Name: m.Name}}
	targets := -1
	var deltas [][][]vec.Vec3 // [prim][target][vertex]
	var mats []vec.Mat4
	for i, ref := range m.gltf.prims {
		prim := doc.Meshes[ref.Mesh].Primitives[ref.Primitive]
		if len(prim.Targets) == 0 {
			continue
		}
		if targets >= 0 && len(prim.Targets) != targets {
			return nil, &ParseError{Path: path, Place: fmt.Sprintf("meshes[%d].primitives[%d]", ref.Mesh, ref.Primitive),
				Msg: fmt.Sprintf("%d morph targets where other animated primitives have %d", len(prim.Targets), targets)}
		}
		targets = len(prim.Targets)
		p := m.Primitives[i]
		var d [][]vec.Vec3
		for k, tg := range prim.Targets {
			ai, ok := tg[gltf.POSITION]
			if !ok {
				return nil, &ParseError{Path: path, Place: fmt.Sprintf("meshes[%d].primitives[%d].targets[%d]", ref.Mesh, ref.Primitive, k), Msg: "morph target without POSITION"}
			}
			v, err := r.readVec3(ai, fmt.Sprintf("meshes[%d].primitives[%d].targets[%d]", ref.Mesh, ref.Primitive, k), false)
			if err != nil {
				return nil, err
			}
			if len(v) != len(p.Positions) {
				return nil, &ParseError{Path: path, Place: fmt.Sprintf("meshes[%d].primitives[%d].targets[%d]", ref.Mesh, ref.Primitive, k),
					Msg: fmt.Sprintf("%d target positions for %d vertices", len(v), len(p.Positions))}
			}
			d = append(d, v)
		}
		w, ok := world[ref.Node]
		if !ok {
			w = vec.Identity()
		}
		out.Mesh.Primitives = append(out.Mesh.Primitives, p)
		deltas = append(deltas, d)
		mats = append(mats, w)
	}
	if targets <= 0 {
		return nil, &ParseError{Path: path, Place: "meshes", Msg: "no morph targets: this is not a baked animation (bake it with drape bake first)", Err: ErrNoGeometry}
	}
	out.Targets = targets
	times, weights := bakedWeights(doc, targets)
	n := out.Mesh.NumVertices()
	out.Frames = make([][]vec.Vec3, len(weights))
	for k, w := range weights {
		f := make([]vec.Vec3, 0, n)
		for pi, p := range out.Mesh.Primitives {
			for v, base := range p.Positions {
				d := vec.Vec3{}
				for t, x := range w {
					if x != 0 {
						d = d.Add(deltas[pi][t][v].Scale(x))
					}
				}
				f = append(f, base.Add(mats[pi].MulDir(d)))
			}
		}
		out.Frames[k] = f
	}
	out.Times = times
	return out, nil
}

// bakedWeights returns the key times and weights of the first weights
// animation channel whose output holds n weights per key (LINEAR or STEP;
// CUBICSPLINE keys give their values), or, without one, one key per target
// at k/24 showing target k alone.
func bakedWeights(doc *gltf.Document, n int) ([]float64, [][]float64) {
	for _, a := range doc.Animations {
		for _, ch := range a.Channels {
			if ch.Target.Path != gltf.TRSWeights || ch.Sampler < 0 || ch.Sampler >= len(a.Samplers) {
				continue
			}
			s := a.Samplers[ch.Sampler]
			if s.Input < 0 || s.Input >= len(doc.Accessors) || s.Output < 0 || s.Output >= len(doc.Accessors) {
				continue
			}
			in, err := modeler.ReadAccessor(doc, doc.Accessors[s.Input], nil)
			if err != nil {
				continue
			}
			ts, ok := in.([]float32)
			if !ok || len(ts) == 0 {
				continue
			}
			outRaw, err := modeler.ReadAccessor(doc, doc.Accessors[s.Output], nil)
			if err != nil {
				continue
			}
			ws, ok := outRaw.([]float32)
			per, skip := n, 0
			if s.Interpolation == gltf.InterpolationCubicSpline {
				per, skip = 3*n, n
			}
			if !ok || len(ws) != per*len(ts) {
				continue
			}
			times := make([]float64, len(ts))
			weights := make([][]float64, len(ts))
			for k, t := range ts {
				times[k] = float64(t)
				weights[k] = make([]float64, n)
				for i := range n {
					weights[k][i] = float64(ws[k*per+skip+i])
				}
			}
			return times, weights
		}
	}
	times := make([]float64, n)
	weights := make([][]float64, n)
	for i := range times {
		times[i] = float64(i) / 24
		weights[i] = make([]float64, n)
		weights[i][i] = 1
	}
	return times, weights
}
