package main

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func writePC2(t *testing.T, path string, frames [][]vec.Vec3) {
	t.Helper()
	le := binary.LittleEndian
	b := append([]byte("POINTCACHE2\x00"), make([]byte, 20)...)
	le.PutUint32(b[12:], 1)
	le.PutUint32(b[16:], uint32(len(frames[0])))
	le.PutUint32(b[28:], uint32(len(frames)))
	for _, fr := range frames {
		for _, p := range fr {
			for _, c := range []float64{p.X, p.Y, p.Z} {
				b = le.AppendUint32(b, math.Float32bits(float32(c)))
			}
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMeasure checks the figures on hand-made frames of the 4 x 4 benchmark
// grid: a uniform 10 % stretch, one vertex pushed 0.2 m into the sphere, a
// fold making two triangles cross.
func TestMeasure(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid4.obj")
	if err := writeGrid(grid, 4, 1); err != nil {
		t.Fatal(err)
	}
	sc := scene{Cloth: grid, Scale: 1, Sphere: 0.5}
	m, err := newMeasurer(sc)
	if err != nil {
		t.Fatalf("newMeasurer(grid4.obj): %v", err)
	}
	rest := make([]vec.Vec3, 16)
	for j := 0; j < 4; j++ {
		for i := 0; i < 4; i++ {
			rest[j*4+i] = vec.V(-1+2*float64(i)/3, 1, -1+2*float64(j)/3)
		}
	}
	frame := func(f func(i int, p vec.Vec3) vec.Vec3) []vec.Vec3 {
		out := make([]vec.Vec3, len(rest))
		for i, p := range rest {
			out[i] = f(i, p)
		}
		return out
	}
	stretched := frame(func(_ int, p vec.Vec3) vec.Vec3 { return vec.V(1.1*p.X, 0.6, 1.1*p.Z) })
	// vertex 5 (an interior one) lands 0.3 m from the centre: 0.2 m inside
	inside := frame(func(i int, p vec.Vec3) vec.Vec3 {
		if i == 5 {
			return vec.V(0, 0.3, 0)
		}
		return p
	})
	// row 0 folds under the sheet and row 1 lifts, so the strip between
	// them passes through the far strip (rows 2-3) at z ≈ 0.72
	folded := frame(func(i int, p vec.Vec3) vec.Vec3 {
		switch {
		case i < 4:
			return vec.V(p.X, 0.95, 0.9)
		case i < 8:
			return vec.V(p.X, 1.3, p.Z)
		}
		return p
	})
	tests := []struct {
		name           string
		frames         [][]vec.Vec3
		stretch, pen   float64
		lowest         float64
		selfIntersects bool
	}{
		{"rest", [][]vec.Vec3{rest, rest}, 0, 0, 1, false},
		{"stretched 10 %", [][]vec.Vec3{rest, stretched}, 0.1, 0, 0.6, false},
		{"vertex inside the sphere", [][]vec.Vec3{rest, inside, rest}, -1, 0.2, 1, false},
		{"edge folded through", [][]vec.Vec3{rest, folded}, -1, 0, 0.95, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "f.pc2")
			writePC2(t, path, tc.frames)
			q, err := m.measurePC2(path, false)
			if err != nil {
				t.Fatalf("measurePC2: %v", err)
			}
			// the same frames in Blender's axes measure the same
			blender := make([][]vec.Vec3, len(tc.frames))
			for k, fr := range tc.frames {
				for _, p := range fr {
					blender[k] = append(blender[k], vec.V(p.X, -p.Z, p.Y))
				}
			}
			bpath := filepath.Join(dir, "fb.pc2")
			writePC2(t, bpath, blender)
			qb, err := m.measurePC2(bpath, true)
			if err != nil {
				t.Fatalf("measurePC2(Blender axes): %v", err)
			}
			if qb != q {
				t.Errorf("measurePC2(Blender axes) = %+v, want %+v as in Y-up", qb, q)
			}
			if err != nil {
				t.Fatalf("measurePC2: %v", err)
			}
			if tc.stretch >= 0 && math.Abs(q.MaxStretch-tc.stretch) > 1e-5 {
				t.Errorf("max stretch = %.6f, want %.6f", q.MaxStretch, tc.stretch)
			}
			if math.Abs(q.MaxPenetration-tc.pen) > 1e-5 {
				t.Errorf("max penetration = %.6f m, want %.6f m", q.MaxPenetration, tc.pen)
			}
			if math.Abs(q.LowestY-tc.lowest) > 1e-5 {
				t.Errorf("lowest y = %.6f m, want %.6f m", q.LowestY, tc.lowest)
			}
			if (q.SelfIntersections > 0) != tc.selfIntersects {
				t.Errorf("self-intersecting pairs = %d, want intersections %v", q.SelfIntersections, tc.selfIntersects)
			}
		})
	}
	t.Run("wrong vertex count", func(t *testing.T) {
		path := filepath.Join(dir, "short.pc2")
		writePC2(t, path, [][]vec.Vec3{rest[:8]})
		if _, err := m.measurePC2(path, false); err == nil {
			t.Errorf("measurePC2(8-point cache for a 16-vertex grid) = nil error, want a count mismatch")
		}
	})
}

// TestCrossBuild builds the whole module for Windows and macOS: a field or
// call that exists on Linux only (getrusage's Maxrss here) must stay in a
// build-tagged file with a fallback for the others.
func TestCrossBuild(t *testing.T) {
	// the go tool that runs this test: on PATH, or in the GOROOT it built
	// the test with
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(gobin); err != nil {
			t.Fatalf("no go tool on PATH nor at %s", gobin)
		}
	}
	for _, goos := range []string{"windows", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command(gobin, "build", "./...")
			cmd.Dir = ".." // the module root
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s go build ./...: %v\n%s", goos, err, out)
			}
		})
	}
}
