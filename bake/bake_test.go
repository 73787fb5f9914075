package bake

import (
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// objGrid appends to b an n x n grid of quads: the v lines of vertex
// (row i, column j) at at(i, j), row by row, then its faces, whose OBJ
// vertex numbers start at first (the number of vertex (0, 0)).
func objGrid(b *strings.Builder, n, first int, at func(i, j int) vec.Vec3) {
	for i := range n {
		for j := range n {
			p := at(i, j)
			fmt.Fprintf(b, "v %g %g %g\n", p.X, p.Y, p.Z)
		}
	}
	for i := 0; i+1 < n; i++ {
		for j := 0; j+1 < n; j++ {
			a := first + i*n + j
			fmt.Fprintf(b, "f %d %d %d %d\n", a, a+n, a+n+1, a+1)
		}
	}
}

// writeOBJ writes text as dir/name and returns its path.
func writeOBJ(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeGridOBJ writes an n x n grid of quads, size metres wide, in the XZ
// plane at height y, and returns its path.
func writeGridOBJ(t *testing.T, dir string, n int, size, y float64) string {
	t.Helper()
	var b strings.Builder
	objGrid(&b, n, 1, func(i, j int) vec.Vec3 {
		return vec.V(-size/2+size*float64(j)/float64(n-1), y, -size/2+size*float64(i)/float64(n-1))
	})
	return writeOBJ(t, dir, "grid.obj", b.String())
}

// hangingScene bakes a 1 m cloth pinned along one edge.
func hangingScene(t *testing.T, dir string, frames int, outs ...string) *Scene {
	t.Helper()
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 16, 1, 1)
	sc.Frames = frames
	sc.Pins = []PinSpec{{Box: []float64{-1, 0.9, -0.6, 1, 1.1, -0.45}}}
	for _, o := range outs {
		sc.Output = append(sc.Output, filepath.Join(dir, o))
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunWritesEveryOutputAndReadsBack(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 10, "a.glb", "a.gltf", "a.pc2", "a.mdd", "seq/")
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outputs) != 5 {
		t.Fatalf("outputs = %v, want 5", rep.OutputPaths())
	}
	for _, f := range []string{"a.glb", "a.gltf"} {
		if v := testtool.Validate(t, filepath.Join(dir, f)); v.Issues.NumErrors+v.Issues.NumWarnings != 0 {
			t.Errorf("%s: validator found %d errors, %d warnings", f, v.Issues.NumErrors, v.Issues.NumWarnings)
		}
	}
	seq, _ := filepath.Glob(filepath.Join(dir, "seq", "*.obj"))
	if len(seq) != 10 {
		t.Errorf("OBJ sequence has %d files, want 10", len(seq))
	}
	// The glTF's last morph frame is the bake's last frame.
	b, err := meshio.ReadBaked(filepath.Join(dir, "a.glb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Frames) != 10 || math.Abs(b.Times[9]-9.0/24) > 1e-6 {
		t.Fatalf("baked frames = %d, last time %g; want 10 and %g", len(b.Frames), b.Times[len(b.Times)-1], 9.0/24)
	}
	lo := math.Inf(1)
	for _, p := range b.Frames[9] {
		lo = math.Min(lo, p.Y)
	}
	if math.Abs(lo-rep.LowestY) > 1e-5 {
		t.Errorf("lowest point in the glb = %g, report says %g", lo, rep.LowestY)
	}
	// pinned edge stays at y = 1, the free edge fell
	if rep.HighestY < 0.999 || rep.LowestY > 0.9 {
		t.Errorf("hanging cloth: highest %g lowest %g; want the pinned edge at 1 and the rest fallen", rep.HighestY, rep.LowestY)
	}
}

func TestFailedBakeLeavesOldOutput(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 6, "out.glb")
	old := []byte("the previous bake")
	os.WriteFile(sc.Output[0], old, 0o644)
	// Gravity of 1000 m/s² with 1 substep and a speed bound diverges.
	g := [3]float64{0, -1000, 0}
	sc.Gravity = &g
	sc.Substeps = 1
	sc.Fabric.Stretch = ptr(1e9)
	_, err := Run(context.Background(), sc, Options{})
	if err == nil {
		t.Fatal("bake with gravity 1000 m/s² and 1 substep did not diverge")
	}
	if ExitCode(err) != ExitDiverged {
		t.Errorf("exit code = %d (%v), want %d", ExitCode(err), err, ExitDiverged)
	}
	got, _ := os.ReadFile(sc.Output[0])
	if string(got) != string(old) {
		t.Errorf("a failed bake changed the existing output")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestCancelledBakeWritesNothing(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 50, "out.glb")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, sc, Options{Progress: func(p Progress) {
		if p.Frame == 3 {
			cancel()
		}
	}})
	if ExitCode(err) != ExitCancelled {
		t.Fatalf("cancelled bake: %v (exit %d), want exit %d", err, ExitCode(err), ExitCancelled)
	}
	if _, err := os.Stat(sc.Output[0]); err == nil {
		t.Errorf("a cancelled bake wrote its output")
	}
}

func TestDeterministicAcrossThreads(t *testing.T) {
	sameAcrossThreads(t, func(dir string) *Scene { return hangingScene(t, dir, 8, "out.glb") })
}

// sameAcrossThreads bakes the scene scene(dir) makes (its first output is
// compared) on 1, 2 and 8 threads, each in a folder of its own, and fails t
// unless every bake writes the same bytes.
func sameAcrossThreads(t *testing.T, scene func(dir string) *Scene) {
	t.Helper()
	var first []byte
	for _, th := range []int{1, 2, 8} {
		sc := scene(t.TempDir())
		sc.Threads = th
		if _, err := Run(context.Background(), sc, Options{}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(sc.Output[0])
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Errorf("threads=%d output differs from threads=1", th)
		}
	}
}

func TestPreviewShowsTheCloth(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 12, "out.glb")
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatal(err)
	}
	png1 := filepath.Join(dir, "sheet.png")
	if err := Preview(sc.Output[0], png1, PreviewOptions{Frames: []int{11}, Width: 320, Height: 240, Ground: true}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Seed 000's checks: the share of cloth pixels and their mean colour.
	// The default front colour is a deep red; ground and sky are grey-blue.
	bnd := img.Bounds()
	cloth, total := 0, 0
	var rs, gs, bs float64
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			total++
			if float64(r) > 1.6*float64(g) && float64(r) > 1.6*float64(b) {
				cloth++
				rs, gs, bs = rs+float64(r>>8), gs+float64(g>>8), bs+float64(b>>8)
			}
		}
	}
	cover := float64(cloth) / float64(total)
	if cover < 0.05 || cover > 0.7 {
		t.Errorf("cloth covers %.1f%% of the frame, want 5..70%%", 100*cover)
	}
	if cloth > 0 {
		rs, gs, bs = rs/float64(cloth), gs/float64(cloth), bs/float64(cloth)
		if rs < 80 || gs > rs/2 || bs > rs/2 {
			t.Errorf("mean cloth colour = (%.0f, %.0f, %.0f), want a lit red", rs, gs, bs)
		}
	}
	if err := Preview(sc.Output[0], filepath.Join(dir, "a.gif"), PreviewOptions{Width: 64, Height: 48}); err != nil {
		t.Errorf("gif preview: %v", err)
	}
	if err := Preview(sc.Output[0], filepath.Join(dir, "a.png"), PreviewOptions{Frames: []int{99}, Width: 64, Height: 48}); ExitCode(err) != ExitBadInput {
		t.Errorf("preview of frame 99 of 12: %v, want a bad-input error", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestTrappedClothStopsWithError(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 5, 0.1, 0)
	sc.Frames = 3
	sc.Output = []string{filepath.Join(dir, "out.glb")}
	// y >= 0.01 and y <= -0.01: no position is outside both planes.
	sc.Colliders = []ColliderSpec{
		{Type: ColliderPlane, Normal: &[3]float64{0, 1, 0}, Offset: 0.01},
		{Type: ColliderPlane, Normal: &[3]float64{0, -1, 0}, Offset: 0.01},
	}
	_, err := Run(context.Background(), sc, Options{})
	if ExitCode(err) != ExitBadInput || !strings.Contains(err.Error(), "cannot be pushed out") {
		t.Fatalf("cloth trapped between colliders: %v, want a bad-input error saying it cannot be pushed out", err)
	}
	if _, err := os.Stat(sc.Output[0]); err == nil {
		t.Errorf("the failed bake wrote its output")
	}
}

func TestAnimatedPinsFollowTheirKeys(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 13, "out.glb")
	sc.Pins[0].Keys = []KeySpec{{Time: 0}, {Time: 0.5, Translation: &[3]float64{0.5, 0, 0}}}
	j, rec := prepareAndSimulate(t, sc)
	last := rec.Pos[len(rec.Pos)-1] // t = 12/24 = 0.5 s
	for _, p := range j.Pins {
		want := j.Welded.Positions[p.vertex].Add(vecX(0.5))
		if d := last[p.vertex].Sub(want).Len(); d > 1e-9 {
			t.Fatalf("pinned vertex %d at %v, want %v (the key's 0.5 m along x)", p.vertex, last[p.vertex], want)
		}
	}
}

func vecX(x float64) vec.Vec3 { return vec.V(x, 0, 0) }

// prepareAndSimulate prepares scene sc's job and simulates every frame.
func prepareAndSimulate(t *testing.T, sc *Scene) (*Job, *Recording) {
	t.Helper()
	j, err := Prepare(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := j.Simulate(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return j, rec
}

func TestLooseVerticesKeepTheirPlaceInCaches(t *testing.T) {
	dir := t.TempDir()
	// a falling quad plus a `v` line no face uses (vertex 3, the second line
	// after the quad's first two)
	obj := "v 0 1 0\nv 1 1 0\nv 5 6 7\nv 1 1 1\nv 0 1 1\nf 1 2 4 5\n"
	in := filepath.Join(dir, "loose.obj")
	os.WriteFile(in, []byte(obj), 0o644)
	sc := DefaultScene()
	sc.Input = in
	sc.Frames = 6
	sc.Output = []string{filepath.Join(dir, "a.pc2"), filepath.Join(dir, "seq") + "/"}
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(sc.Output[0])
	if err != nil {
		t.Fatal(err)
	}
	pc, err := meshio.ReadPC2(f, sc.Output[0])
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	last := pc.Frames[len(pc.Frames)-1]
	if want := meshio.ToBlenderAxes(vec.V(5, 6, 7)); last[2] != want {
		t.Errorf("loose vertex in the PC2 = %v, want its rest position %v", last[2], want)
	}
	if last[0].Z >= 1 {
		t.Errorf("the quad did not fall: vertex 0 at %v", last[0])
	}
	seq, err := os.ReadFile(filepath.Join(dir, "seq", "loose_0005.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(seq), "v 5 6 7\n") {
		t.Errorf("the OBJ sequence lost the loose vertex's position:\n%s", seq)
	}
}

// TestReadErrorFix checks that an input drape cannot read gets the fix for
// its cause: a glTF of another version is converted to 2.0, a compressed
// one re-exported without compression, a missing file's path checked.
func TestReadErrorFix(t *testing.T) {
	dir := t.TempDir()
	glb1 := []byte("glTF\x01\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00JSON")
	cases := []struct {
		name, data string
		want, not  string
	}{
		{"v1.gltf", `{"asset":{"version":"1.0"}}`, "convert the file to glTF 2.0", "compression"},
		{"v3.gltf", `{"asset":{"version":"3.0"}}`, "convert the file to glTF 2.0", "compression"},
		{"v1.glb", string(glb1), "convert the file to glTF 2.0", "compression"},
		{"draco.gltf", `{"asset":{"version":"2.0"},"extensionsUsed":["KHR_draco_mesh_compression"],"extensionsRequired":["KHR_draco_mesh_compression"]}`, "without compression", "glTF 2.0"},
		{"missing.obj", "", "check the path", "compression"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if c.data != "" {
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sc := DefaultScene()
		sc.Input = path
		_, err := Prepare(sc, Options{})
		var be *Error
		if !errors.As(err, &be) || be.Code != ExitBadInput {
			t.Errorf("%s: got %v, want a bad-input error", c.name, err)
			continue
		}
		if !strings.Contains(be.Fix, c.want) || strings.Contains(be.Fix, c.not) {
			t.Errorf("%s: fix %q, want one that says %q and not %q (error: %v)", c.name, be.Fix, c.want, c.not, be.Err)
		}
	}
}
