package meshio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
)

// cacheFrames returns a's frames in m's file vertex order and Blender's axes,
// as a point cache for Blender is written.
func cacheFrames(m *Mesh, a *Animation) [][]vec.Vec3 {
	out := make([][]vec.Vec3, len(a.Frames))
	for k, f := range a.Frames {
		dst := make([]vec.Vec3, m.SourceVertices)
		SourceOrder(m, f, dst)
		for i, p := range dst {
			dst[i] = ToBlenderAxes(p)
		}
		out[k] = dst
	}
	return out
}

// readPC2 parses a PC2 file independently of the writer.
func readPC2(t *testing.T, data []byte) (start, rate float32, frames [][][3]float32) {
	t.Helper()
	if len(data) < 32 || string(data[:12]) != "POINTCACHE2\x00" {
		t.Fatalf("PC2 signature = %q, want POINTCACHE2 and NUL", data[:min(12, len(data))])
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[12:]); v != 1 {
		t.Fatalf("PC2 version = %d, want 1", v)
	}
	n, ns := int(le.Uint32(data[16:])), int(le.Uint32(data[28:]))
	start, rate = math.Float32frombits(le.Uint32(data[20:])), math.Float32frombits(le.Uint32(data[24:]))
	if want := 32 + 12*n*ns; len(data) != want {
		t.Fatalf("PC2 of %d points x %d samples is %d bytes, want %d", n, ns, len(data), want)
	}
	frames = decodePoints(data[32:], n, ns, le)
	return start, rate, frames
}

// readMDD parses an MDD file (big-endian) independently of the writer.
func readMDD(t *testing.T, data []byte) (times []float32, frames [][][3]float32) {
	t.Helper()
	be := binary.BigEndian
	nf, n := int(be.Uint32(data[0:])), int(be.Uint32(data[4:]))
	if want := 8 + 4*nf + 12*n*nf; len(data) != want {
		t.Fatalf("MDD of %d frames x %d points is %d bytes, want %d", nf, n, len(data), want)
	}
	for k := range nf {
		times = append(times, math.Float32frombits(be.Uint32(data[8+4*k:])))
	}
	return times, decodePoints(data[8+4*nf:], n, nf, be)
}

func decodePoints(b []byte, n, frames int, o binary.ByteOrder) [][][3]float32 {
	out := make([][][3]float32, frames)
	for k := range out {
		out[k] = make([][3]float32, n)
		for i := range n {
			for c := range 3 {
				out[k][i][c] = math.Float32frombits(o.Uint32(b[12*(k*n+i)+4*c:]))
			}
		}
	}
	return out
}

func TestPointCachesParseBack(t *testing.T) {
	m := readTestMesh(t, "cube_quads.obj", DefaultReadOptions())
	if m.SourceVertices != 8 || m.NumVertices() == 8 {
		t.Fatalf("cube_quads.obj: %d file vertices, %d render vertices; want 8 and more than 8 (split corners)", m.SourceVertices, m.NumVertices())
	}
	a := waveAnimation(t, m, 9, 2, 30, 0.2, 0.4)
	frames := cacheFrames(m, a)
	var pc2, mdd bytes.Buffer
	if err := WritePC2(&pc2, frames, 0, 2); err != nil {
		t.Fatal(err)
	}
	if err := WriteMDD(&mdd, frames, a.Times); err != nil {
		t.Fatal(err)
	}
	start, rate, got := readPC2(t, pc2.Bytes())
	if start != 0 || rate != 2 {
		t.Errorf("PC2 start, rate = %g, %g, want 0, 2", start, rate)
	}
	times, gotMDD := readMDD(t, mdd.Bytes())
	for k := range frames {
		if times[k] != float32(a.Times[k]) {
			t.Errorf("MDD time %d = %g, want %g", k, times[k], a.Times[k])
		}
		for i, p := range frames[k] {
			want := p.F32()
			if got[k][i] != want || gotMDD[k][i] != want {
				t.Fatalf("frame %d point %d: PC2 %v, MDD %v, want %v", k, i, got[k][i], gotMDD[k][i], want)
			}
		}
	}
	// the file order: render vertex r sits at its v line
	r := 0
	for _, p := range m.Primitives {
		for j, s := range p.Source {
			if want := ToBlenderAxes(a.Frames[3][r+j]).F32(); got[3][s] != want {
				t.Errorf("PC2 frame 3 point %d = %v, want render vertex %d = %v", s, got[3][s], r+j, want)
			}
		}
		r += len(p.Positions)
	}
}

func TestPointCacheErrors(t *testing.T) {
	ok := [][]vec.Vec3{{{X: 1}}, {{X: 2}}}
	tests := []struct {
		name  string
		write func() error
		want  string
	}{
		{"pc2 no frames", func() error { return WritePC2(&bytes.Buffer{}, nil, 0, 1) }, "no frames"},
		{"pc2 ragged", func() error { return WritePC2(&bytes.Buffer{}, [][]vec.Vec3{{{}}, {{}, {}}}, 0, 1) }, "frame 1 has 2 points"},
		{"pc2 rate", func() error { return WritePC2(&bytes.Buffer{}, ok, 0, 0) }, "rate"},
		{"pc2 NaN", func() error { return WritePC2(&bytes.Buffer{}, [][]vec.Vec3{{{Y: math.NaN()}}}, 0, 1) }, "not a finite"},
		{"mdd times", func() error { return WriteMDD(&bytes.Buffer{}, ok, []float64{0}) }, "1 times for 2 frames"},
		{"mdd order", func() error { return WriteMDD(&bytes.Buffer{}, ok, []float64{1, 1}) }, "increasing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.write()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error = %v, want one containing %q", tc.name, err, tc.want)
			}
		})
	}
}

// TestPointCachesBlender plays a PC2 and an MDD through Blender's Mesh Cache
// modifier on the OBJ as Blender imports it (one Blender start), for the
// split-corner cube (the original file) and a two-group grid (written with
// WriteOBJ), and compares evaluated positions with the bake within 1e-4 m.
func TestPointCachesBlender(t *testing.T) {
	dir := t.TempDir()
	cube := readTestMesh(t, "cube_quads.obj", DefaultReadOptions())
	cubeOBJ, err := filepath.Abs(filepath.Join("testdata", "write", "cube_quads.obj"))
	if err != nil {
		t.Fatal(err)
	}
	grid := gridMesh(6, 4, 1)
	gridOBJ := filepath.Join(dir, "grid.obj")
	var rest []vec.Vec3
	for _, p := range grid.Primitives {
		rest = append(rest, p.Positions...)
	}
	var ob bytes.Buffer
	if err := WriteOBJ(&ob, grid, rest); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gridOBJ, ob.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	type job struct {
		name, mesh, cache string
		m                 *Mesh
		a                 *Animation
	}
	var jobs []job
	for _, c := range []struct {
		name, mesh string
		m          *Mesh
	}{{"cube", cubeOBJ, cube}, {"grid", gridOBJ, grid}} {
		a := waveAnimation(t, c.m, 13, 1, 24, 0.15, 0.5)
		frames := cacheFrames(c.m, a)
		for _, ext := range []string{"pc2", "mdd"} {
			var buf bytes.Buffer
			if ext == "pc2" {
				err = WritePC2(&buf, frames, 0, 1)
			} else {
				err = WriteMDD(&buf, frames, a.Times)
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, c.name+"."+ext)
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{c.name + "." + ext, c.mesh, path, c.m, a})
		}
	}
	args := []string{"0,6,12"}
	for _, j := range jobs {
		args = append(args, j.mesh, j.cache)
	}
	var br testtool.BlenderResult
	testtool.BlenderJSON(t, &br, "tools/blender/pc2_frames.py", args...)
	if len(br.Files) != len(jobs) {
		t.Fatalf("Blender evaluated %d caches, want %d", len(br.Files), len(jobs))
	}
	for ji, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			bf := br.Files[ji]
			if len(bf.Objects) != 1 {
				t.Fatalf("Blender imported %d mesh objects from %s, want 1", len(bf.Objects), filepath.Base(j.mesh))
			}
			for fi, k := range []int{0, 6, 12} {
				want := cacheFrames(j.m, j.a)[k]
				worst, how := compareFlat(bf.Frames[fi].Positions[0], want)
				t.Logf("Blender Mesh Cache %s scene frame %d: max error %.2g m (%s)", j.name, k, worst, how)
				if worst > clientTol || !strings.HasPrefix(how, "by index") {
					t.Errorf("Blender Mesh Cache %s at scene frame %d: max error %.3g m (%s), want <= %g by index", j.name, k, worst, how, clientTol)
				}
			}
		})
	}
}

func ExampleToBlenderAxes() {
	fmt.Println(ToBlenderAxes(vec.V(1, 2, 3)))
	// Output: {1 -3 2}
}
