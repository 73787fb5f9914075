//go:build linux

package meshio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// FuzzReadGLTFFiles reads a .gltf whose external buffer and image are
// files on disk beside it (cloth.bin, tex.png), as a user's asset folder
// holds them: it must never panic, and a mesh it returns must be valid.
func FuzzReadGLTFFiles(f *testing.F) {
	dir := f.TempDir()
	for i, uri := range []string{"", "tex.png", "../tex.png", "tex%2Epng"} {
		d := filepath.Join(dir, string(rune('a'+i)))
		os.MkdirAll(d, 0o755)
		p := writeExternalGLTF(f, d, uri)
		js, _ := os.ReadFile(p)
		bin, _ := os.ReadFile(filepath.Join(d, "cloth.bin"))
		f.Add(js, bin, pngBytes)
	}
	f.Fuzz(func(t *testing.T, js, bin, img []byte) {
		d := t.TempDir()
		p := filepath.Join(d, "cloth.gltf")
		os.WriteFile(p, js, 0o644)
		os.WriteFile(filepath.Join(d, "cloth.bin"), bin, 0o644)
		os.WriteFile(filepath.Join(d, "tex.png"), img, 0o644)
		m, err := Read(p, DefaultReadOptions())
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := validMesh(m); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReadPC2 reads arbitrary bytes as a PC2 point cache (a deforming
// collider's or a pin's): it must never panic, and a cache it accepts has
// as many points in every sample.
func FuzzReadPC2(f *testing.F) {
	var b bytes.Buffer
	WritePC2(&b, [][]vec.Vec3{{vec.V(1, 2, 3), vec.V(4, 5, 6)}, {vec.V(7, 8, 9), vec.V(1, 1, 1)}}, 0, 1)
	f.Add(b.Bytes())
	f.Add([]byte("POINTCACHE2\x00\x01\x00\x00\x00\xff\xff\xff\x7f\x00\x00\x00\x00\x00\x00\x80\x3f\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pc, err := ReadPC2(bytes.NewReader(data), "fuzz.pc2")
		if err != nil {
			return
		}
		for k, fr := range pc.Frames {
			if len(fr) != len(pc.Frames[0]) {
				t.Fatalf("sample %d has %d points, sample 0 %d", k, len(fr), len(pc.Frames[0]))
			}
		}
	})
}
