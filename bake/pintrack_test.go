package bake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// writeCache writes a PC2 of frames (file axes) at dir/name.
func writeCache(t *testing.T, dir, name string, frames [][]vec.Vec3) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := meshio.WritePC2(f, frames, 0, 1); err != nil {
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

func TestPinsFollowACache(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 13, "out.glb")
	m, err := meshio.Read(sc.Input, meshio.DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	frames := bentEdge(m.SourcePositions)
	sc.Pins[0].Cache = writeCache(t, dir, "edge.pc2", frames)
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Warnings) > 0 {
		t.Errorf("warnings %q, want none (sample 0 is the input pose)", j.Warnings)
	}
	rec, err := j.Simulate(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
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
}

func TestPinCacheErrors(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 4, "out.glb")
	m, err := meshio.Read(sc.Input, meshio.DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	frames := bentEdge(m.SourcePositions)
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
	box := filepath.Join("testdata", "inspect", "Box.glb")
	for _, c := range []struct {
		name  string
		edit  func(sc *Scene)
		want  []string
		valid bool // Validate already refuses it
	}{
		{"wrong point count", func(sc *Scene) { sc.Pins[0].Cache = short }, []string{"pins[0].cache", "short.pc2", "holds 3 points", "256 vertices"}, false},
		{"missing file", func(sc *Scene) { sc.Pins[0].Cache = filepath.Join(dir, "nope.pc2") }, []string{"pins[0].cache", "nope.pc2"}, false},
		{"keys too", func(sc *Scene) {
			sc.Pins[0].Cache = good
			sc.Pins[0].Keys = []KeySpec{{Time: 0}}
		}, []string{"pins[0].cache", "either keys or a cache"}, true},
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
