package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdversarialInputs runs drape on the checked-in adversarial inputs of
// testdata/adversarial (README.md there lists them), one or more per class
// of issue 33, each with its expected exit code and message fragment. The
// folder is copied to a temporary place first, with a secret image two
// folders up, so that nothing a regression does can touch the originals.
// Devices and FIFOs cannot be checked in: TestDevicesAndFIFOsRefused makes
// them.
func TestAdversarialInputs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "assets", "adversarial")
	copyDir(t, filepath.Join("testdata", "adversarial"), dir)
	os.MkdirAll(filepath.Join(root, "secret"), 0o755)
	key := []byte("\x89PNG\r\n\x1a\nSECRET-KEY")
	os.WriteFile(filepath.Join(root, "secret", "key.png"), key, 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		frag string
	}{
		// 1. data loss
		{"sequence over a file", []string{"bake", "cloth.obj", "--frames", "2", "-o", "Makefile"}, 3, "a file is there"},
		{"sequence over the input", []string{"bake", "cloth.obj", "--frames", "2", "-o", "cloth.obj/"}, 3, "the input"},
		{"sequence over the scene", []string{"bake", "output-is-scene.json"}, 3, "the input"},
		{"output is the input", []string{"bake", "image-outside.gltf", "-o", "image-outside.gltf"}, 3, "is the input"},
		// 2. reads outside the input's folder
		{"image outside", []string{"bake", "image-outside.gltf", "--frames", "2", "-o", "out.glb"}, 3, "outside the glTF's folder"},
		{"image outside, %2F-encoded", []string{"bake", "image-encoded.gltf", "--frames", "2", "-o", "out.glb"}, 3, "outside the glTF's folder"},
		// 3. unbounded memory
		{"frames x vertices over budget", []string{"validate", "many-frames.json"}, 0, ""},
		{"frames x vertices over --max-memory", []string{"bake", "many-frames.json", "--max-memory", "16M"}, 3, "in memory"},
		{"PC2 counts that wrap int64", []string{"bake", "wrap-cache.json"}, 3, "wrap.pc2: header: 2147380029 points x 715862424 samples does not match the file's 11968 bytes"},
		{"glTF stride x count that wraps int64", []string{"bake", "stride-wrap.gltf", "--frames", "2", "-o", "stride.glb"}, 3, "2147483649 elements need 18446744073709551628 bytes"},
		// 4. quadratic time
		{"20,000 copies of a triangle", []string{"bake", "dup-triangles.obj", "--frames", "1", "-o", "dup.glb"}, 0, "19999 cloth triangles repeat the corners"},
		// 5. misread input
		{"UTF-8 solid name", []string{"bake", "utf8-name.stl", "--frames", "2", "-o", "stl.glb"}, 0, ""},
		// 6. messages and codes
		{"OBJ index 10^12", []string{"bake", "huge-index.obj", "-o", "x.glb"}, 3, "1000000000000 is out of range"},
		{"scene key twice", []string{"validate", "dup-key.json"}, 3, `line 3 column 10: key "frames" appears twice`},
		{"scene with a byte order mark", []string{"validate", "bom.json"}, 0, ""},
		{"fps 1e-300", []string{"validate", "fps-tiny.json"}, 3, "fps = 1e-300: must be in 1..1000"},
		{"supersample 1000", []string{"preview", "x.glb", "-o", "x.png", "--supersample", "1000"}, 2, "1..4"},
		{"sequence over the input's folder", []string{"bake", "cloth.obj", "--frames", "2", "-o", "./"}, 3, "would replace the folder of"},
		{"sequence over a folder of the user's", []string{"bake", "cloth.obj", "--frames", "2", "-o", "../../secret/"}, 3, "drape does not replace it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, errOut := runBounded(t, dir, c.args...)
			if code != c.code || !strings.Contains(errOut, c.frag) {
				t.Errorf("drape %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.frag)
			}
		})
	}
	// nothing outside the folder reached an output, and the originals stand
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "SECRET-KEY") {
				t.Errorf("%s holds the secret image", p)
			}
		}
		return nil
	})
	if b, _ := os.ReadFile(filepath.Join(root, "secret", "key.png")); string(b) != string(key) {
		t.Errorf("the secret folder changed")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Makefile")); string(b) != "all:\n\tgo build ./...\n" {
		t.Errorf("Makefile changed: %q", b)
	}
}

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dst, 0o755)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
}
