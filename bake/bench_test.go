package bake

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/solver"
)

// BenchmarkReadWeldTopology reads a generated 1M-triangle GLB (a 708 x 708
// grid), welds it and builds the solver topology: the whole path from a
// user's file to the simulation's unique edges and edge-triangle map.
func BenchmarkReadWeldTopology(b *testing.B) {
	const n = 708
	m := &meshio.Mesh{Format: meshio.FormatOBJ, Name: "grid"}
	p := meshio.Primitive{Material: -1}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			p.Positions = append(p.Positions, vec.V(float64(j)/n, 0, float64(i)/n))
		}
	}
	for i := 0; i+1 < n; i++ {
		for j := 0; j+1 < n; j++ {
			a := int32(i*n + j)
			p.Indices = append(p.Indices, a, a+n, a+1, a+1, a+n, a+n+1)
		}
	}
	m.Primitives = []meshio.Primitive{p}
	path := filepath.Join(b.TempDir(), "grid.glb")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	a := &meshio.Animation{FPS: 24, Times: []float64{0}, Frames: [][]vec.Vec3{p.Positions}}
	if err := meshio.WriteGLTF(f, m, a, meshio.GLTFOptions{Binary: true}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	tris := len(p.Indices) / 3
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rm, err := meshio.Read(path, meshio.DefaultReadOptions())
		if err != nil {
			b.Fatal(err)
		}
		w, err := meshio.Weld(rm, meshio.DefaultWeldOptions())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := solver.NewTopology(len(w.Positions), w.Triangles); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tris), "ns/triangle")
}
