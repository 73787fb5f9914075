package bake

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// writeCache writes frames (file axes) at dir/name: an MDD (frame k at
// k/24 s) when name ends in .mdd, else a PC2.
func writeCache(t *testing.T, dir, name string, frames [][]vec.Vec3) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if strings.HasSuffix(name, ".mdd") {
		times := make([]float64, len(frames))
		for k := range times {
			times[k] = float64(k) / 24
		}
		err = meshio.WriteMDD(f, frames, times)
	} else {
		err = meshio.WritePC2(f, frames, 0, 1)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bentEdge returns 13 samples (frames 0..12 at 24 fps) of the grid's
// vertices (writeGridOBJ, 16 x 16, 1 m) whose first row (z = -0.5) bends
// upwards towards +x: vertex j rises by 0.4·(x+0.5)·t² m, which no rigid
// motion does. The other vertices keep their rest positions.
func bentEdge(rest []vec.Vec3) [][]vec.Vec3 {
	var out [][]vec.Vec3
	for k := range 13 {
		tk := float64(k) / 24
		f := make([]vec.Vec3, len(rest))
		copy(f, rest)
		for j := range 16 {
			f[j] = rest[j].Add(vec.V(0, 0.4*(rest[j].X+0.5)*tk*tk, 0))
		}
		out = append(out, f)
	}
	return out
}

// bentEdgeOf is bentEdge of scene sc's input vertices.
func bentEdgeOf(t *testing.T, sc *Scene) [][]vec.Vec3 {
	t.Helper()
	m, err := meshio.Read(sc.Input, meshio.DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	return bentEdge(m.SourcePositions)
}

// The pinned row follows its point cache, a PC2 or an MDD alike.
func TestPinsFollowACache(t *testing.T) {
	var byFormat [][][]vec.Vec3
	for _, name := range []string{"edge.pc2", "edge.mdd"} {
		t.Run(name, func(t *testing.T) { byFormat = append(byFormat, testPinsFollowACache(t, name)) })
	}
	if len(byFormat) == 2 && !reflect.DeepEqual(byFormat[0], byFormat[1]) {
		t.Errorf("the bake with the MDD differs from the one with the PC2 of the same points")
	}
}

func testPinsFollowACache(t *testing.T, cache string) [][]vec.Vec3 {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 13, "out.glb")
	frames := bentEdgeOf(t, sc)
	sc.Pins[0].Cache = writeCache(t, dir, cache, frames)
	j, rec := prepareAndSimulate(t, sc)
	if len(j.Warnings) > 0 {
		t.Errorf("warnings %q, want none (sample 0 is the input pose)", j.Warnings)
	}
	if len(j.Pins) != 16 {
		t.Fatalf("%d pinned vertices, want the 16 of the first row", len(j.Pins))
	}
	src := sourceToSim(j.Mesh, j.Welded)
	for k, pos := range rec.Pos {
		for i := range 16 {
			v := src[i]
			if d := pos[v].Sub(frames[k][i]).Len(); d > 1e-6 { // PC2 holds float32
				t.Fatalf("frame %d: pinned vertex %d (v line %d) at %v, want the cache's %v", k, v, i+1, pos[v], frames[k][i])
			}
		}
	}
	// the cloth below follows: the row's +x end rose 0.1 m by t = 0.5 s
	if y := rec.Pos[12][src[15+16]].Y; y < 1.01 {
		t.Errorf("the vertex below the risen end is at y = %.3f m, want lifted with the edge", y)
	}
	return rec.Pos
}

func TestPinCacheErrors(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 4, "out.glb")
	frames := bentEdgeOf(t, sc)
	good := writeCache(t, dir, "edge.pc2", frames)
	short := writeCache(t, dir, "short.pc2", [][]vec.Vec3{frames[0][:3]})
	moved := make([][]vec.Vec3, len(frames))
	for k, f := range frames {
		moved[k] = make([]vec.Vec3, len(f))
		for i, p := range f {
			moved[k][i] = p.Add(vec.V(0, 0.2, 0))
		}
	}
	off := writeCache(t, dir, "off.pc2", moved)
	shortMDD := writeCache(t, dir, "short.mdd", [][]vec.Vec3{frames[0][:3]})
	truncMDD := writeCache(t, dir, "trunc.mdd", frames)
	if b, err := os.ReadFile(truncMDD); err == nil {
		os.WriteFile(truncMDD, b[:len(b)-5], 0o644)
	}
	box := filepath.Join("testdata", "inspect", "Box.glb")
	for _, c := range []struct {
		name  string
		edit  func(sc *Scene)
		want  []string
		valid bool // Validate already refuses it
	}{
		{"wrong point count", func(sc *Scene) { sc.Pins[0].Cache = short }, []string{"pins[0].cache", "short.pc2", "holds 3 points", "256 vertices"}, false},
		{"missing file", func(sc *Scene) { sc.Pins[0].Cache = filepath.Join(dir, "nope.pc2") }, []string{"pins[0].cache", "nope.pc2"}, false},
		{"MDD of the wrong point count", func(sc *Scene) { sc.Pins[0].Cache = shortMDD }, []string{"pins[0].cache", "short.mdd", "holds 3 points", "256 vertices"}, false},
		{"truncated MDD", func(sc *Scene) { sc.Pins[0].Cache = truncMDD }, []string{"pins[0].cache", "trunc.mdd: header: 13 frames of 256 points take 39996 bytes with their times, the file has 39991"}, false},
		{"keys too", func(sc *Scene) {
			sc.Pins[0].Cache = good
			sc.Pins[0].Keys = []KeySpec{{Time: 0}}
		}, []string{"pins[0]", "one of keys, cache and attach"}, true},
		{"not OBJ", func(sc *Scene) {
			sc.Input = box
			sc.Pins[0] = PinSpec{Top: true, Cache: good}
		}, []string{"pins[0].cache", "is not OBJ"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := *sc
			s.Pins = append([]PinSpec(nil), sc.Pins...)
			c.edit(&s)
			err := s.Validate()
			if err == nil {
				_, err = Prepare(&s, Options{})
			} else if !c.valid {
				t.Fatalf("Validate: %v, want the error from Prepare", err)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	// a cache whose first sample is not the input pose warns
	s := *sc
	s.Pins = []PinSpec{{Box: sc.Pins[0].Box, Cache: off}}
	j, err := Prepare(&s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Warnings) != 1 || !strings.Contains(j.Warnings[0], "sample 0") || !strings.Contains(j.Warnings[0], "0.2 m") {
		t.Errorf("warnings %q, want one saying sample 0 is 0.2 m off", j.Warnings)
	}
}

// cubeOBJ writes a closed box of half sizes h around c as OBJ.
func cubeOBJ(t *testing.T, dir string, c, h vec.Vec3) (string, []vec.Vec3) {
	t.Helper()
	var b strings.Builder
	var pts []vec.Vec3
	for i := range 8 {
		p := c.Add(vec.V(h.X*float64(2*(i&1)-1), h.Y*float64(2*(i>>1&1)-1), h.Z*float64(2*(i>>2&1)-1)))
		pts = append(pts, p)
		fmt.Fprintf(&b, "v %g %g %g\n", p.X, p.Y, p.Z)
	}
	// outward quads (corner i: x from bit 0, y from bit 1, z from bit 2)
	for _, f := range [][4]int{{1, 3, 7, 5}, {2, 6, 8, 4}, {1, 5, 6, 2}, {3, 4, 8, 7}, {1, 2, 4, 3}, {5, 7, 8, 6}} {
		fmt.Fprintf(&b, "f %d %d %d %d\n", f[0], f[1], f[2], f[3])
	}
	p := filepath.Join(dir, "box.obj")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, pts
}

// TestPinsAttachToColliders: pins attached to a mesh collider whose point
// cache turns and moves it ride along exactly (as the rigid motion moves
// them), pins attached to a keyed sphere move with its keys, and a name
// no collider has is an error that lists the names.
func TestPinsAttachToColliders(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 13, "out.glb")
	// a bar 1 cm under the pinned row (z = -0.5, y = 1) turning about y
	// and sliding along x
	centre := vec.V(0, 0.96, -0.5)
	box, pts := cubeOBJ(t, dir, centre, vec.V(0.6, 0.03, 0.05))
	move := func(k int, p vec.Vec3) vec.Vec3 {
		r := vec.AxisAngle(vec.V(0, 1, 0), 0.05*float64(k))
		return r.Rotate(p.Sub(centre)).Add(centre).Add(vec.V(0.01*float64(k), 0, 0))
	}
	var frames [][]vec.Vec3
	for k := range 13 {
		f := make([]vec.Vec3, len(pts))
		for i, p := range pts {
			f[i] = move(k, p)
		}
		frames = append(frames, f)
	}
	cache := writeCache(t, dir, "box.pc2", frames)
	sc.Colliders = []ColliderSpec{
		{Type: ColliderMesh, Name: "bar", Path: box, Cache: cache},
		{Type: ColliderSphere, Name: "ball", Center: &[3]float64{0, 2, 0}, Radius: 0.1,
			Keys: []KeySpec{{Time: 0}, {Time: 0.5, Translation: &[3]float64{0.3, 0, 0}}}},
	}
	sc.Pins = []PinSpec{
		{Box: []float64{-0.2, 0.9, -0.6, 1, 1.1, -0.45}, Attach: "bar"},
		{Box: []float64{-1, 0.9, -0.6, -0.21, 1.1, -0.45}, Attach: "ball"},
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	j, rec := prepareAndSimulate(t, sc)
	if len(j.Warnings) > 0 {
		t.Errorf("warnings %q, want none: the pins lie 1 cm from the bar", j.Warnings)
	}
	onBar, onBall := 0, 0
	for _, ps := range j.Pins {
		rest := j.Welded.Positions[ps.vertex]
		for k, pos := range rec.Pos {
			want := move(k, rest)
			if ps.entry == 1 {
				want = rest.Add(vec.V(0.3*min(float64(k)/12, 1), 0, 0))
			}
			if d := pos[ps.vertex].Sub(want).Len(); d > 1e-5 {
				t.Fatalf("frame %d: vertex %d (pins[%d]) at %v, want %v, %.3g m off", k, ps.vertex, ps.entry, pos[ps.vertex], want, d)
			}
		}
		if ps.entry == 0 {
			onBar++
		} else {
			onBall++
		}
	}
	if onBar < 5 || onBall < 5 {
		t.Fatalf("%d vertices on the bar, %d on the ball: the scene tests nothing", onBar, onBall)
	}

	s := *sc
	s.Pins = []PinSpec{{Box: sc.Pins[0].Box, Attach: "pole"}}
	if _, err := Prepare(&s, Options{}); err == nil || !strings.Contains(err.Error(), `pins[0].attach = "pole"`) || !strings.Contains(err.Error(), `"bar", "ball"`) {
		t.Errorf("attach to a missing collider: err = %v, want one naming the key and listing the colliders", err)
	}
	// pins 0.5 m off the bar (its far row) ride at arm's length, with a note
	s.Pins = []PinSpec{{Box: []float64{-1, 0.9, 0.45, 1, 1.1, 0.6}, Attach: "bar"}}
	far, err := Prepare(&s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(far.Warnings) != 1 || !strings.Contains(far.Warnings[0], "from the surface of") {
		t.Errorf("warnings %q, want one saying the pins are far from the bar", far.Warnings)
	}
	s.Pins = []PinSpec{{Box: sc.Pins[0].Box, Attach: "pole"}}
	s.Colliders = []ColliderSpec{{Type: ColliderSphere, Name: "still", Center: &[3]float64{0, 2, 0}, Radius: 0.1}}
	s.Pins[0].Attach = "still"
	still, err := Prepare(&s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(still.Warnings) != 1 || !strings.Contains(still.Warnings[0], "does not move") {
		t.Errorf("warnings %q, want one saying the collider does not move", still.Warnings)
	}
}
