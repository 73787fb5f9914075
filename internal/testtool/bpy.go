package testtool

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BpyJSON runs a tools/blender script in Blender as a Python module (bpy
// VERSION from PyPI, which ./test.sh installs into tools/venv/bpy-VERSION
// with tools/bpy_venv.sh) as `python SCRIPT -- ARGS`, and decodes the JSON
// line it prints (after the "DRAPE_JSON " marker) into v. Without the venv
// the test fails saying how to make it, unless tools/bpy_venv.sh recorded
// that bpy cannot be installed on this machine (no CPython 3.11): then it
// skips with that reason, as the add-on's bpy tests do.
func BpyJSON(t testing.TB, version string, v any, script string, args ...string) {
	t.Helper()
	root := Root(t)
	venv := filepath.Join(root, "tools", "venv", "bpy-"+version)
	if _, err := os.Stat(filepath.Join(venv, ".installed")); err != nil {
		if why, err := os.ReadFile(venv + ".unavailable"); err == nil {
			t.Skipf("SKIP: bpy %s cannot be installed on this machine: %s", version, strings.TrimSpace(string(why)))
		}
		t.Fatalf("testtool: bpy %s is not installed in %s: run ./test.sh, which installs it (tools/bpy_venv.sh %s)", version, venv, version)
	}
	if !filepath.IsAbs(script) {
		script = filepath.Join(root, script)
	}
	out := run(t, blenderTimeout, filepath.Join(venv, "bin", "python"), append([]string{script, "--"}, args...)...)
	for _, line := range bytes.Split(out, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte(blenderMarker)); ok {
			if err := json.Unmarshal(rest, v); err != nil {
				t.Fatalf("testtool: %s printed bad JSON: %v", filepath.Base(script), err)
			}
			return
		}
	}
	t.Fatalf("testtool: %s printed no %q line; stdout:\n%s", filepath.Base(script), blenderMarker, clip(out))
}
