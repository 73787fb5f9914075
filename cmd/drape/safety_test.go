package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A relative -o names a path from the working directory even when the
// settings come from a scene file in another folder.
func TestRelativeOutFlagIsTheWorkingDirectorys(t *testing.T) {
	dir := t.TempDir()
	scenes := filepath.Join(dir, "scenes")
	os.MkdirAll(scenes, 0o755)
	writeGrid(t, filepath.Join(scenes, "cloth.obj"), 6, 1, 1)
	os.WriteFile(filepath.Join(scenes, "scene.json"), []byte(`{"input": "cloth.obj", "frames": 2}`), 0o644)
	code, _, errOut := runBin(t, dir, "bake", "scenes/scene.json", "-o", "out.glb", "-o", "seq/")
	if code != 0 {
		t.Fatalf("bake exit %d: %s", code, errOut)
	}
	for _, p := range []string{"out.glb", "seq"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("-o %s not written in the working directory: %v", p, err)
		}
		if _, err := os.Stat(filepath.Join(scenes, p)); err == nil {
			t.Errorf("-o %s written beside the scene file", p)
		}
	}
}

// A report path that is a folder is a write failure (exit 6), not an
// internal error.
func TestReportPathFolderExitWrite(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 6, 1, 1)
	os.MkdirAll(filepath.Join(dir, "report.json"), 0o755)
	code, _, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "2", "--report", "report.json")
	if code != 6 {
		t.Errorf("--report naming a folder: exit %d, want 6 (stderr %q)", code, errOut)
	}
}
