package meshio

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// TestGLTFLinePrimitives reads line primitives of the cloth mesh as loose
// edges by position: LINES in pairs, LINE_STRIP through its vertices,
// LINE_LOOP closed, each through the node's transform; a LINES primitive
// with an odd index count is an error naming it.
func TestGLTFLinePrimitives(t *testing.T) {
	tri := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	pts := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	write := func(mode gltf.PrimitiveMode, idx []uint16) string {
		doc := gltf.NewDocument()
		addMesh(doc, "Cloth", tri, []uint16{0, 1, 2})
		lp := &gltf.Primitive{Mode: mode, Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, pts)}}
		if idx != nil {
			lp.Indices = gltf.Index(modeler.WriteIndices(doc, idx))
		}
		doc.Meshes[0].Primitives = append(doc.Meshes[0].Primitives, lp)
		doc.Nodes = []*gltf.Node{{Name: "cloth", Mesh: gltf.Index(0), Translation: [3]float64{0, 2, 0}}}
		doc.Scenes[0].Nodes = []int{0}
		path := filepath.Join(t.TempDir(), "lines.glb")
		if err := gltf.SaveBinary(doc, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		mode gltf.PrimitiveMode
		idx  []uint16
		want string
	}{
		{gltf.PrimitiveLines, []uint16{0, 1, 1, 2}, "[[{0 2 0} {1 2 0}] [{1 2 0} {0 3 0}]]"},
		{gltf.PrimitiveLineStrip, nil, "[[{0 2 0} {1 2 0}] [{1 2 0} {0 3 0}]]"},
		{gltf.PrimitiveLineLoop, nil, "[[{0 2 0} {1 2 0}] [{1 2 0} {0 3 0}] [{0 3 0} {0 2 0}]]"},
	} {
		m, err := Read(write(tc.mode, tc.idx), DefaultReadOptions())
		if err != nil {
			t.Fatalf("%v: %v", tc.mode, err)
		}
		if got := fmt.Sprint(m.LineSegments); got != tc.want || m.NumTriangles() != 1 {
			t.Errorf("%v: loose edges %s (%d triangles), want %s and the one triangle", tc.mode, got, m.NumTriangles(), tc.want)
		}
	}
	_, err := Read(write(gltf.PrimitiveLines, []uint16{0, 1, 2}), DefaultReadOptions())
	if err == nil || !strings.Contains(err.Error(), "meshes[0].primitives[1]") || !strings.Contains(err.Error(), "LINES primitive has 3 indices") {
		t.Errorf("odd LINES: error %v, want one naming meshes[0].primitives[1] and its 3 indices", err)
	}
}
