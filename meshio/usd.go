package meshio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
)

// USDStage is a baked scene for WriteUSDA: time-sampled meshes on a Y-up
// stage in metres, one time code per scene frame.
type USDStage struct {
	// FPS is the scene's frame rate: timeCodesPerSecond and
	// framesPerSecond.
	FPS float64
	// TimeCodes are the time codes of the stored frames (scene frame
	// numbers), strictly increasing.
	TimeCodes []float64
	// Doc is written as the layer's doc string when not empty.
	Doc string
	// Root names the one root Xform every mesh lives under (the stage's
	// defaultPrim).
	Root string
	// Meshes are written under Root, in order; a mesh whose Group is set
	// goes under an Xform of that name.
	Meshes []USDMesh
}

// USDMesh is one UsdGeomMesh of triangles.
type USDMesh struct {
	// Name is the prim's name; it is made a valid identifier.
	Name string
	// Group, when set, is the Xform (under the root) the mesh sits in.
	Group string
	// Triangles index the points.
	Triangles [][3]int32
	// Points hold the positions [m] at every time code, or one set for a
	// mesh that does not deform.
	Points [][]vec.Vec3
	// Normals hold unit vertex normals in the same layout as Points, or
	// nil.
	Normals [][]vec.Vec3
	// UVs and UVIndices are face-varying texture coordinates (st, v up):
	// UVIndices gives, per triangle corner, an index into UVs. nil for none.
	UVs       [][2]float32
	UVIndices []int32
	// Transforms are the mesh's local-to-world transforms at every time
	// code (a rigid or scaled motion), or nil for none.
	Transforms []vec.Mat4
	// DoubleSided marks a surface seen from both sides (cloth).
	DoubleSided bool
	// Subsets split the triangles by material: each is a GeomSubset of the
	// materialBind family (non-overlapping), for binding materials.
	Subsets []USDSubset
}

// USDSubset is a named set of a mesh's triangles.
type USDSubset struct {
	Name  string
	Faces []int32
}

// usdIdentifier makes s a valid USD prim name: letters, digits and
// underscores, not starting with a digit.
func usdIdentifier(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

func (s *USDStage) check() error {
	if !(s.FPS > 0) || math.IsInf(s.FPS, 0) {
		return fmt.Errorf("fps = %g: must be a finite number > 0", s.FPS)
	}
	if len(s.TimeCodes) == 0 {
		return errors.New("no frames to write")
	}
	for k, t := range s.TimeCodes {
		if math.IsNaN(t) || math.IsInf(t, 0) || (k > 0 && !(t > s.TimeCodes[k-1])) {
			return fmt.Errorf("time code %d = %g: time codes must be finite and increase", k, t)
		}
	}
	names := map[string]bool{}
	for i, m := range s.Meshes {
		path := usdIdentifier(m.Group) + "/" + usdIdentifier(m.Name)
		if names[path] {
			return fmt.Errorf("mesh %d: a second prim named %s", i, path)
		}
		names[path] = true
		if len(m.Points) != 1 && len(m.Points) != len(s.TimeCodes) {
			return fmt.Errorf("mesh %s: %d point sets for %d time codes (give one, or one per time code)", m.Name, len(m.Points), len(s.TimeCodes))
		}
		n := len(m.Points[0])
		for k, p := range m.Points {
			if len(p) != n {
				return fmt.Errorf("mesh %s: point set %d has %d points, the first %d", m.Name, k, len(p), n)
			}
			for i, q := range p {
				if !finite32(q.X) || !finite32(q.Y) || !finite32(q.Z) {
					return fmt.Errorf("mesh %s: point %d of set %d = %v is not a finite float32", m.Name, i, k, q)
				}
			}
		}
		if m.Normals != nil && len(m.Normals) != len(m.Points) {
			return fmt.Errorf("mesh %s: %d normal sets for %d point sets", m.Name, len(m.Normals), len(m.Points))
		}
		for _, t := range m.Triangles {
			for _, v := range t {
				if v < 0 || int(v) >= n {
					return fmt.Errorf("mesh %s: triangle corner %d outside its %d points", m.Name, v, n)
				}
			}
		}
		if m.UVIndices != nil && len(m.UVIndices) != 3*len(m.Triangles) {
			return fmt.Errorf("mesh %s: %d UV indices for %d triangle corners", m.Name, len(m.UVIndices), 3*len(m.Triangles))
		}
		for _, ix := range m.UVIndices {
			if ix < 0 || int(ix) >= len(m.UVs) {
				return fmt.Errorf("mesh %s: UV index %d outside its %d UVs", m.Name, ix, len(m.UVs))
			}
		}
		seen := make([]bool, len(m.Triangles))
		for _, sub := range m.Subsets {
			for _, f := range sub.Faces {
				if f < 0 || int(f) >= len(m.Triangles) || seen[f] {
					return fmt.Errorf("mesh %s: subset %s: face %d is outside the %d triangles or in another subset", m.Name, sub.Name, f, len(m.Triangles))
				}
				seen[f] = true
			}
		}
		if m.Transforms != nil && len(m.Transforms) != len(s.TimeCodes) {
			return fmt.Errorf("mesh %s: %d transforms for %d time codes", m.Name, len(m.Transforms), len(s.TimeCodes))
		}
	}
	return nil
}

// usdText writes the text layer with the first error kept.
type usdText struct {
	w   *bufio.Writer
	buf []byte
}

func (u *usdText) s(parts ...string) {
	for _, p := range parts {
		u.w.WriteString(p)
	}
}

// f32 writes x as the shortest text that reads back as the same float32.
func (u *usdText) f32(x float64) {
	u.buf = strconv.AppendFloat(u.buf[:0], float64(float32(x)), 'g', -1, 32)
	u.w.Write(u.buf)
}

// f64 writes x as the shortest text that reads back as the same float64.
func (u *usdText) f64(x float64) {
	u.buf = strconv.AppendFloat(u.buf[:0], x, 'g', -1, 64)
	u.w.Write(u.buf)
}

func (u *usdText) int(x int64) {
	u.buf = strconv.AppendInt(u.buf[:0], x, 10)
	u.w.Write(u.buf)
}

func (u *usdText) vec3s(ps []vec.Vec3) {
	u.s("[")
	for i, p := range ps {
		if i > 0 {
			u.s(", ")
		}
		u.s("(")
		u.f32(p.X)
		u.s(", ")
		u.f32(p.Y)
		u.s(", ")
		u.f32(p.Z)
		u.s(")")
	}
	u.s("]")
}

func (u *usdText) ints(xs []int32) {
	u.s("[")
	for i, x := range xs {
		if i > 0 {
			u.s(", ")
		}
		u.int(int64(x))
	}
	u.s("]")
}

// timeSamples writes `decl.timeSamples = { t: value, ... }`.
func (u *usdText) timeSamples(indent, decl string, codes []float64, value func(k int)) {
	u.s(indent, decl, ".timeSamples = {\n")
	for k, t := range codes {
		u.s(indent, "    ")
		u.f64(t)
		u.s(": ")
		value(k)
		u.s(",\n")
	}
	u.s(indent, "}\n")
}

// extent returns the bounding box of ps.
func extent(ps []vec.Vec3) []vec.Vec3 {
	lo := vec.V(math.Inf(1), math.Inf(1), math.Inf(1))
	hi := lo.Scale(-1)
	for _, p := range ps {
		q := vec.FromF32(p.F32())
		lo = vec.V(math.Min(lo.X, q.X), math.Min(lo.Y, q.Y), math.Min(lo.Z, q.Z))
		hi = vec.V(math.Max(hi.X, q.X), math.Max(hi.Y, q.Y), math.Max(hi.Z, q.Z))
	}
	if len(ps) == 0 {
		lo, hi = vec.Vec3{}, vec.Vec3{}
	}
	return []vec.Vec3{lo, hi}
}

// WriteUSDA writes the stage as a USD text layer (.usda, also valid as
// .usd): a Y-up stage in metres (upAxis "Y", metersPerUnit 1) whose
// timeCodesPerSecond is the frame rate, start and end time codes the first
// and last stored frame; under the root Xform every mesh is a UsdGeomMesh
// with triangle faces, face-varying primvars:st, vertex normals, its extent
// and, where it moves, time-sampled points, normals and extent (a
// deforming mesh) or xformOp:transform (a rigid one). Floats are written
// as the shortest text that reads back as the same float32 (points,
// normals, UVs) or float64 (transforms, time codes), so the file holds
// exactly the values given.
func WriteUSDA(w io.Writer, s *USDStage) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("write usd: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	u := &usdText{w: bw}
	root := usdIdentifier(s.Root)
	u.s("#usda 1.0\n(\n")
	u.s("    defaultPrim = \"", root, "\"\n")
	if s.Doc != "" {
		u.s("    doc = ", usdQuote(s.Doc), "\n")
	}
	u.s("    endTimeCode = ")
	u.f64(s.TimeCodes[len(s.TimeCodes)-1])
	u.s("\n    framesPerSecond = ")
	u.f64(s.FPS)
	u.s("\n    metersPerUnit = 1\n    startTimeCode = ")
	u.f64(s.TimeCodes[0])
	u.s("\n    timeCodesPerSecond = ")
	u.f64(s.FPS)
	u.s("\n    upAxis = \"Y\"\n)\n\n")
	u.s("def Xform \"", root, "\"\n{\n")
	// meshes without a group first, then each group in order of first use
	var groups []string
	for _, m := range s.Meshes {
		if m.Group == "" {
			u.mesh(s, &m, "    ")
		} else if !containsString(groups, m.Group) {
			groups = append(groups, m.Group)
		}
	}
	for _, g := range groups {
		u.s("\n    def Xform \"", usdIdentifier(g), "\"\n    {\n")
		for _, m := range s.Meshes {
			if m.Group == g {
				u.mesh(s, &m, "        ")
			}
		}
		u.s("    }\n")
	}
	u.s("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write usd: %w", err)
	}
	return nil
}

// usdQuote quotes s as a USD text string: backslash, double quote and
// line breaks escaped, everything else (UTF-8 included) as it is.
func usdQuote(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\n", "\\n", "\r", "\\r")
	return "\"" + r.Replace(s) + "\""
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// mesh writes one Mesh prim.
func (u *usdText) mesh(s *USDStage, m *USDMesh, in string) {
	body := in + "    "
	u.s(in, "def Mesh \"", usdIdentifier(m.Name), "\"\n", in, "{\n")
	animated := len(m.Points) > 1
	if animated {
		u.timeSamples(body, "float3[] extent", s.TimeCodes, func(k int) { u.vec3s(extent(m.Points[k])) })
	} else {
		u.s(body, "float3[] extent = ")
		u.vec3s(extent(m.Points[0]))
		u.s("\n")
	}
	u.s(body, "int[] faceVertexCounts = [")
	for i := range m.Triangles {
		if i > 0 {
			u.s(", ")
		}
		u.s("3")
	}
	u.s("]\n", body, "int[] faceVertexIndices = [")
	for i, t := range m.Triangles {
		for c, v := range t {
			if i > 0 || c > 0 {
				u.s(", ")
			}
			u.int(int64(v))
		}
	}
	u.s("]\n")
	if m.DoubleSided {
		u.s(body, "uniform bool doubleSided = 1\n")
	}
	if m.Normals != nil {
		u.s(body, "normal3f[] normals (\n", body, "    interpolation = \"vertex\"\n", body, ")\n")
		if animated {
			u.timeSamples(body, "normal3f[] normals", s.TimeCodes, func(k int) { u.vec3s(m.Normals[k]) })
		} else {
			u.s(body, "normal3f[] normals = ")
			u.vec3s(m.Normals[0])
			u.s("\n")
		}
	}
	u.s(body, "uniform token orientation = \"rightHanded\"\n")
	if animated {
		u.timeSamples(body, "point3f[] points", s.TimeCodes, func(k int) { u.vec3s(m.Points[k]) })
	} else {
		u.s(body, "point3f[] points = ")
		u.vec3s(m.Points[0])
		u.s("\n")
	}
	if m.UVIndices != nil {
		u.s(body, "texCoord2f[] primvars:st = [")
		for i, t := range m.UVs {
			if i > 0 {
				u.s(", ")
			}
			u.s("(")
			u.f32(float64(t[0]))
			u.s(", ")
			u.f32(float64(t[1]))
			u.s(")")
		}
		u.s("] (\n", body, "    interpolation = \"faceVarying\"\n", body, ")\n")
		u.s(body, "int[] primvars:st:indices = ")
		u.ints(m.UVIndices)
		u.s("\n")
	}
	if len(m.Subsets) > 0 {
		u.s(body, "uniform token subsetFamily:materialBind:familyType = \"nonOverlapping\"\n")
	}
	u.s(body, "uniform token subdivisionScheme = \"none\"\n")
	if m.Transforms != nil {
		u.timeSamples(body, "matrix4d xformOp:transform", s.TimeCodes, func(k int) { u.matrix(m.Transforms[k]) })
		u.s(body, "uniform token[] xformOpOrder = [\"xformOp:transform\"]\n")
	}
	for _, sub := range m.Subsets {
		u.s("\n", body, "def GeomSubset \"", usdIdentifier(sub.Name), "\"\n", body, "{\n")
		u.s(body, "    uniform token elementType = \"face\"\n")
		u.s(body, "    uniform token familyName = \"materialBind\"\n")
		u.s(body, "    int[] indices = ")
		u.ints(sub.Faces)
		u.s("\n", body, "}\n")
	}
	u.s(in, "}\n")
}

// matrix writes m in USD's row-vector layout: row i is m's column i, so
// the last row holds the translation.
func (u *usdText) matrix(m vec.Mat4) {
	u.s("( ")
	for i := range 4 {
		if i > 0 {
			u.s(", ")
		}
		u.s("(")
		for j := range 4 {
			if j > 0 {
				u.s(", ")
			}
			u.f64(m[j][i])
		}
		u.s(")")
	}
	u.s(" )")
}
