package meshio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// readString reads an in-memory file of the given format.
func readString(t *testing.T, name, data string, opt ReadOptions) (*Mesh, error) {
	t.Helper()
	return readBytes([]byte(data), name, formatFromName(name), nil, opt)
}

func TestReadOBJ(t *testing.T) {
	tests := []struct {
		name        string
		obj         string
		verts       int // SourceVertices
		render      int
		tris        int
		welded      int
		prims       int
		warnings    int
		hasUV, hasN bool
	}{
		{"triangle", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 3, 3, 1, 3, 1, 0, false, false},
		{"negative indices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 1 1 0\nf -3 -1 -2\n", 4, 4, 2, 4, 1, 0, false, false},
		{"quad v/vt/vn", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1 4/4/1\n", 4, 4, 2, 4, 1, 0, true, true},
		{"v//vn", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n", 3, 3, 1, 3, 1, 0, false, true},
		{"uv seam splits render vertices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvt 0.5 0.5\nf 1/1 2/2 3/3\nf 2/5 4/4 3/3\n", 4, 5, 2, 4, 1, 0, true, false},
		{"dangling vt and vn", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/4/2 2/4/2 3/4/2\n", 3, 3, 1, 3, 1, 1, false, false},
		{"materials", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nmtllib missing.mtl\nusemtl red\nf 1 2 3\nusemtl blue\nf 2 4 3\nusemtl red\nf 1 3 4\n", 4, 7, 3, 4, 2, 0, false, false},
		{"continuation and comments", "# header\nv 0 0 0 # origin\nv 1 0 0\nv 0 1 0\nf 1 \\\n 2 3\n\n   # done\n", 3, 3, 1, 3, 1, 0, false, false},
		{"unknown statements", "v 0 0 0\nv 1 0 0\nv 0 1 0\ns off\ng a  b\nt crease 2/1/0 1 2 3.0\nl 1 2\nf 1 2 3\n", 3, 3, 1, 3, 1, 0, false, false},
		{"crlf and exponents", "v 0 0 0\r\nv 1e+000 0 0\r\nv 0 1.0E0 0\r\nf 1 2 3\r\n", 3, 3, 1, 3, 1, 0, false, false},
		{"unused vertex", "v 0 0 0\nv 9 9 9\nv 1 0 0\nv 0 1 0\nf 1 3 4\n", 4, 3, 1, 3, 1, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readString(t, tc.name+".obj", tc.obj, DefaultReadOptions())
			if err != nil {
				t.Fatalf("Read(%s): %v", tc.name, err)
			}
			checkMesh(t, tc.name, m)
			if m.SourceVertices != tc.verts || m.NumVertices() != tc.render || m.NumTriangles() != tc.tris || len(m.Primitives) != tc.prims {
				t.Errorf("Read(%s) = %d source, %d render verts, %d tris, %d prims; want %d, %d, %d, %d",
					tc.name, m.SourceVertices, m.NumVertices(), m.NumTriangles(), len(m.Primitives), tc.verts, tc.render, tc.tris, tc.prims)
			}
			if len(m.Warnings) != tc.warnings {
				t.Errorf("Read(%s) warnings = %q, want %d", tc.name, m.Warnings, tc.warnings)
			}
			if (m.Primitives[0].UVs != nil) != tc.hasUV || (m.Primitives[0].Normals != nil) != tc.hasN {
				t.Errorf("Read(%s) has UVs/normals = %v/%v, want %v/%v", tc.name, m.Primitives[0].UVs != nil, m.Primitives[0].Normals != nil, tc.hasUV, tc.hasN)
			}
			w, err := Weld(m, DefaultWeldOptions())
			if err != nil {
				t.Fatalf("Weld(%s): %v", tc.name, err)
			}
			if len(w.Positions) != tc.welded {
				t.Errorf("Weld(%s) verts = %d, want %d", tc.name, len(w.Positions), tc.welded)
			}
		})
	}
}

// TestOBJSourceOrder: every render vertex maps back to the `v` line it came
// from, and materials are numbered in usemtl order.
func TestOBJSourceOrder(t *testing.T) {
	m, err := Read(corpusPath("obj/cube_quads.obj"), DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(corpusPath("obj/cube_quads.obj"))
	var vs []vec.Vec3
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "v ") {
			p, err := (&objReader{}).parseVec([]byte(line[2:]), 3, "vertex")
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, vec.Vec3{X: p[0], Y: p[1], Z: p[2]})
		}
	}
	if m.NumVertices() != 24 {
		t.Errorf("Read(cube_quads.obj) render verts = %d, want 24 (split by v/vt/vn)", m.NumVertices())
	}
	for _, p := range m.Primitives {
		for i, s := range p.Source {
			if p.Positions[i] != vs[s] {
				t.Fatalf("render vertex %d at %v, but its Source v line %d is %v", i, p.Positions[i], s, vs[s])
			}
		}
	}
	m, err = readString(t, "mat.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nusemtl b\nf 1 2 3\nusemtl a\nf 1 2 3\nusemtl b\nf 3 2 1\n", DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	var mats []int
	for _, p := range m.Primitives {
		mats = append(mats, p.Material)
	}
	if len(mats) != 3 || mats[0] != -1 || mats[1] != 0 || mats[2] != 1 {
		t.Errorf("Read(mat.obj) materials = %v, want [-1 0 1]", mats)
	}
	if got := strings.Join(m.MaterialNames, ","); got != "b,a" {
		t.Errorf("Read(mat.obj) material names = %q, want \"b,a\" (usemtl order)", got)
	}
	// l lines: polylines into segments, relative indices, /vt ignored, a
	// segment from a vertex to itself dropped
	m, err = readString(t, "lines.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nl 1 2 3\nl -1 1\nl 2/1 2\n", DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(m.Lines); got != "[[0 1] [1 2] [2 0]]" {
		t.Errorf("Read(lines.obj) lines = %s, want [[0 1] [1 2] [2 0]]", got)
	}
	for _, bad := range []struct{ src, want string }{
		{"v 0 0 0\nl 1\n", "line 2: line element with 1 vertices"},
		{"v 0 0 0\nv 1 0 0\nl 1 9\n", "line 3: line element index 9 out of range"},
		{"v 0 0 0\nv 1 0 0\nl 1 x\n", `line 3: line element: "x" is not a vertex index`},
	} {
		if _, err := readString(t, "bad.obj", bad.src, DefaultReadOptions()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Read(%q) error %v, want one containing %q", bad.src, err, bad.want)
		}
	}
}

// polygonArea returns the summed area of triangles and their edge use
// counts, to check a triangulation for overlaps.
func triangulationStats(pos []vec.Vec3, tris [][3]int) (area float64, nonManifold int) {
	type edge struct{ a, b vec.Vec3 }
	key := func(a, b vec.Vec3) edge {
		if a.X < b.X || a.X == b.X && (a.Y < b.Y || a.Y == b.Y && a.Z < b.Z) {
			return edge{a, b}
		}
		return edge{b, a}
	}
	count := map[edge]int{}
	for _, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		area += b.Sub(a).Cross(c.Sub(a)).Len() / 2
		count[key(a, b)]++
		count[key(b, c)]++
		count[key(c, a)]++
	}
	for _, n := range count {
		if n > 2 {
			nonManifold++
		}
	}
	return area, nonManifold
}

func TestTriangulate(t *testing.T) {
	sq := func(x0, y0, s float64) []vec.Vec3 {
		return []vec.Vec3{{X: x0, Y: y0}, {X: x0 + s, Y: y0}, {X: x0 + s, Y: y0 + s}, {X: x0, Y: y0 + s}}
	}
	// keyhole: outer 4x4 square, bridge from corner 0 to the 2x2 hole's
	// corner, hole walked the other way, back along the bridge
	outer := sq(0, 0, 4)
	keyhole := []vec.Vec3{outer[0], outer[1], outer[2], outer[3], outer[0],
		{X: 1, Y: 1}, {X: 1, Y: 3}, {X: 3, Y: 3}, {X: 3, Y: 1}, {X: 1, Y: 1}}
	// L shape (concave hexagon), tilted out of the XY plane
	rot := vec.AxisAngle(vec.V(1, 1, 0).Normalize(), 0.7)
	var ell []vec.Vec3
	for _, p := range []vec.Vec3{{}, {X: 2}, {X: 2, Y: 1}, {X: 1, Y: 1}, {X: 1, Y: 2}, {Y: 2}} {
		ell = append(ell, rot.Rotate(p))
	}
	// concave quad (dart): only the diagonal through the reflex corner works
	dart := []vec.Vec3{{}, {X: 2, Y: 1}, {X: 0, Y: 0.5}, {X: -2, Y: 1}}
	tests := []struct {
		name string
		pos  []vec.Vec3
		area float64
	}{
		{"square", sq(0, 0, 1), 1},
		{"keyhole", keyhole, 12},
		{"L hexagon tilted", ell, 3},
		{"dart quad", dart, 1},
		{"octagon", func() []vec.Vec3 {
			var p []vec.Vec3
			for i := 0; i < 8; i++ {
				a := float64(i) * math.Pi / 4
				p = append(p, vec.V(math.Cos(a), math.Sin(a), 0))
			}
			return p
		}(), 2 * math.Sqrt2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tris, fanned := triangulate(tc.pos, nil)
			if fanned {
				t.Errorf("triangulate(%s) fell back to a fan", tc.name)
			}
			if len(tris) != len(tc.pos)-2 {
				t.Errorf("triangulate(%s) = %d triangles, want %d", tc.name, len(tris), len(tc.pos)-2)
			}
			area, nm := triangulationStats(tc.pos, tris)
			if math.Abs(area-tc.area) > 1e-9 {
				t.Errorf("triangulate(%s) area = %g, want %g (overlapping or missing triangles)", tc.name, area, tc.area)
			}
			if nm != 0 {
				t.Errorf("triangulate(%s) has %d non-manifold edges", tc.name, nm)
			}
		})
	}
}

// TestConcavePolygonCoverage: the corpus keyhole face (66 corners) is covered
// exactly once: the triangles' areas sum to the polygon's area.
func TestConcavePolygonCoverage(t *testing.T) {
	m, err := Read(corpusPath("obj/concave_polygon/concave_polygon.obj"), DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("Read(concave_polygon.obj) warnings = %q, want none", m.Warnings)
	}
	p := m.Primitives[0]
	// polygon area from the file's corner loop (Newell), in order
	data, _ := os.ReadFile(corpusPath("obj/concave_polygon/concave_polygon.obj"))
	var vs, loop []vec.Vec3
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "v":
			q, _ := (&objReader{}).parseVec([]byte(strings.Join(f[1:], " ")), 3, "v")
			vs = append(vs, vec.Vec3{X: q[0], Y: q[1], Z: q[2]})
		case "f":
			for _, c := range f[1:] {
				n := 0
				for _, ch := range strings.Split(c, "/")[0] {
					n = n*10 + int(ch-'0')
				}
				loop = append(loop, vs[n-1])
			}
		}
	}
	if len(loop) != 66 {
		t.Fatalf("concave_polygon.obj face has %d corners, want 66", len(loop))
	}
	var nrm vec.Vec3
	for i := range loop {
		nrm = nrm.Add(loop[i].Cross(loop[(i+1)%len(loop)]))
	}
	want := nrm.Len() / 2
	tris := make([][3]int, 0, len(p.Indices)/3)
	for i := 0; i+2 < len(p.Indices); i += 3 {
		tris = append(tris, [3]int{int(p.Indices[i]), int(p.Indices[i+1]), int(p.Indices[i+2])})
	}
	area, nm := triangulationStats(p.Positions, tris)
	if math.Abs(area-want) > 1e-9*want {
		t.Errorf("concave_polygon.obj triangles cover %g, polygon area %g: overlaps or gaps", area, want)
	}
	if nm != 0 {
		t.Errorf("concave_polygon.obj triangulation has %d non-manifold edges", nm)
	}
}

func TestReadOptions(t *testing.T) {
	obj := "v 0 0 0\nv 2 0 0\nv 0 0 1\nvn 0 0 1\nf 1//1 2//1 3//1\n"
	tests := []struct {
		name    string
		opt     ReadOptions
		lo, hi  vec.Vec3
		normal  vec.Vec3
		wantErr string
	}{
		{"y up", ReadOptions{Up: AxisY, Scale: 1}, vec.V(0, 0, 0), vec.V(2, 0, 1), vec.V(0, 0, 1), ""},
		{"z up", ReadOptions{Up: AxisZ, Scale: 1}, vec.V(0, 0, 0), vec.V(2, 1, 0), vec.V(0, 1, 0), ""},
		{"scale", ReadOptions{Up: AxisZ, Scale: 0.1}, vec.V(0, 0, 0), vec.V(0.2, 0.1, 0), vec.V(0, 1, 0), ""},
		{"zero scale", ReadOptions{Up: AxisY}, vec.Vec3{}, vec.Vec3{}, vec.Vec3{}, "scale = 0"},
		{"nan scale", ReadOptions{Up: AxisY, Scale: math.NaN()}, vec.Vec3{}, vec.Vec3{}, vec.Vec3{}, "scale = NaN"},
		{"no up axis", ReadOptions{Scale: 1}, vec.Vec3{}, vec.Vec3{}, vec.Vec3{}, "up axis"},
		{"overflowing scale", ReadOptions{Up: AxisY, Scale: 1e308}, vec.Vec3{}, vec.Vec3{}, vec.Vec3{}, "not finite"},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tri.obj")
	if err := os.WriteFile(path, []byte(obj), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Read(path, tc.opt)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Read(tri.obj, %+v) error = %v, want %q", tc.opt, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := m.Bounds()
			if lo.Sub(tc.lo).Len() > 1e-12 || hi.Sub(tc.hi).Len() > 1e-12 {
				t.Errorf("Read(tri.obj, %s) bounds = %v..%v, want %v..%v", tc.name, lo, hi, tc.lo, tc.hi)
			}
			if n := m.Primitives[0].Normals[0]; n.Sub(tc.normal).Len() > 1e-12 {
				t.Errorf("Read(tri.obj, %s) normal = %v, want %v", tc.name, n, tc.normal)
			}
			// z-up keeps the winding: the face normal still agrees with vn
			p := m.Primitives[0]
			a, b, c := p.Positions[p.Indices[0]], p.Positions[p.Indices[1]], p.Positions[p.Indices[2]]
			fn := b.Sub(a).Cross(c.Sub(a)).Normalize()
			want := vec.V(0, -1, 0)
			if tc.opt.Up == AxisZ {
				want = vec.V(0, 0, 1)
			}
			if fn.Sub(want).Len() > 1e-12 {
				t.Errorf("Read(tri.obj, %s) face normal = %v, want %v", tc.name, fn, want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	glb, err := os.ReadFile(corpusPath("glb/Box.glb"))
	if err != nil {
		t.Fatal(err)
	}
	binSTL := make([]byte, 84+50)
	binary.LittleEndian.PutUint32(binSTL[80:], 1)
	binary.LittleEndian.PutUint32(binSTL[84+12:], math.Float32bits(float32(math.NaN())))
	tests := []struct {
		name, data string
		want       []string
		noGeometry bool
	}{
		{"nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", []string{"line 2", "not finite"}, false},
		{"inf.obj", "v 0 0 0\nv 1 0 0\nv 0 1e999 0\nf 1 2 3\n", []string{"line 3", "not finite"}, false},
		{"range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", []string{"line 4", "face index 9 out of range"}, false},
		{"negrange.obj", "v 0 0 0\nf -1 -2 -3\n", []string{"line 2", "-2 out of range"}, false},
		{"zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", []string{"line 4", "start at 1"}, false},
		{"twocorners.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n", []string{"line 3", "at least 3"}, false},
		{"word.obj", "v 0 0 0\nv 1 x 0\n", []string{"line 2", "\"x\" is not a number"}, false},
		{"nofaces.obj", "v 0 0 0\nv 1 0 0\n", []string{"no triangles"}, true},
		{"empty.obj", "", []string{"no vertices"}, true},
		{"empty.stl", "", []string{"empty"}, true},
		{"empty.glb", "", []string{"not a glTF"}, false},
		{"empty.gltf", "", []string{"not a glTF"}, false},
		{"nan.stl", string(binSTL), []string{"facet 0", "not finite"}, false},
		{"nan_ascii.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex NaN 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n", []string{"facet 0", "not finite"}, false},
		{"noend.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n", []string{"line 1", "without endsolid"}, false},
		{"short_binary.stl", string(binSTL[:100]), []string{"truncated", "1 triangles"}, false},
		{"truncated.glb", string(glb[:len(glb)/2]), []string{"truncated"}, false},
		{"version1.glb", "glTF\x01\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00JSON", []string{"glTF 1.0 is not supported"}, false},
		{"no_version.gltf", `{"asset":{}}`, []string{"asset.version"}, false},
		{"no_meshes.gltf", `{"asset":{"version":"2.0"}}`, []string{"no meshes"}, true},
		{"unknown.xyz", "hello", []string{"unknown mesh format"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readBytes([]byte(tc.data), tc.name, formatFromName(tc.name), nil, DefaultReadOptions())
			if err == nil {
				t.Fatalf("Read(%s) = %d triangles, want an error", tc.name, m.NumTriangles())
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Read(%s) error %T is not a *ParseError", tc.name, err)
			}
			for _, s := range append(tc.want, tc.name) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Read(%s) error %q does not mention %q", tc.name, err, s)
				}
			}
			if errors.Is(err, ErrNoGeometry) != tc.noGeometry {
				t.Errorf("Read(%s) errors.Is(ErrNoGeometry) = %v, want %v", tc.name, !tc.noGeometry, tc.noGeometry)
			}
		})
	}
}

// TestTruncatedAndRandom: every prefix of a real GLB, and random bytes in
// every format, give an error or a valid mesh, never a panic.
func TestTruncatedAndRandom(t *testing.T) {
	for _, file := range []string{"glb/Box.glb", "glb/TwoCubes.glb", "stl/Cube_binary_solid_header.stl", "obj/cube_quads.obj", "gltf/TriangleWithoutIndices-Embedded.gltf"} {
		data, err := os.ReadFile(corpusPath(file))
		if err != nil {
			t.Fatal(err)
		}
		format := formatFromName(file)
		t.Run(file, func(t *testing.T) {
			for n := 0; n < len(data); n += 1 + n/16 {
				m, err := readBytes(data[:n], file, format, nil, DefaultReadOptions())
				if err == nil {
					if verr := validMesh(m); verr != nil {
						t.Fatalf("Read(%s[:%d]): %v", file, n, verr)
					}
				}
			}
		})
	}
	rng := rand.New(rand.NewSource(1))
	for _, format := range []Format{FormatOBJ, FormatSTL, FormatGLB, FormatGLTF} {
		t.Run("random "+format.String(), func(t *testing.T) {
			for i := 0; i < 200; i++ {
				data := make([]byte, rng.Intn(400))
				rng.Read(data)
				if i%2 == 0 && format == FormatGLB && len(data) >= 12 {
					copy(data, "glTF\x02\x00\x00\x00")
				}
				m, err := readBytes(data, "random."+format.String(), format, nil, DefaultReadOptions())
				if err == nil {
					if verr := validMesh(m); verr != nil {
						t.Fatalf("Read(random %d): %v", i, verr)
					}
				}
			}
		})
	}
}

// writeGLB saves doc as a GLB in a temp dir and returns its path.
func writeGLB(t *testing.T, doc *gltf.Document) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// triDoc returns a document with one triangle mesh (CCW about +z) on the
// given nodes.
func triDoc(pos [][3]float32, nodes ...*gltf.Node) *gltf.Document {
	doc := gltf.NewDocument()
	attrs, _ := modeler.WritePrimitiveAttributes(doc, modeler.PrimitiveAttribute{Name: gltf.POSITION, Data: pos})
	doc.Meshes = []*gltf.Mesh{{Name: "tri", Primitives: []*gltf.Primitive{{Attributes: attrs}}}}
	doc.Nodes = nodes
	doc.Scenes[0].Nodes = nil
	for i := range nodes {
		doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, i)
	}
	return doc
}

func TestGLTFNodes(t *testing.T) {
	tri := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	mirror := &gltf.Node{Mesh: gltf.Index(0), Scale: [3]float64{-1, 1, 1}, Rotation: [4]float64{0, 0, 0, 1}}
	moved := &gltf.Node{Mesh: gltf.Index(0), Translation: [3]float64{5, 0, 0}, Scale: [3]float64{1, 1, 1}, Rotation: [4]float64{0, 0, 0, 1}}
	t.Run("mirrored node keeps the facing", func(t *testing.T) {
		m, err := Read(writeGLB(t, triDoc(tri, mirror)), DefaultReadOptions())
		if err != nil {
			t.Fatal(err)
		}
		p := m.Primitives[0]
		a, b, c := p.Positions[p.Indices[0]], p.Positions[p.Indices[1]], p.Positions[p.Indices[2]]
		if n := b.Sub(a).Cross(c.Sub(a)); n.Z <= 0 {
			t.Errorf("mirrored triangle normal = %v, want +z (winding flipped back)", n)
		}
		if p.Positions[1].X != -1 {
			t.Errorf("mirrored vertex 1 = %v, want x = -1", p.Positions[1])
		}
	})
	t.Run("instancing gives two pieces", func(t *testing.T) {
		m, err := Read(writeGLB(t, triDoc(tri, &gltf.Node{Mesh: gltf.Index(0)}, moved)), DefaultReadOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Primitives) != 2 || m.SourceVertices != 6 {
			t.Fatalf("instanced mesh: %d primitives, %d source vertices, want 2, 6", len(m.Primitives), m.SourceVertices)
		}
		if x := m.Primitives[1].Positions[0].X; x != 5 {
			t.Errorf("second instance x = %g, want 5", x)
		}
		w, err := Weld(m, DefaultWeldOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Positions) != 6 {
			t.Errorf("Weld(instanced) verts = %d, want 6", len(w.Positions))
		}
		if m.gltf == nil || len(m.gltf.prims) != 2 || m.gltf.prims[1] != (gltfPrimRef{Node: 1, Mesh: 0, Primitive: 0}) {
			t.Errorf("gltf source refs = %+v, want 2 with the second on node 1", m.gltf)
		}
	})
	t.Run("hierarchy composes parent and child", func(t *testing.T) {
		parent := &gltf.Node{Children: []int{1}, Translation: [3]float64{0, 2, 0}, Scale: [3]float64{2, 2, 2}, Rotation: [4]float64{0, 0, 0, 1}}
		child := &gltf.Node{Mesh: gltf.Index(0), Translation: [3]float64{1, 0, 0}, Scale: [3]float64{1, 1, 1}, Rotation: [4]float64{0, 0, 0, 1}}
		doc := triDoc(tri, parent, child)
		doc.Scenes[0].Nodes = []int{0}
		m, err := Read(writeGLB(t, doc), DefaultReadOptions())
		if err != nil {
			t.Fatal(err)
		}
		// world = T(0,2,0) S(2) T(1,0,0): vertex (1,0,0) -> (4, 2, 0)
		if got := m.Primitives[0].Positions[1]; got != vec.V(4, 2, 0) {
			t.Errorf("child vertex = %v, want (4, 2, 0)", got)
		}
	})
	t.Run("cycle", func(t *testing.T) {
		a := &gltf.Node{Children: []int{1}}
		b := &gltf.Node{Children: []int{0}, Mesh: gltf.Index(0)}
		doc := triDoc(tri, a, b)
		doc.Scenes[0].Nodes = []int{0}
		_, err := Read(writeGLB(t, doc), DefaultReadOptions())
		if err == nil || !strings.Contains(err.Error(), "reached twice") {
			t.Errorf("Read(cycle) error = %v, want a hierarchy error", err)
		}
	})
	t.Run("nan position", func(t *testing.T) {
		nan := float32(math.NaN())
		doc := triDoc([][3]float32{{0, 0, 0}, {nan, 0, 0}, {0, 1, 0}}, &gltf.Node{Mesh: gltf.Index(0)})
		doc.Accessors[0].Min, doc.Accessors[0].Max = nil, nil // JSON cannot hold NaN
		_, err := Read(writeGLB(t, doc), DefaultReadOptions())
		if err == nil || !strings.Contains(err.Error(), "accessor 0") || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("Read(nan.glb) error = %v, want accessor 0 not finite", err)
		}
	})
	t.Run("quantized int16 normalized", func(t *testing.T) {
		doc := gltf.NewDocument()
		ai := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][3]int16{{0, 0, 0}, {32767, 0, 0}, {0, -32768, 0}})
		doc.Accessors[ai].Normalized = true
		doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: ai}}}}}
		doc.Nodes = []*gltf.Node{{Mesh: gltf.Index(0)}}
		doc.Scenes[0].Nodes = []int{0}
		doc.ExtensionsRequired = []string{"KHR_mesh_quantization"}
		doc.ExtensionsUsed = []string{"KHR_mesh_quantization"}
		m, err := Read(writeGLB(t, doc), DefaultReadOptions())
		if err != nil {
			t.Fatal(err)
		}
		p := m.Primitives[0].Positions
		if p[1] != vec.V(1, 0, 0) || p[2] != vec.V(0, -1, 0) {
			t.Errorf("normalized int16 positions = %v, want (1,0,0) and (0,-1,0)", p)
		}
	})
}

func TestMeshSelection(t *testing.T) {
	path := corpusPath("gltf/multiple-boxes-Embedded.gltf")
	_, err := Read(path, DefaultReadOptions())
	if err == nil || !strings.Contains(err.Error(), "--mesh") || !strings.Contains(err.Error(), "4 meshes") {
		t.Fatalf("Read(multiple-boxes) error = %v, want a list of 4 meshes and --mesh", err)
	}
	// the error lists the names; pick the first one
	name := err.Error()[strings.Index(err.Error(), "(\"")+2:]
	name = name[:strings.Index(name, "\"")]
	opt := DefaultReadOptions()
	opt.MeshName = name
	m, err := Read(path, opt)
	if err != nil {
		t.Fatalf("Read(multiple-boxes, --mesh %s): %v", name, err)
	}
	if m.NumTriangles() != 12 || m.Name != name {
		t.Errorf("Read(multiple-boxes, --mesh %s) = %q with %d tris, want 12", name, m.Name, m.NumTriangles())
	}
	opt.MeshName = "nope"
	if _, err := Read(path, opt); err == nil || !strings.Contains(err.Error(), `no mesh named "nope"`) {
		t.Errorf("Read(multiple-boxes, --mesh nope) error = %v", err)
	}
}

// pieces counts connected pieces of welded triangles.
func pieces(w *Welded) int {
	parent := make([]int32, len(w.Positions))
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	used := make([]bool, len(w.Positions))
	for _, t := range w.Triangles {
		for k := 0; k < 3; k++ {
			used[t[k]] = true
			a, b := find(t[k]), find(t[(k+1)%3])
			if a != b {
				parent[a] = b
			}
		}
	}
	n := 0
	for i := range parent {
		if used[i] && find(int32(i)) == int32(i) {
			n++
		}
	}
	return n
}

func TestWeld(t *testing.T) {
	opt := DefaultReadOptions()
	opt.AllMeshes = true
	for _, tc := range []struct {
		file               string
		verts, tris, parts int
	}{
		{"gltf/Box/Box.gltf", 8, 12, 1},
		{"glb/TwoCubes.glb", 16, 24, 2},
		{"gltf/multiple-boxes-Embedded.gltf", 32, 48, 4},
		{"glb/ShapeCollection.glb", 1781, 3542, 7},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := Read(corpusPath(tc.file), opt)
			if err != nil {
				t.Fatal(err)
			}
			w, err := Weld(m, DefaultWeldOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Positions) != tc.verts || len(w.Triangles) != tc.tris || pieces(w) != tc.parts {
				t.Errorf("Weld(%s) = %d verts, %d tris, %d pieces; want %d, %d, %d", tc.file, len(w.Positions), len(w.Triangles), pieces(w), tc.verts, tc.tris, tc.parts)
			}
		})
	}
	// tolerance: a gap of 1e-7 of the size welds at the default 1e-6, not at 1e-8
	tri := func(dx float64) Primitive {
		return Primitive{Positions: []vec.Vec3{{X: dx}, {X: 1 + dx}, {Y: 1}}, Indices: []int32{0, 1, 2}, Source: []int32{0, 1, 2}, Material: -1}
	}
	m := &Mesh{Path: "gap", Primitives: []Primitive{tri(0), tri(1e-7)}, SourceVertices: 3}
	for _, tc := range []struct {
		tol   float64
		verts int
	}{{1e-6, 3}, {1e-8, 5}, {0, 5}} {
		w, err := Weld(m, WeldOptions{Tolerance: tc.tol})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Positions) != tc.verts {
			t.Errorf("Weld(gap 1e-7, tolerance %g) verts = %d, want %d", tc.tol, len(w.Positions), tc.verts)
		}
	}
	// two triangles touching at one point share that vertex: one piece
	touch := &Mesh{Path: "touch", Primitives: []Primitive{
		{Positions: []vec.Vec3{{}, {X: 1}, {Y: 1}}, Indices: []int32{0, 1, 2}, Source: []int32{0, 1, 2}, Material: -1},
		{Positions: []vec.Vec3{{}, {X: -1}, {Y: -1}}, Indices: []int32{0, 1, 2}, Source: []int32{3, 4, 5}, Material: -1},
	}, SourceVertices: 6}
	w, err := Weld(touch, DefaultWeldOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Positions) != 5 || pieces(w) != 1 {
		t.Errorf("Weld(touching at a point) = %d verts, %d pieces, want 5, 1", len(w.Positions), pieces(w))
	}
	// zero-area (collinear) triangles are degenerate too
	line := &Mesh{Path: "line", Primitives: []Primitive{
		{Positions: []vec.Vec3{{}, {X: 1}, {X: 2}, {Y: 1}}, Indices: []int32{0, 1, 2, 0, 1, 3}, Source: []int32{0, 1, 2, 3}, Material: -1},
	}, SourceVertices: 4}
	if w, err := Weld(line, DefaultWeldOptions()); err != nil || w.Degenerate != 1 || len(w.Triangles) != 1 || w.TriangleSource[0] != 1 {
		t.Errorf("Weld(collinear) = %+v, %v; want 1 degenerate, triangle 1 kept", w, err)
	}
	if _, err := Weld(line, WeldOptions{Tolerance: -1}); err == nil || !strings.Contains(err.Error(), "tolerance") {
		t.Errorf("Weld(tolerance -1) error = %v, want a tolerance error", err)
	}
}
