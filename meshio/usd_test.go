package meshio

import (
	"bytes"
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
	} {
		s := good()
		c.edit(s)
		var buf bytes.Buffer
		err := WriteUSDA(&buf, s)
		if err == nil || !strings.Contains(err.Error(), c.want) || buf.Len() != 0 {
			t.Errorf("%s: error %v, %d bytes written; want an error saying %q and nothing written", c.want, err, buf.Len(), c.want)
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
