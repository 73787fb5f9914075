package bake

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSceneConfinedToItsFolder checks that a scene file may name files only
// inside its own folder: a path that climbs out, an absolute path elsewhere
// and a symlink out are refused as bad input naming the key, before
// anything is read; a file below the folder is accepted.
func TestSceneConfinedToItsFolder(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "asset")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(top, "secret.obj")
	if err := os.WriteFile(secret, []byte("v 0 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.obj")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, json, key string // key "" means accepted
	}{
		{"below", `{"input": "sub/cloth.obj", "output": "out/cloth.glb"}`, ""},
		{"climbs out", `{"input": "../secret.obj"}`, "input"},
		{"absolute", `{"input": "` + secret + `"}`, "input"},
		{"symlink out", `{"input": "link.obj"}`, "input"},
		{"output out", `{"input": "cloth.obj", "output": ["a.glb", "../../x.glb"]}`, "output[1]"},
		{"collider", `{"input": "cloth.obj", "colliders": [{"type": "mesh", "path": "../secret.obj"}]}`, "colliders[0].path"},
		{"collider cache", `{"input": "cloth.obj", "colliders": [{"type": "mesh", "path": "leg.obj", "cache": "sub/../../x.pc2"}]}`, "colliders[0].cache"},
	}
	for _, c := range cases {
		scene := filepath.Join(dir, "scene.json")
		if err := os.WriteFile(scene, []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadScene(scene)
		if c.key == "" {
			if err != nil {
				t.Errorf("%s: LoadScene = %v, want accepted", c.name, err)
			}
			continue
		}
		var be *Error
		if err == nil || !errors.As(err, &be) || be.Code != ExitBadInput {
			t.Errorf("%s: LoadScene = %v, want bad input", c.name, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.key+" = ") || !strings.Contains(msg, "outside the scene file's folder") {
			t.Errorf("%s: message %q does not name %s and the rule", c.name, msg, c.key)
		}
	}
}

// TestBatchSceneMayUseItsManifestFolder checks that a scene listed by a batch
// folder may name meshes shared below that folder, and still nothing above it.
func TestBatchSceneMayUseItsManifestFolder(t *testing.T) {
	top := t.TempDir()
	batch := filepath.Join(top, "batch")
	if err := os.MkdirAll(filepath.Join(batch, "scenes"), 0o755); err != nil {
		t.Fatal(err)
	}
	scene := filepath.Join(batch, "scenes", "a.json")
	if err := os.WriteFile(scene, []byte(`{"input": "../meshes/cloth.obj"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScene(scene); err == nil {
		t.Errorf("LoadScene(%s) accepted ../meshes outside the scene's folder", scene)
	}
	if _, err := LoadSceneWithin(scene, batch); err != nil {
		t.Errorf("LoadSceneWithin(%s, batch folder) = %v, want accepted", scene, err)
	}
	if err := os.WriteFile(scene, []byte(`{"input": "../../cloth.obj"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSceneWithin(scene, batch); err == nil {
		t.Errorf("LoadSceneWithin accepted a path above the batch folder")
	}
	jobs, err := ListBatch([]string{batch}, true)
	if err != nil || len(jobs) != 1 || jobs[0].Root != batch {
		t.Errorf("ListBatch(%s) = %+v, %v; want one job rooted at the folder", batch, jobs, err)
	}
}
