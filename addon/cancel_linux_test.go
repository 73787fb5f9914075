package addon_test

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestAddonCancel: in background Blender 3.4, SIGINT (Ctrl-C in the
// terminal) or SIGTERM to Blender during bpy.ops.drape.bake() stops drape
// within a second, removes the staging folder, leaves the object as it was,
// and the operator returns CANCELLED. SIGKILL to Blender stops drape within
// a second too. Built on Linux only (the file's name): it finds drape's
// process through /proc.
func TestAddonCancel(t *testing.T) {
	bin := need(t, "blender", "run ./test.sh to install Blender")
	py := need(t, "python3", "run ./test.sh to install Blender (it brings python3)")
	dir := t.TempDir()
	zip := buildZip(t, py, dir)
	drape := filepath.Join(dir, "drape")
	build := exec.Command("go", "build", "-o", drape, "./cmd/drape")
	build.Dir = ".."
	run(t, build)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			work := privateDirs(t)
			cmd := exec.Command(bin, "-b", "--factory-startup", "--python-exit-code", "1", "--python",
				"tests/test_addon.py", "--", "--zip", zip, "--work", filepath.Join(work, "work"),
				"--cases", "cancel", "--drape", drape)
			cmd.Env = blenderEnv(work)
			cancelRun(t, cmd, sig)
		})
	}
}
