package bake

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSceneErrors(t *testing.T) {
	cases := []struct {
		name string
		json string
		want []string // substrings of the error
	}{
		{"syntax", "{\n  \"input\": \"a.obj\",\n  \"frames\": ,\n}", []string{"s.json", "line 3", "invalid JSON"}},
		{"not object", `[1,2]`, []string{"must be a JSON object"}},
		{"unknown top key", `{"input": "a.obj", "frame": 10}`, []string{`unknown key "frame"`, `did you mean "frames"`}},
		{"unknown nested key", `{"input": "a.obj", "colliders": [{"type": "sphere", "center": [0,0,0], "radius": 1}, {"type": "sphere", "raduis": 2}]}`,
			[]string{`"colliders[1].raduis"`, `did you mean "radius"`}},
		{"unknown fabric key", `{"input": "a.obj", "fabric": {"preset": "silk", "stiffness": 3}}`, []string{`"fabric.stiffness"`}},
		{"wrong type", `{"input": "a.obj", "frames": "ten"}`, []string{"frames", "want a whole number"}},
		{"wrong vector", `{"input": "a.obj", "gravity": [0, 1]}`, []string{"gravity"}},
		{"frames range", `{"input": "a.obj", "frames": 0}`, []string{"frames = 0", "1..100000"}},
		{"fps range", `{"input": "a.obj", "fps": -24}`, []string{"fps = -24"}},
		{"missing input", `{"frames": 10}`, []string{"input", "required"}},
		{"bad solver", `{"input": "a.obj", "solver": "rk4"}`, []string{`solver = "rk4"`, "xpbd"}},
		{"bad preset", `{"input": "a.obj", "fabric": {"preset": "kevlar"}}`, []string{"fabric.preset", "cotton"}},
		{"negative radius", `{"input": "a.obj", "colliders": [{"type": "sphere", "center": [0,0,0], "radius": -1}]}`, []string{"colliders[0].radius = -1", "> 0"}},
		{"capsule missing b", `{"input": "a.obj", "colliders": [{"type": "capsule", "a": [0,0,0], "radius": 1}]}`, []string{"colliders[0].b", "needs b"}},
		{"unknown collider", `{"input": "a.obj", "colliders": [{"type": "torus"}]}`, []string{`colliders[0].type = "torus"`}},
		{"pin two kinds", `{"input": "a.obj", "pins": [{"top": true, "indices": [1]}]}`, []string{"pins[0]", "exactly one"}},
		{"pin weights", `{"input": "a.obj", "pins": [{"indices": [1, 2], "weights": [1]}]}`, []string{"pins[0].weights", "one weight per index"}},
		{"keys order", `{"input": "a.obj", "colliders": [{"type": "sphere", "center": [0,0,0], "radius": 1, "keys": [{"time": 1}, {"time": 0.5}]}]}`,
			[]string{"colliders[0].keys[1].time", "after the previous"}},
		{"bad output", `{"input": "a.obj", "output": "x.fbx"}`, []string{"output[0]", ".fbx"}},
		{"wind", `{"input": "a.obj", "wind": {"direction": [0,0,0], "speed": 3}}`, []string{"wind.direction"}},
		{"region two selectors", `{"input": "a.obj", "regions": [{"material": "jeans", "piece": 1, "fabric": {"preset": "denim"}}]}`,
			[]string{"regions[0]", "exactly one of material, piece, box"}},
		{"region friction", `{"input": "a.obj", "regions": [{"piece": 1, "fabric": {"friction": 0.9}}]}`,
			[]string{"regions[0].fabric.friction = 0.9", "top-level friction"}},
		{"region box", `{"input": "a.obj", "regions": [{"box": [1, 0, 0, 0, 1, 1], "fabric": {}}]}`, []string{"regions[0].box", "x0 <= x1"}},
		{"sewing range", `{"input": "a.obj", "sewing": -1}`, []string{"sewing = -1", "(0, 100]"}},
		{"volume range", `{"input": "a.obj", "volume": 20}`, []string{"volume = 20", "(0, 10]"}},
		{"volume solver", `{"input": "a.obj", "volume": 1, "solver": "verlet"}`, []string{"volume = 1", "xpbd solver only"}},
		{"thickness below the solver's", `{"input": "a.obj", "thickness": 1e-6}`, []string{"thickness = 1e-06", "[1e-05, 1] m"}},
		{"threads above the solver's", `{"input": "a.obj", "threads": 500}`, []string{"threads = 500", "0..256"}},
		{"bad up", `{"input": "a.obj", "up": "x"}`, []string{`up = "x"`, `"y" or "z"`}},
		{"bad collider up", `{"input": "a.obj", "colliders": [{"type": "mesh", "path": "b.obj", "up": "-z"}]}`, []string{`colliders[0].up = "-z"`, `"y" or "z"`}},
		{"up not a string", `{"input": "a.obj", "up": 2}`, []string{"up"}},
		{"region preset", `{"input": "a.obj", "regions": [{"piece": 0, "fabric": {"preset": "tweed"}}]}`, []string{"regions[0].fabric.preset", "denim"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScene([]byte(c.json), "dir/s.json")
			if err == nil {
				t.Fatalf("ParseScene(%s) = nil error, want one containing %q", c.json, c.want)
			}
			if ExitCode(err) != ExitBadInput {
				t.Errorf("exit code = %d, want %d", ExitCode(err), ExitBadInput)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseSceneDefaultsAndPaths(t *testing.T) {
	sc, err := ParseScene([]byte(`{"input": "cloth.obj", "output": ["a.glb", "b.pc2"], "fabric": {"preset": "silk", "bend": 2e-6},
		"colliders": [{"type": "mesh", "path": "body.obj"}]}`), "scenes/s.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Frames != 120 || sc.FPS != 24 || sc.Solver != "xpbd" || sc.Up != AxisY || sc.Scale != 1 {
		t.Errorf("defaults = frames %d fps %g solver %s up %s scale %g, want 120 24 xpbd y 1", sc.Frames, sc.FPS, sc.Solver, sc.Up, sc.Scale)
	}
	if got := sc.Resolve(sc.Input); got != "scenes/cloth.obj" {
		t.Errorf("Resolve(input) = %s, want scenes/cloth.obj", got)
	}
	if len(sc.Output) != 2 {
		t.Errorf("outputs = %v, want 2", sc.Output)
	}
	f := sc.Fabric.Resolve()
	silk, _ := LookupPreset("silk")
	if f.Bend != 2e-6 || f.Density != silk.Density {
		t.Errorf("fabric = bend %g density %g, want the override 2e-6 and silk's density %g", f.Bend, f.Density, silk.Density)
	}
}

func TestFlagSpecs(t *testing.T) {
	c, err := ParseColliderFlag("capsule:0,1,0,0,2,0,0.1")
	if err != nil || c.Type != ColliderCapsule || c.B[1] != 2 || c.Radius != 0.1 {
		t.Errorf("ParseColliderFlag(capsule) = %+v, %v", c, err)
	}
	for _, bad := range []string{"sphere:1,2,3", "torus:1", "box:1,2,3,4,5,x", "mesh:", "sphere:0,0,0,NaN"} {
		if _, err := ParseColliderFlag(bad); err == nil {
			t.Errorf("ParseColliderFlag(%q) = nil error", bad)
		}
	}
	p, err := ParsePinFlag("index:3,1,2")
	if err != nil || len(p.Indices) != 3 {
		t.Errorf("ParsePinFlag(index) = %+v, %v", p, err)
	}
	for _, bad := range []string{"bottom", "index:a", "box:1,2", "top:1", "index:-1"} {
		if _, err := ParsePinFlag(bad); err == nil {
			t.Errorf("ParsePinFlag(%q) = nil error", bad)
		}
	}
}

func TestExitCodes(t *testing.T) {
	if got := ExitCode(&Error{Code: ExitDiverged, Err: errors.New("x")}); got != ExitDiverged {
		t.Errorf("ExitCode(diverged) = %d", got)
	}
	if got := ExitCode(errors.New("boom")); got != ExitInternal {
		t.Errorf("ExitCode(plain) = %d, want %d", got, ExitInternal)
	}
}
