package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An output in a read-only folder (a glTF, a streamed point cache, an
// OBJ sequence, a folder drape must create) ends with exit 6, the path
// and the fix, and leaves the folder as it was. The folder is made
// read-only in every way this machine allows, root included (root writes
// into a chmod 0555 folder): a read-only bind mount in a private mount
// namespace (unshare -m, as root; unshare -rm in a user namespace
// otherwise), the immutable attribute (chattr +i), or chmod 0555 for
// another user. Built on Linux only (the file's name).
func TestReadOnlyFolderExitWrite(t *testing.T) {
	// A method makes dir read-only and returns the command that runs drape
	// with args under it, or an error when this machine does not allow it.
	type method struct {
		name  string
		setup func(t *testing.T, dir string) (wrap []string, ok bool)
	}
	inNamespace := func(unshareFlags string) func(t *testing.T, dir string) ([]string, bool) {
		return func(t *testing.T, dir string) ([]string, bool) {
			wrap := []string{"unshare", unshareFlags, "sh", "-c", `mount --bind -o ro "$1" "$1" && shift && exec "$@"`, "sh", dir}
			probe := append(append([]string(nil), wrap...), "sh", "-c", `! touch "$0/.probe" 2>/dev/null`, dir)
			if _, err := exec.LookPath("unshare"); err != nil || exec.Command(probe[0], probe[1:]...).Run() != nil {
				return nil, false
			}
			return wrap, true
		}
	}
	methods := []method{
		{"unshare -m, read-only bind mount", inNamespace("-m")},
		{"unshare -rm, read-only bind mount in a user namespace", inNamespace("-rm")},
		{"chattr +i", func(t *testing.T, dir string) ([]string, bool) {
			if exec.Command("chattr", "+i", dir).Run() != nil {
				return nil, false
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
			return nil, exec.Command("touch", filepath.Join(dir, ".probe")).Run() != nil
		}},
		{"chmod 0555", func(t *testing.T, dir string) ([]string, bool) {
			os.Chmod(dir, 0o555)
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			return nil, exec.Command("touch", filepath.Join(dir, ".probe")).Run() != nil
		}},
	}
	worked := 0
	for _, m := range methods {
		dir := t.TempDir()
		writeGrid(t, filepath.Join(dir, "cloth.obj"), 6, 1, 1)
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o755)
		earlier := []byte("an earlier bake")
		os.WriteFile(filepath.Join(ro, "out.glb"), earlier, 0o644)
		wrap, ok := m.setup(t, ro)
		if !ok {
			// root writes into a chmod 0555 folder, and a mount needs
			// privileges or user namespaces: the methods that work test
			t.Logf("%s does not make a read-only folder here", m.name)
			continue
		}
		worked++
		t.Run(m.name, func(t *testing.T) {
			for _, out := range []string{"ro/out.glb", "ro/out.pc2", "ro/seq/", "ro/sub/out.glb"} {
				args := append(append(wrap, drapeBin), "bake", "cloth.obj", "--frames", "2", "-o", out)
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir = dir
				var errb bytes.Buffer
				cmd.Stderr = &errb
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				msg := errb.String()
				if code != 6 || !strings.Contains(msg, strings.TrimSuffix(out, "/")) || !strings.Contains(msg, "fix: ") ||
					!(strings.Contains(msg, "read-only") || strings.Contains(msg, "you may not write")) {
					t.Errorf("-o %s: exit %d, stderr %q; want 6 naming the path, the cause and the fix", out, code, msg)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(ro, "out.glb")); !bytes.Equal(b, earlier) {
				t.Errorf("the earlier out.glb changed: %q", b)
			}
			ents, _ := os.ReadDir(ro)
			if len(ents) != 1 {
				t.Errorf("the read-only folder holds %d entries, want only out.glb", len(ents))
			}
		})
	}
	if worked == 0 {
		t.Fatal("none of the ways to make a read-only folder works on this machine: run as root, with user namespaces, or as a user other than root")
	}
}
