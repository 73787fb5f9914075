package meshio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// The USD binary "crate" format (.usdc), version 0.8.0, as Pixar's
// reference implementation reads it (pxr/usd/sdf/crateFile.cpp):
//
//	bootstrap  "PXR-USDC", version 0.8.0, offset of the table of contents
//	values     every out-of-line value (arrays, doubles, token lists, time
//	           samples), pointed at by 64-bit value reps
//	TOKENS     every token, null-terminated, LZ4-framed
//	STRINGS    string -> token table
//	FIELDS     (name token, value rep) pairs
//	FIELDSETS  runs of field indices, each ended by ~0
//	PATHS      the path tree, depth first, with sibling jumps
//	SPECS      (path, field set, spec type) per spec
//	TOC        the six sections' names, offsets and sizes
//
// A value rep is 64 bits: bit 63 array, bit 62 inlined, bits 48-55 the
// type, bits 0-47 the payload (a file offset, or the value itself when
// inlined). Arrays are written uncompressed (a uint64 count and the
// elements), which every reader of 0.5.0 and later accepts. The integer
// lists of the structural sections must be coded as crate codes them (a
// delta, its size class in two bits) and framed as LZ4; the LZ4 blocks
// drape writes hold only literals, which is a valid LZ4 block that any
// decoder expands, so no compressor is needed.

// crate value types (crateDataTypes.h).
const (
	crateBool         = 1
	crateInt          = 3
	crateDouble       = 9
	crateString       = 10
	crateToken        = 11
	crateMatrix4d     = 15
	crateVec2f        = 20
	crateVec3f        = 24
	crateTokenVector  = 41
	crateSpecifier    = 42
	crateVariability  = 44
	crateTimeSamples  = 46
	crateDoubleVector = 48
)

// Sdf spec types (sdf/types.h).
const (
	specAttribute  = 1
	specPrim       = 6
	specPseudoRoot = 7
)

const (
	repArray   = uint64(1) << 63
	repInlined = uint64(1) << 62
)

func rep(typ int, flags, payload uint64) uint64 {
	return flags | uint64(typ)<<48 | payload&(1<<48-1)
}

// crateField is one (name, value) pair of a spec.
type crateField struct {
	name uint32
	rep  uint64
}

// cratePath is one node of the path tree.
type cratePath struct {
	index    uint32
	token    uint32
	property bool
	children []*cratePath
}

type crateSpec struct {
	path   uint32
	typ    uint32
	fields []crateField
}

// crateWriter builds a crate file in memory.
type crateWriter struct {
	buf    []byte
	tokens []string
	tokIdx map[string]uint32
	strs   []uint32
	strIdx map[string]uint32
	nPaths uint32
	root   *cratePath
	specs  []crateSpec
}

func newCrateWriter() *crateWriter {
	c := &crateWriter{tokIdx: map[string]uint32{}, strIdx: map[string]uint32{}}
	c.buf = make([]byte, 88) // the bootstrap, filled last
	c.root = &cratePath{index: c.newPath()}
	return c
}

func (c *crateWriter) newPath() uint32 {
	c.nPaths++
	return c.nPaths - 1
}

func (c *crateWriter) token(s string) uint32 {
	if i, ok := c.tokIdx[s]; ok {
		return i
	}
	i := uint32(len(c.tokens))
	c.tokens = append(c.tokens, s)
	c.tokIdx[s] = i
	return i
}

func (c *crateWriter) align8() {
	for len(c.buf)%8 != 0 {
		c.buf = append(c.buf, 0)
	}
}

func (c *crateWriter) u32(x uint32) { c.buf = binary.LittleEndian.AppendUint32(c.buf, x) }
func (c *crateWriter) u64(x uint64) { c.buf = binary.LittleEndian.AppendUint64(c.buf, x) }
func (c *crateWriter) f32(x float64) {
	c.buf = binary.LittleEndian.AppendUint32(c.buf, math.Float32bits(float32(x)))
}
func (c *crateWriter) f64(x float64) { c.u64(math.Float64bits(x)) }

// value reps

func (c *crateWriter) tokenRep(s string) uint64 {
	return rep(crateToken, repInlined, uint64(c.token(s)))
}

func (c *crateWriter) stringRep(s string) uint64 {
	i, ok := c.strIdx[s]
	if !ok {
		i = uint32(len(c.strs))
		c.strs = append(c.strs, c.token(s))
		c.strIdx[s] = i
	}
	return rep(crateString, repInlined, uint64(i))
}

func (c *crateWriter) doubleRep(x float64) uint64 {
	c.align8()
	off := len(c.buf)
	c.f64(x)
	return rep(crateDouble, 0, uint64(off))
}

func boolRep(b bool) uint64 {
	if b {
		return rep(crateBool, repInlined, 1)
	}
	return rep(crateBool, repInlined, 0)
}

func (c *crateWriter) tokenVectorRep(ss []string) uint64 {
	c.align8()
	off := len(c.buf)
	c.u64(uint64(len(ss)))
	for _, s := range ss {
		c.u32(c.token(s))
	}
	return rep(crateTokenVector, 0, uint64(off))
}

// array starts an array of n elements of typ and returns its rep; an empty
// array has payload 0 and no data.
func (c *crateWriter) array(typ, n int) uint64 {
	if n == 0 {
		return rep(typ, repArray, 0)
	}
	c.align8()
	off := len(c.buf)
	c.u64(uint64(n))
	return rep(typ, repArray, uint64(off))
}

func (c *crateWriter) vec3fArray(ps []vec.Vec3) uint64 {
	r := c.array(crateVec3f, len(ps))
	for _, p := range ps {
		c.f32(p.X)
		c.f32(p.Y)
		c.f32(p.Z)
	}
	return r
}

func (c *crateWriter) vec2fArray(ts [][2]float32) uint64 {
	r := c.array(crateVec2f, len(ts))
	for _, t := range ts {
		c.f32(float64(t[0]))
		c.f32(float64(t[1]))
	}
	return r
}

func (c *crateWriter) intArray(xs []int32) uint64 {
	r := c.array(crateInt, len(xs))
	for _, x := range xs {
		c.u32(uint32(x))
	}
	return r
}

func (c *crateWriter) tokenArray(ss []string) uint64 {
	r := c.array(crateToken, len(ss))
	for _, s := range ss {
		c.u32(c.token(s))
	}
	return r
}

// matrixRep writes m in USD's row-vector layout (row i is m's column i).
func (c *crateWriter) matrixRep(m vec.Mat4) uint64 {
	c.align8()
	off := len(c.buf)
	for i := range 4 {
		for j := range 4 {
			c.f64(m[j][i])
		}
	}
	return rep(crateMatrix4d, 0, uint64(off))
}

// timeSamplesRep writes a time-samples value: the times as a double
// vector, then at the value's offset a forward jump (8), the times' rep, a
// second forward jump (8), the sample count and one rep per sample.
func (c *crateWriter) timeSamplesRep(times []float64, values []uint64) uint64 {
	c.align8()
	tOff := len(c.buf)
	c.u64(uint64(len(times)))
	for _, t := range times {
		c.f64(t)
	}
	off := len(c.buf)
	c.u64(8)
	c.u64(rep(crateDoubleVector, 0, uint64(tOff)))
	c.u64(8)
	c.u64(uint64(len(values)))
	for _, v := range values {
		c.u64(v)
	}
	return rep(crateTimeSamples, 0, uint64(off))
}

// child adds a prim or property path under parent.
func (c *crateWriter) child(parent *cratePath, name string, property bool) *cratePath {
	p := &cratePath{index: c.newPath(), token: c.token(name), property: property}
	parent.children = append(parent.children, p)
	return p
}

func (c *crateWriter) spec(p *cratePath, typ uint32, fields ...crateField) {
	c.specs = append(c.specs, crateSpec{path: p.index, typ: typ, fields: fields})
}

func (c *crateWriter) field(name string, r uint64) crateField {
	return crateField{name: c.token(name), rep: r}
}

// lz4Literals frames b as TfFastCompression does (a zero chunk-count byte,
// then one LZ4 block), the block holding b as literals only.
func lz4Literals(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/255+16)
	out = append(out, 0)
	n := len(b)
	if n < 15 {
		out = append(out, byte(n<<4))
	} else {
		out = append(out, 0xF0)
		rest := n - 15
		for ; rest >= 255; rest -= 255 {
			out = append(out, 255)
		}
		out = append(out, byte(rest))
	}
	return append(out, b...)
}

// compressedInts writes ints as crate's integer coding: the most common
// delta (0 here), two bits per int saying its delta's size (0 the common
// delta, 3 a 32-bit delta), then the 32-bit deltas; LZ4-framed, after its
// uint64 size.
func (c *crateWriter) compressedInts(xs []int32) {
	enc := make([]byte, 4, 4+(2*len(xs)+7)/8+4*len(xs))
	codes := make([]byte, (2*len(xs)+7)/8)
	var vints []byte
	prev := int32(0)
	for i, x := range xs {
		d := x - prev
		prev = x
		if d != 0 {
			codes[i/4] |= 3 << (2 * (i % 4))
			vints = binary.LittleEndian.AppendUint32(vints, uint32(d))
		}
	}
	enc = append(append(enc, codes...), vints...)
	z := lz4Literals(enc)
	c.u64(uint64(len(z)))
	c.buf = append(c.buf, z...)
}

// section is one entry of the table of contents.
type section struct {
	name       string
	start, end int
}

// finish writes the structural sections, the table of contents and the
// bootstrap, and returns the file.
func (c *crateWriter) finish() []byte {
	var toc []section
	begin := func() int { c.align8(); return len(c.buf) }

	// tokens
	start := begin()
	var chars []byte
	for _, t := range c.tokens {
		chars = append(append(chars, t...), 0)
	}
	z := lz4Literals(chars)
	c.u64(uint64(len(c.tokens)))
	c.u64(uint64(len(chars)))
	c.u64(uint64(len(z)))
	c.buf = append(c.buf, z...)
	toc = append(toc, section{"TOKENS", start, len(c.buf)})

	// strings
	start = begin()
	c.u64(uint64(len(c.strs)))
	for _, s := range c.strs {
		c.u32(s)
	}
	toc = append(toc, section{"STRINGS", start, len(c.buf)})

	// fields and field sets: each spec's fields, in order
	var names []int32
	var reps []byte
	var sets []int32
	setOf := make([]int32, len(c.specs))
	for i, s := range c.specs {
		setOf[i] = int32(len(sets))
		for _, f := range s.fields {
			sets = append(sets, int32(len(names)))
			names = append(names, int32(f.name))
			reps = binary.LittleEndian.AppendUint64(reps, f.rep)
		}
		sets = append(sets, -1) // ~0 ends the set
	}
	start = begin()
	c.u64(uint64(len(names)))
	c.compressedInts(names)
	z = lz4Literals(reps)
	c.u64(uint64(len(z)))
	c.buf = append(c.buf, z...)
	toc = append(toc, section{"FIELDS", start, len(c.buf)})

	start = begin()
	c.u64(uint64(len(sets)))
	c.compressedInts(sets)
	toc = append(toc, section{"FIELDSETS", start, len(c.buf)})

	// paths, depth first; jump: -2 leaf without sibling, -1 child only, 0
	// sibling only, else the distance to the sibling
	var pIdx, pTok, pJump []int32
	var walk func(p *cratePath, sibling bool) int
	walk = func(p *cratePath, sibling bool) int {
		at := len(pIdx)
		tok := int32(p.token)
		if p.property {
			tok = -tok
		}
		pIdx, pTok, pJump = append(pIdx, int32(p.index)), append(pTok, tok), append(pJump, 0)
		size := 1
		for i, ch := range p.children {
			size += walk(ch, i < len(p.children)-1)
		}
		switch {
		case len(p.children) > 0 && sibling:
			pJump[at] = int32(size)
		case len(p.children) > 0:
			pJump[at] = -1
		case sibling:
			pJump[at] = 0
		default:
			pJump[at] = -2
		}
		return size
	}
	walk(c.root, false)
	start = begin()
	c.u64(uint64(c.nPaths))
	c.u64(uint64(len(pIdx)))
	c.compressedInts(pIdx)
	c.compressedInts(pTok)
	c.compressedInts(pJump)
	toc = append(toc, section{"PATHS", start, len(c.buf)})

	start = begin()
	specPaths := make([]int32, len(c.specs))
	specTypes := make([]int32, len(c.specs))
	for i, s := range c.specs {
		specPaths[i], specTypes[i] = int32(s.path), int32(s.typ)
	}
	c.u64(uint64(len(c.specs)))
	c.compressedInts(specPaths)
	c.compressedInts(setOf)
	c.compressedInts(specTypes)
	toc = append(toc, section{"SPECS", start, len(c.buf)})

	tocOff := begin()
	c.u64(uint64(len(toc)))
	for _, s := range toc {
		var name [16]byte
		copy(name[:], s.name)
		c.buf = append(c.buf, name[:]...)
		c.u64(uint64(s.start))
		c.u64(uint64(s.end - s.start))
	}

	copy(c.buf, "PXR-USDC")
	c.buf[8], c.buf[9], c.buf[10] = 0, 8, 0 // version 0.8.0
	binary.LittleEndian.PutUint64(c.buf[16:], uint64(tocOff))
	return c.buf
}

// WriteUSDC writes the stage as a USD binary crate file (.usdc) holding
// the same layer WriteUSDA writes as text: the same prims, attributes,
// values and metadata.
func WriteUSDC(w io.Writer, s *USDStage) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("write usd: %w", err)
	}
	c := newCrateWriter()
	root := usdIdentifier(s.Root)
	c.token(root) // token 0 names a prim, never a property (its sign marks those)

	// prims first, so the pseudo-root's and Xforms' child lists are known
	top := c.child(c.root, root, false)
	var topChildren []string
	var groups []string
	groupPath := map[string]*cratePath{}
	for _, m := range s.Meshes {
		if m.Group == "" {
			topChildren = append(topChildren, usdIdentifier(m.Name))
		} else if !containsString(groups, m.Group) {
			groups = append(groups, m.Group)
		}
	}
	for _, g := range groups {
		topChildren = append(topChildren, usdIdentifier(g))
	}

	c.spec(c.root, specPseudoRoot, c.pseudoRootFields(s, root)...)
	c.spec(top, specPrim,
		c.field("specifier", rep(crateSpecifier, repInlined, 0)),
		c.field("typeName", c.tokenRep("Xform")),
		c.field("primChildren", c.tokenVectorRep(topChildren)))
	for _, m := range s.Meshes {
		if m.Group == "" {
			c.mesh(s, top, &m)
		}
	}
	for _, g := range groups {
		gp := c.child(top, usdIdentifier(g), false)
		groupPath[g] = gp
		var kids []string
		for _, m := range s.Meshes {
			if m.Group == g {
				kids = append(kids, usdIdentifier(m.Name))
			}
		}
		c.spec(gp, specPrim,
			c.field("specifier", rep(crateSpecifier, repInlined, 0)),
			c.field("typeName", c.tokenRep("Xform")),
			c.field("primChildren", c.tokenVectorRep(kids)))
		for _, m := range s.Meshes {
			if m.Group == g {
				c.mesh(s, gp, &m)
			}
		}
	}
	if _, err := w.Write(c.finish()); err != nil {
		return fmt.Errorf("write usd: %w", err)
	}
	return nil
}

func (c *crateWriter) pseudoRootFields(s *USDStage, root string) []crateField {
	f := []crateField{c.field("defaultPrim", c.tokenRep(root))}
	if s.Doc != "" {
		f = append(f, c.field("documentation", c.stringRep(s.Doc)))
	}
	return append(f,
		c.field("endTimeCode", c.doubleRep(s.TimeCodes[len(s.TimeCodes)-1])),
		c.field("framesPerSecond", c.doubleRep(s.FPS)),
		c.field("metersPerUnit", c.doubleRep(1)),
		c.field("startTimeCode", c.doubleRep(s.TimeCodes[0])),
		c.field("timeCodesPerSecond", c.doubleRep(s.FPS)),
		c.field("upAxis", c.tokenRep("Y")),
		c.field("primChildren", c.tokenVectorRep([]string{root})))
}

// attr adds one attribute spec: its type name, variability, value (a
// default or time samples) and extra fields.
func (c *crateWriter) attr(prim *cratePath, name, typeName string, uniform bool, value crateField, extra ...crateField) {
	p := c.child(prim, name, true)
	variability := uint64(0)
	if uniform {
		variability = 1
	}
	fields := []crateField{
		c.field("typeName", c.tokenRep(typeName)),
		c.field("custom", boolRep(false)),
		c.field("variability", rep(crateVariability, repInlined, variability)),
		value,
	}
	c.spec(p, specAttribute, append(fields, extra...)...)
}

// samples writes one value per time code, or a default when there is one.
func (c *crateWriter) samples(s *USDStage, n int, value func(k int) uint64) crateField {
	if n == 1 {
		return c.field("default", value(0))
	}
	reps := make([]uint64, n)
	for k := range reps {
		reps[k] = value(k)
	}
	return c.field("timeSamples", c.timeSamplesRep(s.TimeCodes, reps))
}

// mesh writes one Mesh prim and its attributes, as WriteUSDA does.
func (c *crateWriter) mesh(s *USDStage, parent *cratePath, m *USDMesh) {
	p := c.child(parent, usdIdentifier(m.Name), false)
	// the prim's spec lists its properties, so gather them first
	var props []string
	specAt := len(c.specs)
	c.spec(p, specPrim) // fields set below
	add := func(name string) { props = append(props, name) }

	np := len(m.Points)
	add("extent")
	c.attr(p, "extent", "float3[]", false, c.samples(s, np, func(k int) uint64 { return c.vec3fArray(extent(m.Points[k])) }))
	counts := make([]int32, len(m.Triangles))
	idx := make([]int32, 0, 3*len(m.Triangles))
	for i, t := range m.Triangles {
		counts[i] = 3
		idx = append(idx, t[0], t[1], t[2])
	}
	add("faceVertexCounts")
	c.attr(p, "faceVertexCounts", "int[]", false, c.field("default", c.intArray(counts)))
	add("faceVertexIndices")
	c.attr(p, "faceVertexIndices", "int[]", false, c.field("default", c.intArray(idx)))
	if m.DoubleSided {
		add("doubleSided")
		c.attr(p, "doubleSided", "bool", true, c.field("default", boolRep(true)))
	}
	if m.Normals != nil {
		add("normals")
		c.attr(p, "normals", "normal3f[]", false, c.samples(s, np, func(k int) uint64 { return c.vec3fArray(m.Normals[k]) }),
			c.field("interpolation", c.tokenRep("vertex")))
	}
	add("orientation")
	c.attr(p, "orientation", "token", true, c.field("default", c.tokenRep("rightHanded")))
	add("points")
	c.attr(p, "points", "point3f[]", false, c.samples(s, np, func(k int) uint64 { return c.vec3fArray(m.Points[k]) }))
	if m.UVIndices != nil {
		add("primvars:st")
		c.attr(p, "primvars:st", "texCoord2f[]", false, c.field("default", c.vec2fArray(m.UVs)),
			c.field("interpolation", c.tokenRep("faceVarying")))
		add("primvars:st:indices")
		c.attr(p, "primvars:st:indices", "int[]", false, c.field("default", c.intArray(m.UVIndices)))
	}
	add("subdivisionScheme")
	c.attr(p, "subdivisionScheme", "token", true, c.field("default", c.tokenRep("none")))
	if m.Transforms != nil {
		add("xformOp:transform")
		c.attr(p, "xformOp:transform", "matrix4d", false, c.samples(s, len(m.Transforms), func(k int) uint64 { return c.matrixRep(m.Transforms[k]) }))
		add("xformOpOrder")
		c.attr(p, "xformOpOrder", "token[]", true, c.field("default", c.tokenArray([]string{"xformOp:transform"})))
	}
	if len(m.Subsets) > 0 {
		add("subsetFamily:materialBind:familyType")
		c.attr(p, "subsetFamily:materialBind:familyType", "token", true, c.field("default", c.tokenRep("nonOverlapping")))
	}
	var kids []string
	for _, sub := range m.Subsets {
		name := usdIdentifier(sub.Name)
		kids = append(kids, name)
		sp := c.child(p, name, false)
		c.spec(sp, specPrim,
			c.field("specifier", rep(crateSpecifier, repInlined, 0)),
			c.field("typeName", c.tokenRep("GeomSubset")),
			c.field("properties", c.tokenVectorRep([]string{"elementType", "familyName", "indices"})))
		c.attr(sp, "elementType", "token", true, c.field("default", c.tokenRep("face")))
		c.attr(sp, "familyName", "token", true, c.field("default", c.tokenRep("materialBind")))
		c.attr(sp, "indices", "int[]", false, c.field("default", c.intArray(sub.Faces)))
	}
	c.specs[specAt].fields = []crateField{
		c.field("specifier", rep(crateSpecifier, repInlined, 0)),
		c.field("typeName", c.tokenRep("Mesh")),
		c.field("properties", c.tokenVectorRep(props)),
	}
	if len(kids) > 0 {
		c.specs[specAt].fields = append(c.specs[specAt].fields, c.field("primChildren", c.tokenVectorRep(kids)))
	}
}
