package meshio_test

import (
	"fmt"
	"log"

	"github.com/drape-sim/drape/meshio"
)

// Read a glTF file and weld its render vertices (split at every face
// normal) into simulation topology.
func ExampleWeld() {
	m, err := meshio.Read("testdata/corpus/gltf/Box/Box.gltf", meshio.DefaultReadOptions())
	if err != nil {
		log.Fatal(err)
	}
	w, err := meshio.Weld(m, meshio.DefaultWeldOptions())
	if err != nil {
		log.Fatal(err)
	}
	lo, hi := m.Bounds()
	fmt.Printf("%s: %d render vertices, %d triangles\n", m.Format, m.NumVertices(), m.NumTriangles())
	fmt.Printf("welded: %d vertices, %d triangles, %d degenerate\n", len(w.Positions), len(w.Triangles), w.Degenerate)
	fmt.Printf("extent: %.2f m\n", hi.Sub(lo))
	// Output:
	// gltf: 24 render vertices, 12 triangles
	// welded: 8 vertices, 12 triangles, 0 degenerate
	// extent: {1.00 1.00 1.00} m
}

// Read a Z-up OBJ in centimetres.
func ExampleRead() {
	opt := meshio.DefaultReadOptions()
	opt.Up = meshio.AxisZ
	opt.Scale = 0.01
	m, err := meshio.Read("testdata/corpus/obj/cornell_box/cornell_box.obj", opt)
	if err != nil {
		log.Fatal(err)
	}
	lo, hi := m.Bounds()
	fmt.Printf("%d v lines, %d primitives, extent %.3f m\n", m.SourceVertices, len(m.Primitives), hi.Sub(lo))
	// Output:
	// 76 v lines, 4 primitives, extent {5.560 5.592 5.488} m
}
