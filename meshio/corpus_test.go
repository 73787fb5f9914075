package meshio

import (
	"errors"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusCase is one row of testdata/corpus/README.md (the shared corpus
// MANIFEST): counts after an exact-position weld.
type corpusCase struct {
	file         string
	rawV, rawT   int // SourceVertices and triangles as read
	weldV        int
	bnd, nm, deg int
	extent       [3]float64
	note         string
}

var corpusCases = []corpusCase{
	{file: "gltf/Box/Box.gltf", rawV: 24, rawT: 12, weldV: 8, extent: [3]float64{1, 1, 1}},
	{file: "gltf/BoxInterleaved/BoxInterleaved.gltf", rawV: 24, rawT: 12, weldV: 8, extent: [3]float64{1, 1, 1}},
	{file: "gltf/Triangle/Triangle.gltf", rawV: 3, rawT: 1, weldV: 3, bnd: 3, extent: [3]float64{1, 1, 0}},
	{file: "gltf/TriangleWithoutIndices-Embedded.gltf", rawV: 3, rawT: 1, weldV: 3, bnd: 3, extent: [3]float64{1, 1, 0}},
	{file: "gltf/SimpleSparseAccessor-Embedded.gltf", rawV: 14, rawT: 12, weldV: 14, bnd: 14, extent: [3]float64{6, 4, 0}, note: "y extent is 4 only with the sparse overrides"},
	{file: "gltf/SimpleMorph/SimpleMorph.gltf", rawV: 3, rawT: 1, weldV: 3, bnd: 3, extent: [3]float64{1, 0.5, 0}},
	{file: "gltf/MorphPrimitivesTest/MorphPrimitivesTest.gltf", rawV: 30, rawT: 32, weldV: 25, bnd: 16, extent: [3]float64{1, 0, 1}},
	{file: "gltf/Avocado/Avocado.gltf", rawV: 406, rawT: 682, weldV: 363, bnd: 38, extent: [3]float64{0.0426, 0.0629, 0.0276}},
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_04.gltf", rawV: 4, rawT: 2, weldV: 4, bnd: 4, extent: [3]float64{1, 1, 0}},
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_12.gltf", rawV: 4, rawT: 2, weldV: 4, bnd: 4, extent: [3]float64{1, 1, 0}},
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_14.gltf", rawV: 4, rawT: 2, weldV: 4, bnd: 4, extent: [3]float64{1, 1, 0}},
	{file: "gltf/Plane/01_plane.gltf", rawV: 4, rawT: 2, weldV: 4, bnd: 4, extent: [3]float64{2, 0, 2}},
	{file: "gltf/multiple-boxes-Embedded.gltf", rawV: 96, rawT: 48, weldV: 32, extent: [3]float64{10, 2, 10}},
	{file: "gltf/meshopt-fallback-quantized/meshopt-fallback.gltf", rawV: 50, rawT: 60, weldV: 34, extent: [3]float64{2, 4.7116, 2}, note: "uint16 positions de-quantized by the node scale; fallback buffer"},
	{file: "glb/Box.glb", rawV: 24, rawT: 12, weldV: 8, extent: [3]float64{1, 1, 1}},
	{file: "glb/Duck.glb", rawV: 2399, rawT: 4212, weldV: 2108, extent: [3]float64{1.6548, 1.5404, 1.1525}},
	{file: "glb/BoxVertexColors.glb", rawV: 24, rawT: 12, weldV: 8, extent: [3]float64{1, 1, 1}},
	{file: "glb/box_sparse.glb", rawV: 8, rawT: 12, weldV: 8, extent: [3]float64{1, 1, 1}},
	{file: "glb/TwoCubes.glb", rawV: 48, rawT: 24, weldV: 16, extent: [3]float64{6, 2, 2}},
	{file: "glb/ShapeCollection.glb", rawV: 7176, rawT: 3542, weldV: 1781, extent: [3]float64{14.5, 2, 2.5}},
	{file: "obj/spot.obj", rawV: 2930, rawT: 5856, weldV: 2930, extent: [3]float64{0.9431, 1.6904, 1.7179}},
	// The manifest welds all 76 `v` lines (29 positions); one position is
	// used by no face, and Weld only sees vertices that faces use.
	{file: "obj/cornell_box/cornell_box.obj", rawV: 76, rawT: 36, weldV: 28, bnd: 8, extent: [3]float64{556, 548.8, 559.2}},
	{file: "obj/cube_groups/cube.obj", rawV: 8, rawT: 12, weldV: 8, extent: [3]float64{2, 2, 2}},
	{file: "obj/cube_quads.obj", rawV: 8, rawT: 12, weldV: 8, extent: [3]float64{1, 1, 1}},
	{file: "obj/octagon.obj", rawV: 8, rawT: 6, weldV: 8, bnd: 8, extent: [3]float64{3, 3, 4}},
	// The manifest's 63 boundary and 2 non-manifold edges describe the fan
	// split, which overlaps itself. Ear clipping gives 64 triangles covering
	// the face once: the doubled bridge edge 31-32 becomes interior, so the
	// boundary is the 64 other edges of the 66-corner loop and nothing is
	// non-manifold.
	{file: "obj/concave_polygon/concave_polygon.obj", rawV: 64, rawT: 64, weldV: 64, bnd: 64, nm: 0, extent: [3]float64{0, 1.485, 1.485}, note: "ear clipping differs from the manifest's fan split (63/2)"},
	{file: "obj/catmark_torus_creases0.obj", rawV: 32, rawT: 64, weldV: 32, extent: [3]float64{2.501, 2.501, 0.7071}},
	{file: "obj/non_manifold_wrap.obj", rawV: 10, rawT: 12, weldV: 10, bnd: 8, nm: 1, extent: [3]float64{2, 2, 2}},
	// Vertex 5 is used by no face: the manifest's 6 welded vertices and
	// extent [0.659, 4.1281, 0] include it; the mesh as read does not.
	{file: "obj/deg_faces.obj", rawV: 6, rawT: 4, weldV: 5, bnd: 5, deg: 1, extent: [3]float64{0.219, 1.1481, 0}, note: "unused vertex 5 excluded"},
	{file: "stl/triangle_ascii.stl", rawV: 3, rawT: 1, weldV: 3, bnd: 3, extent: [3]float64{2, 2, 0}},
	{file: "stl/triangle_with_two_solids.stl", rawV: 6, rawT: 2, weldV: 6, bnd: 6, extent: [3]float64{4, 4, 0}},
	{file: "stl/sphereWithHole_ascii.stl", rawV: 855, rawT: 285, weldV: 146, bnd: 9, extent: [3]float64{3, 3, 3}},
	{file: "stl/Spider_binary.stl", rawV: 4104, rawT: 1368, weldV: 722, bnd: 72, deg: 56, extent: [3]float64{6.2298, 8, 3.2987}},
	{file: "stl/Cube_binary_solid_header.stl", rawV: 36, rawT: 12, weldV: 8, extent: [3]float64{2, 2, 2}},
	{file: "stl/HalfDonut_binary_solid_header.stl", rawV: 864, rawT: 288, weldV: 144, extent: [3]float64{3, 0.5, 3}},
	// The manifest's 286 facets and 4 boundary edges come from a reader that
	// skipped the two facets written in upper case (FACET ... ENDFACET).
	// Keywords are case-insensitive: all 288 facets read and the half donut
	// is closed, like its binary twin.
	{file: "stl/HalfDonut_ascii.stl", rawV: 864, rawT: 288, weldV: 144, bnd: 0, extent: [3]float64{3, 0.5, 3}, note: "upper-case facets read"},
	{file: "stl/test_sphere_binary.stl", rawV: 672, rawT: 224, weldV: 114, extent: [3]float64{2, 2, 2}},
	{file: "garments/table/table2.obj", rawV: 512, rawT: 1020, weldV: 512, extent: [3]float64{1, 0.01, 1}},
	{file: "garments/diffcloth/flag001.obj", rawV: 540, rawT: 1026, weldV: 540, bnd: 52, extent: [3]float64{334.2, 432.3, 192.6}},
}

// edgeStats counts boundary (one triangle) and non-manifold (more than two)
// edges of welded triangles: a small independent check of the weld, kept
// here so meshio tests do not depend on solver.
func edgeStats(tris [][3]int32) (boundary, nonManifold int) {
	type edge struct{ a, b int32 }
	count := map[edge]int{}
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			count[edge{a, b}]++
		}
	}
	for _, c := range count {
		switch {
		case c == 1:
			boundary++
		case c > 2:
			nonManifold++
		}
	}
	return boundary, nonManifold
}

func corpusPath(file string) string {
	return filepath.Join("testdata", "corpus", filepath.FromSlash(file))
}

func TestCorpus(t *testing.T) {
	for _, c := range corpusCases {
		t.Run(c.file, func(t *testing.T) {
			opt := DefaultReadOptions()
			opt.AllMeshes = true
			m, err := Read(corpusPath(c.file), opt)
			if err != nil {
				t.Fatalf("Read(%s): %v", c.file, err)
			}
			checkMesh(t, c.file, m)
			if m.SourceVertices != c.rawV {
				t.Errorf("Read(%s) source vertices = %d, want %d", c.file, m.SourceVertices, c.rawV)
			}
			if got := m.NumTriangles(); got != c.rawT {
				t.Errorf("Read(%s) triangles = %d, want %d", c.file, got, c.rawT)
			}
			lo, hi := m.Bounds()
			ext := hi.Sub(lo)
			for k := 0; k < 3; k++ {
				if math.Abs(ext.Get(k)-c.extent[k]) > 1e-3*math.Max(1, c.extent[k]) {
					t.Errorf("Read(%s) extent = %.4f, want %v (%s)", c.file, ext, c.extent, c.note)
					break
				}
			}
			w, err := Weld(m, WeldOptions{Tolerance: 0})
			if err != nil {
				t.Fatalf("Weld(%s): %v", c.file, err)
			}
			checkWelded(t, c.file, m, w)
			if len(w.Positions) != c.weldV {
				t.Errorf("Weld(%s) verts = %d, want %d", c.file, len(w.Positions), c.weldV)
			}
			if w.Degenerate != c.deg {
				t.Errorf("Weld(%s) degenerate = %d, want %d", c.file, w.Degenerate, c.deg)
			}
			if got := len(w.Triangles) + w.Degenerate; got != c.rawT {
				t.Errorf("Weld(%s) triangles + degenerate = %d, want %d", c.file, got, c.rawT)
			}
			b, nm := edgeStats(w.Triangles)
			if b != c.bnd || nm != c.nm {
				t.Errorf("Weld(%s) boundary/non-manifold edges = %d/%d, want %d/%d (%s)", c.file, b, nm, c.bnd, c.nm, c.note)
			}
			// the default relative tolerance gives the same weld here
			wd, err := Weld(m, DefaultWeldOptions())
			if err != nil {
				t.Fatalf("Weld(%s, default): %v", c.file, err)
			}
			if len(wd.Positions) != c.weldV {
				t.Errorf("Weld(%s, default tolerance) verts = %d, want %d", c.file, len(wd.Positions), c.weldV)
			}
		})
	}
}

// checkMesh verifies the invariants every successful Read guarantees.
func checkMesh(t *testing.T, name string, m *Mesh) {
	t.Helper()
	if len(m.Primitives) == 0 {
		t.Fatalf("Read(%s) has no primitives", name)
	}
	for pi, p := range m.Primitives {
		nv := int32(len(p.Positions))
		if len(p.Indices)%3 != 0 {
			t.Errorf("Read(%s) primitive %d has %d indices, not a multiple of 3", name, pi, len(p.Indices))
		}
		for _, ix := range p.Indices {
			if ix < 0 || ix >= nv {
				t.Fatalf("Read(%s) primitive %d index %d out of range (%d vertices)", name, pi, ix, nv)
			}
		}
		for i, q := range p.Positions {
			if !q.IsFinite() {
				t.Fatalf("Read(%s) primitive %d vertex %d = %v, not finite", name, pi, i, q)
			}
		}
		if len(p.Source) != len(p.Positions) {
			t.Errorf("Read(%s) primitive %d has %d Source entries for %d vertices", name, pi, len(p.Source), nv)
		}
		for _, s := range p.Source {
			if s < 0 || int(s) >= m.SourceVertices {
				t.Fatalf("Read(%s) primitive %d source %d out of range (%d)", name, pi, s, m.SourceVertices)
			}
		}
		if p.Normals != nil && len(p.Normals) != len(p.Positions) {
			t.Errorf("Read(%s) primitive %d has %d normals for %d vertices", name, pi, len(p.Normals), nv)
		}
		if p.UVs != nil && len(p.UVs) != len(p.Positions) {
			t.Errorf("Read(%s) primitive %d has %d UVs for %d vertices", name, pi, len(p.UVs), nv)
		}
	}
}

// checkWelded verifies the maps of a Welded.
func checkWelded(t *testing.T, name string, m *Mesh, w *Welded) {
	t.Helper()
	if len(w.RenderToSim) != m.NumVertices() {
		t.Fatalf("Weld(%s) RenderToSim has %d entries, want %d", name, len(w.RenderToSim), m.NumVertices())
	}
	ns := int32(len(w.Positions))
	for r, s := range w.RenderToSim {
		if s < 0 || s >= ns {
			t.Fatalf("Weld(%s) RenderToSim[%d] = %d out of range", name, r, s)
		}
	}
	for i, tri := range w.Triangles {
		for _, s := range tri {
			if s < 0 || s >= ns {
				t.Fatalf("Weld(%s) triangle %d = %v out of range", name, i, tri)
			}
		}
		if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
			t.Fatalf("Weld(%s) triangle %d = %v is degenerate", name, i, tri)
		}
	}
	if len(w.TriangleSource) != len(w.Triangles) {
		t.Fatalf("Weld(%s) TriangleSource has %d entries for %d triangles", name, len(w.TriangleSource), len(w.Triangles))
	}
	if n := len(w.PrimitiveStart); n != len(m.Primitives)+1 || w.PrimitiveStart[n-1] != int32(m.NumVertices()) {
		t.Fatalf("Weld(%s) PrimitiveStart = %v for %d primitives", name, w.PrimitiveStart, len(m.Primitives))
	}
	// every render vertex lies within the tolerance of its sim vertex
	r := 0
	for _, p := range m.Primitives {
		for _, q := range p.Positions {
			if d := q.Sub(w.Positions[w.RenderToSim[r]]).Len(); d > w.Tolerance {
				t.Fatalf("Weld(%s) render vertex %d is %g from its sim vertex (tolerance %g)", name, r, d, w.Tolerance)
			}
			r++
		}
	}
}

// invalidCase is a corpus file that must give a clean error.
type invalidCase struct {
	file        string
	unsupported bool     // errors.Is(err, ErrUnsupported)
	noGeometry  bool     // errors.Is(err, ErrNoGeometry)
	want        []string // substrings of the message
}

var invalidCases = []invalidCase{
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_01.gltf", noGeometry: true, want: []string{"no triangle primitives", "LINES"}},
	{file: "invalid/glb_invalid_magic.glb", want: []string{"header", "glTF"}},
	{file: "invalid/glb_truncated_chunk_data.glb", want: []string{"truncated", "48", "47"}},
	{file: "invalid/json_invalid_syntax.gltf", want: []string{"invalid JSON"}},
	{file: "invalid/index_buffer_oob/index_buffer_oob.gltf", want: []string{"accessor", "index 5", "out of range", "4 vertices"}},
	{file: "invalid/buffer_not_found.gltf", want: []string{"not_found.bin"}},
	{file: "invalid/primitive_no_position.gltf", want: []string{"meshes[0].primitives[0]", "POSITION"}},
	{file: "invalid/Box_Draco.glb", unsupported: true, want: []string{"KHR_draco_mesh_compression"}},
	{file: "invalid/BoxDraco_not_required/BoxDraco.gltf", unsupported: true, want: []string{"Draco", "meshes[0].primitives[0]"}},
	{file: "invalid/BoxMeshopt_quantized.glb", unsupported: true, want: []string{"EXT_meshopt_compression"}},
	{file: "invalid/ACMEBox_unknown_required_ext/ACMEBox.gltf", unsupported: true, want: []string{"ACME_gizmo"}},
	{file: "invalid/box_gltf1.0-Embedded.gltf", unsupported: true, want: []string{"glTF 1.0 is not supported", "convert to 2.0"}},
	{file: "invalid/empty.obj", noGeometry: true, want: []string{"no vertices"}},
	{file: "invalid/malformed.obj", want: []string{"line", "out of range"}},
	{file: "invalid/inf_nan.obj", want: []string{"line 1", "not finite"}},
}

func TestCorpusInvalid(t *testing.T) {
	for _, c := range invalidCases {
		t.Run(c.file, func(t *testing.T) {
			p := corpusPath(c.file)
			m, err := Read(p, DefaultReadOptions())
			if err == nil {
				t.Fatalf("Read(%s) = %d triangles, want an error", c.file, m.NumTriangles())
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Read(%s) error %T %q is not a *ParseError", c.file, err, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, p) {
				t.Errorf("Read(%s) error %q does not name the file", c.file, msg)
			}
			for _, s := range c.want {
				if !strings.Contains(msg, s) {
					t.Errorf("Read(%s) error %q does not mention %q", c.file, msg, s)
				}
			}
			if got := errors.Is(err, ErrUnsupported); got != c.unsupported {
				t.Errorf("Read(%s) errors.Is(ErrUnsupported) = %v, want %v (%q)", c.file, got, c.unsupported, msg)
			}
			if got := errors.Is(err, ErrNoGeometry); got != c.noGeometry {
				t.Errorf("Read(%s) errors.Is(ErrNoGeometry) = %v, want %v (%q)", c.file, got, c.noGeometry, msg)
			}
		})
	}
}

// TestCorpusDegenerateMesh: invalid/degenerate_mesh.obj reads (one
// triangle) but welds to one vertex and no triangle.
func TestCorpusDegenerateMesh(t *testing.T) {
	m, err := Read(corpusPath("invalid/degenerate_mesh.obj"), DefaultReadOptions())
	if err != nil {
		t.Fatalf("Read(degenerate_mesh.obj): %v", err)
	}
	if m.SourceVertices != 3 || m.NumTriangles() != 1 {
		t.Errorf("Read(degenerate_mesh.obj) = %d v, %d tris, want 3, 1", m.SourceVertices, m.NumTriangles())
	}
	_, err = Weld(m, DefaultWeldOptions())
	if !errors.Is(err, ErrNoGeometry) {
		t.Fatalf("Weld(degenerate_mesh.obj) error = %v, want ErrNoGeometry", err)
	}
	if !strings.Contains(err.Error(), "degenerate_mesh.obj") || !strings.Contains(err.Error(), "1 are degenerate") {
		t.Errorf("Weld(degenerate_mesh.obj) error %q should name the file and the degenerate count", err)
	}
}

// TestCorpusComplete checks that every model file in testdata/corpus is in
// one of the tables above, so a copied file cannot go untested.
func TestCorpusComplete(t *testing.T) {
	known := map[string]bool{"invalid/degenerate_mesh.obj": true}
	for _, c := range corpusCases {
		known[c.file] = true
	}
	for _, c := range invalidCases {
		known[c.file] = true
	}
	var missing []string
	for _, pat := range []string{"*/*", "*/*/*", "*/*/*/*"} {
		files, err := filepath.Glob(filepath.Join("testdata", "corpus", pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if formatFromName(f) == FormatInvalid {
				continue
			}
			rel, _ := filepath.Rel(filepath.Join("testdata", "corpus"), f)
			if !known[filepath.ToSlash(rel)] {
				missing = append(missing, rel)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("corpus files without a test row: %v", missing)
	}
}
