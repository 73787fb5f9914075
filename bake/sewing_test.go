package bake

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
)

// writePanelsOBJ writes two 0.3 m panels of 7 x 7 vertices, 10 cm apart
// along X at height 1 m, and (with seams) an l line from each row's last
// vertex of the first panel to its first vertex of the second.
func writePanelsOBJ(t *testing.T, dir string, seams bool) string {
	t.Helper()
	const n = 7
	var b strings.Builder
	for k, off := range []float64{0, 0.4} {
		objGrid(&b, n, k*n*n+1, func(j, i int) vec.Vec3 {
			return vec.V(off+0.3*float64(i)/(n-1), 1, 0.3*float64(j)/(n-1))
		})
	}
	if seams {
		for j := range n {
			fmt.Fprintf(&b, "l %d %d\n", j*n+n, n*n+j*n+1)
		}
	}
	return writeOBJ(t, dir, "panels.obj", b.String())
}

// TestSewingClosesSeams bakes two floating panels sewn at 0.2 m/s with
// self-collision: after 1 s the report's seam gap is under 0.1 mm and no
// triangles cross (those meeting at the closed seam count as neighbours).
func TestSewingClosesSeams(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writePanelsOBJ(t, dir, true)
	sc.Output = Outputs{filepath.Join(dir, "panels.pc2")}
	sc.Frames = 25
	sc.Gravity = &[3]float64{0, 0, 0}
	sc.Sewing = 0.2
	sc.SelfCollision = true
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seam gap %.3g m, self-intersections %d", rep.SeamGap, rep.SelfIntersections)
	if rep.SeamGap > 1e-4 || rep.SelfIntersections != 0 {
		t.Errorf("seam gap %.3g m, %d self-intersecting pairs after 1 s; want <= 1e-4 m and 0", rep.SeamGap, rep.SelfIntersections)
	}
}

// TestSewingMessages checks the note for unsewn loose edges and the error
// for sewing without any.
func TestSewingMessages(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writePanelsOBJ(t, dir, true)
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(j.Warnings, "\n"); !strings.Contains(got, "7 loose edges (OBJ l lines, glTF line primitives) are not sewn; set sewing") {
		t.Errorf("warnings %q, want the note on 7 unsewn loose edges", got)
	}
	sc.Input = writePanelsOBJ(t, dir, false)
	sc.Sewing = 0.2
	_, err = Prepare(sc, Options{})
	if err == nil || ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), "panels.obj: sewing = 0.2 but the input has no loose edges") {
		t.Errorf("Prepare = %v, want a bad-input error naming the file and the missing loose edges", err)
	}
}

// writePanelsGLB writes the two panels of writePanelsOBJ as one glTF mesh:
// a triangle primitive per panel and a LINES primitive with the seams
// (vertices of their own at the panels' vertices' places, shifted by off).
func writePanelsGLB(t *testing.T, dir string, off float32) string {
	t.Helper()
	const n = 7
	doc := gltf.NewDocument()
	var idx []uint16
	for j := 0; j+1 < n; j++ {
		for i := 0; i+1 < n; i++ {
			a := uint16(j*n + i)
			idx = append(idx, a, a+n, a+n+1, a, a+n+1, a+1)
		}
	}
	var prims []*gltf.Primitive
	for _, x0 := range []float32{0, 0.4} {
		var p [][3]float32
		for j := range n {
			for i := range n {
				p = append(p, [3]float32{x0 + 0.3*float32(i)/(n-1), 1, 0.3 * float32(j) / (n - 1)})
			}
		}
		prims = append(prims, &gltf.Primitive{Indices: gltf.Index(modeler.WriteIndices(doc, idx)),
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, p)}})
	}
	var lp [][3]float32
	for j := range n {
		z := 0.3 * float32(j) / (n - 1)
		lp = append(lp, [3]float32{0.3 + off, 1, z}, [3]float32{0.4, 1, z})
	}
	prims = append(prims, &gltf.Primitive{Mode: gltf.PrimitiveLines,
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, lp)}})
	doc.Meshes = []*gltf.Mesh{{Name: "Panels", Primitives: prims}}
	doc.Nodes = []*gltf.Node{{Name: "panels", Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	p := filepath.Join(dir, "panels.glb")
	if err := gltf.SaveBinary(doc, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSewingGLTFLines sews two panels whose seams are a glTF LINES
// primitive: they close (under 0.1 mm after 1 s); a line ending where the
// cloth has no vertex is an error naming the place.
func TestSewingGLTFLines(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writePanelsGLB(t, dir, 0)
	sc.Output = Outputs{filepath.Join(dir, "panels.pc2")}
	sc.Frames = 25
	sc.Gravity = &[3]float64{0, 0, 0}
	sc.Sewing = 0.2
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("glTF seams: gap %.3g m after 1 s", rep.SeamGap)
	if rep.SeamGap > 1e-4 {
		t.Errorf("seam gap %.3g m after 1 s, want <= 1e-4 m", rep.SeamGap)
	}
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Params.Seams) != 7 {
		t.Errorf("%d seams from the LINES primitive, want 7", len(j.Params.Seams))
	}
	sc.Input = writePanelsGLB(t, dir, 0.01) // the seams start 1 cm off the first panel
	_, err = Prepare(sc, Options{})
	if err == nil || ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), "where the cloth has no vertex") {
		t.Errorf("Prepare = %v, want a bad-input error for a seam off the cloth", err)
	}
}
