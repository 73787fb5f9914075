package bake

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// TestCompressedMorphTargetsPlay bakes 300 frames of a 64 x 64 cloth
// draping over a sphere and writes it with the default morph targets (a
// compressed basis, since 300 frames exceed 64), with exact targets, and
// with --morph-targets 8. From the files: the default has at most 64
// targets, is at least 4x smaller than the exact glb, passes the Khronos
// validator with no error or warning, and plays in three.js and in
// Blender's glTF importer with every vertex within 0.5 mm of the exact
// bake as read back from its file, at every frame; 8 targets stay 8 and report the error
// they reached.
func TestCompressedMorphTargetsPlay(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 64, 1, 0.6)
	sc.Frames = 300
	sc.Colliders = []ColliderSpec{{Type: ColliderSphere, Center: &[3]float64{0, 0, 0}, Radius: 0.3}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	j, rec := prepareAndSimulate(t, sc)
	write := func(name string, k MorphTargets) OutputInfo {
		t.Helper()
		sc.Output = []string{filepath.Join(dir, name)}
		sc.MorphTargets = k
		infos, err := j.Write(context.Background(), rec)
		if err != nil {
			t.Fatal(err)
		}
		return infos[0]
	}
	def := write("default.glb", 0)
	exact := write("exact.glb", AllMorphTargets)
	k8 := write("k8.glb", 8)

	m := def.Morph
	t.Logf("default: %d targets, max error %.3g mm, RMS %.3g mm, %d bytes; exact %d bytes (%.1fx)", m.Targets, 1e3*m.MaxError, 1e3*m.RMSError, def.Bytes, exact.Bytes, float64(exact.Bytes)/float64(def.Bytes))
	if !m.Compressed || m.Targets > 64 || !m.BoundMet || m.MaxError > 0.5e-3 {
		t.Errorf("default: %+v, want compressed, <= 64 targets, max error <= 0.5 mm", *m)
	}
	if float64(exact.Bytes) < 4*float64(def.Bytes) || def.ExactBytes != exact.Bytes {
		t.Errorf("default glb %d bytes (reported exact %d), exact glb %d: want at least 4x smaller", def.Bytes, def.ExactBytes, exact.Bytes)
	}
	if exact.Morph.Compressed || exact.Morph.Targets != 300 {
		t.Errorf("exact: %+v, want 300 exact targets", *exact.Morph)
	}
	t.Logf("8 targets: max error %.3g mm, RMS %.3g mm, %d bytes", 1e3*k8.Morph.MaxError, 1e3*k8.Morph.RMSError, k8.Bytes)
	if k8.Morph.Targets > 8 || !(k8.Morph.MaxError > 0) {
		t.Errorf("--morph-targets 8: %+v, want <= 8 targets and the error reached", *k8.Morph)
	}
	if !k8.Morph.BoundMet && !strings.Contains(strings.Join(j.Warnings, "\n"), "8 morph targets reach a max error of") {
		t.Errorf("8 targets miss the bound but no warning says so: %q", j.Warnings)
	}

	rep := testtool.Validate(t, filepath.Join(dir, "default.glb"))
	if rep.Issues.NumErrors != 0 || rep.Issues.NumWarnings != 0 {
		t.Errorf("default.glb: validator %d errors, %d warnings", rep.Issues.NumErrors, rep.Issues.NumWarnings)
	}

	// the exact bake as its file plays it, and the compressed one
	ex, err := meshio.ReadBaked(filepath.Join(dir, "exact.glb"))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := meshio.ReadBaked(filepath.Join(dir, "default.glb"))
	if err != nil {
		t.Fatal(err)
	}
	const tol = 0.5e-3 + 2e-6 // the bound, plus float32 playback
	worstOf := func(got []float64, want []vec.Vec3, blender bool) float64 {
		w := 0.0
		for v, p := range want {
			if blender {
				p = meshio.ToBlenderAxes(p)
			}
			w = math.Max(w, vec.V(got[3*v], got[3*v+1], got[3*v+2]).Sub(p).Len())
		}
		return w
	}
	worst := 0.0
	for k, f := range cb.Frames {
		flat := make([]float64, 0, 3*len(f))
		for _, p := range f {
			flat = append(flat, p.X, p.Y, p.Z)
		}
		worst = math.Max(worst, worstOf(flat, ex.Frames[k], false))
	}
	t.Logf("read back: worst vertex %.3g mm over %d frames", 1e3*worst, len(cb.Frames))
	if len(cb.Frames) != 300 || worst > tol {
		t.Errorf("read back: %d frames, worst vertex %.3g m from the exact bake, want 300 and <= %g", len(cb.Frames), worst, tol)
	}

	// three.js at every frame
	times := make([]float64, len(ex.Times))
	copy(times, ex.Times)
	tr := testtool.Three(t, filepath.Join(dir, "default.glb"), times...)
	if len(tr.Meshes) != 1 || tr.Meshes[0].MorphTargets != m.Targets {
		t.Fatalf("three.js: %d meshes, want 1 with %d targets", len(tr.Meshes), m.Targets)
	}
	worst = 0
	for k := range times {
		worst = math.Max(worst, worstOf(tr.Frames[k].Positions[0], ex.Frames[k], false))
	}
	t.Logf("three.js: worst vertex %.3g mm over %d frames", 1e3*worst, len(times))
	if worst > tol {
		t.Errorf("three.js: worst vertex %.3g m from the exact bake, want <= %g", worst, tol)
	}

	// Blender at every frame
	var frames []string
	var ks []int
	for k := range 300 {
		ks = append(ks, k)
	}
	for _, k := range ks {
		frames = append(frames, strconv.Itoa(k))
	}
	var br testtool.BlenderResult
	testtool.BlenderJSON(t, &br, "tools/blender/gltf_frames.py", strconv.FormatFloat(sc.FPS, 'g', -1, 64), strings.Join(frames, ","), filepath.Join(dir, "default.glb"))
	bf := br.Files[0]
	if len(bf.Objects) != 1 || bf.Objects[0].ShapeKeys != m.Targets+1 {
		t.Fatalf("Blender: %d objects, want 1 with %d shape keys", len(bf.Objects), m.Targets+1)
	}
	worst = 0
	for i, k := range ks {
		worst = math.Max(worst, worstOf(bf.Frames[i].Positions[0], ex.Frames[k], true))
	}
	t.Logf("Blender: worst vertex %.3g mm over %d frames", 1e3*worst, len(ks))
	if worst > tol {
		t.Errorf("Blender: worst vertex %.3g m from the exact bake, want <= %g", worst, tol)
	}
	os.Remove(filepath.Join(dir, "exact.glb"))
}

// TestMorphTargetsSceneKey parses morph_targets as a count or "all" and
// rejects what it cannot use, naming the key.
func TestMorphTargetsSceneKey(t *testing.T) {
	for _, c := range []struct {
		js   string
		want MorphTargets
		err  string
	}{
		{`{"input": "a.obj", "morph_targets": 8}`, 8, ""},
		{`{"input": "a.obj", "morph_targets": "all"}`, AllMorphTargets, ""},
		{`{"input": "a.obj", "morph_targets": 8, "max_error": 0.001}`, 8, ""},
		{`{"input": "a.obj", "morph_targets": "some"}`, 0, "morph_targets"},
		{`{"input": "a.obj", "morph_targets": 5000}`, 0, "morph_targets"},
		{`{"input": "a.obj", "max_error": -1}`, 0, "max_error"},
		{`{"input": "a.obj", "morph_targets": "all", "max_error": 0.001}`, 0, "max_error"},
	} {
		sc, err := ParseScene([]byte(c.js), "s.json")
		if err == nil {
			err = sc.Validate()
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one naming %s", c.js, err, c.err)
			}
			continue
		}
		if err != nil || sc.MorphTargets != c.want {
			t.Errorf("%s: %v, %v; want %d", c.js, sc.MorphTargets, err, c.want)
		}
	}
	if b, _ := AllMorphTargets.MarshalJSON(); string(b) != `"all"` {
		t.Errorf(`AllMorphTargets marshals as %s, want "all"`, b)
	}
}
