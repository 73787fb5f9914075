package meshio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// TestWriteOBJReadsBack writes one baked frame as OBJ, reads it with the
// package's reader, and checks v order (the input's), faces and UVs.
func TestWriteOBJReadsBack(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		m    *Mesh
	}{
		{"cube_quads.obj", readTestMesh(t, "cube_quads.obj", DefaultReadOptions())},
		{"grid", gridMesh(4, 3, 1)},
		{"MorphPrimitivesTest.gltf", readTestMesh(t, "MorphPrimitivesTest/MorphPrimitivesTest.gltf", DefaultReadOptions())},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := waveAnimation(t, c.m, 3, 1, 24, 0.1, 0.3)
			var buf bytes.Buffer
			if err := WriteOBJ(&buf, c.m, a.Frames[2]); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, strings.ReplaceAll(c.name, ".", "_")+".obj")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Read(path, DefaultReadOptions())
			if err != nil {
				t.Fatalf("Read(WriteOBJ(%s)): %v", c.name, err)
			}
			if got.SourceVertices != c.m.SourceVertices || got.NumTriangles() != c.m.NumTriangles() {
				t.Fatalf("WriteOBJ(%s) reads back as %d v lines, %d triangles, want %d, %d", c.name, got.SourceVertices, got.NumTriangles(), c.m.SourceVertices, c.m.NumTriangles())
			}
			want := make([]vec.Vec3, c.m.SourceVertices)
			SourceOrder(c.m, a.Frames[2], want)
			have := make([]vec.Vec3, got.SourceVertices)
			var rf []vec.Vec3
			for _, p := range got.Primitives {
				rf = append(rf, p.Positions...)
			}
			SourceOrder(got, rf, have)
			for i := range want {
				if d := have[i].Sub(want[i]).Len(); d > 1e-6 {
					t.Errorf("WriteOBJ(%s) v line %d = %v, want %v", c.name, i+1, have[i], want[i])
				}
			}
			hasUV := c.m.Primitives[0].UVs != nil
			if (got.Primitives[0].UVs != nil) != hasUV {
				t.Errorf("WriteOBJ(%s): UVs read back %v, want %v", c.name, got.Primitives[0].UVs != nil, hasUV)
			}
		})
	}
}

func TestWriteOBJErrors(t *testing.T) {
	m := gridMesh(2, 2, 1)
	if err := WriteOBJ(&bytes.Buffer{}, m, make([]vec.Vec3, 3)); err == nil || !strings.Contains(err.Error(), "3 positions") {
		t.Errorf("WriteOBJ(3 positions) error = %v, want one naming the count", err)
	}
}
