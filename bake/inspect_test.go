package bake

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateInspect = flag.Bool("update", false, "rewrite the inspect golden files")

// inspectGolden lists the meshes in testdata/inspect with a golden report.
var inspectGolden = []string{
	"Box.glb",
	"TwoCubes.glb",
	"Avocado/Avocado.gltf",
	"non_manifold_wrap.obj",
	"deg_faces.obj",
	"Cube_binary_solid_header.stl",
}

func TestInspectGolden(t *testing.T) {
	for _, name := range inspectGolden {
		t.Run(name, func(t *testing.T) {
			path := filepath.ToSlash(filepath.Join("testdata", "inspect", name))
			r, err := Inspect(path, DefaultInspectOptions())
			if err != nil {
				t.Fatalf("Inspect(%s): %v", name, err)
			}
			got, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "inspect", strings.ReplaceAll(name, "/", "_")+".golden.json")
			if *updateInspect {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./bake -run Inspect -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Inspect(%s) JSON differs from %s:\ngot:\n%s\nwant:\n%s", name, golden, got, want)
			}
		})
	}
}

func TestInspectText(t *testing.T) {
	r, err := Inspect("testdata/inspect/TwoCubes.glb", DefaultInspectOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.WriteText(&b)
	for _, s := range []string{"welded vertices:    16", "pieces:             2", "closed, genus 0", "extent:             6 x 2 x 2 m", "surface area:       48 m²"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("Inspect(TwoCubes.glb).WriteText lacks %q:\n%s", s, b.String())
		}
	}
}

// corpusDir is meshio's copy of the shared corpus (with its attribution in
// README.md); bake reads it rather than keeping a second copy.
const corpusDir = "../meshio/testdata/corpus"

// corpusTopology lists, for every corpus mesh that loads, the boundary and
// non-manifold edge counts of MANIFEST.md (after welding, all meshes of the
// file) and whether it is closed.
var corpusTopology = []struct {
	file    string
	bnd, nm int
	pieces  int
	note    string
}{
	{file: "gltf/Box/Box.gltf", pieces: 1},
	{file: "gltf/BoxInterleaved/BoxInterleaved.gltf", pieces: 1},
	{file: "gltf/Triangle/Triangle.gltf", bnd: 3, pieces: 1},
	{file: "gltf/TriangleWithoutIndices-Embedded.gltf", bnd: 3, pieces: 1},
	{file: "gltf/SimpleSparseAccessor-Embedded.gltf", bnd: 14, pieces: 1},
	{file: "gltf/SimpleMorph/SimpleMorph.gltf", bnd: 3, pieces: 1},
	{file: "gltf/MorphPrimitivesTest/MorphPrimitivesTest.gltf", bnd: 16, pieces: 1},
	{file: "gltf/Avocado/Avocado.gltf", bnd: 38, pieces: -1},
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_04.gltf", bnd: 4, pieces: 1},
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_12.gltf", bnd: 4, pieces: 1},
	{file: "gltf/PrimitiveModes/Mesh_PrimitiveMode_14.gltf", bnd: 4, pieces: 1},
	{file: "gltf/Plane/01_plane.gltf", bnd: 4, pieces: 1},
	{file: "gltf/multiple-boxes-Embedded.gltf", pieces: 4},
	{file: "gltf/meshopt-fallback-quantized/meshopt-fallback.gltf", pieces: -1},
	{file: "glb/Box.glb", pieces: 1},
	{file: "glb/Duck.glb", pieces: -1},
	{file: "glb/BoxVertexColors.glb", pieces: 1},
	{file: "glb/box_sparse.glb", pieces: 1},
	{file: "glb/TwoCubes.glb", pieces: 2},
	{file: "glb/ShapeCollection.glb", pieces: 7},
	{file: "obj/spot.obj", pieces: 1},
	{file: "obj/cornell_box/cornell_box.obj", bnd: 8, pieces: -1},
	{file: "obj/cube_groups/cube.obj", pieces: 1},
	{file: "obj/cube_quads.obj", pieces: 1},
	{file: "obj/octagon.obj", bnd: 8, pieces: 1},
	{file: "obj/concave_polygon/concave_polygon.obj", bnd: 64, nm: 0, pieces: 1, note: "manifest 63/2 is the overlapping fan split; ear clipping covers the keyhole once"},
	{file: "obj/catmark_torus_creases0.obj", pieces: 1},
	{file: "obj/non_manifold_wrap.obj", bnd: 8, nm: 1, pieces: -1},
	{file: "obj/deg_faces.obj", bnd: 5, pieces: -1},
	{file: "stl/triangle_ascii.stl", bnd: 3, pieces: 1},
	{file: "stl/triangle_with_two_solids.stl", bnd: 6, pieces: 2},
	{file: "stl/sphereWithHole_ascii.stl", bnd: 9, pieces: 1},
	{file: "stl/Spider_binary.stl", bnd: 72, pieces: -1},
	{file: "stl/Cube_binary_solid_header.stl", pieces: 1},
	{file: "stl/HalfDonut_binary_solid_header.stl", pieces: 1},
	{file: "stl/HalfDonut_ascii.stl", bnd: 0, pieces: 1, note: "manifest 4 boundary edges: its reader skipped the two upper-case facets"},
	{file: "stl/test_sphere_binary.stl", pieces: 1},
	{file: "garments/table/table2.obj", pieces: 1},
	{file: "garments/diffcloth/flag001.obj", bnd: 52, pieces: 1},
}

// TestInspectCorpus checks the manifest's boundary and non-manifold counts
// for every corpus mesh, and V - E + F = 2 - 2g with an integer g >= 0 for
// every closed piece.
func TestInspectCorpus(t *testing.T) {
	for _, c := range corpusTopology {
		t.Run(c.file, func(t *testing.T) {
			r, err := Inspect(filepath.Join(corpusDir, filepath.FromSlash(c.file)), InspectOptions{Up: AxisY, Scale: 1, Weld: 0})
			if err != nil {
				t.Fatalf("Inspect(%s): %v", c.file, err)
			}
			if r.BoundaryEdges != c.bnd || r.NonManifoldEdges != c.nm {
				t.Errorf("Inspect(%s) boundary/non-manifold = %d/%d, want %d/%d %s", c.file, r.BoundaryEdges, r.NonManifoldEdges, c.bnd, c.nm, c.note)
			}
			if c.pieces >= 0 && r.Pieces != c.pieces {
				t.Errorf("Inspect(%s) pieces = %d, want %d", c.file, r.Pieces, c.pieces)
			}
			if len(r.PieceStats) != r.Pieces {
				t.Fatalf("Inspect(%s) has %d piece stats for %d pieces", c.file, len(r.PieceStats), r.Pieces)
			}
			sumV, sumE, sumF, sumB := 0, 0, 0, 0
			for i, p := range r.PieceStats {
				sumV, sumE, sumF, sumB = sumV+p.Vertices, sumE+p.Edges, sumF+p.Triangles, sumB+p.BoundaryEdges
				if !p.Closed {
					continue
				}
				chi := p.Vertices - p.Edges + p.Triangles
				if chi > 2 || (2-chi)%2 != 0 || p.Genus != (2-chi)/2 {
					t.Errorf("Inspect(%s) closed piece %d: V - E + F = %d - %d + %d = %d, not 2 - 2g for an integer g >= 0 (genus %d)", c.file, i, p.Vertices, p.Edges, p.Triangles, chi, p.Genus)
				}
				if 2*p.Edges != 3*p.Triangles {
					t.Errorf("Inspect(%s) closed piece %d: 2E = %d, 3F = %d", c.file, i, 2*p.Edges, 3*p.Triangles)
				}
			}
			if sumV != r.WeldedVertices && c.file != "obj/deg_faces.obj" {
				t.Errorf("Inspect(%s) piece vertices sum to %d, want %d", c.file, sumV, r.WeldedVertices)
			}
			if sumE != r.Edges || sumF != r.Triangles || sumB != r.BoundaryEdges {
				t.Errorf("Inspect(%s) pieces sum to E %d F %d B %d, want %d %d %d", c.file, sumE, sumF, sumB, r.Edges, r.Triangles, r.BoundaryEdges)
			}
		})
	}
	// the Box: 8 V, 18 E, 12 F, genus 0
	r, err := Inspect(filepath.Join(corpusDir, "gltf/Box/Box.gltf"), DefaultInspectOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p := r.PieceStats[0]; r.Pieces != 1 || p.Vertices != 8 || p.Edges != 18 || p.Triangles != 12 || p.Genus != 0 {
		t.Errorf("Inspect(Box.gltf) = %+v, want one closed piece 8 V, 18 E, 12 F, genus 0", r.PieceStats)
	}
}

func TestInspectErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"invalid/Box_Draco.glb", "KHR_draco_mesh_compression"},
		{"invalid/degenerate_mesh.obj", "degenerate"},
		{"invalid/empty.obj", "no vertices"},
	} {
		_, err := Inspect(filepath.Join(corpusDir, c.file), DefaultInspectOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Base(c.file)) {
			t.Errorf("Inspect(%s) error = %v, want one naming the file and %q", c.file, err, c.want)
		}
	}
}
