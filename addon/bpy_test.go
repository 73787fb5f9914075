package addon_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// bpyVersions are the Blender-as-a-module versions the add-on is tested in:
// the 4.5 LTS and the newest whose wheel fits CPython 3.11. test.sh installs
// each into tools/venv/bpy-VERSION (tools/bpy_venv.sh); keep the lists equal.
var bpyVersions = []string{"4.5.15", "5.0.1"}

// bpyPython returns the interpreter of the bpy venv of version. Without the
// venv the test fails and says how to make it, unless tools/bpy_venv.sh
// recorded that it cannot be installed here (no Python 3.11): then it skips
// with that reason.
func bpyPython(t *testing.T, version string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "tools", "venv"))
	if err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(root, "bpy-"+version)
	if _, err := os.Stat(filepath.Join(venv, ".installed")); err == nil {
		return filepath.Join(venv, "bin", "python")
	}
	if why, err := os.ReadFile(venv + ".unavailable"); err == nil {
		t.Skipf("SKIP: bpy %s cannot be installed on this machine: %s", version, strings.TrimSpace(string(why)))
	}
	t.Fatalf("bpy %s is not installed in %s: run ./test.sh, which installs it (tools/bpy_venv.sh %s)", version, venv,
		version)
	return ""
}

// withoutDrape returns env with every PATH entry that holds a drape
// executable left out, so only the Extension's own drape can be found.
func withoutDrape(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			var keep []string
			for _, d := range filepath.SplitList(kv[5:]) {
				if _, err := os.Stat(filepath.Join(d, "drape")); err != nil {
					keep = append(keep, d)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		}
		out = append(out, kv)
	}
	return out
}

// TestAddonBpy installs the linux-x64 Extension zip (built with the
// documented release command) into Blender 4.5 LTS and 5.0 as Python modules
// through Blender's own extension install, with no drape on PATH and no
// preference, and runs the add-on tests there: the operator flow against the
// fake CLI, and the real bakes with the drape inside the zip, checking the
// evaluated meshes as in Blender 3.4. Blender's extension validator must
// accept the manifest and every platform's zip, and a signal to the process
// stops a bake as in 3.4 (TestAddonCancel).
func TestAddonBpy(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("SKIP: bpy tests install the linux-x64 Extension; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	py := need(t, "python3", "install python3")
	ext := releaseZip(t, py, t.TempDir())
	// The other platforms' zips, with the linux-x64 drape standing in for
	// theirs (cross-compiling is TestReleaseZips's and build_zip.py's): each
	// manifest must name a platform Blender accepts.
	others := t.TempDir()
	drape := filepath.Join(t.TempDir(), "drape")
	if err := os.WriteFile(drape, content(t, readZip(t, ext)["bin/drape"]), 0o755); err != nil {
		t.Fatal(err)
	}
	var otherZips []string
	for _, p := range []string{"linux-arm64", "windows-x64", "macos-x64", "macos-arm64"} {
		run(t, exec.Command(py, "build_zip.py", "--release", "--platform", p, "--drape", drape, "--out", others))
		otherZips = append(otherZips, filepath.Join(others, "drape_cloth-0.1.0-"+p+".zip"))
	}
	for _, version := range bpyVersions {
		t.Run(version, func(t *testing.T) {
			bpy := bpyPython(t, version)
			tools, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(bpy)), "lib", "python3.*", "site-packages",
				"bpy", "*", "scripts", "addons_core", "bl_pkg", "cli", "blender_ext.py"))
			if len(tools) != 1 {
				t.Fatalf("bpy %s: want one bl_pkg/cli/blender_ext.py (Blender's `extension` command), found %v", version, tools)
			}
			for _, what := range append([]string{"drape_cloth", ext}, otherZips...) {
				out := run(t, exec.Command(bpy, tools[0], "validate", what))
				if !strings.Contains(out, "Success") {
					t.Fatalf("Blender %s's extension validate did not accept %s:\n%s", version, what, out)
				}
			}
			work := privateDirs(t)
			cmd := exec.Command(bpy, "tests/test_addon.py", "--", "--ext", ext, "--work", filepath.Join(work, "work"),
				"--cases", "fake,panel,real")
			cmd.Env = withoutDrape(blenderEnv(work))
			out := run(t, cmd)
			if !strings.Contains(out, "\nOK") {
				t.Fatalf("bpy %s: no OK in the output:\n%s", version, out)
			}
			for _, w := range []string{"RuntimeWarning", "DeprecationWarning"} {
				if strings.Contains(out, w) {
					t.Errorf("bpy %s warns about the add-on (%s):\n%s", version, w, out)
				}
			}
			if !strings.Contains(out, "resources/extensions/user_default/drape_cloth/bin/drape") {
				t.Fatalf("bpy %s: the bakes did not use the Extension's own drape:\n%s", version, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "Blender ") || strings.HasPrefix(l, "plane over sphere") || strings.HasPrefix(l, "Ran ") {
					t.Log(l)
				}
			}
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				t.Run("cancel_"+sig.String(), func(t *testing.T) {
					work := privateDirs(t)
					cmd := exec.Command(bpy, "tests/test_addon.py", "--", "--ext", ext, "--work",
						filepath.Join(work, "work"), "--cases", "cancel")
					cmd.Env = withoutDrape(blenderEnv(work))
					cancelRun(t, cmd, sig)
				})
			}
		})
	}
}
