package bake

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzScene feeds arbitrary bytes to the scene parser: it must never panic,
// and a scene it accepts must pass its own validation again.
func FuzzScene(f *testing.F) {
	f.Add([]byte(`{"input": "a.obj"}`))
	f.Add([]byte(`{"input": "a.obj", "colliders": [{"type": "capsule", "a": [0,0,0], "b": [0,1,0], "radius": 0.1, "keys": [{"time": 0}, {"time": 1, "rotation": [0,0,0,1]}]}]}`))
	f.Add([]byte(`{"input": "a.obj", "pins": [{"indices": [1,2], "weights": [1, 0.5]}], "wind": {"direction": [1,0,0], "speed": 3, "keys": [{"time": 0, "speed": 0}]}}`))
	f.Add([]byte(`{"input": "a.obj", "output": ["a.glb", "b/"], "fabric": {"preset": "silk", "bend": 1e-6}}`))
	f.Add([]byte(`{"input": "a.obj", "regions": [{"material": "Jeans", "fabric": {"preset": "denim"}}, {"name": "hem", "box": [0,0,0,1,0.1,1], "fabric": {"density": 0.5}}, {"piece": 1, "fabric": {}}], "volume": 1.2, "sewing": 0.5}`))
	examples, _ := filepath.Glob("../examples/*/scene.json")
	for _, p := range examples {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScene(data, "fuzz.json")
		if err != nil {
			if ExitCode(err) != ExitBadInput {
				t.Fatalf("ParseScene error with exit code %d, want %d: %v", ExitCode(err), ExitBadInput, err)
			}
			return
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("accepted scene fails Validate: %v", err)
		}
	})
}
