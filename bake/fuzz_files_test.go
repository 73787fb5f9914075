package bake

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzSceneWithMesh prepares a scene file together with its OBJ mesh, as
// files on disk: whatever the two hold, Prepare must never panic, and
// every error it returns is a bad input (exit 3) or an output that cannot
// be written (exit 6).
func FuzzSceneWithMesh(f *testing.F) {
	grid := "v 0 1 0\nv 1 1 0\nv 0 1 1\nv 1 1 1\nf 1 2 4 3\n"
	f.Add([]byte(`{"input": "cloth.obj", "frames": 3}`), []byte(grid))
	f.Add([]byte(`{"input": "cloth.obj", "pins": [{"top": true}], "colliders": [{"type": "sphere", "center": [0.5, 0, 0.5], "radius": 0.3}], "self_collision": true}`), []byte(grid))
	f.Add([]byte(`{"input": "cloth.obj", "output": ["cloth.obj/", "x.glb"], "regions": [{"box": [0, 0, 0, 1, 2, 1], "fabric": {"preset": "silk"}}]}`), []byte(grid+"l 1 2\n"))
	f.Add([]byte(`{"input": "cloth.obj", "frames": 100000, "frame_step": 1}`), []byte(grid))
	f.Fuzz(func(t *testing.T, scene, mesh []byte) {
		d := t.TempDir()
		p := filepath.Join(d, "scene.json")
		os.WriteFile(p, scene, 0o644)
		os.WriteFile(filepath.Join(d, "cloth.obj"), mesh, 0o644)
		sc, err := LoadScene(p)
		if err != nil {
			if ExitCode(err) != ExitBadInput {
				t.Fatalf("LoadScene: exit code %d, want %d: %v", ExitCode(err), ExitBadInput, err)
			}
			return
		}
		if _, err := Prepare(sc, Options{MaxMemory: 256 << 20}); err != nil {
			if c := ExitCode(err); c != ExitBadInput && c != ExitWrite {
				t.Fatalf("Prepare: exit code %d: %v", c, err)
			}
		}
	})
}
