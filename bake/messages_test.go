package bake

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Scene files that JSON readers disagree on, and settings that pass
// validation only to mislead later, get a message naming the place.
func TestSceneMessages(t *testing.T) {
	dir := t.TempDir()
	writeGridOBJ(t, dir, 4, 1, 1)
	for _, c := range []struct {
		name, text string
		want       string // "" for accepted
	}{
		{"byte order mark", "\xef\xbb\xbf{\"input\": \"grid.obj\"}", ""},
		{"duplicate key", "{\"input\": \"grid.obj\",\n \"frames\": 10,\n \"frames\": 20}", `line 3 column 10: key "frames" appears twice`},
		{"duplicate nested key", `{"input": "grid.obj", "fabric": {"preset": "silk", "preset": "wool"}}`, `key "preset" appears twice`},
		{"same key in two objects", `{"input": "grid.obj", "pins": [{"top": true}, {"top": true}]}`, ""},
		{"fps 1e-300", `{"input": "grid.obj", "fps": 1e-300}`, "fps = 1e-300: must be in 1..1000"},
	} {
		p := filepath.Join(dir, "scene.json")
		os.WriteFile(p, []byte(c.text), 0o644)
		_, err := LoadScene(p)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: accepted", c.name)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %q does not say %q", c.name, err, c.want)
		}
	}
}

// A top pin on a cloth whose highest point is one vertex warns instead of
// silently hanging the cloth from it.
func TestTopPinOnAPointWarns(t *testing.T) {
	dir := t.TempDir()
	// a tent: the middle vertex of a 5 x 5 grid raised
	var b strings.Builder
	for i := range 5 {
		for j := range 5 {
			y := 1.0
			if i == 2 && j == 2 {
				y = 1.2
			}
			fmt.Fprintf(&b, "v %g %g %g\n", float64(j)/4, y, float64(i)/4)
		}
	}
	for i := range 4 {
		for j := range 4 {
			a := i*5 + j + 1
			fmt.Fprintf(&b, "f %d %d %d %d\n", a, a+5, a+6, a+1)
		}
	}
	sc := DefaultScene()
	sc.Input = writeOBJ(t, dir, "tent.obj", b.String())
	sc.Frames = 2
	sc.Pins = []PinSpec{{Top: true}}
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(j.Warnings, "\n"), "holds only 1 vertex") {
		t.Errorf("warnings %q do not say the top pin holds 1 vertex", j.Warnings)
	}
	// a flat sheet's top row is no point
	sc = hangingScene(t, dir, 2)
	sc.Pins = []PinSpec{{Top: true}}
	if j, err = Prepare(sc, Options{}); err != nil || strings.Contains(strings.Join(j.Warnings, "\n"), "holds only") {
		t.Errorf("a flat sheet's top pin warned: %v %q", err, j.Warnings)
	}
}

// Bending too stiff for the mesh is told with advice that can be followed:
// never more substeps than the solver allows.
func TestStiffBendingAdviceWithinLimits(t *testing.T) {
	sc := hangingScene(t, t.TempDir(), 2)
	sc.Substeps = 10
	sc.Fabric.Bend = ptr(1e3)
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(j.Warnings, "\n")
	if !strings.Contains(all, "more than the 1000 substeps allowed") {
		t.Errorf("warnings %q lack the advice for bending beyond 1000 substeps", all)
	}
	if strings.Contains(all, "--substeps") {
		t.Errorf("warnings %q advise --substeps beyond the maximum", all)
	}
}
