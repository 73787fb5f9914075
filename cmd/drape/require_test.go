package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// certificate is the report's quality block as a consumer reads it.
type certificate struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Key      string      `json:"key"`
		Value    float64     `json:"value"`
		Bound    float64     `json:"bound"`
		OK       bool        `json:"ok"`
		Frame    *int        `json:"frame"`
		Vertices []int       `json:"vertices"`
		Position *[3]float64 `json:"position"`
	} `json:"checks"`
	Required []string `json:"required"`
	Failed   []string `json:"failed"`
}

func readCertificate(t *testing.T, path string) (certificate, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the report: %v", err)
	}
	var rep struct {
		Quality  certificate `json:"quality"`
		Warnings []string    `json:"warnings"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rep.Quality, rep.Warnings
}

// TestRequireMissedExits5 bakes a cloth hanging from one corner with a
// bound no cloth meets: the bake exits 5 naming the bound, and still
// writes valid outputs and the report.
func TestRequireMissedExits5(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 10, 1, 1)
	code, out, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "16", "--pin", "index:0",
		"-o", "out.pc2", "-o", "out.glb", "--report", "report.json", "--require", "max_strain<=1e-9", "--require", "self_intersections<=0")
	if code != 5 {
		t.Fatalf("bake --require max_strain<=1e-9: exit %d, want 5\nstderr: %s", code, errOut)
	}
	if !strings.Contains(errOut, "requirement not met: max_strain<=1e-09 (measured ") {
		t.Errorf("stderr does not name the missed bound:\n%s", errOut)
	}
	if strings.Contains(errOut, "self_intersections<=0 (measured") {
		t.Errorf("stderr names self_intersections<=0 as missed, but the flat cloth cannot intersect itself:\n%s", errOut)
	}
	if !strings.Contains(out, "out.pc2") {
		t.Errorf("stdout does not list the outputs: %q", out)
	}
	pc, err := meshio.ReadPC2File(filepath.Join(dir, "out.pc2"))
	if err != nil || len(pc.Frames) != 16 || len(pc.Frames[0]) != 100 {
		t.Fatalf("out.pc2 after exit 5: %v (want 16 frames of 100 vertices)", err)
	}
	if v := testtool.Validate(t, filepath.Join(dir, "out.glb")); v.Issues.NumErrors+v.Issues.NumWarnings != 0 {
		t.Errorf("out.glb after exit 5: validator found %d errors, %d warnings", v.Issues.NumErrors, v.Issues.NumWarnings)
	}
	q, _ := readCertificate(t, filepath.Join(dir, "report.json"))
	if len(q.Failed) != 1 || !strings.HasPrefix(q.Failed[0], "max_strain<=1e-09 (measured ") {
		t.Errorf("report quality.failed = %q, want max_strain<=1e-09 alone", q.Failed)
	}
	if strings.Join(q.Required, " ") != "max_strain<=1e-09 self_intersections<=0" {
		t.Errorf("report quality.required = %q", q.Required)
	}
}

// TestRequireMetExits0 bakes the same cloth with bounds it meets.
func TestRequireMetExits0(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 10, 1, 1)
	code, _, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "16", "--pin", "index:0", "-o", "out.pc2",
		"--report", "report.json", "--require", "max_strain<=10", "--require", "penetration_m<=0.01")
	if code != 0 {
		t.Fatalf("bake --require max_strain<=10: exit %d, want 0\nstderr: %s", code, errOut)
	}
	if strings.Contains(errOut, "requirement") {
		t.Errorf("stderr speaks of a requirement:\n%s", errOut)
	}
	q, _ := readCertificate(t, filepath.Join(dir, "report.json"))
	if len(q.Failed) != 0 || len(q.Required) != 2 {
		t.Errorf("report quality: required %q, failed %q; want 2 required, none failed", q.Required, q.Failed)
	}
}

// TestRequireMalformed checks that a malformed --require is a usage error
// (exit 2) saying what to write instead, and a malformed scene key require
// is bad input (exit 3) naming the key.
func TestRequireMalformed(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 4, 1, 1)
	for _, c := range []struct{ flag, want string }{
		{"max_stran<=0.02", `did you mean "max_strain"`},
		{"max_strain<=two", `"two" is not a number >= 0`},
		{"max_strain<=-1", `"-1" is not a number >= 0`},
		{"max_strain<=NaN", `"NaN" is not a number >= 0`},
		{"max_strain>=0.02", `">=" is not allowed: a requirement is an upper bound, KEY<=VALUE`},
		{"max_strain<0.02", `"<" is not allowed`},
		{"max_strain=0.02", `"=" is not allowed`},
		{"max_strain", "want KEY<=VALUE"},
		{"self_intersections<=0.5", "not a whole number"},
	} {
		code, _, errOut := runIn(t, "bake", filepath.Join(dir, "cloth.obj"), "--frames", "2", "-o", filepath.Join(dir, "x.glb"), "--require", c.flag)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "e.g.") {
			t.Errorf("--require %q: exit %d, stderr %q; want exit 2 saying %q and giving an example", c.flag, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.glb")); err == nil {
		t.Errorf("a bake with a malformed --require wrote x.glb")
	}
	for _, c := range []struct{ name, json, want string }{
		{"typo", `{"input": "cloth.obj", "require": {"max_strian": 0.02}}`, `"require.max_strian" (did you mean "max_strain"?)`},
		{"negative", `{"input": "cloth.obj", "require": {"penetration_m": -0.001}}`, "require.penetration_m = -0.001"},
		{"fraction", `{"input": "cloth.obj", "require": {"self_intersections": 0.5}}`, "require.self_intersections"},
	} {
		os.WriteFile(filepath.Join(dir, c.name+".json"), []byte(c.json), 0o644)
		code, _, errOut := runIn(t, "bake", filepath.Join(dir, c.name+".json"))
		if code != 3 || !strings.Contains(errOut, c.want) {
			t.Errorf("scene %s: exit %d, stderr %q; want exit 3 naming %q", c.json, code, errOut, c.want)
		}
	}
}

// TestCertificateLocatesWorstEdge checks the report's quality block against
// the written point cache: the named edge in the named frame has the
// reported strain and position, and no edge in any frame is strained more.
// With 2 substeps the cloth stretches past cotton's 2 %, and the bake warns
// in one line (exit 0: a bound is a warning, not a gate).
func TestCertificateLocatesWorstEdge(t *testing.T) {
	dir := t.TempDir()
	const n = 10
	edges := writeTriangleGrid(t, filepath.Join(dir, "cloth.obj"), n)
	code, _, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "16", "--pin", "index:0", "--substeps", "2",
		"-o", "out.pc2", "--report", "report.json")
	if code != 0 {
		t.Fatalf("bake: exit %d\nstderr: %s", code, errOut)
	}
	q, warnings := readCertificate(t, filepath.Join(dir, "report.json"))
	pc, err := meshio.ReadPC2File(filepath.Join(dir, "out.pc2"))
	if err != nil {
		t.Fatal(err)
	}
	// the PC2 holds Blender's axes (x, -z, y); drape's are (x, y, z)
	frames := make([][]vec.Vec3, len(pc.Frames))
	for k, f := range pc.Frames {
		frames[k] = make([]vec.Vec3, len(f))
		for i, p := range f {
			frames[k][i] = vec.V(p.X, p.Z, -p.Y)
		}
	}
	strain := func(k int, e [2]int) float64 {
		rest := frames[0][e[0]].Sub(frames[0][e[1]]).Len()
		return frames[k][e[0]].Sub(frames[k][e[1]]).Len()/rest - 1
	}
	if len(q.Checks) != 4 {
		t.Fatalf("quality.checks has %d entries, want 4", len(q.Checks))
	}
	for i, key := range []string{"max_strain", "last_strain", "penetration_m", "self_intersections"} {
		if q.Checks[i].Key != key {
			t.Errorf("quality.checks[%d].key = %q, want %q", i, q.Checks[i].Key, key)
		}
	}
	for _, c := range q.Checks[:2] {
		if c.Frame == nil || len(c.Vertices) != 2 || c.Position == nil {
			t.Fatalf("%s: frame %v, vertices %v, position %v: want all three", c.Key, c.Frame, c.Vertices, c.Position)
		}
		k, e := *c.Frame, [2]int{c.Vertices[0], c.Vertices[1]}
		if c.Key == "last_strain" && k != len(frames)-1 {
			t.Errorf("last_strain: frame %d, want the last, %d", k, len(frames)-1)
		}
		// the PC2 holds float32: 1e-5 of strain is far above its rounding
		if got := strain(k, e); math.Abs(got-c.Value) > 1e-5 {
			t.Errorf("%s: edge %v at frame %d has strain %.6f in out.pc2, report says %.6f", c.Key, e, k, got, c.Value)
		}
		mid := frames[k][e[0]].Add(frames[k][e[1]]).Scale(0.5)
		if d := mid.Sub(vec.V(c.Position[0], c.Position[1], c.Position[2])).Len(); d > 1e-5 {
			t.Errorf("%s: position %v is %.2g m from the edge's midpoint %v", c.Key, *c.Position, d, mid)
		}
		first, last := 1, len(frames)-1
		if c.Key == "last_strain" {
			first = last
		}
		for f := first; f <= last; f++ {
			for _, o := range edges {
				if s := strain(f, o); s > c.Value+1e-5 {
					t.Errorf("%s: edge %v at frame %d has strain %.6f in out.pc2, above the reported worst %.6f", c.Key, o, f, s, c.Value)
				}
			}
		}
	}
	ms := q.Checks[0]
	if !(ms.Value > 0.02) || ms.OK || q.OK || ms.Bound != 0.02 {
		t.Fatalf("max_strain %.4f, bound %v, ok %v (quality ok %v): want above cotton's 0.02 with 2 substeps, and not ok", ms.Value, ms.Bound, ms.OK, q.OK)
	}
	var lines []string
	for _, l := range strings.Split(errOut, "\n") {
		if strings.Contains(l, "warning: quality:") && strings.Contains(l, "(max_strain)") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "bound 2 %") {
		t.Errorf("stderr has %d warning lines on max_strain, want 1 naming the bound 2 %%:\n%s", len(lines), errOut)
	}
	found := false
	for _, w := range warnings {
		found = found || strings.Contains(w, "(max_strain)")
	}
	if !found {
		t.Errorf("report warnings %q lack the max_strain line", warnings)
	}
}

// TestBatchMissedRequirement bakes a folder where one job misses its
// scene's requirement: it is reported apart from a failed job, its outputs
// are written, and the batch exits 5.
func TestBatchMissedRequirement(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 8, 1, 1)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"input": "cloth.obj", "frames": 6, "output": "a.pc2", "pins": [{"indices": [0]}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"input": "cloth.obj", "frames": 6, "output": "b.pc2", "pins": [{"indices": [0]}], "require": {"max_strain": 1e-9}}`), 0o644)
	code, out, errOut := runBin(t, dir, "bake", ".", "--json")
	if code != 5 {
		t.Errorf("batch exit = %d, want 5 (a missed requirement, no failure)\nstderr: %s", code, errOut)
	}
	for _, f := range []string{"a.pc2", "b.pc2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s missing: %v", f, err)
		}
	}
	if !strings.Contains(errOut, "2 of 2 jobs baked, 0 failed, 1 missed a requirement") || !strings.Contains(errOut, "MISSED REQUIREMENT (exit 5)") {
		t.Errorf("summary does not tell the missed job apart:\n%s", errOut)
	}
	status := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Input   string
			OK      bool
			Status  string
			Code    int `json:"exit_code"`
			Outputs []string
			Missed  []string `json:"missed_requirements"`
		}
		if json.Unmarshal([]byte(l), &r) != nil || r.Input == "" {
			continue
		}
		status[filepath.Base(r.Input)] = r.Status
		if r.Status == "requirement_missed" && (r.OK || r.Code != 5 || len(r.Outputs) != 1 || len(r.Missed) != 1) {
			t.Errorf("missed job's result: ok %v, exit %d, outputs %q, missed %q", r.OK, r.Code, r.Outputs, r.Missed)
		}
	}
	if status["a.json"] != "ok" || status["b.json"] != "requirement_missed" {
		t.Errorf("--json statuses = %v, want a ok and b requirement_missed", status)
	}

	// a failed job's exit code comes first
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"input": "nothere.obj", "frames": 6, "output": "c.pc2"}`), 0o644)
	code, out, errOut = runBin(t, dir, "bake", ".", "--json")
	if code != 3 || !strings.Contains(errOut, "2 of 3 jobs baked, 1 failed, 1 missed a requirement") {
		t.Errorf("batch with a broken job: exit %d, want 3 (the failure's)\nstderr: %s", code, errOut)
	}
	if !strings.Contains(out, `"status":"failed"`) || !strings.Contains(out, `"status":"requirement_missed"`) {
		t.Errorf("--json does not tell the failed job from the missed one:\n%s", out)
	}
}

// writeTriangleGrid writes a 1 m OBJ grid of n x n vertices in the XZ plane
// at height 1 m, each square split into two triangles along the same
// diagonal, and returns its edges (vertex ids from 0, as the point cache
// numbers them).
func writeTriangleGrid(t *testing.T, path string, n int) [][2]int {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b.WriteString("v " + ftoa(-0.5+float64(j)/float64(n-1)) + " 1 " + ftoa(-0.5+float64(i)/float64(n-1)) + "\n")
		}
	}
	var edges [][2]int
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a := i*n + j
			if j+1 < n {
				edges = append(edges, [2]int{a, a + 1})
			}
			if i+1 < n {
				edges = append(edges, [2]int{a, a + n})
			}
			if i+1 < n && j+1 < n {
				edges = append(edges, [2]int{a, a + n + 1})
				f := func(x, y, z int) { b.WriteString("f " + itoa(x+1) + " " + itoa(y+1) + " " + itoa(z+1) + "\n") }
				f(a, a+n, a+n+1)
				f(a, a+n+1, a+1)
			}
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return edges
}
