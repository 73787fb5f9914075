package bake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflightReports prepares cloth that starts in trouble: vertices
// inside a collider, and two sheets that pass through each other. Each is
// reported with its count and where, and the bake is still prepared (a
// settle phase pushes the vertices out; crossed sheets stay crossed).
func TestPreflightReports(t *testing.T) {
	dir := t.TempDir()
	// two 1 m squares of two triangles each crossing at right angles: the
	// horizontal one at y = 0.5 (diagonal z = x), the upright one in the
	// plane z = 0.2 (diagonal y = x + 0.5). Along their crossing line the
	// horizontal triangles hold x > 0.2 and x < 0.2, the upright ones x > 0
	// and x < 0: three pairs cross over a length, one does not meet.
	obj := "v -0.5 0.5 -0.5\nv 0.5 0.5 -0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n" +
		"v -0.5 0 0.2\nv 0.5 0 0.2\nv 0.5 1 0.2\nv -0.5 1 0.2\n" +
		"f 1 2 3 4\nf 5 6 7 8\n"
	crossed := filepath.Join(dir, "crossed.obj")
	if err := os.WriteFile(crossed, []byte(obj), 0o644); err != nil {
		t.Fatal(err)
	}
	warning := func(sc *Scene, want string) string {
		t.Helper()
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		j, err := Prepare(sc, Options{})
		if err != nil {
			t.Fatalf("Prepare: %v (a pre-flight problem must be reported, not refused)", err)
		}
		for _, w := range j.Warnings {
			if strings.Contains(w, want) {
				return w
			}
		}
		t.Fatalf("warnings %q: none says %q", j.Warnings, want)
		return ""
	}
	for _, self := range []bool{false, true} {
		sc := DefaultScene()
		sc.Input = crossed
		sc.SelfCollision = self
		w := warning(sc, "pairs of cloth triangles intersect in the input mesh")
		t.Logf("self-collision %v: %s", self, w)
		tail := map[bool]string{false: "the bake leaves them crossed", true: "self-collision cannot separate them"}[self]
		for _, s := range []string{"3 pairs", "the first near (", tail} {
			if !strings.Contains(w, s) {
				t.Errorf("self-collision %v: warning %q lacks %q", self, w, s)
			}
		}
	}
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 11, 1, 0)
	sc.Colliders = []ColliderSpec{{Type: ColliderSphere, Center: &[3]float64{0, -0.1, 0}, Radius: 0.2}}
	w := warning(sc, "cloth vertices start inside collider 0")
	t.Log(w)
	for _, s := range []string{"9 cloth vertices", "deepest 100.0 mm at vertex 60 (0, 0, 0)", "settle phase"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q lacks %q", w, s)
		}
	}
}
