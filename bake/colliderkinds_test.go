package bake

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// ring returns n points on a circle of radius r around (cx, y, cz) in XZ.
func ring(cx, y, cz, r float64, n int) []vec.Vec3 {
	var out []vec.Vec3
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		out = append(out, vec.V(cx+r*math.Cos(a), y, cz+r*math.Sin(a)))
	}
	return out
}

// fitClouds are points on the surface of a shape of each kind, whose fit
// must pass through all of them.
var fitClouds = map[ColliderKind][]vec.Vec3{
	ColliderSphere: {vec.V(1.5, 2, -1), vec.V(0.5, 2, -1), vec.V(1, 2.5, -1), vec.V(1, 1.5, -1), vec.V(1, 2, -0.5), vec.V(1, 2, -1.5),
		vec.V(1+0.5/math.Sqrt(3), 2+0.5/math.Sqrt(3), -1+0.5/math.Sqrt(3))},
	ColliderCapsule: {vec.V(-0.3, 1, 0), vec.V(2.3, 1, 0), vec.V(0, 1.3, 0), vec.V(1, 0.7, 0), vec.V(2, 1, 0.3), vec.V(1, 1, -0.3)},
	ColliderCone:    append(ring(1, 0.5, -1, 0.3, 16), ring(1, 2.5, -1, 0.1, 16)...),
	ColliderPlane:   {vec.V(0, 2, 0), vec.V(3, -1, 2), vec.V(-1, 0.5, 7)},
	ColliderBox:     {vec.V(0, 0, 0), vec.V(2, 0, 0), vec.V(2, 4, 0), vec.V(0, 4, 6), vec.V(1, 2, 6), vec.V(2, 4, 6)},
}

// TestColliderKindsRoundTrip checks every kind's registry entry against
// itself: its fit to points on such a shape is that shape (every point on
// its surface; a plane's below or on it), and the fitted spec validates and
// survives JSON and its flag syntax.
func TestColliderKindsRoundTrip(t *testing.T) {
	sc := DefaultScene()
	sc.Input = "x.obj"
	for _, k := range ColliderKinds() {
		t.Run(k.String(), func(t *testing.T) {
			pts := fitClouds[k]
			spec, ok := k.Fit(NewFitMesh(pts))
			if !ok {
				if k != ColliderMesh {
					t.Fatalf("%v.Fit = not ok, want a fitted spec", k)
				}
				return
			}
			if len(pts) == 0 {
				t.Fatalf("no sample cloud for %v: add one to fitClouds", k)
			}
			if spec.Type != k {
				t.Fatalf("%v.Fit().Type = %v", k, spec.Type)
			}
			if err := spec.validate(sc, "colliders[0]"); err != nil {
				t.Fatalf("%v.Fit() = %+v does not validate: %v", k, spec, err)
			}
			// JSON: the scene decodes what the registry writes
			js, err := json.Marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseScene([]byte(`{"input": "x.obj", "colliders": [`+string(js)+`]}`), "s.json")
			if err != nil {
				t.Fatalf("scene with %s: %v", js, err)
			}
			if back, _ := json.Marshal(got.Colliders[0]); string(back) != string(js) {
				t.Errorf("JSON round trip = %s, want %s", back, js)
			}
			// flag: KIND:values in the order FlagSyntax names them
			flag := k.FlagSyntax()
			_, names, _ := strings.Cut(flag, ":")
			var vals []string
			for _, ck := range k.kind().keys {
				if ck.flag == "" {
					continue
				}
				switch v := spec.field(ck.key).Interface().(type) {
				case *[3]float64:
					for _, x := range v {
						vals = append(vals, fmtG(x))
					}
				case float64:
					vals = append(vals, fmtG(v))
				}
			}
			if n := len(strings.Split(names, ",")); n != len(vals) {
				t.Fatalf("flag syntax %s names %d values, the spec gives %d", flag, n, len(vals))
			}
			fs, err := ParseColliderFlag(k.String() + ":" + strings.Join(vals, ","))
			if err != nil {
				t.Fatalf("ParseColliderFlag: %v", err)
			}
			if a, b := mustJSON(t, fs), mustJSON(t, ColliderSpec{Type: k, Center: spec.Center, Radius: spec.Radius, A: spec.A, B: spec.B,
				RA: spec.RA, RB: spec.RB, Normal: spec.Normal, Offset: spec.Offset, Half: spec.Half}); a != b {
				t.Errorf("flag round trip = %s, want %s", a, b)
			}
			// the fitted surface touches the cloud and holds it
			shape, err := colliderShape(sc, "colliders[0]", spec)
			if err != nil {
				t.Fatal(err)
			}
			minD := math.Inf(1)
			for _, p := range pts {
				d := shape.Dist(p)
				if d > 1e-9 || (d < -1e-9 && k != ColliderPlane) {
					t.Errorf("point %v lies %g m from the surface of the fitted %v %s", p, d, k, mustJSON(t, spec))
				}
				minD = math.Min(minD, math.Abs(d))
			}
			if minD > 1e-9 {
				t.Errorf("no point lies on the fitted %v's surface (nearest %g m)", k, minD)
			}
		})
	}
}

func fmtG(x float64) string { b, _ := json.Marshal(x); return string(b) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestColliderDocs keeps docs/scene.md's collider tables in step with the
// registry: a row per kind naming each of its keys, and a row per kind in
// the table of fitted shapes.
func TestColliderDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/scene.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(doc)
	i := strings.Index(sec, "\n## colliders\n")
	if i < 0 {
		t.Fatal("docs/scene.md has no ## colliders section")
	}
	sec = sec[i+1:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	rows := map[string][]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\| (.*) \\|$").FindAllStringSubmatch(sec, -1) {
		rows[m[1]] = append(rows[m[1]], m[2])
	}
	for _, info := range ColliderKindInfos() {
		r := rows[info.Kind.String()]
		if len(r) < 2 {
			t.Errorf("docs/scene.md: collider kind %q needs a row in the keys table and one in the fitted-shapes table, has %d", info.Kind, len(r))
			continue
		}
		if r[1] != info.Fit {
			t.Errorf("docs/scene.md: the fitted %s is %q, the registry says %q", info.Kind, r[1], info.Fit)
		}
		for _, ck := range info.Keys {
			if !strings.Contains(r[0], "`"+ck.Key+"`") {
				t.Errorf("docs/scene.md: the %s row %q does not name key `%s`", info.Kind, r[0], ck.Key)
			}
		}
	}
}

func TestFitColliderFile(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "box.obj")
	// a box from (0,0,0) to (2,4,6) in Z-up file axes
	src := "v 0 0 0\nv 2 0 0\nv 2 4 0\nv 0 4 0\nv 0 0 6\nv 2 0 6\nv 2 4 6\nv 0 4 6\nf 1 2 3\nf 1 3 4\nf 5 6 7\nf 5 7 8\n"
	if err := os.WriteFile(obj, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := DefaultInspectOptions()
	o.Up = AxisZ
	spec, err := FitCollider(ColliderBox, obj, o)
	if err != nil {
		t.Fatal(err)
	}
	// Z-up (x, y, z) reads as (x, z, -y): the box spans x 0..2, y 0..6, z -4..0
	if *spec.Center != [3]float64{1, 3, -2} || *spec.Half != [3]float64{1, 3, 2} {
		t.Errorf("FitCollider(box, Z-up) = center %v half %v, want [1 3 -2] [1 3 2]", *spec.Center, *spec.Half)
	}
	spec, err = FitCollider(ColliderMesh, obj, o)
	if err != nil || spec.Path != obj || spec.Up != AxisZ {
		t.Errorf("FitCollider(mesh) = %+v, %v, want the path with up z", spec, err)
	}
	if _, err := FitCollider(ColliderSphere, filepath.Join(dir, "none.obj"), o); err == nil || ExitCode(err) != ExitBadInput {
		t.Errorf("FitCollider(missing file) = %v, want a bad-input error", err)
	}
}

// TestKindsTextRoundTrip checks that every typed kind reads back what it
// writes (reports and resume records are read back) and refuses its zero
// value.
func TestKindsTextRoundTrip(t *testing.T) {
	for k := OutputKind(1); int(k) < len(outputNames); k++ {
		b, err := k.MarshalText()
		var back OutputKind
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("OutputKind %v: text %q, %v, read back as %v", k, b, err, back)
		}
	}
	for _, k := range ColliderKinds() {
		b, err := k.MarshalText()
		var back ColliderKind
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("ColliderKind %v: text %q, %v, read back as %v", k, b, err, back)
		}
	}
	for _, a := range []Axis{AxisY, AxisZ} {
		b, err := a.MarshalText()
		var back Axis
		if err != nil || back.UnmarshalText(b) != nil || back != a {
			t.Errorf("Axis %v: text %q, %v, read back as %v", a, b, err, back)
		}
	}
	if _, err := OutputKind(0).MarshalText(); err == nil {
		t.Error("OutputKind(0).MarshalText = nil error, want the zero value refused")
	}
	if _, err := ColliderKind(0).MarshalText(); err == nil {
		t.Error("ColliderKind(0).MarshalText = nil error, want the zero value refused")
	}
	if _, err := Axis(0).MarshalText(); err == nil {
		t.Error("Axis(0).MarshalText = nil error, want the zero value refused")
	}
}

// TestColliderSizesBounded checks that an absurd collider size or position
// is bad input naming the key, not a bake that diverges later.
func TestColliderSizesBounded(t *testing.T) {
	for _, c := range []struct{ json, key string }{
		{`{"type": "sphere", "center": [0, 0, 0], "radius": 1e300}`, "radius"},
		{`{"type": "sphere", "center": [0, 1e300, 0], "radius": 1}`, "center"},
		{`{"type": "plane", "normal": [0, 1, 0], "offset": -1e200}`, "offset"},
		{`{"type": "cone", "a": [0, 0, 0], "b": [0, 1, 0], "ra": 1e300, "rb": 0.1}`, "ra"},
	} {
		_, err := ParseScene([]byte(`{"input": "cloth.obj", "colliders": [`+c.json+`]}`), "s.json")
		if err == nil || ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), "colliders[0]."+c.key) {
			t.Errorf("%s: ParseScene = %v, want bad input naming colliders[0].%s", c.json, err, c.key)
		}
	}
	if _, err := ParseScene([]byte(`{"input": "cloth.obj", "colliders": [{"type": "sphere", "center": [0, -2, 0], "radius": 0.5}]}`), "s.json"); err != nil {
		t.Errorf("an ordinary sphere: %v", err)
	}
}
