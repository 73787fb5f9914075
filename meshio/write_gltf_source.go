package meshio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
)

// bakeIntoSource writes the animation into a copy of the source glTF
// document.
func bakeIntoSource(m *Mesh, a *Animation, opt GLTFOptions) (doc *gltf.Document, info MorphInfo, err error) {
	src := m.gltf.doc
	doc, err = cloneJSON(src)
	if err != nil {
		return nil, info, fmt.Errorf("copy the source document: %w", err)
	}
	b := &binBuilder{doc: doc, data: make([]byte, 0, estimateSize(m, a, opt)+sourceBytes(src))}

	// every buffer view's bytes into the one buffer; compressed copies go
	views := doc.BufferViews
	doc.BufferViews = nil
	for i, bv := range views {
		if bv.Buffer < 0 || bv.Buffer >= len(src.Buffers) {
			return nil, info, fmt.Errorf("bufferViews[%d]: buffer %d does not exist", i, bv.Buffer)
		}
		data := src.Buffers[bv.Buffer].Data
		if bv.ByteOffset < 0 || bv.ByteLength < 0 || bv.ByteOffset+bv.ByteLength > len(data) {
			return nil, info, fmt.Errorf("bufferViews[%d]: bytes %d..%d of buffer %d, which holds %d bytes", i, bv.ByteOffset, bv.ByteOffset+bv.ByteLength, bv.Buffer, len(data))
		}
		_, dst := b.view(bv.ByteLength, 0, 0)
		copy(dst, data[bv.ByteOffset:bv.ByteOffset+bv.ByteLength])
		nv := b.doc.BufferViews[i]
		bv.Buffer, bv.ByteOffset = 0, nv.ByteOffset
		delete(bv.Extensions, extMeshopt)
		if len(bv.Extensions) == 0 {
			bv.Extensions = nil
		}
		b.doc.BufferViews[i] = bv
	}
	dropUsed(doc, extMeshopt)
	for _, mesh := range doc.Meshes {
		for _, p := range mesh.Primitives {
			delete(p.Extensions, extDraco)
			if len(p.Extensions) == 0 {
				p.Extensions = nil
			}
		}
	}
	dropUsed(doc, extDraco)
	embedImages(b, m.gltf.images)

	nodes, err := sourceClothNodes(m, doc, src, opt)
	if err != nil {
		return nil, info, err
	}
	for _, cn := range nodes {
		ni, err := bakeTargets(b, cn, a, opt)
		if err != nil {
			return nil, info, fmt.Errorf("node %d: %w", cn.node, err)
		}
		info = info.merge(ni)
		if cn.scale != 1 {
			if err := addQuantizationLeaf(doc, cn); err != nil {
				return nil, info, err
			}
		}
	}
	if opt.Quantize {
		addUsed(doc, extQuantization, true)
	}
	dropWeightAnimations(doc, nodes)
	if err := addAnimation(b, nodes, a); err != nil {
		return nil, info, err
	}
	b.finishBuffer()
	return doc, info, nil
}

// sourceBytes is the size of the source's buffers.
func sourceBytes(src *gltf.Document) int {
	n := 0
	for _, buf := range src.Buffers {
		n += len(buf.Data)
	}
	return n
}

// cloneJSON deep-copies a glTF object through its JSON form.
func cloneJSON[T any](v *T) (*T, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	return out, nil
}

// embedImages moves images stored as separate files next to the input
// (read with the input, see readImages) into the binary buffer, so the
// output works wherever it is written. Images that were missing keep their
// URI.
func embedImages(b *binBuilder, images map[int][]byte) {
	for i, im := range b.doc.Images {
		data, ok := images[i]
		if !ok {
			continue
		}
		view, dst := b.view(len(data), 0, gltf.TargetNone)
		copy(dst, data)
		im.URI, im.MimeType, im.BufferView = "", imageMIME(data), gltf.Index(view)
	}
}

// imageMIME names an image's type from its first bytes.
func imageMIME(d []byte) string {
	switch {
	case bytes.HasPrefix(d, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(d, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case len(d) >= 12 && string(d[:4]) == "RIFF" && string(d[8:12]) == "WEBP":
		return "image/webp"
	case bytes.HasPrefix(d, []byte("\xabKTX 20\xbb\r\n\x1a\n")):
		return "image/ktx2"
	}
	return ""
}

// sourceClothNodes finds the nodes whose mesh the Mesh came from, gives each
// its own copy of the mesh where needed, and prepares the base data of every
// primitive.
func sourceClothNodes(m *Mesh, doc, src *gltf.Document, opt GLTFOptions) ([]*clothNode, error) {
	refs := m.gltf.prims
	if len(refs) != len(m.Primitives) {
		return nil, fmt.Errorf("mesh has %d primitives but its glTF source locates %d", len(m.Primitives), len(refs))
	}
	start := make([]int, len(m.Primitives))
	r := 0
	for i := range m.Primitives {
		start[i] = r
		r += len(m.Primitives[i].Positions)
	}

	// nodes in order of first appearance
	var order []int
	byNode := map[int][]int{}
	for i, ref := range refs {
		if ref.Node < 0 || ref.Node >= len(doc.Nodes) || ref.Mesh < 0 || ref.Mesh >= len(doc.Meshes) {
			return nil, fmt.Errorf("primitive %d: node %d / mesh %d not in the document", i, ref.Node, ref.Mesh)
		}
		if _, ok := byNode[ref.Node]; !ok {
			order = append(order, ref.Node)
		}
		byNode[ref.Node] = append(byNode[ref.Node], i)
	}
	users := make([]int, len(doc.Meshes))
	for _, n := range doc.Nodes {
		if n.Mesh != nil && *n.Mesh >= 0 && *n.Mesh < len(users) {
			users[*n.Mesh]++
		}
	}
	clothUsers := make([]int, len(doc.Meshes))
	for _, ni := range order {
		clothUsers[refs[byNode[ni][0]].Mesh]++
	}
	world := worldMatrices(doc)

	claimed := make([]bool, len(doc.Meshes))
	var nodes []*clothNode
	for _, ni := range order {
		node := doc.Nodes[ni]
		mi := refs[byNode[ni][0]].Mesh
		if node.Mesh == nil || *node.Mesh != mi {
			return nil, fmt.Errorf("node %d does not use mesh %d as the mesh's source says", ni, mi)
		}
		mesh := doc.Meshes[mi]
		if claimed[mi] || users[mi] != clothUsers[mi] {
			// another instance: its own copy of the mesh
			cp, err := cloneJSON(mesh)
			if err != nil {
				return nil, fmt.Errorf("copy mesh %d: %w", mi, err)
			}
			doc.Meshes = append(doc.Meshes, cp)
			node.Mesh = gltf.Index(len(doc.Meshes) - 1)
			mesh = cp
		}
		claimed[mi] = true
		node.Weights = nil

		cn := &clothNode{node: ni, mesh: mesh}
		renderOf := make([]int, len(mesh.Primitives))
		for j := range renderOf {
			renderOf[j] = -1
		}
		for _, i := range byNode[ni] {
			pj := refs[i].Primitive
			if pj < 0 || pj >= len(mesh.Primitives) {
				return nil, fmt.Errorf("primitive %d: mesh %d has no primitive %d", i, mi, pj)
			}
			renderOf[pj] = i
		}
		var fit fitAcc
		for pj, gp := range mesh.Primitives {
			gp.Targets = nil
			cp := clothPrim{gp: gp, render: -1}
			pos, ok := gp.Attributes[gltf.POSITION]
			if !ok {
				return nil, fmt.Errorf("meshes[%d].primitives[%d] has no POSITION", mi, pj)
			}
			var err error
			if cp.base, err = readVec3(src, pos); err != nil {
				return nil, fmt.Errorf("meshes[%d].primitives[%d] POSITION: %w", mi, pj, err)
			}
			if i := renderOf[pj]; i >= 0 {
				p := &m.Primitives[i]
				if len(p.Positions) != len(cp.base) {
					return nil, fmt.Errorf("%s: %d render vertices, the source primitive has %d", p.Name, len(p.Positions), len(cp.base))
				}
				cp.render = start[i]
				cp.indices = p.Indices
				fit.add(world[ni], cp.base, p.Positions)
			}
			if opt.Normals {
				if nrm, ok := gp.Attributes[gltf.NORMAL]; ok {
					if cp.baseN, err = readVec3(src, nrm); err != nil {
						return nil, fmt.Errorf("meshes[%d].primitives[%d] NORMAL: %w", mi, pj, err)
					}
				} else {
					cp.baseN = make([]vec.Vec3, len(cp.base))
					idx, err := readIndices(src, gp, len(cp.base))
					if err != nil {
						return nil, fmt.Errorf("meshes[%d].primitives[%d] indices: %w", mi, pj, err)
					}
					if gp.Mode == gltf.PrimitiveTriangles {
						primitiveNormals(cp.base, idx, cp.baseN)
					} else {
						for j := range cp.baseN {
							cp.baseN[j] = vec.Vec3{Y: 1}
						}
					}
					cp.needBaseN = true
				}
			}
			cn.prims = append(cn.prims, cp)
		}
		toWorld, err := fit.transform(world[ni])
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", ni, err)
		}
		cn.toLocal = toWorld.Inverse()
		// normals go by the inverse transpose of toLocal: toWorld's transpose
		cn.normalM = transpose3(toWorld)
		nodes = append(nodes, cn)
	}
	return nodes, nil
}

// transpose3 returns the transpose of m's linear part, without translation.
func transpose3(m vec.Mat4) vec.Mat4 {
	o := vec.Identity()
	for r := range 3 {
		for c := range 3 {
			o[r][c] = m[c][r]
		}
	}
	return o
}

// fitAcc finds the uniform scale s with world = s W local, which the reader
// applies on top of a node's world transform W (ReadOptions.Scale).
type fitAcc struct {
	num, den float64
	pairs    []fitPair
}

type fitPair struct{ local, world []vec.Vec3 }

func (f *fitAcc) add(w vec.Mat4, local, world []vec.Vec3) {
	for j, l := range local {
		q := w.MulPoint(l)
		f.num += q.Dot(world[j])
		f.den += q.Dot(q)
	}
	f.pairs = append(f.pairs, fitPair{local, world})
}

// transform returns s W and checks that it maps every source position onto
// the mesh's within float32 precision.
func (f *fitAcc) transform(w vec.Mat4) (vec.Mat4, error) {
	s := 1.0
	if f.den > 0 && f.num > 0 {
		s = f.num / f.den
	}
	if math.Abs(s-1) < 1e-6 {
		s = 1
	}
	m := vec.ScaleMat(vec.V(s, s, s)).Mul(w)
	if d := m.Det3(); d == 0 || d != d {
		return m, errors.New("the node's world transform is singular: the baked mesh cannot be written in its local space")
	}
	worst, size := 0.0, 0.0
	for _, p := range f.pairs {
		for j, l := range p.local {
			worst = max(worst, m.MulPoint(l).Sub(p.world[j]).Len())
			size = max(size, p.world[j].Len())
		}
	}
	if worst > 1e-5*(1+size) {
		return m, fmt.Errorf("the mesh's positions are %g m away from the source document's (transformed by the node and a scale of %g): was the mesh changed after reading?", worst, s)
	}
	return m, nil
}

// worldMatrices returns every node's world transform.
func worldMatrices(doc *gltf.Document) []vec.Mat4 {
	return worldsOf(nodeParents(doc), func(i int) vec.Mat4 { return localMatrix(doc.Nodes[i]) })
}

// localMatrix returns a node's transform relative to its parent.
func localMatrix(n *gltf.Node) vec.Mat4 {
	if n.Matrix != gltf.DefaultMatrix && n.Matrix != [16]float64{} {
		return vec.Mat4FromColumnMajor(n.Matrix)
	}
	t, r, s := n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault()
	return vec.TRS(vec.V(t[0], t[1], t[2]), vec.Quat{X: r[0], Y: r[1], Z: r[2], W: r[3]}.Normalize(), vec.V(s[0], s[1], s[2]))
}

// readVec3 reads a VEC3 accessor of any component type, normalized or not,
// dense or sparse, as float64 vectors.
func readVec3(doc *gltf.Document, idx int) ([]vec.Vec3, error) {
	if idx < 0 || idx >= len(doc.Accessors) {
		return nil, fmt.Errorf("accessor %d does not exist", idx)
	}
	acc := doc.Accessors[idx]
	raw, err := modeler.ReadAccessor(doc, acc, nil)
	if err != nil {
		return nil, fmt.Errorf("accessor %d: %w", idx, err)
	}
	out := make([]vec.Vec3, acc.Count)
	conv := func(x, norm float64, lo float64) float64 {
		if !acc.Normalized {
			return x
		}
		return math.Max(x/norm, lo)
	}
	switch v := raw.(type) {
	case [][3]float32:
		for i, q := range v {
			out[i] = vec.FromF32(q)
		}
	case [][3]int8:
		for i, q := range v {
			out[i] = vec.V(conv(float64(q[0]), 127, -1), conv(float64(q[1]), 127, -1), conv(float64(q[2]), 127, -1))
		}
	case [][3]uint8:
		for i, q := range v {
			out[i] = vec.V(conv(float64(q[0]), 255, 0), conv(float64(q[1]), 255, 0), conv(float64(q[2]), 255, 0))
		}
	case [][3]int16:
		for i, q := range v {
			out[i] = vec.V(conv(float64(q[0]), 32767, -1), conv(float64(q[1]), 32767, -1), conv(float64(q[2]), 32767, -1))
		}
	case [][3]uint16:
		for i, q := range v {
			out[i] = vec.V(conv(float64(q[0]), 65535, 0), conv(float64(q[1]), 65535, 0), conv(float64(q[2]), 65535, 0))
		}
	default:
		return nil, fmt.Errorf("accessor %d: %T is not a VEC3 of float, byte or short", idx, raw)
	}
	return out, nil
}

// readIndices returns a triangle primitive's indices (0..n-1 when it has
// none).
func readIndices(doc *gltf.Document, p *gltf.Primitive, n int) ([]int32, error) {
	if p.Indices == nil {
		ix := make([]int32, n-n%3)
		for i := range ix {
			ix[i] = int32(i)
		}
		return ix, nil
	}
	if *p.Indices < 0 || *p.Indices >= len(doc.Accessors) {
		return nil, fmt.Errorf("accessor %d does not exist", *p.Indices)
	}
	u, err := modeler.ReadIndices(doc, doc.Accessors[*p.Indices], nil)
	if err != nil {
		return nil, err
	}
	ix := make([]int32, len(u)-len(u)%3)
	for i := range ix {
		if int(u[i]) >= n {
			return nil, fmt.Errorf("index %d out of range (%d vertices)", u[i], n)
		}
		ix[i] = int32(u[i])
	}
	return ix, nil
}

// addQuantizationLeaf moves cn's mesh onto a new child node scaled by
// cn.scale, the dequantization transform KHR_mesh_quantization expects for
// displacements beyond [-1, 1], leaving the node's own transform, children
// and animation as they were.
func addQuantizationLeaf(doc *gltf.Document, cn *clothNode) error {
	node := doc.Nodes[cn.node]
	if node.Skin != nil {
		return fmt.Errorf("node %d: quantizing a skinned cloth mesh that moves more than 1 unit is not supported: write without --quantize", cn.node)
	}
	s := cn.scale
	leaf := &gltf.Node{
		Name:   node.Name + " (drape quantized)",
		Mesh:   node.Mesh,
		Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation,
		Scale: [3]float64{s, s, s},
	}
	doc.Nodes = append(doc.Nodes, leaf)
	li := len(doc.Nodes) - 1
	node.Mesh = nil
	node.Children = append(node.Children, li)
	cn.node = li
	return nil
}

// dropWeightAnimations removes the source's animation channels that drive
// the morph weights of a baked node (its old targets are gone), then
// samplers and animations left unused.
func dropWeightAnimations(doc *gltf.Document, nodes []*clothNode) {
	baked := make([]bool, len(doc.Nodes))
	for _, cn := range nodes {
		baked[cn.node] = true
	}
	for i, n := range doc.Nodes {
		// a node whose mesh moved to a quantization leaf is baked as well
		if n.Mesh == nil && len(n.Children) > 0 {
			for _, cn := range nodes {
				if slices.Contains(n.Children, cn.node) {
					baked[i] = true
				}
			}
		}
	}
	var keep []*gltf.Animation
	for _, an := range doc.Animations {
		var chans []*gltf.AnimationChannel
		for _, ch := range an.Channels {
			if ch.Target.Path == gltf.TRSWeights && ch.Target.Node != nil && *ch.Target.Node >= 0 && *ch.Target.Node < len(baked) && baked[*ch.Target.Node] {
				continue
			}
			chans = append(chans, ch)
		}
		if len(chans) == 0 {
			continue
		}
		if len(chans) != len(an.Channels) {
			remap := make([]int, len(an.Samplers))
			for i := range remap {
				remap[i] = -1
			}
			var samplers []*gltf.AnimationSampler
			for _, ch := range chans {
				if ch.Sampler < 0 || ch.Sampler >= len(remap) {
					continue
				}
				if remap[ch.Sampler] < 0 {
					remap[ch.Sampler] = len(samplers)
					samplers = append(samplers, an.Samplers[ch.Sampler])
				}
				ch.Sampler = remap[ch.Sampler]
			}
			an.Channels, an.Samplers = chans, samplers
		}
		keep = append(keep, an)
	}
	doc.Animations = keep
}
