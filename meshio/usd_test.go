package meshio

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func TestUSDIdentifier(t *testing.T) {
	for in, want := range map[string]string{"cloth": "cloth", "table top": "table_top", "3d": "_3d", "": "_", "a-b.c": "a_b_c", "ü": "_"} {
		if got := usdIdentifier(in); got != want {
			t.Errorf("usdIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriteUSDAErrors checks that a stage WriteUSDA cannot write faithfully
// is refused with the reason, and writes nothing.
func TestWriteUSDAErrors(t *testing.T) {
	tri := [][3]int32{{0, 1, 2}}
	pts := []vec.Vec3{{}, {X: 1}, {Z: 1}}
	good := func() *USDStage {
		return &USDStage{FPS: 24, TimeCodes: []float64{0, 1}, Root: "drape", Meshes: []USDMesh{{Name: "cloth", Triangles: tri, Points: [][]vec.Vec3{pts, pts}}}}
	}
	for _, c := range []struct {
		want string
		edit func(s *USDStage)
	}{
		{"fps", func(s *USDStage) { s.FPS = 0 }},
		{"no frames", func(s *USDStage) { s.TimeCodes = nil }},
		{"increase", func(s *USDStage) { s.TimeCodes = []float64{1, 1} }},
		{"point sets for 2 time codes", func(s *USDStage) { s.Meshes[0].Points = append(s.Meshes[0].Points, pts) }},
		{"outside its 3 points", func(s *USDStage) { s.Meshes[0].Triangles = [][3]int32{{0, 1, 3}} }},
		{"not a finite float32", func(s *USDStage) { s.Meshes[0].Points[1] = []vec.Vec3{{X: 1e39}, {}, {}} }},
		{"second prim", func(s *USDStage) { s.Meshes = append(s.Meshes, s.Meshes[0]) }},
		{"UV indices", func(s *USDStage) { s.Meshes[0].UVs, s.Meshes[0].UVIndices = [][2]float32{{0, 0}}, []int32{0} }},
		{"transforms", func(s *USDStage) { s.Meshes[0].Transforms = []vec.Mat4{vec.Identity()} }},
		{"in another subset", func(s *USDStage) {
			s.Meshes[0].Subsets = []USDSubset{{Name: "a", Faces: []int32{0}}, {Name: "b", Faces: []int32{0}}}
		}},
	} {
		for _, write := range []func(io.Writer, *USDStage) error{WriteUSDA, WriteUSDC} {
			s := good()
			c.edit(s)
			var buf bytes.Buffer
			err := write(&buf, s)
			if err == nil || !strings.Contains(err.Error(), c.want) || buf.Len() != 0 {
				t.Errorf("%s: error %v, %d bytes written; want an error saying %q and nothing written", c.want, err, buf.Len(), c.want)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteUSDA(&buf, good()); err != nil {
		t.Fatal(err)
	}
	// float32 values round-trip as their shortest text
	s := good()
	s.Meshes[0].Points = [][]vec.Vec3{{{X: 0.1}, {X: 1}, {Z: 1}}}
	buf.Reset()
	if err := WriteUSDA(&buf, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "point3f[] points = [(0.1, 0, 0), (1, 0, 0), (0, 0, 1)]") {
		t.Errorf("static points not written as the shortest float32 text:\n%s", buf.String())
	}
}

// TestLZ4Literals decodes the literal-only LZ4 blocks the crate writer
// frames its sections in, with the LZ4 block rules (a token's high nibble
// is the literal count, 15 continues in bytes while they are 255).
func TestLZ4Literals(t *testing.T) {
	for _, n := range []int{1, 14, 15, 16, 269, 270, 1000} {
		in := make([]byte, n)
		for i := range in {
			in[i] = byte(i * 7)
		}
		z := lz4Literals(in)
		if z[0] != 0 {
			t.Fatalf("n=%d: chunk count byte %d, want 0 (one chunk)", n, z[0])
		}
		p := 1
		l := int(z[p] >> 4)
		p++
		if l == 15 {
			for {
				b := int(z[p])
				p++
				l += b
				if b != 255 {
					break
				}
			}
		}
		if l != n || !bytes.Equal(z[p:], in) {
			t.Errorf("n=%d: block decodes to %d literals (%d bytes follow), want the %d input bytes", n, l, len(z)-p, n)
		}
	}
}

func TestUSDQuote(t *testing.T) {
	for in, want := range map[string]string{`a`: `"a"`, `C:\x "y"`: `"C:\\x \"y\""`, "l1\nl2": `"l1\nl2"`, "é": `"é"`} {
		if got := usdQuote(in); got != want {
			t.Errorf("usdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
