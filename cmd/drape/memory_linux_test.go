package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A bake whose estimate exceeds what the process's own limits leave
// (ulimit -v, ulimit -d), though not physical memory, is refused with
// exit 3, the estimate and the fix, instead of dying of Go's "fatal
// error: out of memory" (exit 2) part way through; the fix it gives
// bakes within the limit. Built on Linux only (the file's name), where
// drape reads RLIMIT_AS and RLIMIT_DATA.
func TestBudgetHonoursProcessLimits(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 100, 1, 1) // 10,000 vertices
	// Go reserves about 750 MiB of address space as it starts; 1 GiB
	// leaves some 300 MiB to bake in. The data limit counts less of it.
	limits := []string{"ulimit -v 1048576", "ulimit -d 262144"}
	for _, lim := range limits {
		if code, errOut := runLimited(t, dir, lim, "bake", "cloth.obj", "--frames", "3", "-o", "small.glb"); code != 0 {
			t.Fatalf("%s: a 3-frame bake fails: exit %d: %s", lim, code, errOut)
		}
	}
	for _, lim := range limits {
		// about 1.1 GiB of frames: within 80 % of physical memory on any
		// machine that runs the suite, beyond the limit
		code, errOut := runLimited(t, dir, lim, "bake", "cloth.obj", "--frames", "600", "--substeps", "1", "-o", "out.glb")
		if code != 3 || strings.Contains(errOut, "fatal error") {
			t.Errorf("%s: exit %d, want 3 (stderr %.300q)", lim, code, errOut)
			continue
		}
		for _, want := range []string{"cloth.obj", "would hold about", "more than its budget", "ulimit " + strings.Fields(lim)[1], "--frame-step"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr lacks %q: %s", lim, want, errOut)
			}
		}
	}
	// the frame step the message proposes bakes under the same limit
	code, errOut := runLimited(t, dir, limits[0], "bake", "cloth.obj", "--frames", "300", "--substeps", "1", "-o", "out.glb")
	m := regexp.MustCompile(`--frame-step (\d+)`).FindStringSubmatch(errOut)
	if code != 3 || m == nil {
		t.Fatalf("300 frames: exit %d, want 3 with a --frame-step (stderr %q)", code, errOut)
	}
	if code, errOut := runLimited(t, dir, limits[0], "bake", "cloth.obj", "--frames", "300", "--substeps", "1", "--frame-step", m[1], "-o", "out.glb"); code != 0 {
		t.Errorf("--frame-step %s as proposed: exit %d: %.500s", m[1], code, errOut)
	}
}
