package meshio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// Limits that keep a corrupt file from asking for huge allocations.
const (
	// maxZeroAccessor is the largest accessor without a bufferView (all
	// zeros plus sparse values) we accept [elements].
	maxZeroAccessor = 1 << 20
	// maxNodeDepth bounds the node hierarchy.
	maxNodeDepth = 1000
)

// glbMagic is "glTF" read as a little-endian uint32.
const glbMagic = 0x46546C67

// extensionsNoGeometry are required extensions that do not change where the
// vertices are, so drape can read files that require them.
var extensionsNoGeometry = map[string]bool{
	"KHR_mesh_quantization":               true, // decoded here
	"KHR_texture_transform":               true,
	"KHR_texture_basisu":                  true,
	"EXT_texture_webp":                    true,
	"EXT_texture_avif":                    true,
	"KHR_materials_unlit":                 true,
	"KHR_materials_emissive_strength":     true,
	"KHR_materials_ior":                   true,
	"KHR_materials_specular":              true,
	"KHR_materials_transmission":          true,
	"KHR_materials_volume":                true,
	"KHR_materials_clearcoat":             true,
	"KHR_materials_sheen":                 true,
	"KHR_materials_iridescence":           true,
	"KHR_materials_anisotropy":            true,
	"KHR_materials_dispersion":            true,
	"KHR_materials_variants":              true,
	"KHR_materials_pbrSpecularGlossiness": true,
	"KHR_lights_punctual":                 true,
	"KHR_xmp_json_ld":                     true,
}

// gltfProbe is the part of a glTF document checked before the library
// decodes it: version, required extensions and buffers.
type gltfProbe struct {
	Asset struct {
		Version    string `json:"version"`
		MinVersion string `json:"minVersion"`
	} `json:"asset"`
	ExtensionsRequired []string `json:"extensionsRequired"`
	Buffers            []struct {
		URI        string                     `json:"uri"`
		Extensions map[string]json.RawMessage `json:"extensions"`
	} `json:"buffers"`
}

// readGLTF parses a .gltf (JSON) or .glb (binary) file held in data; fsys
// resolves external buffers (nil: none can be loaded).
func readGLTF(data []byte, name string, fsys fs.FS, opt ReadOptions) (*Mesh, error) {
	perr := func(place, format string, args ...any) *ParseError {
		return &ParseError{Path: name, Place: place, Msg: fmt.Sprintf(format, args...)}
	}
	format := FormatGLTF
	jsonChunk := data
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic {
		format = FormatGLB
		j, err := glbJSON(data)
		if err != nil {
			err.Path = name
			return nil, err
		}
		jsonChunk = j
	} else if len(data) >= 4 && formatFromName(name) == FormatGLB {
		return nil, perr("header", "not a GLB file: it does not start with \"glTF\" (bytes % x)", data[:4])
	}
	if t := bytes.TrimLeft(jsonChunk, " \t\r\n\ufeff"); len(t) == 0 || t[0] != '{' {
		return nil, perr("", "not a glTF file: no JSON object")
	}

	// version and required extensions, before the library loads anything
	var probe gltfProbe
	if err := json.Unmarshal(jsonChunk, &probe); err != nil {
		var serr *json.SyntaxError
		if errors.As(err, &serr) {
			line := 1 + bytes.Count(jsonChunk[:min(int(serr.Offset), len(jsonChunk))], []byte("\n"))
			return nil, perr(fmt.Sprintf("JSON line %d", line), "invalid JSON: %v", err)
		}
		var terr *json.UnmarshalTypeError
		if errors.As(err, &terr) && strings.HasPrefix(terr.Field, "asset") {
			return nil, perr("asset", "malformed asset object: %v", err)
		}
		if !errors.As(err, &terr) {
			return nil, perr("JSON", "invalid JSON: %v", err)
		}
		// a type mismatch elsewhere is reported by the full decode below
	}
	v := probe.Asset.Version
	switch {
	case v == "":
		return nil, perr("asset.version", "missing glTF version: is this a glTF 2.0 file?")
	case strings.HasPrefix(v, "1.") || v == "1":
		return nil, &ParseError{Path: name, Place: "asset.version", Msg: fmt.Sprintf("glTF %s is not supported; convert to 2.0 (e.g. with gltf-pipeline)", v), Err: ErrVersion}
	case !strings.HasPrefix(v, "2."):
		return nil, &ParseError{Path: name, Place: "asset.version", Msg: fmt.Sprintf("glTF version %q is not supported; drape reads glTF 2.0", v), Err: ErrVersion}
	}
	for i, ext := range probe.ExtensionsRequired {
		if extensionsNoGeometry[ext] {
			continue
		}
		hint := "drape cannot decode it"
		switch ext {
		case "KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_meshopt_compression":
			hint = "drape cannot decode compressed geometry; export without compression"
		}
		return nil, &ParseError{Path: name, Place: fmt.Sprintf("extensionsRequired[%d]", i), Msg: fmt.Sprintf("required extension %s is not supported: %s", ext, hint), Err: ErrUnsupported}
	}

	doc := new(gltf.Document)
	dec := gltf.NewDecoderFS(bytes.NewReader(data), fsys)
	if fsys == nil {
		dec.Fsys = emptyFS{}
	}
	if err := dec.Decode(doc); err != nil {
		for i, b := range probe.Buffers {
			if b.URI == "" && b.Extensions["EXT_meshopt_compression"] != nil && (format == FormatGLTF || i > 0) {
				return nil, &ParseError{Path: name, Place: fmt.Sprintf("buffers[%d]", i), Msg: "meshopt-compressed buffer without fallback data is not supported", Err: ErrUnsupported}
			}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			fix := "keep the .bin files next to the .gltf"
			if errors.Is(err, ErrOutside) || errors.Is(err, ErrNotRegular) {
				fix = "drape reads only regular files in the glTF's folder or below it: copy the buffer there and point its uri at it"
			}
			return nil, &ParseError{Path: name, Place: "buffers", Msg: fmt.Sprintf("cannot load external buffer %s: %v; %s", pe.Path, pe.Err, fix), Err: pe.Err}
		}
		place := "JSON"
		if format == FormatGLB {
			place = "chunk 1 (BIN)"
			var jerr *json.SyntaxError
			var terr *json.UnmarshalTypeError
			if errors.As(err, &jerr) || errors.As(err, &terr) {
				place = "chunk 0 (JSON)"
			}
		}
		return nil, perr(place, "%v", strings.TrimPrefix(err.Error(), "gltf: "))
	}
	images, err := readImages(doc, name, fsys)
	if err != nil {
		return nil, err
	}
	r := &gltfReader{name: name, doc: doc, opt: opt}
	m, err := r.read()
	if err != nil {
		return nil, err
	}
	m.gltf.images = images
	m.Format = format
	return m, nil
}

// readImages reads the images doc stores as files beside the glTF named
// name, through fsys (confined to its folder): an image outside that
// folder, a device or FIFO, or a file that is not an image is an error; a
// missing image keeps its URI in the output. URIs with a scheme or an
// absolute path are left as they are and never read.
func readImages(doc *gltf.Document, name string, fsys fs.FS) (map[int][]byte, error) {
	out := map[int][]byte{}
	for i, im := range doc.Images {
		if im == nil || im.URI == "" || strings.HasPrefix(im.URI, "data:") {
			continue
		}
		rel, err := url.PathUnescape(im.URI)
		if err != nil {
			rel = im.URI
		}
		if path.IsAbs(rel) || filepath.IsAbs(rel) || strings.Contains(rel, "://") {
			continue
		}
		rel = strings.TrimPrefix(strings.ReplaceAll(rel, "\\", "/"), "./")
		place := fmt.Sprintf("images[%d]", i)
		if !fs.ValidPath(rel) {
			return nil, &ParseError{Path: name, Place: place, Msg: fmt.Sprintf("uri %q is outside the glTF's folder; drape reads only files in the glTF's folder or below it: copy the image there and fix the uri", im.URI), Err: ErrOutside}
		}
		if fsys == nil {
			continue
		}
		data, err := fs.ReadFile(fsys, rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case errors.Is(err, ErrOutside):
			return nil, &ParseError{Path: name, Place: place, Msg: fmt.Sprintf("uri %q leads outside the glTF's folder (a symbolic link); drape reads only files in the glTF's folder or below it: copy the image there", im.URI), Err: ErrOutside}
		case err != nil:
			return nil, &ParseError{Path: name, Place: place, Msg: fmt.Sprintf("cannot read image %q: %v", im.URI, unwrapPathError(err)), Err: err}
		case imageMIME(data) == "":
			return nil, &ParseError{Path: name, Place: place, Msg: fmt.Sprintf("%q is not a PNG, JPEG, WebP or KTX2 image: re-export the texture or remove it from the file", im.URI)}
		}
		out[i] = data
	}
	return out, nil
}

// emptyFS is a file system without files, for reading from memory.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// glbJSON checks a GLB container's header and returns its JSON chunk.
func glbJSON(data []byte) ([]byte, *ParseError) {
	if len(data) < 20 {
		return nil, &ParseError{Place: "header", Msg: fmt.Sprintf("GLB truncated: %d bytes, the header alone needs 20", len(data))}
	}
	version := binary.LittleEndian.Uint32(data[4:])
	length := binary.LittleEndian.Uint32(data[8:])
	switch {
	case version == 1:
		return nil, &ParseError{Place: "header", Msg: "glTF 1.0 is not supported; convert to 2.0", Err: ErrVersion}
	case version != 2:
		return nil, &ParseError{Place: "header", Msg: fmt.Sprintf("GLB version %d is not supported; drape reads glTF 2.0", version), Err: ErrVersion}
	case uint64(length) > uint64(len(data)):
		return nil, &ParseError{Place: "header", Msg: fmt.Sprintf("GLB truncated: the header says %d bytes but the file has %d", length, len(data))}
	}
	cl := binary.LittleEndian.Uint32(data[12:])
	ct := binary.LittleEndian.Uint32(data[16:])
	if ct != 0x4E4F534A { // "JSON"
		return nil, &ParseError{Place: "chunk 0", Msg: "the first GLB chunk is not JSON"}
	}
	if uint64(cl)+20 > uint64(length) {
		return nil, &ParseError{Place: "chunk 0", Msg: fmt.Sprintf("JSON chunk truncated: %d bytes declared, %d left in the file", cl, int(length)-20)}
	}
	return data[20 : 20+cl], nil
}

// gltfInstance is one mesh placed by one node.
type gltfInstance struct {
	node, mesh int
	world      vec.Mat4
}

// gltfReader turns a decoded document into a Mesh.
type gltfReader struct {
	name  string
	doc   *gltf.Document
	opt   ReadOptions
	nsrc  int32
	modes map[string]bool
	// loose edges of the cloth (line primitives), in world space
	lineSegs [][2]vec.Vec3
}

func (r *gltfReader) errf(place, format string, args ...any) *ParseError {
	return &ParseError{Path: r.name, Place: place, Msg: fmt.Sprintf(format, args...)}
}

// read walks the scene, selects the cloth mesh instances and reads their
// primitives.
func (r *gltfReader) read() (*Mesh, error) {
	doc := r.doc
	insts, err := r.instances()
	if err != nil {
		return nil, err
	}
	m := &Mesh{Path: r.name}
	for _, mt := range doc.Materials {
		name := ""
		if mt != nil {
			name = mt.Name
		}
		m.MaterialNames = append(m.MaterialNames, name)
	}
	if len(insts) == 0 && len(doc.Meshes) > 0 {
		m.Warnings = append(m.Warnings, "no node places a mesh in the scene: every mesh is read once, untransformed")
		for i := range doc.Meshes {
			insts = append(insts, gltfInstance{node: -1, mesh: i, world: vec.Identity()})
		}
	}
	if len(insts) == 0 {
		return nil, &ParseError{Path: r.name, Place: "meshes", Msg: "the file has no meshes", Err: ErrNoGeometry}
	}
	cols, marked, warns, err := r.colliderNodes()
	if err != nil {
		return nil, err
	}
	m.Colliders = cols
	m.Warnings = append(m.Warnings, warns...)
	if !r.opt.AllMeshes && len(marked) > 0 {
		cloth := insts[:0:0]
		for _, in := range insts {
			if !marked[in.node] {
				cloth = append(cloth, in)
			}
		}
		if len(cloth) == 0 {
			return nil, &ParseError{Path: r.name, Place: "nodes", Msg: "every mesh is marked as a collider: no cloth left", Err: ErrNoGeometry}
		}
		insts = cloth
	}
	insts, sel, err := r.selectMeshes(insts)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(r.name)
	m.Name = strings.TrimSuffix(base, filepath.Ext(base))
	if sel != "" {
		m.Name = sel
	}
	src := &gltfSource{doc: doc}
	r.modes = map[string]bool{}
	named := map[int]bool{}
	for _, in := range insts {
		if !named[in.mesh] {
			named[in.mesh] = true
			m.MeshNames = append(m.MeshNames, r.meshName(in.mesh))
		}
		mesh := doc.Meshes[in.mesh]
		for pi, prim := range mesh.Primitives {
			p, ok, err := r.primitive(in, pi, prim)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			m.Primitives = append(m.Primitives, p)
			src.prims = append(src.prims, gltfPrimRef{Node: in.node, Mesh: in.mesh, Primitive: pi})
		}
	}
	if len(m.Primitives) == 0 {
		modes := make([]string, 0, len(r.modes))
		for k := range r.modes {
			modes = append(modes, k)
		}
		sort.Strings(modes)
		return nil, &ParseError{Path: r.name, Place: "meshes", Msg: fmt.Sprintf("no triangle primitives (modes seen: %s): drape needs triangles", strings.Join(modes, ", ")), Err: ErrNoGeometry}
	}
	m.SourceVertices = int(r.nsrc)
	m.LineSegments = r.lineSegs
	m.gltf = src
	return m, nil
}

// meshName returns mesh i's name, or "mesh i" when it has none.
func (r *gltfReader) meshName(i int) string {
	if n := r.doc.Meshes[i].Name; n != "" {
		return n
	}
	return fmt.Sprintf("mesh %d", i)
}

// selectMeshes keeps the instances of the cloth mesh: opt.MeshName (a mesh
// or node name), else the only mesh; opt.AllMeshes keeps everything. sel is
// the chosen mesh's name, empty for several.
func (r *gltfReader) selectMeshes(insts []gltfInstance) (kept []gltfInstance, sel string, err error) {
	var meshes []int
	seen := map[int]bool{}
	for _, in := range insts {
		if !seen[in.mesh] {
			seen[in.mesh] = true
			meshes = append(meshes, in.mesh)
		}
	}
	if r.opt.AllMeshes {
		if len(meshes) == 1 {
			sel = r.meshName(meshes[0])
		}
		return insts, sel, nil
	}
	names := make([]string, len(meshes))
	for i, mi := range meshes {
		names[i] = fmt.Sprintf("%q", r.meshName(mi))
	}
	if r.opt.MeshName == "" {
		if len(meshes) == 1 {
			return insts, r.meshName(meshes[0]), nil
		}
		return nil, "", r.errf("meshes", "the file has %d meshes (%s): choose the cloth with --mesh NAME", len(meshes), strings.Join(names, ", "))
	}
	for _, in := range insts {
		if r.meshName(in.mesh) == r.opt.MeshName {
			kept = append(kept, in)
		}
	}
	if len(kept) == 0 {
		for _, in := range insts {
			if in.node >= 0 && r.doc.Nodes[in.node].Name == r.opt.MeshName {
				kept = append(kept, in)
			}
		}
	}
	if len(kept) == 0 {
		return nil, "", r.errf("meshes", "no mesh named %q; the file has %s", r.opt.MeshName, strings.Join(names, ", "))
	}
	return kept, r.opt.MeshName, nil
}

// instances lists every (node, mesh) of the default scene (or of all root
// nodes when there is no scene) in depth-first order with its world
// transform.
func (r *gltfReader) instances() ([]gltfInstance, error) {
	doc := r.doc
	var roots []int
	switch {
	case doc.Scene != nil:
		if *doc.Scene < 0 || *doc.Scene >= len(doc.Scenes) || doc.Scenes[*doc.Scene] == nil {
			return nil, r.errf("scene", "default scene %d does not exist (%d scenes)", *doc.Scene, len(doc.Scenes))
		}
		roots = doc.Scenes[*doc.Scene].Nodes
	case len(doc.Scenes) > 0 && doc.Scenes[0] != nil:
		roots = doc.Scenes[0].Nodes
	default:
		child := make([]bool, len(doc.Nodes))
		for _, n := range doc.Nodes {
			if n == nil {
				continue
			}
			for _, c := range n.Children {
				if c >= 0 && c < len(child) {
					child[c] = true
				}
			}
		}
		for i := range doc.Nodes {
			if !child[i] {
				roots = append(roots, i)
			}
		}
	}
	for i, n := range doc.Nodes {
		if n == nil {
			return nil, r.errf(fmt.Sprintf("nodes[%d]", i), "node is null")
		}
	}
	for i, m := range doc.Meshes {
		if m == nil {
			return nil, r.errf(fmt.Sprintf("meshes[%d]", i), "mesh is null")
		}
	}
	visited := make([]bool, len(doc.Nodes))
	var out []gltfInstance
	var walk func(ni int, parent vec.Mat4, depth int) error
	walk = func(ni int, parent vec.Mat4, depth int) error {
		if ni < 0 || ni >= len(doc.Nodes) {
			return r.errf("nodes", "node %d does not exist (%d nodes)", ni, len(doc.Nodes))
		}
		if visited[ni] {
			return r.errf(fmt.Sprintf("nodes[%d]", ni), "node is reached twice in the hierarchy (a cycle or a shared child)")
		}
		if depth > maxNodeDepth {
			return r.errf(fmt.Sprintf("nodes[%d]", ni), "node hierarchy deeper than %d", maxNodeDepth)
		}
		visited[ni] = true
		n := doc.Nodes[ni]
		world := parent.Mul(nodeMatrix(n))
		if n.Mesh != nil {
			if *n.Mesh < 0 || *n.Mesh >= len(doc.Meshes) {
				return r.errf(fmt.Sprintf("nodes[%d].mesh", ni), "mesh %d does not exist (%d meshes)", *n.Mesh, len(doc.Meshes))
			}
			out = append(out, gltfInstance{node: ni, mesh: *n.Mesh, world: world})
		}
		for _, c := range n.Children {
			if err := walk(c, world, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ni := range roots {
		if err := walk(ni, vec.Identity(), 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nodeMatrix returns a node's local transform: its matrix, or T R S.
func nodeMatrix(n *gltf.Node) vec.Mat4 {
	if n.Matrix != gltf.DefaultMatrix && n.Matrix != ([16]float64{}) {
		return vec.Mat4FromColumnMajor(n.Matrix)
	}
	return trsMatrix(n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault())
}

// nodeParents returns every node's parent (-1 for a root): the first node
// listing it as a child.
func nodeParents(doc *gltf.Document) []int {
	parent := make([]int, len(doc.Nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i, n := range doc.Nodes {
		if n == nil {
			continue
		}
		for _, c := range n.Children {
			if c >= 0 && c < len(parent) && parent[c] < 0 && c != i {
				parent[c] = i
			}
		}
	}
	return parent
}

// worldsOf returns every node's world transform: local(i) after its
// parents' (a cyclic hierarchy is cut after len(parent) levels).
func worldsOf(parent []int, local func(i int) vec.Mat4) []vec.Mat4 {
	world := make([]vec.Mat4, len(parent))
	done := make([]bool, len(parent))
	var get func(i, depth int) vec.Mat4
	get = func(i, depth int) vec.Mat4 {
		if done[i] {
			return world[i]
		}
		l := local(i)
		if p := parent[i]; p >= 0 && depth < len(parent) {
			l = get(p, depth+1).Mul(l)
		}
		world[i], done[i] = l, true
		return l
	}
	for i := range parent {
		get(i, 0)
	}
	return world
}

// ancestry returns node n and its ancestors, root first.
func ancestry(parent []int, n int) []int {
	var up []int
	for p := n; p >= 0 && len(up) <= len(parent); p = parent[p] {
		up = append(up, p)
	}
	slices.Reverse(up)
	return up
}

// trsMatrix returns T R S of a glTF translation, rotation (x, y, z, w;
// normalised unless zero or not finite) and scale.
func trsMatrix(t [3]float64, q [4]float64, s [3]float64) vec.Mat4 {
	rot := vec.Quat{X: q[0], Y: q[1], Z: q[2], W: q[3]}
	if l := math.Sqrt(rot.Dot(rot)); l > 0 && !math.IsNaN(l) {
		rot = rot.Normalize()
	}
	return vec.TRS(vec.Vec3{X: t[0], Y: t[1], Z: t[2]}, rot, vec.Vec3{X: s[0], Y: s[1], Z: s[2]})
}

// modeName names a primitive mode as the glTF specification does.
func modeName(m gltf.PrimitiveMode) string {
	return strings.ToUpper(m.String())
}

// primitive reads one primitive of one instance; ok is false for primitives
// without triangles (points, lines).
func (r *gltfReader) primitive(in gltfInstance, pi int, prim *gltf.Primitive) (Primitive, bool, error) {
	place := fmt.Sprintf("meshes[%d].primitives[%d]", in.mesh, pi)
	var p Primitive
	if prim == nil {
		return p, false, r.errf(place, "primitive is null")
	}
	switch prim.Mode {
	case gltf.PrimitiveTriangles, gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
	case gltf.PrimitiveLines, gltf.PrimitiveLineStrip, gltf.PrimitiveLineLoop:
		r.modes[modeName(prim.Mode)] = true
		return p, false, r.lines(in, place, prim)
	default:
		r.modes[modeName(prim.Mode)] = true
		return p, false, nil
	}
	positions, idx, err := r.positionsIndices(place, prim)
	if err != nil {
		return p, false, err
	}
	nv := len(positions)
	tris, err := expandMode(prim.Mode, idx)
	if err != nil {
		return p, false, r.errf(place, "%v", err)
	}

	// world transform; a mirroring transform flips the winding
	w := in.world
	if w.Det3() < 0 {
		for t := 0; t+2 < len(tris); t += 3 {
			tris[t+1], tris[t+2] = tris[t+2], tris[t+1]
		}
	}
	for i, q := range positions {
		positions[i] = w.MulPoint(q)
	}
	p.Positions = positions
	p.Indices = tris
	p.Material = -1
	if prim.Material != nil {
		p.Material = *prim.Material
	}
	p.Name = fmt.Sprintf("%s/node %d/primitive %d", r.meshName(in.mesh), in.node, pi)

	if ni, ok := prim.Attributes[gltf.NORMAL]; ok {
		normals, err := r.readVec3(ni, place, true)
		if err != nil {
			return p, false, err
		}
		if len(normals) == nv {
			inv := w.Inverse()
			for i, n := range normals {
				normals[i] = vec.Vec3{
					X: inv[0][0]*n.X + inv[1][0]*n.Y + inv[2][0]*n.Z,
					Y: inv[0][1]*n.X + inv[1][1]*n.Y + inv[2][1]*n.Z,
					Z: inv[0][2]*n.X + inv[1][2]*n.Y + inv[2][2]*n.Z,
				}.Normalize()
				if !normals[i].IsFinite() {
					normals[i] = vec.Vec3{}
				}
			}
			p.Normals = normals
		}
	}
	if ti, ok := prim.Attributes[gltf.TEXCOORD_0]; ok {
		uvs, err := r.readVec2(ti, place)
		if err != nil {
			return p, false, err
		}
		if len(uvs) == nv {
			p.UVs = uvs
		}
	}
	if err := r.customAttributes(&p, prim, place, nv); err != nil {
		return p, false, err
	}
	p.Source = make([]int32, nv)
	for i := range p.Source {
		p.Source[i] = r.nsrc + int32(i)
	}
	r.nsrc += int32(nv)
	return p, true, nil
}

// positionsIndices reads a primitive's positions (each finite) and indices
// (each in range; 0, 1, 2, ... without an index accessor).
func (r *gltfReader) positionsIndices(place string, prim *gltf.Primitive) ([]vec.Vec3, []uint32, error) {
	pos, ok := prim.Attributes[gltf.POSITION]
	if !ok {
		return nil, nil, r.errf(place, "primitive has no POSITION attribute")
	}
	if _, draco := prim.Extensions["KHR_draco_mesh_compression"]; draco {
		if pos < 0 || pos >= len(r.doc.Accessors) || r.doc.Accessors[pos] == nil || (r.doc.Accessors[pos].BufferView == nil && r.doc.Accessors[pos].Sparse == nil) {
			return nil, nil, &ParseError{Path: r.name, Place: place, Msg: "Draco-compressed primitive without uncompressed fallback data: drape cannot decode Draco; export without compression", Err: ErrUnsupported}
		}
	}
	positions, err := r.readVec3(pos, place, false)
	if err != nil {
		return nil, nil, err
	}
	for i, q := range positions {
		if !q.IsFinite() {
			return nil, nil, r.errf(fmt.Sprintf("%s accessor %d", place, pos), "POSITION %d is not finite (%g, %g, %g)", i, q.X, q.Y, q.Z)
		}
	}
	nv := len(positions)
	var idx []uint32
	if prim.Indices != nil {
		ai := *prim.Indices
		acr, err := r.checkedAccessor(ai, place)
		if err != nil {
			return nil, nil, err
		}
		idx, err = modeler.ReadIndices(r.doc, acr, nil)
		if err != nil {
			return nil, nil, r.errf(fmt.Sprintf("%s accessor %d", place, ai), "cannot read indices: %v", strings.TrimPrefix(err.Error(), "gltf: "))
		}
		for i, v := range idx {
			if int64(v) >= int64(nv) {
				return nil, nil, r.errf(fmt.Sprintf("%s accessor %d", place, ai), "index %d (entry %d) out of range (%d vertices)", v, i, nv)
			}
		}
	} else {
		idx = make([]uint32, nv)
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	return positions, idx, nil
}

// lines reads a LINES, LINE_STRIP or LINE_LOOP primitive of the cloth into
// r.lineSegs, in world space: loose edges, which a bake sews.
func (r *gltfReader) lines(in gltfInstance, place string, prim *gltf.Primitive) error {
	positions, idx, err := r.positionsIndices(place, prim)
	if err != nil {
		return err
	}
	var pairs [][2]uint32
	switch prim.Mode {
	case gltf.PrimitiveLines:
		if len(idx)%2 != 0 {
			return r.errf(place, "LINES primitive has %d indices, not a multiple of 2", len(idx))
		}
		for i := 0; i+1 < len(idx); i += 2 {
			pairs = append(pairs, [2]uint32{idx[i], idx[i+1]})
		}
	default:
		for i := 0; i+1 < len(idx); i++ {
			pairs = append(pairs, [2]uint32{idx[i], idx[i+1]})
		}
		if prim.Mode == gltf.PrimitiveLineLoop && len(idx) > 2 {
			pairs = append(pairs, [2]uint32{idx[len(idx)-1], idx[0]})
		}
	}
	for _, q := range pairs {
		if q[0] != q[1] {
			r.lineSegs = append(r.lineSegs, [2]vec.Vec3{in.world.MulPoint(positions[q[0]]), in.world.MulPoint(positions[q[1]])})
		}
	}
	return nil
}

// expandMode turns indices of a triangle list, strip or fan into a
// triangle list.
func expandMode(mode gltf.PrimitiveMode, idx []uint32) ([]int32, error) {
	n := len(idx)
	switch mode {
	case gltf.PrimitiveTriangles:
		if n%3 != 0 {
			return nil, fmt.Errorf("TRIANGLES primitive has %d indices, not a multiple of 3", n)
		}
		out := make([]int32, n)
		for i, v := range idx {
			out[i] = int32(v)
		}
		return out, nil
	case gltf.PrimitiveTriangleStrip:
		if n < 3 {
			return nil, fmt.Errorf("TRIANGLE_STRIP primitive has %d vertices, needs at least 3", n)
		}
		out := make([]int32, 0, 3*(n-2))
		for i := 0; i+2 < n; i++ {
			if i%2 == 0 {
				out = append(out, int32(idx[i]), int32(idx[i+1]), int32(idx[i+2]))
			} else {
				out = append(out, int32(idx[i+1]), int32(idx[i]), int32(idx[i+2]))
			}
		}
		return out, nil
	case gltf.PrimitiveTriangleFan:
		if n < 3 {
			return nil, fmt.Errorf("TRIANGLE_FAN primitive has %d vertices, needs at least 3", n)
		}
		out := make([]int32, 0, 3*(n-2))
		for i := 1; i+1 < n; i++ {
			out = append(out, int32(idx[i]), int32(idx[i+1]), int32(idx[0]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("primitive mode %s has no triangles", modeName(mode))
}
