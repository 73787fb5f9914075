package meshio

import (
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// gridDoc builds a glTF document holding an n x n vertex grid sheet in the
// XZ plane, 1 m across: 2 (n-1)^2 triangles with uint32 indices.
func gridDoc(n int) *gltf.Document {
	doc := gltf.NewDocument()
	pos := make([][3]float32, 0, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			pos = append(pos, [3]float32{float32(i) / float32(n-1), 0, float32(j) / float32(n-1)})
		}
	}
	idx := make([]uint32, 0, 6*(n-1)*(n-1))
	for j := 0; j+1 < n; j++ {
		for i := 0; i+1 < n; i++ {
			a := uint32(j*n + i)
			b, c, d := a+1, a+uint32(n), a+uint32(n)+1
			idx = append(idx, a, c, b, b, c, d)
		}
	}
	attrs, _ := modeler.WritePrimitiveAttributes(doc, modeler.PrimitiveAttribute{Name: gltf.POSITION, Data: pos})
	doc.Meshes = []*gltf.Mesh{{Name: "sheet", Primitives: []*gltf.Primitive{{
		Indices:    gltf.Index(modeler.WriteIndices(doc, idx)),
		Attributes: attrs,
	}}}}
	doc.Nodes = []*gltf.Node{{Name: "sheet", Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	return doc
}

// BenchmarkReadWeld reads and welds a generated 1M-triangle GLB (a 708 x 708
// vertex grid: 1,000,818 triangles).
func BenchmarkReadWeld(b *testing.B) {
	const n = 708
	path := filepath.Join(b.TempDir(), "grid.glb")
	if err := gltf.SaveBinary(gridDoc(n), path); err != nil {
		b.Fatal(err)
	}
	tris := 2 * (n - 1) * (n - 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Read(path, DefaultReadOptions())
		if err != nil {
			b.Fatal(err)
		}
		w, err := Weld(m, DefaultWeldOptions())
		if err != nil {
			b.Fatal(err)
		}
		if len(w.Triangles) != tris || len(w.Positions) != n*n {
			b.Fatalf("Weld(grid) = %d verts, %d tris, want %d, %d", len(w.Positions), len(w.Triangles), n*n, tris)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tris), "ns/triangle")
}
