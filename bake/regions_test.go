package bake

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// writeSuitOBJ writes two 0.5 m squares (9 x 9 vertices) side by side at
// height 1 m, 1 m apart along X, the first with material "shirt" and the
// second "jeans"; with only the second (jeansOnly) it writes that square
// alone, at the same place. It returns the path.
func writeSuitOBJ(t *testing.T, dir string, jeansOnly bool) string {
	t.Helper()
	const n = 9
	var b strings.Builder
	b.WriteString("# two squares\n")
	first := 0
	if jeansOnly {
		first = 1
	}
	for k := first; k < 2; k++ {
		fmt.Fprintf(&b, "usemtl %s\n", []string{"shirt", "jeans"}[k])
		objGrid(&b, n, (k-first)*n*n+1, func(i, j int) vec.Vec3 {
			return vec.V(float64(k)+0.5*float64(j)/(n-1), 1, -0.25+0.5*float64(i)/(n-1))
		})
	}
	name := "suit.obj"
	if jeansOnly {
		name = "jeans.obj"
	}
	return writeOBJ(t, dir, name, b.String())
}

// suitScene bakes input for 12 frames, pinned along its squares' z = -0.25
// edges, into out.pc2.
func suitScene(t *testing.T, dir, input, out string, fabric FabricSpec, regions []RegionSpec) *Scene {
	t.Helper()
	sc := DefaultScene()
	sc.Input = input
	sc.Output = Outputs{filepath.Join(dir, out)}
	sc.Frames = 12
	sc.Substeps = 20
	sc.Thickness = 0.005
	sc.Fabric = fabric
	sc.Regions = regions
	sc.Pins = []PinSpec{{Box: []float64{-1, 0.9, -0.3, 3, 1.1, -0.2}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestMaterialRegionBakesLikeItsFabricAlone bakes a cotton shirt square and
// a jeans square in one bake, the jeans a region of denim selected by its
// material, and the jeans square alone in denim: the jeans must swing in
// the pair exactly as alone, and unlike the shirt.
func TestMaterialRegionBakesLikeItsFabricAlone(t *testing.T) {
	dir := t.TempDir()
	denim := FabricSpec{Preset: "denim"}
	pair := suitScene(t, dir, writeSuitOBJ(t, dir, false), "pair.pc2", FabricSpec{Preset: "cotton"},
		[]RegionSpec{{Material: ptr("jeans"), Fabric: denim}})
	rep, err := Run(context.Background(), pair, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Regions) != 1 || rep.Regions[0].Name != `material "jeans"` || rep.Regions[0].Triangles != 128 || rep.Regions[0].Fabric.Name != "denim" {
		t.Fatalf("report regions = %+v, want material \"jeans\" with 128 triangles of denim", rep.Regions)
	}
	// alone, denim as a region too: a bake with regions gives each stretch
	// limit the series compliance of its own edges, one without regions
	// the cloth's mean compliance per length times the limit's length
	// (close, not equal, for one fabric)
	alone := suitScene(t, dir, writeSuitOBJ(t, dir, true), "alone.pc2", denim,
		[]RegionSpec{{Material: ptr("jeans"), Fabric: denim}})
	if _, err := Run(context.Background(), alone, Options{}); err != nil {
		t.Fatal(err)
	}
	a, err := meshio.ReadPC2File(filepath.Join(dir, "pair.pc2"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := meshio.ReadPC2File(filepath.Join(dir, "alone.pc2"))
	if err != nil {
		t.Fatal(err)
	}
	last := len(a.Frames) - 1
	pa, pb := a.Frames[last], b.Frames[last]
	const n = 81
	worst, apart := 0.0, 0.0
	for i := range n {
		worst = math.Max(worst, pa[n+i].Sub(pb[i]).Len())
		// the shirt square moved onto the jeans square's place
		apart = math.Max(apart, pa[i].Add(vecX(1)).Sub(pa[n+i]).Len())
	}
	t.Logf("jeans in the pair vs alone: %.3g m at most; shirt vs jeans: %.4f m", worst, apart)
	if worst > 1e-6 {
		t.Errorf("the jeans square swings %.3g m away from itself baked alone in denim, want <= 1e-6", worst)
	}
	if apart < 0.01 {
		t.Errorf("shirt and jeans squares end %.4f m apart at most: the denim region is not felt (want >= 0.01 m)", apart)
	}
}

// TestRegionErrors checks the regions the cloth cannot satisfy: an unknown
// material (the message lists the file's), a piece it does not have, a box
// that holds no triangle, and a region's own friction.
func TestRegionErrors(t *testing.T) {
	dir := t.TempDir()
	input := writeSuitOBJ(t, dir, false)
	for _, tc := range []struct {
		name string
		r    RegionSpec
		want []string
	}{
		{"material", RegionSpec{Material: ptr("denim"), Fabric: FabricSpec{Preset: "denim"}},
			[]string{"suit.obj", `regions[0].material = "denim"`, `"shirt", "jeans"`}},
		{"piece", RegionSpec{Piece: ptr(2)}, []string{"regions[0].piece = 2", "2 pieces (0..1)", "drape inspect"}},
		{"box", RegionSpec{Box: []float64{5, 0, 0, 6, 2, 1}}, []string{"regions[0] (box", "selects no triangle"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := suitScene(t, dir, input, "x.pc2", FabricSpec{}, []RegionSpec{tc.r})
			_, err := Prepare(sc, Options{})
			if err == nil || ExitCode(err) != ExitBadInput {
				t.Fatalf("Prepare = %v, want a bad-input error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// a piece and a box that do select: the second square
	for _, r := range []RegionSpec{{Piece: ptr(1)}, {Box: []float64{0.9, 0.9, -1, 2, 1.1, 1}}} {
		sc := suitScene(t, dir, input, "x.pc2", FabricSpec{}, []RegionSpec{r})
		j, err := Prepare(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(j.Regions) != 1 || j.Regions[0].Triangles != 128 {
			t.Errorf("region %+v: %+v, want 128 triangles", r, j.Regions)
		}
	}
}

// TestGLTFMaterialRegion selects a region by a glTF material name: one
// mesh of two primitives, two squares drawn with materials "Shirt" and
// "Jeans".
func TestGLTFMaterialRegion(t *testing.T) {
	doc := gltf.NewDocument()
	const n = 5
	square := func(x0 float32) [][3]float32 {
		var p [][3]float32
		for i := range n {
			for j := range n {
				p = append(p, [3]float32{x0 + 0.5*float32(j)/(n-1), 1, 0.5 * float32(i) / (n - 1)})
			}
		}
		return p
	}
	var idx []uint16
	for i := range n - 1 {
		for j := range n - 1 {
			a := uint16(i*n + j)
			idx = append(idx, a, a+n, a+1, a+1, a+n, a+n+1)
		}
	}
	doc.Materials = []*gltf.Material{{Name: "Shirt"}, {Name: "Jeans"}}
	var prims []*gltf.Primitive
	for k, x0 := range []float32{0, 1} {
		prims = append(prims, &gltf.Primitive{Indices: gltf.Index(modeler.WriteIndices(doc, idx)), Material: gltf.Index(k),
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, square(x0))}})
	}
	doc.Meshes = []*gltf.Mesh{{Name: "Suit", Primitives: prims}}
	doc.Nodes = []*gltf.Node{{Name: "suit", Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	path := filepath.Join(t.TempDir(), "suit.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	sc := DefaultScene()
	sc.Input = path
	sc.Frames = 2
	sc.Regions = []RegionSpec{{Material: ptr("Jeans"), Fabric: FabricSpec{Preset: "leather"}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Regions) != 1 || j.Regions[0].Triangles != 32 || j.Regions[0].Fabric.Name != "leather" {
		t.Fatalf("regions = %+v, want the 32 triangles of the Jeans square in leather", j.Regions)
	}
	for _, tr := range j.Params.Regions[0].Tris {
		for _, v := range j.Welded.Triangles[tr] {
			if x := j.Welded.Positions[v].X; x < 0.99 {
				t.Fatalf("region triangle %d has a vertex at x = %g, not on the Jeans square (x >= 1)", tr, x)
			}
		}
	}
}
