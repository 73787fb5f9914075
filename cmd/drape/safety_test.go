package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func TestSupersampleOutOfRangeIsUsage(t *testing.T) {
	code, _, errOut := runIn(t, "preview", "x.glb", "-o", "x.png", "--supersample", "1000")
	if code != 2 || !strings.Contains(errOut, "1..4") {
		t.Errorf("--supersample 1000: exit %d %q, want 2 and the range", code, errOut)
	}
}

// runBounded runs the drape binary in dir under a 4 GiB address-space
// limit and a 60 s deadline, so that a regression that reads /dev/zero or
// waits on a FIFO ends (and fails) instead of exhausting the machine.
func runBounded(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	return runLimited(t, dir, "ulimit -v 4194304", args...)
}

// runLimited runs the drape binary in dir after the shell command limit
// (a ulimit), with a 60 s deadline, and returns its exit code and stderr.
func runLimited(t *testing.T, dir, limit string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", limit + `; exec "$0" "$@"`, drapeBin}, args...)...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("drape %v did not end within 60 s", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, errb.String()
}

// --report naming the input is refused before the bake (exit 3); the
// input survives.
func TestReportNeverTheInput(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 6, 1, 1)
	before, _ := os.ReadFile(filepath.Join(dir, "cloth.obj"))
	code, _, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "2", "-o", "out.glb", "--report", "cloth.obj")
	if code != 3 || !strings.Contains(errOut, "is the input") {
		t.Errorf("--report cloth.obj: exit %d %q, want 3", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "cloth.obj")); !bytes.Equal(before, after) {
		t.Errorf("the input changed")
	}
}
