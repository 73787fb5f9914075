package bake

import (
	"strings"
	"testing"
)

// 100,000 copies of one triangle are reported as duplicates by the
// pre-flight, which compares them once instead of pairwise (its work is
// bounded: see solver.CheckSelfIntersections).
func TestPreflightDuplicateTriangles(t *testing.T) {
	var b strings.Builder
	b.WriteString("v 0 1 0\nv 1 1 0\nv 0 1 1\n")
	for range 100000 {
		b.WriteString("f 1 2 3\n")
	}
	sc := DefaultScene()
	sc.Input = writeOBJ(t, t.TempDir(), "dup.obj", b.String())
	sc.Frames = 2
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(j.Warnings, "\n"), "99999 cloth triangles repeat the corners of another") {
		t.Errorf("warnings %q do not report the 99999 duplicates", j.Warnings)
	}
}
