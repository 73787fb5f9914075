package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drape-sim/drape/bake"
	"github.com/drape-sim/drape/internal/testtool"
)

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runIn(t, "version")
	if code != 0 || !strings.HasPrefix(out, "drape ") {
		t.Errorf("drape version = %d %q, want 0 and 'drape X.Y.Z'", code, out)
	}
	code, out, _ = runIn(t, "bake", "--help")
	if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--collider") {
		t.Errorf("drape bake --help = %d, output lacks examples or flags:\n%s", code, out)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"bake"},
		{"bake", "--frames"},
		{"bake", "x.obj", "--no-such-flag"},
		{"bake", "x.obj", "--collider", "torus:1,2"},
		{"bake", "x.obj", "--progress", "loud"},
		{"bake", "x.obj", "--morph-targets", "zero"},
		{"inspect"},
	} {
		code, _, errOut := runIn(t, args...)
		if code != 2 {
			t.Errorf("drape %v exit = %d, want 2 (stderr %q)", args, code, errOut)
		}
	}
}

func TestPresetsList(t *testing.T) {
	code, out, _ := runIn(t, "presets")
	for _, name := range []string{"cotton", "silk", "denim", "leather", "wool", "rubber", "Sources:", "Kawabata"} {
		if !strings.Contains(out, name) {
			t.Errorf("drape presets lacks %q:\n%s", name, out)
		}
	}
	if code != 0 {
		t.Errorf("exit = %d", code)
	}
}

func TestBakeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 12, 1, 1)
	code, out, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "12", "--pin", "top", "-o", "out.glb", "-o", "out.pc2",
		"--report", "report.json", "--collider", "sphere:0,0.5,0,0.3")
	if code != 0 {
		t.Fatalf("bake exit %d\nstderr: %s", code, errOut)
	}
	for _, f := range []string{"out.glb", "out.pc2", "report.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if !strings.Contains(out, "out.glb") || strings.Contains(out, "baked 12 frames") {
		t.Errorf("stdout should list only the outputs, got %q", out)
	}
	if !strings.Contains(errOut, "max stretch") {
		t.Errorf("stderr lacks the summary: %q", errOut)
	}
	if strings.Contains(errOut, "\r") || strings.Contains(errOut, "frames/s  ETA") {
		t.Errorf("stderr is not a terminal but shows a progress bar: %q", errOut)
	}
	// the glTF a user gets passes the Khronos validator
	if v := testtool.Validate(t, filepath.Join(dir, "out.glb")); v.Issues.NumErrors+v.Issues.NumWarnings != 0 {
		t.Errorf("out.glb: validator found %d errors, %d warnings", v.Issues.NumErrors, v.Issues.NumWarnings)
	}
	var rep map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	for _, k := range []string{"lowest_y_m", "highest_y_m", "mean_y_m", "max_stretch", "max_penetration_m", "self_intersections", "seconds_per_frame", "input_sha256", "drape_version", "settings"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	// leave no temporary files behind
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestProgressJSON(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 8, 1, 1)
	code, out, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "5", "--progress", "json", "--json", "-o", "o.glb")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("stdout has %d lines, want 5 progress + 1 result:\n%s", len(lines), out)
	}
	for i, l := range lines[:5] {
		var p struct {
			Frame, Frames int
			ElapsedS      float64  `json:"elapsed_s"`
			EtaS          *float64 `json:"eta_s"`
			MaxStretch    *float64 `json:"max_stretch"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.Frame != i+1 || p.Frames != 5 || p.EtaS == nil || p.MaxStretch == nil {
			t.Errorf("progress line %d = %q (%v)", i, l, err)
		}
	}
	var res struct {
		OK      bool
		Outputs []string
	}
	if err := json.Unmarshal([]byte(lines[5]), &res); err != nil || !res.OK || len(res.Outputs) != 1 {
		t.Errorf("result line = %q (%v)", lines[5], err)
	}
}

func TestBadInputExit3(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "empty.obj"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "nan.obj"), []byte("v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"input": "empty.obj", "colliders": [{"type": "sphere", "raduis": 1}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "quad.obj"), []byte("v 0 1 0\nv 1 1 0\nv 1 1 1\nv 0 1 1\nf 1 2 3 4\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bake", "missing.obj"}, "missing.obj"},
		{[]string{"bake", "empty.obj", "-o", "x.glb"}, "empty.obj"},
		{[]string{"bake", "nan.obj", "-o", "x.glb"}, "line 2"},
		{[]string{"bake", "bad.json"}, "colliders[0].raduis"},
		{[]string{"validate", "bad.json"}, "colliders[0].raduis"},
		{[]string{"bake", "quad.obj", "--morph-targets", "5000"}, "morph_targets"},
		{[]string{"bake", "quad.obj", "--morph-targets", "all", "--max-error", "0.001"}, "max_error"},
	}
	for _, c := range cases {
		code, _, errOut := runBin(t, dir, c.args...)
		if code != 3 || !strings.Contains(errOut, c.want) {
			t.Errorf("drape %v = exit %d, stderr %q; want exit 3 naming %q", c.args, code, errOut, c.want)
		}
		if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
			t.Errorf("drape %v panicked:\n%s", c.args, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.glb")); err == nil {
		t.Errorf("a failed bake wrote x.glb")
	}
}

func TestCancelLeavesOldOutput(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { testCancel(t, sig) })
	}
}

func testCancel(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 60, 1, 1)
	old := []byte("previous bake")
	out := filepath.Join(dir, "out.glb")
	os.WriteFile(out, old, 0o644)
	// a long bake that stores few frames (all 100000 would exceed the memory budget)
	cmd := exec.Command(drapeBin, "bake", "cloth.obj", "--frames", "100000", "--frame-step", "1000", "--progress", "json", "-o", "out.glb")
	cmd.Dir = dir
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait until it is really baking, then signal
	sc := bufio.NewScanner(stdout)
	for i := 0; i < 3 && sc.Scan(); i++ {
	}
	sent := time.Now()
	cmd.Process.Signal(sig)
	go func() {
		for sc.Scan() {
		}
	}()
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("bake cancelled by %v: %v, want exit 130 (stderr %s)", sig, err, errb.String())
	}
	if d := time.Since(sent); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if !strings.Contains(errb.String(), "cancelled") {
		t.Errorf("stderr does not say it was cancelled: %q", errb.String())
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, old) {
		t.Errorf("cancelled bake changed out.glb")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestBatchWithBrokenJob(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 8, 1, 1)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"input": "cloth.obj", "frames": 4, "output": "a.glb"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"input": "nothere.obj", "frames": 4, "output": "b.glb"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"input": "cloth.obj", "frames": 4, "output": "c.pc2", "pins": [{"top": true}]}`), 0o644)
	code, out, errOut := runBin(t, dir, "bake", ".", "-j", "2", "--json")
	if code != 3 {
		t.Errorf("batch exit = %d, want 3 (the broken job's)", code)
	}
	for _, f := range []string{"a.glb", "c.pc2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("good job's output %s missing: %v", f, err)
		}
	}
	if !strings.Contains(errOut, "2 of 3 jobs baked, 1 failed") || !strings.Contains(errOut, "FAILED") {
		t.Errorf("summary missing:\n%s", errOut)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Input string
			OK    bool
		}
		if json.Unmarshal([]byte(l), &r) == nil && r.Input != "" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("--json printed %d job results, want 3:\n%s", n, out)
	}
}

func TestPreviewCommand(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 10, 1, 1)
	if code, _, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "6", "--pin", "top", "-o", "c.glb"); code != 0 {
		t.Fatalf("bake: exit %d: %s", code, errOut)
	}
	code, out, errOut := runBin(t, dir, "preview", "c.glb", "-o", "c.png", "--frames", "0,5", "--size", "160x120")
	if code != 0 || strings.TrimSpace(out) != "c.png" {
		t.Fatalf("preview: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	f, err := os.Open(filepath.Join(dir, "c.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 320 || cfg.Height != 120 {
		t.Errorf("contact sheet of 2 frames at 160x120 = %dx%d (%v), want 320x120", cfg.Width, cfg.Height, err)
	}
	if code, _, _ := runBin(t, dir, "preview", "cloth.obj", "-o", "x.png"); code != 3 {
		t.Errorf("preview of an unbaked OBJ: exit %d, want 3", code)
	}
	if code, _, _ := runBin(t, dir, "preview", "c.glb", "-o", "x.png", "--size", "big"); code != 2 {
		t.Errorf("preview --size big: exit %d, want 2", code)
	}
}

// TestMalformedScenes runs the binary on one malformed scene file per error
// class: each must exit 3 with a message naming the file, the key path and
// what is allowed.
func TestMalformedScenes(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 6, 1, 1)
	cases := []struct {
		name, json string
		want       []string
	}{
		{"syntax", "{\n \"input\": \"cloth.obj\",\n \"frames\": 10,,\n}", []string{"syntax.json", "line 3", "invalid JSON"}},
		{"unknown", `{"input": "cloth.obj", "wind": {"direction": [1,0,0], "speed": 2, "gusts": 1}}`, []string{"unknown.json", `"wind.gusts"`, `did you mean "gust"`}},
		{"type", `{"input": "cloth.obj", "self_collision": "yes"}`, []string{"type.json", "self_collision", "true or false"}},
		{"range", `{"input": "cloth.obj", "substeps": 5000}`, []string{"range.json", "substeps = 5000", "1..1000"}},
		{"bend-range", `{"input": "cloth.obj", "bending_interval": -1}`, []string{"bend-range.json", "bending_interval = -1", "1..100"}},
		{"nested-range", `{"input": "cloth.obj", "pins": [{"box": [0,0,0,-1,1,1]}]}`, []string{"nested-range.json", "pins[0].box", "x0<=x1"}},
		{"missing-mesh", `{"input": "nothere.obj"}`, []string{"nothere.obj", "cannot read"}},
		{"bad-collider-mesh", `{"input": "cloth.obj", "colliders": [{"type": "mesh", "path": "cloth.obj"}]}`, []string{"colliders[0]", "closed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, c.name+".json"), []byte(c.json), 0o644)
			for _, cmd := range []string{"bake", "validate"} {
				code, out, errOut := runBin(t, dir, cmd, c.name+".json")
				if code != 3 {
					t.Errorf("drape %s %s.json: exit %d, want 3 (stderr %q)", cmd, c.name, code, errOut)
				}
				for _, w := range c.want {
					if !strings.Contains(errOut, w) {
						t.Errorf("drape %s %s.json: stderr %q does not name %q", cmd, c.name, errOut, w)
					}
				}
				if cmd == "bake" && out != "" {
					t.Errorf("drape bake %s.json printed on stdout: %q", c.name, out)
				}
			}
		})
	}
	// a good scene validates
	os.WriteFile(filepath.Join(dir, "good.json"), []byte(`{"input": "cloth.obj", "pins": [{"top": true}], "colliders": [{"type": "sphere", "center": [0,0,0], "radius": 0.3}]}`), 0o644)
	if code, out, errOut := runBin(t, dir, "validate", "good.json"); code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("validate good.json: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestValidateSummary checks that drape validate names a scene's moving
// pins, fabric regions, seams and closed pieces holding a volume (the
// sash, cushions and skirt examples).
func TestValidateSummary(t *testing.T) {
	for _, tc := range []struct{ scene, want string }{
		{"../../examples/cushions/scene.json", "1 fabric regions, 2 closed pieces holding a volume)"},
		{"../../examples/skirt/scene.json", "4 pinned, 1 colliders, 36 seams)"},
		{"../../examples/sash/scene.json", "16 pinned, 2 colliders, 16 moving pins)"},
	} {
		code, out, errOut := runBin(t, ".", "validate", tc.scene)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("validate %s: exit %d, stdout %q (stderr %q), want it to contain %q", tc.scene, code, out, errOut, tc.want)
		}
	}
}

func TestCollidersAndFit(t *testing.T) {
	code, out, errOut := runIn(t, "colliders", "--json")
	var kinds []struct {
		Kind string `json:"kind"`
		Flag string `json:"flag"`
		Keys []struct {
			Key string `json:"key"`
		} `json:"keys"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &kinds) != nil {
		t.Fatalf("drape colliders --json = %d %q %q, want 0 and a JSON array", code, out, errOut)
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		seen[k.Kind] = len(k.Keys) > 0 && strings.HasPrefix(k.Flag, k.Kind+":")
	}
	for _, k := range []string{"sphere", "capsule", "cone", "plane", "box", "mesh"} {
		if !seen[k] {
			t.Errorf("drape colliders --json lacks kind %q with keys and a flag syntax: %s", k, out)
		}
	}
	dir := t.TempDir()
	obj := filepath.Join(dir, "ball.obj")
	// an octahedron of radius 0.5 around (0, 1, 0)
	src := "v 0.5 1 0\nv -0.5 1 0\nv 0 1.5 0\nv 0 0.5 0\nv 0 1 0.5\nv 0 1 -0.5\n" +
		"f 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\nf 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n"
	if err := os.WriteFile(obj, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runIn(t, "fit-collider", "sphere", obj, "--json")
	var got struct {
		Type   string     `json:"type"`
		Center [3]float64 `json:"center"`
		Radius float64    `json:"radius"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.Type != "sphere" || got.Center != [3]float64{0, 1, 0} || got.Radius != 0.5 {
		t.Errorf("drape fit-collider sphere = %d %q %q, want a sphere at [0 1 0] of radius 0.5", code, out, errOut)
	}
	// the printed entry is a scene's collider
	if _, err := bake.ParseScene([]byte(`{"input": "ball.obj", "colliders": [`+out+`]}`), filepath.Join(dir, "s.json")); err != nil {
		t.Errorf("the fitted entry %q is not a scene collider: %v", out, err)
	}
	if code, _, _ = runIn(t, "fit-collider", "torus", obj); code != 2 {
		t.Errorf("drape fit-collider torus = %d, want 2", code)
	}
	if code, _, _ = runIn(t, "fit-collider", "box", filepath.Join(dir, "none.obj")); code != 3 {
		t.Errorf("drape fit-collider on a missing file = %d, want 3", code)
	}
}

func TestPresetsJSON(t *testing.T) {
	code, out, _ := runIn(t, "presets", "--json")
	var got struct {
		Presets []struct {
			Name    string  `json:"name"`
			Density float64 `json:"density"`
		} `json:"presets"`
		Defaults bake.Defaults `json:"defaults"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("drape presets --json = %d %q, want 0 and a JSON object", code, out)
	}
	if len(got.Presets) != len(bake.PresetNames()) || got.Presets[0].Density <= 0 {
		t.Errorf("drape presets --json lists %d presets, want %d with their values", len(got.Presets), len(bake.PresetNames()))
	}
	if got.Defaults != bake.DefaultSettings() {
		t.Errorf("drape presets --json defaults = %+v, want %+v", got.Defaults, bake.DefaultSettings())
	}
}
