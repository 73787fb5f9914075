package addon_test

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// releaseZip builds the linux-x64 Extension and legacy zips with the
// documented command (cross-compiling drape with CGO_ENABLED=0) into dir and
// returns the Extension zip's path.
func releaseZip(t *testing.T, py, dir string) string {
	t.Helper()
	run(t, exec.Command(py, "build_zip.py", "--release", "--platform", "linux-x64", "--out", dir))
	return filepath.Join(dir, "drape_cloth-0.1.0-linux-x64.zip")
}

// readZip returns the entries of a zip by name.
func readZip(t *testing.T, path string) map[string]*zip.File {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() { r.Close() })
	files := map[string]*zip.File{}
	for _, f := range r.File {
		files[f.Name] = f
	}
	return files
}

func content(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReleaseZips checks what an artist installs: the Extension zip holds
// the manifest (listing its one platform, GPL-3.0-or-later), the add-on's
// licence, and an executable drape with its Apache-2.0 licence that runs and
// prints the add-on's version; the legacy zip holds the same files under
// drape_cloth/ without the manifest; and a second build gives the same bytes.
func TestReleaseZips(t *testing.T) {
	py := need(t, "python3", "install python3")
	need(t, "go", "install Go")
	dir := t.TempDir()
	ext := releaseZip(t, py, dir)
	files := readZip(t, ext)
	man := string(content(t, files["blender_manifest.toml"]))
	for _, want := range []string{`platforms = ["linux-x64"]`, `license = ["SPDX:GPL-3.0-or-later"]`,
		`blender_version_min = "4.2.0"`, `schema_version = "1.0.0"`, `version = "0.1.0"`, "[permissions]\nfiles = "} {
		if !strings.Contains(man, want) {
			t.Errorf("the Extension's manifest lacks %q:\n%s", want, man)
		}
	}
	if !strings.Contains(string(content(t, files["LICENSE"])), "GNU GENERAL PUBLIC LICENSE") {
		t.Errorf("the Extension's LICENSE is not the GPL")
	}
	if !strings.Contains(string(content(t, files["bin/LICENSE"])), "Apache License") {
		t.Errorf("bin/LICENSE is not the Apache License")
	}
	bin := files["bin/drape"]
	if bin == nil {
		t.Fatalf("the Extension zip has no bin/drape")
	}
	if bin.Mode()&0o111 == 0 {
		t.Errorf("bin/drape is not executable in the zip (mode %v)", bin.Mode())
	}
	exe := filepath.Join(t.TempDir(), "drape")
	if err := os.WriteFile(exe, content(t, bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := run(t, exec.Command(exe, "version")); strings.TrimSpace(out) != "drape 0.1.0" {
		t.Errorf("the bundled drape prints %q, want drape 0.1.0", out)
	}

	legacy := readZip(t, filepath.Join(dir, "drape_cloth-0.1.0-linux-x64-legacy.zip"))
	if legacy["drape_cloth/blender_manifest.toml"] != nil {
		t.Errorf("the legacy zip carries the Extension manifest")
	}
	for name, f := range files {
		if name == "blender_manifest.toml" {
			continue
		}
		l := legacy["drape_cloth/"+name]
		if l == nil {
			t.Errorf("the legacy zip lacks drape_cloth/%s", name)
			continue
		}
		if !bytes.Equal(content(t, l), content(t, f)) {
			t.Errorf("drape_cloth/%s differs between the legacy and the Extension zip", name)
		}
	}

	again := releaseZip(t, py, t.TempDir())
	a, _ := os.ReadFile(ext)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Errorf("two builds of the Extension zip differ (%d and %d bytes)", len(a), len(b))
	}
}
