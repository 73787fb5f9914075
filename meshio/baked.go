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
	// concatenated) with morph target k fully applied.
	Frames [][]vec.Vec3
}

// ReadBaked reads every primitive with POSITION morph targets from a glTF
// or GLB file and evaluates one frame per target: base + target k, through
// the node transforms. It is how drape preview reads a bake.
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
	out.Frames = make([][]vec.Vec3, targets)
	n := out.Mesh.NumVertices()
	for k := range out.Frames {
		f := make([]vec.Vec3, 0, n)
		for pi, p := range out.Mesh.Primitives {
			for v, base := range p.Positions {
				f = append(f, base.Add(mats[pi].MulDir(deltas[pi][k][v])))
			}
		}
		out.Frames[k] = f
	}
	out.Times = bakedTimes(doc, targets)
	return out, nil
}

// bakedTimes returns the input times of the first weights animation sampler
// with one key per target, or k/24.
func bakedTimes(doc *gltf.Document, n int) []float64 {
	for _, a := range doc.Animations {
		for _, ch := range a.Channels {
			if ch.Target.Path != gltf.TRSWeights || ch.Sampler < 0 || ch.Sampler >= len(a.Samplers) {
				continue
			}
			in := a.Samplers[ch.Sampler].Input
			if in < 0 || in >= len(doc.Accessors) {
				continue
			}
			data, err := modeler.ReadAccessor(doc, doc.Accessors[in], nil)
			if err != nil {
				continue
			}
			ts, ok := data.([]float32)
			if !ok || len(ts) != n {
				continue
			}
			out := make([]float64, n)
			for i, t := range ts {
				out[i] = float64(t)
			}
			return out
		}
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) / 24
	}
	return out
}
