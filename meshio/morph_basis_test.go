package meshio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
)

// bumpAnimation moves a Gaussian bump (height amp [m], radius r [m]) along
// a circle over m while the whole cloth sways: a motion no few shapes hold
// exactly, unlike a travelling sine, so the basis has to work for it.
func bumpAnimation(t testing.TB, m *Mesh, n int, fps, amp, r float64) *Animation {
	t.Helper()
	w, err := Weld(m, DefaultWeldOptions())
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := m.Bounds()
	c0 := lo.Add(hi).Scale(0.5)
	a := &Animation{FPS: fps, Times: FrameTimes(n, 1, fps)}
	sim := make([]vec.Vec3, len(w.Positions))
	for k, tm := range a.Times {
		ang := 2 * math.Pi * float64(k) / float64(n)
		c := c0.Add(vec.V(0.25*math.Cos(ang), 0, 0.25*math.Sin(ang)))
		for i, p := range w.Positions {
			dx, dz := p.X-c.X, p.Z-c.Z
			h := amp * math.Exp(-(dx*dx+dz*dz)/(r*r))
			sway := 0.05 * math.Sin(3*tm) * (p.X - lo.X)
			sim[i] = p.Add(vec.V(0, h-sway, 0.5*sway))
		}
		f := make([]vec.Vec3, len(w.RenderToSim))
		w.Scatter(f, sim)
		nrm := make([]vec.Vec3, len(w.RenderToSim))
		RenderNormals(w, sim, nrm)
		a.Frames = append(a.Frames, f)
		a.Normals = append(a.Normals, nrm)
	}
	return a
}

// writeInfo writes a file and returns its path, size and morph figures.
func writeInfo(t testing.TB, dir, name string, m *Mesh, a *Animation, opt GLTFOptions) (string, int, MorphInfo) {
	t.Helper()
	var buf bytes.Buffer
	info, err := WriteGLTFInfo(&buf, m, a, opt)
	if err != nil {
		t.Fatalf("WriteGLTFInfo(%s): %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Len(), info
}

// readBackError reads the file back with ReadBaked (the weights channel
// played on the stored targets) and returns the largest distance to the
// frames over every vertex of every frame, by instance.
func readBackError(t *testing.T, path string, m *Mesh, a *Animation, instances int) (float64, *Baked) {
	t.Helper()
	b, err := ReadBaked(path)
	if err != nil {
		t.Fatalf("ReadBaked(%s): %v", path, err)
	}
	if len(b.Frames) != len(a.Frames) {
		t.Fatalf("%s plays %d frames, want %d", path, len(b.Frames), len(a.Frames))
	}
	worst := 0.0
	for k, f := range b.Frames {
		if math.Abs(b.Times[k]-a.Times[k]) > 1e-6 {
			t.Fatalf("%s frame %d at %g s, want %g", path, k, b.Times[k], a.Times[k])
		}
		want := a.Frames[k]
		if len(f) != instances*len(want) {
			t.Fatalf("%s frame %d: %d vertices, want %d", path, k, len(f), instances*len(want))
		}
		for i, p := range f {
			worst = math.Max(worst, p.Sub(want[i%len(want)]).Len())
		}
	}
	return worst, b
}

// TestMorphBasis writes compressed bakes and checks, from the files: the
// target count, that every vertex at every frame is within the error the
// writer reports and within its bound, the size against exact targets, and
// byte-identical output at 1 and 4 threads.
func TestMorphBasis(t *testing.T) {
	dir := t.TempDir()
	grid := gridMesh(64, 64, 1)
	wave := waveAnimation(t, grid, 300, 1, 24, 0.1, 0.3)
	bump := bumpAnimation(t, grid, 300, 24, 0.15, 0.12)
	morph := readTestMesh(t, "MorphPrimitivesTest/MorphPrimitivesTest.gltf", DefaultReadOptions())
	shapes := DefaultReadOptions()
	shapes.MeshName = "Torus"
	torus := readTestMesh(t, "ShapeCollection.glb", shapes)
	cases := []struct {
		name      string
		m         *Mesh
		a         *Animation
		opt       GLTFOptions
		instances int
		limit     int
		bound     float64 // 0: the bound need not hold
		minRatio  float64 // exact size / this size
	}{
		{"wave.glb", grid, wave, GLTFOptions{Binary: true, Normals: true}, 1, 64, DefaultMaxError, 4},
		{"bump.glb", grid, bump, GLTFOptions{Binary: true, Normals: true}, 1, 64, DefaultMaxError, 4},
		{"bump_q.glb", grid, bump, GLTFOptions{Binary: true, Normals: true, Quantize: true}, 1, 64, DefaultMaxError, 4},
		{"bump_8.glb", grid, bump, GLTFOptions{Binary: true, Normals: true, Morph: MorphOptions{MaxTargets: 8}}, 1, 8, 0, 20},
		{"bump_1mm.gltf", grid, bump, GLTFOptions{Normals: true, Morph: MorphOptions{MaxError: 1e-3}}, 1, 64, 1e-3, 4},
		{"morph_forced.glb", morph, waveAnimation(t, morph, 40, 1, 24, 0.1, 2.5), GLTFOptions{Binary: true, Normals: true, Quantize: true, Morph: MorphOptions{Compress: true}}, 1, 64, DefaultMaxError, 1.5},
		{"torus_instances.glb", torus, bumpAnimation(t, torus, 100, 24, 0.1, 0.2), GLTFOptions{Binary: true, Normals: true}, 1, 64, DefaultMaxError, 1.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, size, info := writeInfo(t, dir, c.name, c.m, c.a, c.opt)
			exact := c.opt
			exact.Morph = MorphOptions{MaxTargets: AllTargets}
			var eb bytes.Buffer
			if _, err := WriteGLTFInfo(&eb, c.m, c.a, exact); err != nil {
				t.Fatal(err)
			}
			worst, b := readBackError(t, path, c.m, c.a, c.instances)
			t.Logf("%s: %d targets, max error %.3g mm (read back %.3g mm), RMS %.3g mm, %d bytes, exact %d bytes (%.1fx)",
				c.name, info.Targets, 1e3*info.MaxError, 1e3*worst, 1e3*info.RMSError, size, eb.Len(), float64(eb.Len())/float64(size))
			if !info.Compressed || info.Targets > c.limit || b.Targets != info.Targets {
				t.Errorf("%s: compressed %v, %d targets (file %d), want compressed with <= %d", c.name, info.Compressed, info.Targets, b.Targets, c.limit)
			}
			// the reported error is what the file plays (float32 sums aside)
			if math.Abs(worst-info.MaxError) > 2e-6+1e-3*info.MaxError {
				t.Errorf("%s: reported max error %.4g m, the file plays %.4g m", c.name, info.MaxError, worst)
			}
			if c.bound > 0 && (worst > c.bound || !info.BoundMet) {
				t.Errorf("%s: max error %.3g m (bound met %v), want <= %g", c.name, worst, info.BoundMet, c.bound)
			}
			if info.RMSError > info.MaxError || !(info.RMSError > 0) {
				t.Errorf("%s: RMS error %g outside (0, max %g]", c.name, info.RMSError, info.MaxError)
			}
			if r := float64(eb.Len()) / float64(size); r < c.minRatio {
				t.Errorf("%s: %d bytes, exact %d: %.2fx smaller, want >= %gx", c.name, size, eb.Len(), r, c.minRatio)
			}
			rep := testtool.Validate(t, path)
			if rep.Issues.NumErrors != 0 || rep.Issues.NumWarnings != 0 {
				t.Errorf("%s: validator %d errors, %d warnings", c.name, rep.Issues.NumErrors, rep.Issues.NumWarnings)
			}
		})
	}

	// the 8-target bump cannot meet 0.5 mm: the writer says so
	_, _, info := writeInfo(t, dir, "b8.glb", grid, bump, GLTFOptions{Binary: true, Morph: MorphOptions{MaxTargets: 8}})
	if info.BoundMet || info.MaxError <= DefaultMaxError {
		t.Errorf("bump with 8 targets: max error %g, bound met %v: want a miss of 0.5 mm reported", info.MaxError, info.BoundMet)
	}

	// same bytes at any thread count
	opt := GLTFOptions{Binary: true, Normals: true, Quantize: true}
	var outs [][]byte
	for _, p := range []int{1, 4} {
		old := runtime.GOMAXPROCS(p)
		var buf bytes.Buffer
		_, err := WriteGLTFInfo(&buf, grid, bump, opt)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, buf.Bytes())
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("compressed glb differs between 1 and 4 threads (%d and %d bytes)", len(outs[0]), len(outs[1]))
	}
}

// TestMorphBasisRealClients plays a compressed 300-frame bake of a 64 x 64
// grid (and its quantized copy) in three.js and Blender's glTF importer:
// every vertex within 0.5 mm of the baked positions at every 10th frame and
// the last, from the files.
func TestMorphBasisRealClients(t *testing.T) {
	dir := t.TempDir()
	grid := gridMesh(64, 64, 1)
	bump := bumpAnimation(t, grid, 300, 24, 0.15, 0.12)
	var paths []string
	for _, q := range []bool{false, true} {
		p, _, info := writeInfo(t, dir, fmt.Sprintf("bump_q%v.glb", q), grid, bump, GLTFOptions{Binary: true, Normals: true, Quantize: q})
		if info.Targets > DefaultMaxTargets {
			t.Fatalf("%d targets", info.Targets)
		}
		paths = append(paths, p)
	}
	var frames []int
	for k := 0; k < len(bump.Frames); k += 10 {
		frames = append(frames, k)
	}
	frames = append(frames, len(bump.Frames)-1)
	const tol = DefaultMaxError + 2e-5 // float32 playback on top of the bound

	var times []float64
	var sceneFrames []string
	for _, k := range frames {
		times = append(times, bump.Times[k])
		sceneFrames = append(sceneFrames, strconv.Itoa(k))
	}
	for _, p := range paths {
		r := testtool.Three(t, p, times...)
		if len(r.Meshes) != 2 || r.Meshes[0].MorphTargets > DefaultMaxTargets {
			t.Fatalf("three.js %s: %d meshes, want 2 (one per material) with <= 64 targets", p, len(r.Meshes))
		}
		worst := 0.0
		for fi, k := range frames {
			got := append(append([]float64(nil), r.Frames[fi].Positions[0]...), r.Frames[fi].Positions[1]...)
			w, _ := compareFlat(got, bump.Frames[k])
			worst = math.Max(worst, w)
		}
		t.Logf("three.js %s: worst vertex %.3g mm over %d frames", filepath.Base(p), 1e3*worst, len(frames))
		if worst > tol {
			t.Errorf("three.js %s: worst vertex off by %.3g m, want <= %g", p, worst, tol)
		}
	}

	var br testtool.BlenderResult
	testtool.BlenderJSON(t, &br, "tools/blender/gltf_frames.py", append([]string{"24", strings.Join(sceneFrames, ",")}, paths...)...)
	for pi, bf := range br.Files {
		if len(bf.Objects) != 1 || bf.Objects[0].ShapeKeys > DefaultMaxTargets+1 {
			t.Fatalf("Blender %s: %d objects, want 1 with <= 65 shape keys", paths[pi], len(bf.Objects))
		}
		worst := 0.0
		for fi, k := range frames {
			w := make([]vec.Vec3, len(bump.Frames[k]))
			for j, p := range bump.Frames[k] {
				w[j] = ToBlenderAxes(p)
			}
			// Blender merges the seam's duplicated vertices
			e, _ := compareFlat(bf.Frames[fi].Positions[0], w)
			worst = math.Max(worst, e)
		}
		t.Logf("Blender %s: worst vertex %.3g mm over %d frames", filepath.Base(paths[pi]), 1e3*worst, len(frames))
		if worst > tol {
			t.Errorf("Blender %s: worst vertex off by %.3g m, want <= %g", paths[pi], worst, tol)
		}
	}
}

// TestMorphBasisUnsimulatedPrimitives compresses a cloth mesh that also has
// line primitives drape does not simulate, of two vertex counts: their
// targets are zero accessors of their own counts, which the validator
// checks.
func TestMorphBasisUnsimulatedPrimitives(t *testing.T) {
	doc := gltf.NewDocument()
	const n = 8
	var grid [][3]float32
	var idx []uint16
	for i := range n {
		for j := range n {
			grid = append(grid, [3]float32{float32(j) / (n - 1), 1, float32(i) / (n - 1)})
		}
	}
	for i := range n - 1 {
		for j := range n - 1 {
			a := uint16(i*n + j)
			idx = append(idx, a, a+n, a+1, a+1, a+n, a+n+1)
		}
	}
	addMesh(doc, "Cloth", grid, idx)
	for _, pts := range [][][3]float32{{{0, 2, 0}, {1, 2, 0}, {0, 3, 0}}, {{0, 2, 1}, {1, 2, 1}, {1, 3, 1}, {0, 3, 1}}} {
		doc.Meshes[0].Primitives = append(doc.Meshes[0].Primitives, &gltf.Primitive{Mode: gltf.PrimitiveLineStrip,
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, pts)}})
	}
	doc.Nodes = []*gltf.Node{{Name: "cloth", Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	dir := t.TempDir()
	in := filepath.Join(dir, "lines.glb")
	if err := gltf.SaveBinary(doc, in); err != nil {
		t.Fatal(err)
	}
	m, err := Read(in, DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	a := bumpAnimation(t, m, 80, 24, 0.1, 0.3)
	for _, q := range []bool{false, true} {
		path, _, info := writeInfo(t, dir, fmt.Sprintf("out_q%v.glb", q), m, a, GLTFOptions{Binary: true, Normals: true, Quantize: q})
		if !info.Compressed {
			t.Fatalf("80 frames: not compressed")
		}
		rep := testtool.Validate(t, path)
		if rep.Issues.NumErrors != 0 || rep.Issues.NumWarnings != 0 {
			t.Errorf("quantize %v: validator %d errors, %d warnings", q, rep.Issues.NumErrors, rep.Issues.NumWarnings)
		}
		if worst, _ := readBackError(t, path, m, a, 1); worst > DefaultMaxError+2e-6 {
			t.Errorf("quantize %v: read back %.3g m off", q, worst)
		}
	}
}

// A write polls GLTFOptions.Cancelled through every phase (at least once a
// frame), and an error from any poll ends it with that error, whatever the
// step it stops in: the compression's Gram matrix, eigenvectors, basis,
// normal fit and error measure, the exact targets, and the encoding.
func TestWriteGLTFCancelled(t *testing.T) {
	grid := gridMesh(16, 16, 1)
	bump := bumpAnimation(t, grid, 80, 24, 0.15, 0.12)
	for _, c := range []struct {
		name string
		opt  GLTFOptions
	}{
		{"basis.glb", GLTFOptions{Binary: true, Normals: true, Quantize: true}},
		{"basis_1mm.gltf", GLTFOptions{Normals: true, Morph: MorphOptions{MaxError: 1e-3, Compress: true}}},
		{"exact.glb", GLTFOptions{Binary: true, Normals: true, Morph: MorphOptions{MaxTargets: AllTargets}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var polls atomic.Int64 // parallel loops poll from several goroutines
			opt := c.opt
			opt.Cancelled = func() error { polls.Add(1); return nil }
			if _, err := WriteGLTFInfo(io.Discard, grid, bump, opt); err != nil {
				t.Fatal(err)
			}
			total := int(polls.Load())
			if total < len(bump.Frames) {
				t.Fatalf("%d polls for %d frames, want at least one a frame", total, len(bump.Frames))
			}
			step := max(1, total/60)
			for k := 1; k <= total; k += step {
				polls.Store(0)
				opt.Cancelled = func() error {
					if polls.Add(1) >= int64(k) {
						return context.Canceled
					}
					return nil
				}
				var buf bytes.Buffer
				_, err := WriteGLTFInfo(&buf, grid, bump, opt)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled at poll %d of %d: err = %v, want context.Canceled", k, total, err)
				}
			}
		})
	}
}
