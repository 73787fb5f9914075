package bake

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
)

// TestBakedFilesPlayInRealClients bakes a cloth end to end and plays the
// result back in the real clients: the Khronos validator, Blender 3.4's glTF
// importer and Mesh Cache modifier, and three.js. Every client must show the
// positions drape baked within 1e-4 m at the first, a middle and the last
// frame.
func TestBakedFilesPlayInRealClients(t *testing.T) {
	dir := t.TempDir()
	const frames = 13
	sc := hangingScene(t, dir, frames, "out.glb", "out.pc2", "q.glb")
	j, rec := prepareAndSimulate(t, sc)
	if _, err := j.Write(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	// the quantized copy
	sc.Quantize = true
	sc.Output = []string{filepath.Join(dir, "q.glb")}
	qi, err := j.Write(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if q := qi[0]; q.UnquantizedBytes == 0 || float64(q.Bytes) > 0.8*float64(q.UnquantizedBytes) {
		t.Errorf("quantized glb = %d bytes, unquantized %d: want at least 20%% saved", q.Bytes, q.UnquantizedBytes)
	}
	render := j.renderFrames(rec)
	check := []int{0, frames / 2, frames - 1}

	for _, f := range []string{"out.glb", "q.glb"} {
		rep := testtool.Validate(t, filepath.Join(dir, f))
		if rep.Issues.NumErrors != 0 || rep.Issues.NumWarnings != 0 {
			t.Errorf("%s: validator: %d errors, %d warnings", f, rep.Issues.NumErrors, rep.Issues.NumWarnings)
		}
	}

	// Blender: glTF import, scene frame k shows morph frame k.
	var br testtool.BlenderResult
	frameList := fmt.Sprint(check[0], ",", check[1], ",", check[2])
	testtool.BlenderJSON(t, &br, "tools/blender/gltf_frames.py", fmt.Sprint(sc.FPS), frameList,
		filepath.Join(dir, "out.glb"), filepath.Join(dir, "q.glb"))
	for fi, tol := range []float64{1e-4, 2e-4} {
		file := br.Files[fi]
		if len(file.Objects) != 1 || file.Objects[0].Vertices != len(render[0]) {
			t.Fatalf("%s in Blender: %d objects, want 1 with %d vertices", file.File, len(file.Objects), len(render[0]))
		}
		for i, k := range check {
			compareBlender(t, "Blender glTF "+filepath.Base(file.File), k, file.Frames[i].Positions[0], render[k], tol)
		}
	}

	// Blender: the PC2 on the input OBJ through the Mesh Cache modifier.
	var pr testtool.BlenderResult
	testtool.BlenderJSON(t, &pr, "tools/blender/pc2_frames.py", frameList, sc.Input, filepath.Join(dir, "out.pc2"))
	src := j.sourceFrames(render)
	for i, k := range check {
		got := pr.Files[0].Frames[i].Positions[0]
		if len(got) != 3*len(src[k]) {
			t.Fatalf("PC2 in Blender: %d coordinates, want %d", len(got), 3*len(src[k]))
		}
		worst := 0.0
		for v, p := range src[k] { // already in Blender axes
			worst = math.Max(worst, vec.V(got[3*v], got[3*v+1], got[3*v+2]).Sub(p).Len())
		}
		if worst > 1e-4 {
			t.Errorf("PC2 in Blender frame %d: worst vertex off by %.3g m, want <= 1e-4", k, worst)
		}
	}

	// three.js: GLTFLoader + AnimationMixer at t = k / fps.
	times := make([]float64, len(check))
	for i, k := range check {
		times[i] = float64(k) / sc.FPS
	}
	tr := testtool.Three(t, filepath.Join(dir, "out.glb"), times...)
	if len(tr.Meshes) != 1 || tr.Meshes[0].MorphTargets != frames {
		t.Fatalf("three.js: %d meshes, want 1 with %d morph targets", len(tr.Meshes), frames)
	}
	for i, k := range check {
		got := tr.Frames[i].Positions[0]
		worst := 0.0
		for v, p := range render[k] {
			worst = math.Max(worst, vec.V(got[3*v], got[3*v+1], got[3*v+2]).Sub(p).Len())
		}
		if worst > 1e-4 {
			t.Errorf("three.js frame %d: worst vertex off by %.3g m, want <= 1e-4", k, worst)
		}
	}
}

// compareBlender checks Blender's Z-up positions against drape's Y-up ones
// by vertex index.
func compareBlender(t *testing.T, what string, k int, got []float64, want []vec.Vec3, tol float64) {
	t.Helper()
	worst, at := 0.0, -1
	for v, p := range want {
		b := vec.V(got[3*v], got[3*v+1], got[3*v+2])
		d := b.Sub(vec.V(p.X, -p.Z, p.Y)).Len()
		if d > worst {
			worst, at = d, v
		}
	}
	if worst > tol {
		t.Errorf("%s frame %d: vertex %d off by %.3g m, want <= %g", what, k, at, worst, tol)
	}
}
