package meshio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// An MDD that WriteMDD wrote reads back to the same times and points
// (float32 values, as written), from a file through ReadPointCacheFile.
func TestReadMDDRoundTrip(t *testing.T) {
	frames := [][]vec.Vec3{
		{vec.V(1, 2, 3), vec.V(-1, 0.5, 0), vec.V(0.1, -0.2, 1e-3)},
		{vec.V(1.5, 2, 3), vec.V(-1, 0.25, 4), vec.V(0.1, -0.2, -1e6)},
		{vec.V(0, 0, 0), vec.V(1, 1, 1), vec.V(2, 2, 2)},
	}
	times := []float64{0, 1.0 / 24, 2.0 / 24}
	var buf bytes.Buffer
	if err := WriteMDD(&buf, frames, times); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "body.MDD")
	os.WriteFile(p, buf.Bytes(), 0o644)
	pc, err := ReadPointCacheFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Frames) != len(frames) || len(pc.Times) != len(times) || pc.Start != 0 || pc.Rate != 1 {
		t.Fatalf("read %d frames, %d times, start %g, rate %g; want 3, 3, 0, 1", len(pc.Frames), len(pc.Times), pc.Start, pc.Rate)
	}
	f32 := func(x float64) float64 { return float64(float32(x)) }
	for k := range frames {
		if pc.Times[k] != f32(times[k]) {
			t.Errorf("time %d = %g, want %g", k, pc.Times[k], f32(times[k]))
		}
		for i, q := range frames[k] {
			if want := vec.V(f32(q.X), f32(q.Y), f32(q.Z)); pc.Frames[k][i] != want {
				t.Errorf("frame %d point %d = %v, want %v", k, i, pc.Frames[k][i], want)
			}
		}
	}
	// a .pc2 path still reads as PC2
	var pc2 bytes.Buffer
	WritePC2(&pc2, frames, 0, 1)
	q := filepath.Join(t.TempDir(), "body.pc2")
	os.WriteFile(q, pc2.Bytes(), 0o644)
	if pc, err := ReadPointCacheFile(q); err != nil || len(pc.Frames) != 3 || pc.Times != nil {
		t.Errorf("ReadPointCacheFile(.pc2) = %v, %v", pc, err)
	}
}

// Malformed MDD files are refused with a message naming the file, the
// place and what is wrong; none allocates for what its header claims.
func TestReadMDDMalformed(t *testing.T) {
	var good bytes.Buffer
	WriteMDD(&good, [][]vec.Vec3{{vec.V(1, 2, 3), vec.V(4, 5, 6)}, {vec.V(7, 8, 9), vec.V(1, 1, 1)}}, []float64{0, 0.5})
	g := good.Bytes() // 8 + 2*4 + 2*2*12 = 64 bytes
	header := func(frames, points int32, size int) []byte {
		b := make([]byte, max(size, 8))
		binary.BigEndian.PutUint32(b, uint32(frames))
		binary.BigEndian.PutUint32(b[4:], uint32(points))
		return b
	}
	patch := func(off int, v float32) []byte {
		b := bytes.Clone(g)
		binary.BigEndian.PutUint32(b[off:], math.Float32bits(v))
		return b
	}
	var pc2 bytes.Buffer
	WritePC2(&pc2, [][]vec.Vec3{{vec.V(1, 2, 3)}}, 0, 1)
	for _, c := range []struct {
		name  string
		data  []byte
		place string
		frag  string
	}{
		{"empty", nil, "header", "fewer than its 8-byte header"},
		{"short header", []byte{0, 0, 0}, "header", "3 bytes"},
		{"no frames", header(0, 2, 64), "header", "0 frames of 2 points"},
		{"negative points", header(2, -1, 64), "header", "both counts must be > 0"},
		{"truncated", g[:len(g)-1], "header", "2 frames of 2 points take 64 bytes with their times, the file has 63"},
		{"trailing bytes", append(bytes.Clone(g), 0), "header", "the file has 65"},
		{"little-endian counts", header(0x02000000, 0x02000000, 64), "header", "take"},
		{"counts whose product wraps int64", header(math.MaxInt32, math.MaxInt32, 64), "header", "the file has 64"},
		{"a PC2 named .mdd", pc2.Bytes(), "header", "this is a PC2 point cache (POINTCACHE2 signature), not an MDD: name it .pc2"},
		{"big-endian counts too large", header(0x50000000, 0x50000000, 44), "header", "take 21617278216747089928 bytes"},
		{"NaN time", patch(12, float32(math.NaN())), "time of frame 1", "not a finite time"},
		{"infinite point", patch(16+12+4, float32(math.Inf(1))), "frame 0, point 1", "not a finite position"},
	} {
		_, err := ReadMDD(bytes.NewReader(c.data), "cache/body.mdd")
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "read cache/body.mdd: "+c.place+": ") || !strings.Contains(msg, c.frag) {
			t.Errorf("%s: %q, want the file, %q and %q", c.name, msg, c.place, c.frag)
		}
	}
	// a missing file names the path
	if _, err := ReadMDDFile(filepath.Join(t.TempDir(), "none.mdd")); err == nil || !strings.Contains(err.Error(), "none.mdd") {
		t.Errorf("missing file: %v", err)
	}
}
