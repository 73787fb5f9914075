//go:build linux

package meshio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// pngBytes is the start of a PNG file (imageMIME recognises it).
var pngBytes = []byte("\x89PNG\r\n\x1a\nsecret-key-bytes")

// writeExternalGLTF writes dir/cloth.gltf with its buffer in dir/cloth.bin
// and one image at uri.
func writeExternalGLTF(t testing.TB, dir, uri string) string {
	t.Helper()
	doc := gltf.NewDocument()
	pos := modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}})
	doc.Meshes = []*gltf.Mesh{{Name: "cloth", Primitives: []*gltf.Primitive{{
		Indices:    gltf.Index(modeler.WriteIndices(doc, []uint16{0, 1, 2})),
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos},
	}}}}
	doc.Nodes = []*gltf.Node{{Name: "cloth", Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	doc.Buffers[0].URI = "cloth.bin"
	if uri != "" {
		doc.Images = []*gltf.Image{{URI: uri}}
	}
	p := filepath.Join(dir, "cloth.gltf")
	if err := gltf.Save(doc, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cloth.bin")); err != nil {
		t.Fatalf("external buffer not written: %v", err)
	}
	return p
}

// fifo makes a FIFO at p and holds it open for writing until the test
// ends, or at most 5 s: a reader that waited for data would see the end of
// the file then, so a regression fails instead of hanging.
func fifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	tm := time.AfterFunc(5*time.Second, func() { w.Close() })
	t.Cleanup(func() { tm.Stop(); w.Close() })
}

func TestGLTFImageOutsideFolderRefused(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "secret"), 0o755)
	os.WriteFile(filepath.Join(root, "secret", "key.png"), pngBytes, 0o644)
	for _, c := range []struct{ name, uri string }{
		{"dot-dot", "../secret/key.png"},
		{"percent-encoded", "..%2Fsecret%2Fkey.png"},
		{"missing outside", "../secret/none.txt"}, // refused alike: existence is not revealed
		{"symbolic link out", "link.png"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := os.MkdirTemp(root, "asset")
			os.Symlink(filepath.Join(root, "secret", "key.png"), filepath.Join(dir, "link.png"))
			p := writeExternalGLTF(t, dir, c.uri)
			_, err := Read(p, DefaultReadOptions())
			if !errors.Is(err, ErrOutside) {
				t.Fatalf("Read with image uri %q: %v, want an error outside the folder", c.uri, err)
			}
		})
	}
	// inside the folder: read with the glTF and embedded by the writer
	dir, _ := os.MkdirTemp(root, "asset")
	os.MkdirAll(filepath.Join(dir, "tex"), 0o755)
	os.WriteFile(filepath.Join(dir, "tex", "a.png"), pngBytes, 0o644)
	m, err := Read(writeExternalGLTF(t, dir, "tex/a.png"), DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rest := m.Primitives[0].Positions
	a := &Animation{FPS: 24, Times: []float64{0, 1.0 / 24}, Frames: [][]vec.Vec3{rest, rest}}
	if err := WriteGLTF(&out, m, a, GLTFOptions{Binary: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), pngBytes) {
		t.Errorf("the image beside the glTF is not embedded in the output")
	}
	// a file that is no image
	os.WriteFile(filepath.Join(dir, "notes.png"), []byte("not an image"), 0o644)
	if _, err := Read(writeExternalGLTF(t, dir, "notes.png"), DefaultReadOptions()); err == nil {
		t.Errorf("an image uri naming a text file was accepted")
	}
}

func TestNonRegularFilesRefused(t *testing.T) {
	// a FIFO as the external buffer, as an image and as the mesh
	for _, what := range []string{"buffer", "image", "mesh"} {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			img := ""
			if what == "image" {
				img = "tex.png"
			}
			p := writeExternalGLTF(t, dir, img)
			switch what {
			case "buffer":
				os.Remove(filepath.Join(dir, "cloth.bin"))
				fifo(t, filepath.Join(dir, "cloth.bin"))
			case "image":
				fifo(t, filepath.Join(dir, "tex.png"))
			case "mesh":
				p = filepath.Join(dir, "fifo.obj")
				fifo(t, p)
			}
			_, err := Read(p, DefaultReadOptions())
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("Read with a FIFO as the %s: %v, want ErrNotRegular", what, err)
			}
		})
	}
	// a symbolic link out of the folder as the buffer
	dir := t.TempDir()
	p := writeExternalGLTF(t, dir, "")
	os.Remove(filepath.Join(dir, "cloth.bin"))
	os.Symlink("/dev/zero", filepath.Join(dir, "cloth.bin"))
	if _, err := Read(p, DefaultReadOptions()); !errors.Is(err, ErrOutside) {
		t.Fatalf("Read with a buffer linked to /dev/zero: %v, want ErrOutside", err)
	}
}
