// Package addon_test runs the Blender add-on's tests from `go test ./...`:
// the pure-Python runner tests with python3, and the headless Blender tests
// (tests/test_addon.py) against the fake CLI and against the real drape
// binary, built here from ./cmd/drape.
package addon_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMain builds the real drape once for the fake CLI (tests/fake_drape.py),
// which hands `fit-collider`, `colliders` and `presets` to it through
// FAKE_DRAPE_REAL: the add-on's collider fitting and defaults are drape's
// own even when the bake is faked.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "drape-addon-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	real := filepath.Join(dir, "drape")
	if out, err := exec.Command("go", "build", "-o", real, "../cmd/drape").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ../cmd/drape: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	os.Setenv("FAKE_DRAPE_REAL", real)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need returns the path of a program the tests cannot run without.
func need(t *testing.T, name, fix string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found on PATH: %s", name, fix)
	}
	return p
}

// run runs cmd and fails the test with its output when it exits non-zero.
func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return string(out)
}

// buildZip builds the installable add-on zip with the documented command.
func buildZip(t *testing.T, py, dir string) string {
	t.Helper()
	zip := filepath.Join(dir, "drape_cloth.zip")
	run(t, exec.Command(py, "build_zip.py", zip))
	return zip
}

// privateDirs makes a temporary folder with the user folders Blender may
// write (scripts, config, extensions, temp files) and returns it.
func privateDirs(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	for _, d := range []string{"scripts", "config", "resources", "tmp", "work"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// blenderEnv is the environment of a Blender (or bpy) whose user folders are
// under work, so installing the add-on never touches the user's own Blender.
func blenderEnv(work string) []string {
	return append(os.Environ(),
		"BLENDER_USER_SCRIPTS="+filepath.Join(work, "scripts"),
		"BLENDER_USER_CONFIG="+filepath.Join(work, "config"),
		"BLENDER_USER_RESOURCES="+filepath.Join(work, "resources"),
		"TMPDIR="+filepath.Join(work, "tmp"),
	)
}

// blender runs tests/test_addon.py in headless Blender with private user
// folders, so installing the add-on never touches the user's own Blender.
func blender(t *testing.T, bin, zip, cases string, extra ...string) string {
	t.Helper()
	work := privateDirs(t)
	args := []string{"-b", "--factory-startup", "--python-exit-code", "1", "--python", "tests/test_addon.py", "--",
		"--zip", zip, "--work", filepath.Join(work, "work"), "--cases", cases}
	cmd := exec.Command(bin, append(args, extra...)...)
	cmd.Env = blenderEnv(work)
	out := run(t, cmd)
	if !strings.Contains(out, "\nOK") {
		t.Fatalf("blender tests %s: no OK in the output:\n%s", cases, out)
	}
	return out
}

func TestAddon(t *testing.T) {
	bin := need(t, "blender", "run ./test.sh to install Blender")
	py := need(t, "python3", "run ./test.sh to install Blender (it brings python3)")
	dir := t.TempDir()
	zip := buildZip(t, py, dir)

	t.Run("runner", func(t *testing.T) {
		out := run(t, exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-p", "test_runner.py"))
		if !strings.Contains(out, "\nOK") {
			t.Fatalf("runner tests: no OK in the output:\n%s", out)
		}
	})
	t.Run("blender_fake", func(t *testing.T) {
		blender(t, bin, zip, "fake,panel")
	})
	t.Run("blender_ui", func(t *testing.T) {
		// The modal operator needs Blender's event loop, hence a window
		// under Xvfb; test.sh should install xvfb with Blender.
		// The completed bake runs the real drape at Quality 2, which misses
		// cotton's strain bound: the panel must show the warning.
		xvfb := need(t, "xvfb-run", "install it with `apt-get install xvfb` (./test.sh should install it with Blender)")
		work := privateDirs(t)
		drape := filepath.Join(work, "drape")
		build := exec.Command("go", "build", "-o", drape, "./cmd/drape")
		build.Dir = ".."
		run(t, build)
		cmd := exec.Command(xvfb, "-a", "-s", "-screen 0 1280x800x24", bin, "--factory-startup",
			"--python", "tests/ui_check.py", "--", "--zip", zip, "--fake", "tests/fake_drape.py",
			"--work", filepath.Join(work, "work"), "--drape", drape)
		cmd.Env = blenderEnv(work)
		out := run(t, cmd)
		data, err := os.ReadFile(filepath.Join(work, "work", "ui_result.json"))
		if err != nil {
			t.Fatalf("ui_check.py wrote no result (%v); output:\n%s", err, out)
		}
		var res struct {
			OK  bool     `json:"ok"`
			Log []string `json:"log"`
		}
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatalf("ui_result.json: %v", err)
		}
		if !res.OK {
			t.Fatalf("modal bake under Xvfb failed:\n%s\noutput:\n%s", strings.Join(res.Log, "\n"), out)
		}
	})
	t.Run("blender_quit_mid_bake", func(t *testing.T) {
		// File > Quit while the modal bake runs: Blender cancels the modal
		// operator on the way out, which stops drape and removes its files.
		xvfb := need(t, "xvfb-run", "install it with `apt-get install xvfb`")
		work := privateDirs(t)
		cmd := exec.Command(xvfb, "-a", "-s", "-screen 0 1280x800x24", bin, "--factory-startup",
			"--python", "tests/ui_check.py", "--", "--zip", zip, "--fake", "tests/fake_drape.py",
			"--work", filepath.Join(work, "work"), "--quit-mid-bake")
		cmd.Env = blenderEnv(work)
		out := run(t, cmd)
		data, err := os.ReadFile(filepath.Join(work, "work", "ui_result.json"))
		if err != nil {
			t.Fatalf("ui_check.py wrote no result (%v); output:\n%s", err, out)
		}
		var res struct {
			OK      bool     `json:"ok"`
			Log     []string `json:"log"`
			PID     int      `json:"pid"`
			Staging string   `json:"staging"`
		}
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatalf("ui_result.json: %v", err)
		}
		if !res.OK || res.PID == 0 || res.Staging == "" {
			t.Fatalf("no bake to quit from:\n%s\noutput:\n%s", strings.Join(res.Log, "\n"), out)
		}
		if alive(res.PID) {
			t.Errorf("drape (pid %d) still runs after Blender quit", res.PID)
		}
		if _, err := os.Stat(res.Staging); !os.IsNotExist(err) {
			t.Errorf("Blender quit mid-bake and left the staging folder %s", res.Staging)
		}
	})
	t.Run("blender_real", func(t *testing.T) {
		// The linux-x64 legacy zip carries drape: the real bakes use it
		// (test_0_binary), with none on PATH and no preference.
		if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
			legacy := filepath.Join(filepath.Dir(releaseZip(t, py, dir)), "drape_cloth-0.1.0-linux-x64-legacy.zip")
			work := privateDirs(t)
			cmd := exec.Command(bin, "-b", "--factory-startup", "--python-exit-code", "1", "--python",
				"tests/test_addon.py", "--", "--zip", legacy, "--work", filepath.Join(work, "work"), "--cases", "real")
			cmd.Env = withoutDrape(blenderEnv(work))
			if out := run(t, cmd); !strings.Contains(out, "\nOK") || !strings.Contains(out, "scripts/addons/drape_cloth/bin/drape") {
				t.Fatalf("blender real tests with the legacy zip's drape: no OK, or another drape ran:\n%s", out)
			}
			return
		}
		drape := filepath.Join(dir, "drape")
		build := exec.Command("go", "build", "-o", drape, "./cmd/drape")
		build.Dir = ".."
		run(t, build)
		blender(t, bin, zip, "real", "--drape", drape)
	})
}
