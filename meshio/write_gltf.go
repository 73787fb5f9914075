package meshio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/qmuntal/gltf"

	"github.com/drape-sim/drape/internal/vec"
)

// Animation is a baked vertex animation of a Mesh: the world-space position
// of every render vertex at each stored frame.
type Animation struct {
	// FPS is the scene frame rate the bake ran at [1/s]; players and
	// Blender's importer map time t to scene frame t * FPS.
	FPS float64
	// Times holds the time of each stored frame [s], starting at >= 0 and
	// strictly increasing: k * step / FPS for the kth stored frame of a bake
	// that keeps every step-th frame (see FrameTimes).
	Times []float64
	// Frames holds, per stored frame, the world-space position [m] of every
	// render vertex, primitives concatenated in Mesh order (the layout of
	// Welded.RenderToSim).
	Frames [][]vec.Vec3
	// Normals holds unit world-space vertex normals in the same layout
	// (RenderNormals computes them smooth across seams), or nil; the glTF
	// writer then computes per-primitive normals itself.
	Normals [][]vec.Vec3
}

// FrameTimes returns the times [s] of n stored frames of a bake at fps that
// keeps every step-th simulated frame, the first at time 0: k * step / fps.
func FrameTimes(n, step int, fps float64) []float64 {
	t := make([]float64, n)
	for k := range t {
		t[k] = float64(k*step) / fps
	}
	return t
}

// check validates a against a mesh of nv render vertices.
func (a *Animation) check(nv int) error {
	if a == nil {
		return errors.New("no animation")
	}
	if !(a.FPS > 0) || !finite32(a.FPS) {
		return fmt.Errorf("fps = %g: must be a finite number > 0", a.FPS)
	}
	if len(a.Frames) == 0 {
		return errors.New("no frames to write")
	}
	if len(a.Times) != len(a.Frames) {
		return fmt.Errorf("%d times for %d frames: give one time per stored frame", len(a.Times), len(a.Frames))
	}
	for k, t := range a.Times {
		if !finite32(t) || t < 0 || (k > 0 && !(float32(t) > float32(a.Times[k-1]))) {
			return fmt.Errorf("time %d = %g: times must be >= 0 and increase from frame to frame (even as float32)", k, t)
		}
	}
	for k, f := range a.Frames {
		if len(f) != nv {
			return fmt.Errorf("frame %d has %d positions, the mesh has %d render vertices", k, len(f), nv)
		}
	}
	if a.Normals != nil {
		if len(a.Normals) != len(a.Frames) {
			return fmt.Errorf("%d normal frames for %d frames", len(a.Normals), len(a.Frames))
		}
		for k, f := range a.Normals {
			if len(f) != nv {
				return fmt.Errorf("normals of frame %d: %d, want %d", k, len(f), nv)
			}
		}
	}
	return nil
}

// GLTFOptions says how WriteGLTF writes.
type GLTFOptions struct {
	// Binary writes a .glb; otherwise .gltf JSON with the one buffer
	// embedded as a base64 data URI, so the output is a single file.
	Binary bool
	// Quantize writes the morph targets with KHR_mesh_quantization:
	// normalized int16 position displacements and normalized int8 normal
	// displacements (a frame whose normals turn too far for int8 keeps float
	// normals, as the extension requires).
	Quantize bool
	// Normals writes NORMAL morph targets so the moving cloth shades right.
	Normals bool
	// Generator is written to asset.generator when not empty.
	Generator string
	// Morph says whether the frames become one exact morph target each or
	// a compressed basis of a few (see MorphOptions).
	Morph MorphOptions
	// Cancelled, if set, is polled through the write (every frame, every
	// step of the morph compression, every chunk written; a few
	// milliseconds of work apart): when it returns an error the write
	// stops and returns that error, wrapped. Pass a context's Err.
	Cancelled func() error
}

// cancelled polls opt.Cancelled: nil while the write may go on.
func (opt GLTFOptions) cancelled() error { return stopFunc(opt.Cancelled).err() }

// Names written into the asset.
const (
	animationName    = "drape bake"
	targetNameFormat = "frame_%04d"
	basisNameFormat  = "basis_%02d"
	extQuantization  = "KHR_mesh_quantization"
	extMeshopt       = "EXT_meshopt_compression"
	extDraco         = "KHR_draco_mesh_compression"
)

// WriteGLTF writes the mesh m with the baked animation a as glTF 2.0.
//
// For a glTF input the output is the input asset as it came in (every node,
// mesh, material, texture, sampler and UV set; buffers merged into one binary
// buffer; images that were separate files embedded, so the output can live
// anywhere) plus, on the cloth mesh, one morph target per stored frame
// (POSITION displacement in the mesh's local space, NORMAL displacement
// unless opt.Normals is false), mesh.weights showing frame 0,
// mesh.extras.targetNames "frame_0000"..., and one animation "drape bake"
// whose LINEAR weights channel gives target k weight 1 at Times[k]. A cloth
// mesh instanced on several nodes is duplicated per node, since each
// instance moves differently. Vertex order and count of every primitive stay
// as in the input. For OBJ and STL input the output is a new asset with one
// node and one mesh (one primitive per Mesh primitive, NORMAL and TEXCOORD_0
// when present, a default double-sided material per material index) and the
// same animation.
func WriteGLTF(w io.Writer, m *Mesh, a *Animation, opt GLTFOptions) error {
	_, err := WriteGLTFInfo(w, m, a, opt)
	return err
}

// WriteGLTFInfo is WriteGLTF that also says how the frames were stored:
// with opt.Morph, a bake with more frames than the target limit (or any
// bake, with Morph.Compress) gets a compressed basis of K targets instead
// of one per frame (see MorphOptions), played by the same weights channel.
func WriteGLTFInfo(w io.Writer, m *Mesh, a *Animation, opt GLTFOptions) (MorphInfo, error) {
	if m == nil {
		return MorphInfo{}, errors.New("write gltf: no mesh")
	}
	if err := a.check(m.NumVertices()); err != nil {
		return MorphInfo{}, fmt.Errorf("write gltf: %w", err)
	}
	if err := opt.Morph.check(); err != nil {
		return MorphInfo{}, fmt.Errorf("write gltf: %w", err)
	}
	var (
		doc  *gltf.Document
		info MorphInfo
		err  error
	)
	if m.gltf != nil {
		doc, info, err = bakeIntoSource(m, a, opt)
	} else {
		doc, info, err = bakeNewAsset(m, a, opt)
	}
	if err != nil {
		return info, fmt.Errorf("write gltf: %w", err)
	}
	if opt.Generator != "" {
		doc.Asset.Generator = opt.Generator
	}
	ew := &errWriter{w: w, cancelled: opt.cancelled}
	enc := gltf.NewEncoder(ew)
	enc.AsBinary = opt.Binary
	if err := enc.Encode(doc); err != nil {
		return info, fmt.Errorf("write gltf: %w", err)
	}
	if ew.err != nil {
		return info, fmt.Errorf("write gltf: %w", ew.err)
	}
	return info, nil
}

// errWriter keeps the first write error, which gltf.Encoder does not check
// for every chunk.
type errWriter struct {
	w         io.Writer
	err       error
	cancelled func() error // polled before every chunk
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err == nil {
		e.err = e.cancelled()
	}
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// binBuilder fills the output document's one binary buffer.
type binBuilder struct {
	doc  *gltf.Document
	data []byte
}

// view reserves n bytes at a 4-byte aligned offset as a new bufferView and
// returns its index and the bytes to fill.
func (b *binBuilder) view(n, stride int, target gltf.Target) (int, []byte) {
	old := len(b.data)
	off := (old + 3) &^ 3
	// bytes past len are still zero (never written), so padding needs no clear
	b.data = slices.Grow(b.data, off+n-old)[:off+n]
	b.doc.BufferViews = append(b.doc.BufferViews, &gltf.BufferView{
		ByteOffset: off, ByteLength: n, ByteStride: stride, Target: target,
	})
	return len(b.doc.BufferViews) - 1, b.data[off : off+n]
}

// zeroTargets hands out the morph targets of primitives the bake does not
// move: all-zero displacements (and normals), one pair of accessors per
// vertex count, shared by every target that needs them.
type zeroTargets struct{ pos, nrm map[int]int }

func (z *zeroTargets) target(b *binBuilder, n int, normals bool) gltf.PrimitiveAttributes {
	if z.pos == nil {
		z.pos, z.nrm = map[int]int{}, map[int]int{}
	}
	if _, ok := z.pos[n]; !ok {
		z.pos[n] = b.accessor(-1, gltf.ComponentFloat, gltf.AccessorVec3, n, false, []float64{0, 0, 0}, []float64{0, 0, 0})
		z.nrm[n] = b.accessor(-1, gltf.ComponentFloat, gltf.AccessorVec3, n, false, nil, nil)
	}
	t := gltf.PrimitiveAttributes{gltf.POSITION: z.pos[n]}
	if normals {
		t[gltf.NORMAL] = z.nrm[n]
	}
	return t
}

// accessor appends an accessor and returns its index. view < 0 means no
// bufferView (all zeros).
func (b *binBuilder) accessor(view int, ct gltf.ComponentType, at gltf.AccessorType, count int, normalized bool, lo, hi []float64) int {
	acc := &gltf.Accessor{ComponentType: ct, Type: at, Count: count, Normalized: normalized, Min: lo, Max: hi}
	if view >= 0 {
		acc.BufferView = gltf.Index(view)
	}
	b.doc.Accessors = append(b.doc.Accessors, acc)
	return len(b.doc.Accessors) - 1
}

// finishBuffer makes the built data the document's only buffer.
func (b *binBuilder) finishBuffer() {
	for len(b.data)%4 != 0 {
		b.data = append(b.data, 0)
	}
	b.doc.Buffers = []*gltf.Buffer{{ByteLength: len(b.data), Data: b.data}}
}

// vec3s writes float32 triples as a new accessor and returns its index;
// withBounds sets min and max (required for POSITION).
func (b *binBuilder) vec3s(vs []vec.Vec3, withBounds bool) (int, error) {
	view, dst := b.view(12*len(vs), 0, gltf.TargetArrayBuffer)
	lo := [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}
	hi := [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
	for i, v := range vs {
		f := [3]float32{float32(v.X), float32(v.Y), float32(v.Z)}
		for c := range 3 {
			if f[c]-f[c] != 0 {
				return 0, fmt.Errorf("vertex %d = %v is not a finite float32", i, v)
			}
			lo[c], hi[c] = min(lo[c], f[c]), max(hi[c], f[c])
			binary.LittleEndian.PutUint32(dst[12*i+4*c:], math.Float32bits(f[c]))
		}
	}
	var mn, mx []float64
	if withBounds {
		mn, mx = bounds64(lo, hi)
	}
	return b.accessor(view, gltf.ComponentFloat, gltf.AccessorVec3, len(vs), false, mn, mx), nil
}

func bounds64(lo, hi [3]float32) ([]float64, []float64) {
	return []float64{float64(lo[0]), float64(lo[1]), float64(lo[2])},
		[]float64{float64(hi[0]), float64(hi[1]), float64(hi[2])}
}

// clothPrim is one glTF primitive of a baked mesh.
type clothPrim struct {
	gp *gltf.Primitive
	// render is the first render vertex of the primitive in the Animation,
	// or -1 for a primitive of the cloth mesh that drape did not simulate
	// (lines, points): its targets are zero.
	render int
	// base holds the base positions in the mesh's space as the output
	// stores them (float32 values), baseN the base normals or nil.
	base, baseN []vec.Vec3
	// indices are the primitive's triangles, for fallback normals.
	indices []int32
	// needBasePos and needBaseN ask for a new base POSITION (a new asset, or
	// a quantization scale) or NORMAL accessor (the input had none).
	needBasePos, needBaseN bool
}

// clothNode is one node whose mesh gets the baked morph targets.
type clothNode struct {
	node int // node the weights channel animates
	mesh *gltf.Mesh
	// toLocal maps world positions into the mesh's space; normalM maps world
	// normals into it (the transpose of the inverse's linear part), up to
	// length.
	toLocal vec.Mat4
	normalM vec.Mat4
	prims   []clothPrim
	// scale is the quantization scale of the position displacements: the
	// mesh's space is this many times larger than the local space toLocal
	// maps to. 1 unless quantizing displacements larger than 1.
	scale float64
	// weights are, for a compressed basis, each frame's target weights;
	// nil for one exact target per frame.
	weights [][]float32
}

// bakeTargets adds the morph targets, base accessors, weights and target
// names to cn's mesh: one exact target per frame, or a compressed basis.
func bakeTargets(b *binBuilder, cn *clothNode, a *Animation, opt GLTFOptions) (MorphInfo, error) {
	nf := len(a.Frames)
	if opt.Morph.compressed(nf) {
		return basisTargets(b, cn, a, opt)
	}
	info := MorphInfo{Targets: nf, BoundMet: true}
	maxN := 0
	for _, cp := range cn.prims {
		maxN = max(maxN, len(cp.base))
	}
	scratch := make([]vec.Vec3, maxN)
	var fallbackN []vec.Vec3
	if opt.Normals && a.Normals == nil {
		fallbackN = make([]vec.Vec3, maxN)
	}

	// quantization scale: positions in the mesh's space are local / scale
	cn.scale = 1
	if opt.Quantize {
		maxAbs := 0.0
		for _, cp := range cn.prims {
			if cp.render < 0 {
				continue
			}
			for _, f := range a.Frames {
				for j, q := range f[cp.render : cp.render+len(cp.base)] {
					d := cn.toLocal.MulPoint(q).Sub(cp.base[j])
					maxAbs = max(maxAbs, math.Abs(d.X), math.Abs(d.Y), math.Abs(d.Z))
				}
			}
		}
		if maxAbs > 1 {
			cn.scale = math.Exp2(math.Ceil(math.Log2(maxAbs)))
		}
	}
	inv := 1 / cn.scale
	if err := writeBase(b, cn, opt); err != nil {
		return info, err
	}
	for i := range cn.prims {
		cn.prims[i].gp.Targets = make([]gltf.PrimitiveAttributes, 0, nf)
	}

	// one target per stored frame; the mesh's space is local / scale
	toMesh := vec.ScaleMat(vec.V(inv, inv, inv)).Mul(cn.toLocal)
	zero := zeroTargets{}
	for k, frame := range a.Frames {
		if err := opt.cancelled(); err != nil {
			return info, err
		}
		for i := range cn.prims {
			cp := &cn.prims[i]
			n := len(cp.base)
			t := gltf.PrimitiveAttributes{}
			if cp.render < 0 {
				cp.gp.Targets = append(cp.gp.Targets, zero.target(b, n, opt.Normals))
				continue
			}
			world := frame[cp.render : cp.render+n]
			d := scratch[:n]
			for j, q := range world {
				d[j] = toMesh.MulPoint(q).Sub(cp.base[j])
			}
			var (
				idx int
				err error
			)
			if opt.Quantize {
				idx, err = b.shortDeltas(d)
			} else {
				idx, err = b.vec3s(d, true)
			}
			if err != nil {
				return info, fmt.Errorf("frame %d, %s: %w", k, primName(cp), err)
			}
			t[gltf.POSITION] = idx
			if opt.Normals {
				var wn []vec.Vec3
				if a.Normals != nil {
					wn = a.Normals[k][cp.render : cp.render+n]
				} else {
					wn = fallbackN[:n]
					primitiveNormals(world, cp.indices, wn)
				}
				for j, nw := range wn {
					nl := unitOrUp(cn.normalM.MulDir(nw))
					d[j] = nl.Sub(cp.baseN[j])
				}
				if opt.Quantize {
					idx, err = b.byteNormalDeltas(d, cp.baseN)
				} else {
					idx, err = b.vec3s(d, false)
				}
				if err != nil {
					return info, fmt.Errorf("normals of frame %d, %s: %w", k, primName(cp), err)
				}
				t[gltf.NORMAL] = idx
			}
			cp.gp.Targets = append(cp.gp.Targets, t)
		}
	}

	// weights show frame 0; extras name the targets
	weights := make([]float64, nf)
	weights[0] = 1
	cn.setTargets(weights, targetNameFormat)
	return info, nil
}

// setTargets sets the cloth mesh's default morph weights and names its
// targets in the mesh's extras (targetNames, as Blender and three.js read
// them), one name a target from format and its index.
func (cn *clothNode) setTargets(weights []float64, format string) {
	cn.mesh.Weights = weights
	names := make([]string, len(weights))
	for k := range names {
		names[k] = fmt.Sprintf(format, k)
	}
	extras, ok := cn.mesh.Extras.(map[string]any)
	if !ok {
		extras = map[string]any{}
	}
	extras["targetNames"] = names
	cn.mesh.Extras = extras
}

// writeBase writes the base POSITION (scaled by 1 / cn.scale) and NORMAL
// accessors the primitives of cn need.
func writeBase(b *binBuilder, cn *clothNode, opt GLTFOptions) error {
	inv := 1 / cn.scale
	for i := range cn.prims {
		cp := &cn.prims[i]
		if cn.scale != 1 {
			for j := range cp.base {
				cp.base[j] = cp.base[j].Scale(inv)
			}
			cp.needBasePos = true
		}
		if cp.needBasePos {
			idx, err := b.vec3s(cp.base, true)
			if err != nil {
				return fmt.Errorf("base positions: %w", err)
			}
			cp.gp.Attributes[gltf.POSITION] = idx
		}
		if opt.Normals && cp.needBaseN {
			idx, err := b.vec3s(cp.baseN, false)
			if err != nil {
				return fmt.Errorf("base normals: %w", err)
			}
			cp.gp.Attributes[gltf.NORMAL] = idx
		}
	}
	return nil
}

func primName(cp *clothPrim) string {
	return fmt.Sprintf("primitive at render vertex %d", cp.render)
}

// shortDeltas writes position displacements (in the mesh's space, each
// component within [-1, 1]) as normalized SHORT, 8-byte stride.
func (b *binBuilder) shortDeltas(d []vec.Vec3) (int, error) {
	view, dst := b.view(8*len(d), 8, gltf.TargetArrayBuffer)
	lo := [3]int16{math.MaxInt16, math.MaxInt16, math.MaxInt16}
	hi := [3]int16{-math.MaxInt16, -math.MaxInt16, -math.MaxInt16}
	for i, v := range d {
		for c, x := range [3]float64{v.X, v.Y, v.Z} {
			if x != x || math.IsInf(x, 0) {
				return 0, fmt.Errorf("vertex %d displacement %v is not finite", i, v)
			}
			q := int16(math.Round(math.Max(-1, math.Min(1, x)) * math.MaxInt16))
			lo[c], hi[c] = min(lo[c], q), max(hi[c], q)
			binary.LittleEndian.PutUint16(dst[8*i+2*c:], uint16(q))
		}
	}
	// min and max of a normalized accessor hold the stored integers
	mn := []float64{float64(lo[0]), float64(lo[1]), float64(lo[2])}
	mx := []float64{float64(hi[0]), float64(hi[1]), float64(hi[2])}
	return b.accessor(view, gltf.ComponentShort, gltf.AccessorVec3, len(d), true, mn, mx), nil
}

// minNormalScale is the smallest factor byteNormalDeltas may shorten a target
// normal by to fit int8; below it the angular error of 1/127 steps grows past
// about a degree.
const minNormalScale = 0.25

// byteNormalDeltas writes normal displacements d (target minus base, unit
// normals) as normalized BYTE, 4-byte stride, when they fit; otherwise as
// float, which KHR_mesh_quantization requires for displacements outside
// [-1, 1].
//
// Renderers normalise the blended normal base + sum w_k d_k, so a target
// normal t may be stored as lambda t - base for any lambda > 0: where t - base
// leaves [-1, 1], the largest lambda in [minNormalScale, 1] that fits is used.
func (b *binBuilder) byteNormalDeltas(d, base []vec.Vec3) (int, error) {
	for j := range d {
		if !fitByteNormal(&d[j], base[j]) {
			return b.vec3s(d, false)
		}
	}
	view, dst := b.view(4*len(d), 4, gltf.TargetArrayBuffer)
	for i, v := range d {
		dst[4*i] = byte(int8(math.Round(v.X * 127)))
		dst[4*i+1] = byte(int8(math.Round(v.Y * 127)))
		dst[4*i+2] = byte(int8(math.Round(v.Z * 127)))
	}
	return b.accessor(view, gltf.ComponentByte, gltf.AccessorVec3, len(d), true, nil, nil), nil
}

// fitByteNormal rescales the target in the displacement *d = t - base so
// that every component lies in [-1, 1], and reports whether that is possible
// with a scale of at least minNormalScale.
func fitByteNormal(d *vec.Vec3, base vec.Vec3) bool {
	t := d.Add(base)
	lambda := 1.0
	for c := range 3 {
		tc, bc := t.Get(c), base.Get(c)
		// need -1 <= lambda tc - bc <= 1
		switch {
		case tc > 0:
			lambda = min(lambda, (1+bc)/tc)
		case tc < 0:
			lambda = min(lambda, (bc-1)/tc)
		}
	}
	if lambda < minNormalScale || lambda != lambda {
		return false
	}
	*d = t.Scale(lambda).Sub(base)
	// rounding guard: clamp what float error pushed past the range
	d.X, d.Y, d.Z = clamp1(d.X), clamp1(d.Y), clamp1(d.Z)
	return true
}

func clamp1(x float64) float64 { return math.Max(-1, math.Min(1, x)) }

// addAnimation adds the one weights animation driving every cloth node.
func addAnimation(b *binBuilder, nodes []*clothNode, a *Animation) error {
	nf := len(a.Frames)
	view, dst := b.view(4*nf, 0, gltf.TargetNone)
	for k, t := range a.Times {
		binary.LittleEndian.PutUint32(dst[4*k:], math.Float32bits(float32(t)))
	}
	lo, hi := float64(float32(a.Times[0])), float64(float32(a.Times[nf-1]))
	in := b.accessor(view, gltf.ComponentFloat, gltf.AccessorScalar, nf, false, []float64{lo}, []float64{hi})

	// exact targets: frame k shows target k alone (one-hot rows, nf x nf),
	// one output shared by every node; a basis: each node's own weights
	shared := -1
	anim := &gltf.Animation{Name: animationName}
	for _, cn := range nodes {
		var out int
		if cn.weights == nil {
			if shared < 0 {
				view, dst = b.view(4*nf*nf, 0, gltf.TargetNone)
				one := math.Float32bits(1)
				for k := range nf {
					binary.LittleEndian.PutUint32(dst[4*(k*nf+k):], one)
				}
				shared = b.accessor(view, gltf.ComponentFloat, gltf.AccessorScalar, nf*nf, false, nil, nil)
			}
			out = shared
		} else {
			nt := len(cn.weights[0])
			view, dst = b.view(4*nf*nt, 0, gltf.TargetNone)
			for k, row := range cn.weights {
				for i, x := range row {
					binary.LittleEndian.PutUint32(dst[4*(k*nt+i):], math.Float32bits(x))
				}
			}
			out = b.accessor(view, gltf.ComponentFloat, gltf.AccessorScalar, nf*nt, false, nil, nil)
		}
		anim.Samplers = append(anim.Samplers, &gltf.AnimationSampler{Input: in, Output: out, Interpolation: gltf.InterpolationLinear})
		anim.Channels = append(anim.Channels, &gltf.AnimationChannel{
			Sampler: len(anim.Samplers) - 1,
			Target:  gltf.AnimationChannelTarget{Node: gltf.Index(cn.node), Path: gltf.TRSWeights},
		})
	}
	b.doc.Animations = append(b.doc.Animations, anim)
	return nil
}

// bakeNewAsset builds a one-node, one-mesh asset for an OBJ or STL input.
func bakeNewAsset(m *Mesh, a *Animation, opt GLTFOptions) (*gltf.Document, MorphInfo, error) {
	doc := gltf.NewDocument()
	doc.Asset.Generator = "drape"
	b := &binBuilder{doc: doc, data: make([]byte, 0, estimateSize(m, a, opt))}
	name := m.Name
	if name == "" {
		name = "cloth"
	}
	mesh := &gltf.Mesh{Name: name}
	cn := &clothNode{node: 0, mesh: mesh, toLocal: vec.Identity(), normalM: vec.Identity()}

	// one default material per material index, in index order
	var matIdx []int
	for _, p := range m.Primitives {
		if !slices.Contains(matIdx, p.Material) {
			matIdx = append(matIdx, p.Material)
		}
	}
	slices.Sort(matIdx)
	for _, mi := range matIdx {
		mname := "default"
		if mi >= 0 {
			mname = fmt.Sprintf("material_%d", mi)
		}
		doc.Materials = append(doc.Materials, &gltf.Material{
			Name: mname,
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &[4]float64{0.8, 0.8, 0.8, 1},
				MetallicFactor:  gltf.Float(0),
				RoughnessFactor: gltf.Float(0.8),
			},
			DoubleSided: true,
		})
	}

	render := 0
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		n := len(p.Positions)
		gp := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{}, Mode: gltf.PrimitiveTriangles}
		gp.Material = gltf.Index(slices.Index(matIdx, p.Material))
		cp := clothPrim{gp: gp, render: render, base: make([]vec.Vec3, n), indices: p.Indices, needBasePos: true}
		for j, q := range p.Positions {
			cp.base[j] = vec.FromF32(q.F32())
		}
		switch {
		case len(p.Normals) == n:
			cp.baseN = make([]vec.Vec3, n)
			for j, q := range p.Normals {
				cp.baseN[j] = unitOrUp(q)
			}
			cp.needBaseN = true
		case opt.Normals:
			cp.baseN = make([]vec.Vec3, n)
			primitiveNormals(cp.base, p.Indices, cp.baseN)
			cp.needBaseN = true
		}
		if !opt.Normals && cp.baseN != nil {
			// the input's own normals are kept even without normal targets
			idx, err := b.vec3s(cp.baseN, false)
			if err != nil {
				return nil, MorphInfo{}, fmt.Errorf("%s: normals: %w", p.Name, err)
			}
			gp.Attributes[gltf.NORMAL] = idx
		}
		if len(p.UVs) == n {
			uv := make([][2]float32, n)
			for j, t := range p.UVs {
				uv[j] = [2]float32{t[0], 1 - t[1]} // OBJ's v points up, glTF's down
			}
			gp.Attributes[gltf.TEXCOORD_0] = b.texcoords(uv)
		}
		gp.Indices = gltf.Index(b.indices(p.Indices, n))
		mesh.Primitives = append(mesh.Primitives, gp)
		cn.prims = append(cn.prims, cp)
		render += n
	}
	info, err := bakeTargets(b, cn, a, opt)
	if err != nil {
		return nil, info, err
	}
	node := &gltf.Node{Name: name, Mesh: gltf.Index(0), Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale}
	if cn.scale != 1 {
		node.Scale = [3]float64{cn.scale, cn.scale, cn.scale}
		addUsed(doc, extQuantization, true)
	} else if opt.Quantize {
		addUsed(doc, extQuantization, true)
	}
	doc.Meshes = []*gltf.Mesh{mesh}
	doc.Nodes = []*gltf.Node{node}
	doc.Scenes[0].Nodes = []int{0}
	if err := addAnimation(b, []*clothNode{cn}, a); err != nil {
		return nil, info, err
	}
	b.finishBuffer()
	return doc, info, nil
}

// texcoords writes UVs as a float VEC2 accessor.
func (b *binBuilder) texcoords(uv [][2]float32) int {
	view, dst := b.view(8*len(uv), 0, gltf.TargetArrayBuffer)
	for i, t := range uv {
		binary.LittleEndian.PutUint32(dst[8*i:], math.Float32bits(t[0]))
		binary.LittleEndian.PutUint32(dst[8*i+4:], math.Float32bits(t[1]))
	}
	return b.accessor(view, gltf.ComponentFloat, gltf.AccessorVec2, len(uv), false, nil, nil)
}

// indices writes triangle indices as UNSIGNED_SHORT, or UNSIGNED_INT when n
// vertices need it.
func (b *binBuilder) indices(ix []int32, n int) int {
	if n <= math.MaxUint16 {
		view, dst := b.view(2*len(ix), 0, gltf.TargetElementArrayBuffer)
		for i, v := range ix {
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
		}
		return b.accessor(view, gltf.ComponentUshort, gltf.AccessorScalar, len(ix), false, nil, nil)
	}
	view, dst := b.view(4*len(ix), 0, gltf.TargetElementArrayBuffer)
	for i, v := range ix {
		binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
	}
	return b.accessor(view, gltf.ComponentUint, gltf.AccessorScalar, len(ix), false, nil, nil)
}

// estimateSize guesses the output buffer's size so it is allocated once.
func estimateSize(m *Mesh, a *Animation, opt GLTFOptions) int {
	nv, nf := m.NumVertices(), len(a.Frames)
	per := 12
	if opt.Quantize {
		per = 8
	}
	if opt.Normals {
		per += 12
	}
	return nv*(per*nf+40) + 4*3*m.NumTriangles() + 4*nf*(nf+1) + 1024
}

// addUsed lists ext in extensionsUsed (and extensionsRequired) once.
func addUsed(doc *gltf.Document, ext string, required bool) {
	if !slices.Contains(doc.ExtensionsUsed, ext) {
		doc.ExtensionsUsed = append(doc.ExtensionsUsed, ext)
	}
	if required && !slices.Contains(doc.ExtensionsRequired, ext) {
		doc.ExtensionsRequired = append(doc.ExtensionsRequired, ext)
	}
}

// dropUsed removes ext from extensionsUsed and extensionsRequired.
func dropUsed(doc *gltf.Document, ext string) {
	doc.ExtensionsUsed = slices.DeleteFunc(doc.ExtensionsUsed, func(s string) bool { return s == ext })
	doc.ExtensionsRequired = slices.DeleteFunc(doc.ExtensionsRequired, func(s string) bool { return s == ext })
	if len(doc.ExtensionsUsed) == 0 {
		doc.ExtensionsUsed = nil
	}
	if len(doc.ExtensionsRequired) == 0 {
		doc.ExtensionsRequired = nil
	}
}
