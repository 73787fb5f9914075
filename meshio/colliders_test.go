package meshio

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// writeClothWithColliders writes a GLB holding a 3x3 cloth grid with a _PIN
// attribute on its top row, a box mesh on a node named COL_sphere_head at
// (0, 1, 0) scaled 0.25, an empty marked by extras as a capsule, and a
// mirrored box named COL_box.001. It returns the path.
func writeClothWithColliders(t *testing.T) string {
	t.Helper()
	doc := gltf.NewDocument()
	var grid [][3]float32
	var pin []float32
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			grid = append(grid, [3]float32{float32(j) - 1, 2, float32(i) - 1})
			w := float32(0)
			if i == 0 {
				w = 1
			}
			pin = append(pin, w)
		}
	}
	var idx []uint16
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			a := uint16(i*3 + j)
			idx = append(idx, a, a+3, a+1, a+1, a+3, a+4)
		}
	}
	addMesh(doc, "Cloth", grid, idx)
	doc.Meshes[0].Primitives[0].Attributes["_PIN"] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, pin)
	addMesh(doc, "Proxy", unitBox, unitBoxIdx)
	doc.Nodes = []*gltf.Node{
		{Name: "cloth", Mesh: gltf.Index(0)},
		{Name: "COL_sphere_head", Mesh: gltf.Index(1), Translation: [3]float64{0, 1, 0}, Scale: [3]float64{0.25, 0.25, 0.25}},
		{Name: "arm", Translation: [3]float64{2, 0, 0}, Extras: map[string]any{"drape": map[string]any{"collider": "capsule"}}},
		{Name: "COL_box.001", Mesh: gltf.Index(1), Scale: [3]float64{-1, 1, 1}, Translation: [3]float64{0, -3, 0}},
	}
	doc.Scenes[0].Nodes = []int{0, 1, 2, 3}
	path := filepath.Join(t.TempDir(), "cloth_and_body.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// unitBox and unitBoxIdx are the cube [-1, 1]³, outward wound.
var (
	unitBox    = [][3]float32{{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}}
	unitBoxIdx = []uint16{0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5}
)

// addGrid appends a 3x3-vertex cloth mesh "Cloth" to doc: a square of
// side 2·d at height y, centred on the Y axis.
func addGrid(doc *gltf.Document, y, d float32) {
	var grid [][3]float32
	for i := range 3 {
		for j := range 3 {
			grid = append(grid, [3]float32{d * float32(j-1), y, d * float32(i-1)})
		}
	}
	addMesh(doc, "Cloth", grid, []uint16{0, 3, 1, 1, 3, 4, 1, 4, 2, 2, 4, 5, 3, 6, 4, 4, 6, 7, 4, 7, 5, 5, 7, 8})
}

// addMesh appends a one-primitive indexed mesh to doc.
func addMesh(doc *gltf.Document, name string, pos [][3]float32, idx []uint16) {
	doc.Meshes = append(doc.Meshes, &gltf.Mesh{Name: name, Primitives: []*gltf.Primitive{{
		Indices:    gltf.Index(modeler.WriteIndices(doc, idx)),
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, pos)},
	}}})
}

func TestColliderNodesAndCustomAttributes(t *testing.T) {
	path := writeClothWithColliders(t)
	opt := DefaultReadOptions()
	opt.Scale = 2
	m, err := Read(path, opt)
	if err != nil {
		t.Fatalf("Read: %v (the collider nodes must not count as cloth candidates)", err)
	}
	if m.Name != "Cloth" || len(m.Primitives) != 1 {
		t.Errorf("cloth = %q with %d primitives, want Cloth with 1", m.Name, len(m.Primitives))
	}
	if got := m.Primitives[0].Attributes["_PIN"]; len(got) != 9 || got[0] != 1 || got[8] != 0 {
		t.Errorf("_PIN = %v, want 1 on the first row and 0 elsewhere", got)
	}
	want := []struct {
		name, kind string
	}{{"COL_sphere_head", "sphere"}, {"arm", "capsule"}, {"COL_box.001", "box"}}
	if len(m.Colliders) != len(want) {
		t.Fatalf("colliders = %d, want %d", len(m.Colliders), len(want))
	}
	for i, w := range want {
		c := m.Colliders[i]
		if c.Name != w.name || c.Kind != w.kind {
			t.Errorf("collider %d = %s %s, want %s %s", i, c.Name, c.Kind, w.name, w.kind)
		}
	}
	// the head's world transform includes the read scale: its centre is at
	// 2 x (0, 1, 0) and its size 2 x 0.25 x the unit box
	head := m.Colliders[0]
	if c := head.World.MulPoint(head.LocalMin.Add(head.LocalMax).Scale(0.5)); math.Abs(c.Y-2) > 1e-9 {
		t.Errorf("head centre = %v, want y = 2", c)
	}
	if top := head.World.MulPoint(head.LocalMax); math.Abs(top.Y-2.5) > 1e-9 {
		t.Errorf("head top = %v, want y = 2.5", top)
	}
	if len(head.Triangles) != 12 || len(m.Colliders[1].Local) != 0 {
		t.Errorf("head has %d triangles (want 12), the empty %d vertices (want 0)", len(head.Triangles), len(m.Colliders[1].Local))
	}
	// mirrored node: winding flipped so the mesh still faces outwards
	if m.Colliders[2].Triangles[0] != [3]int32{0, 1, 2} {
		t.Errorf("mirrored collider's first triangle = %v, want the winding flipped to {0 1 2}", m.Colliders[2].Triangles[0])
	}
	// inspect-style reads keep everything
	all := DefaultReadOptions()
	all.AllMeshes = true
	ma, err := Read(path, all)
	if err != nil || len(ma.Primitives) != 3 {
		t.Errorf("AllMeshes read = %v primitives, %v; want all 3 instances", len(ma.Primitives), err)
	}
}

func TestBadColliderExtras(t *testing.T) {
	doc := gltf.NewDocument()
	pos := modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	doc.Meshes = []*gltf.Mesh{{Name: "m", Primitives: []*gltf.Primitive{{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}}}}}
	doc.Nodes = []*gltf.Node{{Name: "n", Mesh: gltf.Index(0), Extras: map[string]any{"drape": map[string]any{"collider": "torus"}}}}
	doc.Scenes[0].Nodes = []int{0}
	path := filepath.Join(t.TempDir(), "bad.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path, DefaultReadOptions())
	if err == nil {
		t.Fatal("a node asking for a torus collider read without error")
	}
	for _, w := range []string{"bad.glb", "nodes[0]", "torus", "sphere"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}
