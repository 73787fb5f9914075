package bake

import (
	"strings"
	"testing"
	"time"
)

// 100,000 copies of one triangle are reported as duplicates by the
// pre-flight within 2 s, which compares them once instead of pairwise (its work is
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
	start := time.Now()
	j, err := Prepare(sc, Options{})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// the bound issue 33 sets for reading, welding and checking them
	// (0.6 s measured; pairwise, the check ran for minutes)
	if took > 2*time.Second {
		t.Errorf("preparing 100,000 duplicate triangles took %v, want under 2 s", took)
	}
	if !strings.Contains(strings.Join(j.Warnings, "\n"), "99999 cloth triangles repeat the corners of another") {
		t.Errorf("warnings %q do not report the 99999 duplicates", j.Warnings)
	}
}
