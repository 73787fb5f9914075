//go:build linux

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

// FuzzReadGLTFFiles reads a .gltf whose external buffer and image are
// files on disk beside it (cloth.bin, tex.png), as a user's asset folder
// holds them: it must never panic, and a mesh it returns must be valid.
func FuzzReadGLTFFiles(f *testing.F) {
	dir := f.TempDir()
	for i, uri := range []string{"", "tex.png", "../tex.png", "tex%2Epng"} {
		d := filepath.Join(dir, string(rune('a'+i)))
		os.MkdirAll(d, 0o755)
		p := writeExternalGLTF(f, d, uri)
		js, _ := os.ReadFile(p)
		bin, _ := os.ReadFile(filepath.Join(d, "cloth.bin"))
		f.Add(js, bin, pngBytes)
	}
	f.Fuzz(func(t *testing.T, js, bin, img []byte) {
		d := t.TempDir()
		p := filepath.Join(d, "cloth.gltf")
		os.WriteFile(p, js, 0o644)
		os.WriteFile(filepath.Join(d, "cloth.bin"), bin, 0o644)
		os.WriteFile(filepath.Join(d, "tex.png"), img, 0o644)
		m, err := Read(p, DefaultReadOptions())
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := validMesh(m); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReadPC2 reads arbitrary bytes as a PC2 point cache (a deforming
// collider's or a pin's): it must never panic, and a cache it accepts has
// as many points in every sample.
func FuzzReadPC2(f *testing.F) {
	var b bytes.Buffer
	WritePC2(&b, [][]vec.Vec3{{vec.V(1, 2, 3), vec.V(4, 5, 6)}, {vec.V(7, 8, 9), vec.V(1, 1, 1)}}, 0, 1)
	f.Add(b.Bytes())
	f.Add([]byte("POINTCACHE2\x00\x01\x00\x00\x00\xff\xff\xff\x7f\x00\x00\x00\x00\x00\x00\x80\x3f\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pc, err := ReadPC2(bytes.NewReader(data), "fuzz.pc2")
		if err != nil {
			return
		}
		for k, fr := range pc.Frames {
			if len(fr) != len(pc.Frames[0]) {
				t.Fatalf("sample %d has %d points, sample 0 %d", k, len(fr), len(pc.Frames[0]))
			}
		}
	})
}

// FuzzReadMDD reads arbitrary bytes as an MDD point cache (a deforming
// collider's or a pin's): it must never panic, and a cache it accepts is
// exactly its bytes: the header's counts, one finite time per frame and
// every frame's finite points, written back, give the input.
func FuzzReadMDD(f *testing.F) {
	var b bytes.Buffer
	WriteMDD(&b, [][]vec.Vec3{{vec.V(1, 2, 3), vec.V(4, 5, 6)}, {vec.V(7, 8, 9), vec.V(1, 1, 1)}}, []float64{0, 1.0 / 24})
	f.Add(b.Bytes())
	f.Add([]byte("\x7f\xff\xff\xff\x7f\xff\xff\xff\x00\x00\x00\x00"))
	f.Add([]byte("\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x7f\xc0\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pc, err := ReadMDD(bytes.NewReader(data), "fuzz.mdd")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "read fuzz.mdd: ") {
				t.Fatalf("the message does not name the file: %q", err)
			}
			return
		}
		if len(pc.Times) != len(pc.Frames) || len(pc.Frames) == 0 {
			t.Fatalf("%d times for %d frames", len(pc.Times), len(pc.Frames))
		}
		be := binary.BigEndian
		out := be.AppendUint32(nil, uint32(len(pc.Frames)))
		out = be.AppendUint32(out, uint32(len(pc.Frames[0])))
		for _, tm := range pc.Times {
			if math.IsNaN(tm) || math.IsInf(tm, 0) {
				t.Fatalf("time %g accepted", tm)
			}
			out = be.AppendUint32(out, math.Float32bits(float32(tm)))
		}
		for k, fr := range pc.Frames {
			if len(fr) != len(pc.Frames[0]) {
				t.Fatalf("frame %d has %d points, frame 0 %d", k, len(fr), len(pc.Frames[0]))
			}
			for _, p := range fr {
				for _, x := range []float64{p.X, p.Y, p.Z} {
					if !finite32(x) {
						t.Fatalf("frame %d: %v accepted", k, p)
					}
					out = be.AppendUint32(out, math.Float32bits(float32(x)))
				}
			}
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("the cache read is not the file's bytes (%d read back as %d)", len(data), len(out))
		}
	})
}
