package meshio

import (
	"os"
	"path/filepath"
	"testing"
)

// An ASCII STL whose solid name is not ASCII (UTF-8, Latin-1) is read as
// ASCII, not taken for a broken binary STL.
func TestASCIISTLAnyNameBytes(t *testing.T) {
	facet := "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"
	for _, name := range []string{"月", "Würfel \xe9t\xe9", "\xff\xfe"} {
		text := "solid " + name + "\n" + facet + "endsolid " + name + "\n"
		p := filepath.Join(t.TempDir(), "named.stl")
		os.WriteFile(p, []byte(text), 0o644)
		m, err := Read(p, DefaultReadOptions())
		if err != nil {
			t.Errorf("solid %q: %v", name, err)
			continue
		}
		if m.NumTriangles() != 1 {
			t.Errorf("solid %q: %d triangles, want 1", name, m.NumTriangles())
		}
	}
}
