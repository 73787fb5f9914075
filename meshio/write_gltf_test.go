package meshio

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
)

// gridMesh builds an nx x nz quad grid of the given size in the XZ plane at
// height 1, as an OBJ reader would: two primitives (materials 0 and 1) split
// at the middle column, whose seam vertices are duplicated, with UVs, Source
// in v-line order.
func gridMesh(nx, nz int, size float64) *Mesh {
	m := &Mesh{Path: "grid.obj", Format: FormatOBJ, Name: "grid", SourceVertices: (nx + 1) * (nz + 1)}
	mid := nx / 2
	for part := range 2 {
		x0, x1 := 0, mid
		if part == 1 {
			x0, x1 = mid, nx
		}
		p := Primitive{Name: fmt.Sprintf("obj group part%d", part), Material: part}
		local := map[int]int32{}
		vert := func(i, k int) int32 {
			s := k*(nx+1) + i
			if r, ok := local[s]; ok {
				return r
			}
			r := int32(len(p.Positions))
			local[s] = r
			p.Positions = append(p.Positions, vec.V(size*(float64(i)/float64(nx)-0.5), 1, size*(float64(k)/float64(nz)-0.5)))
			p.Normals = append(p.Normals, vec.V(0, 1, 0))
			p.UVs = append(p.UVs, [2]float32{float32(i) / float32(nx), float32(k) / float32(nz)})
			p.Source = append(p.Source, int32(s))
			return r
		}
		for k := range nz {
			for i := x0; i < x1; i++ {
				a, b, c, d := vert(i, k), vert(i+1, k), vert(i+1, k+1), vert(i, k+1)
				// counter-clockwise seen from +Y
				p.Indices = append(p.Indices, a, d, c, a, c, b)
			}
		}
		m.Primitives = append(m.Primitives, p)
	}
	return m
}

// waveAnimation bakes a travelling sine wave (amplitude amp [m]) and a fall
// of drop [m] over the whole animation onto the welded vertices of m: n
// stored frames, every step-th of a bake at fps, with RenderNormals.
func waveAnimation(t testing.TB, m *Mesh, n, step int, fps, amp, drop float64) *Animation {
	t.Helper()
	w, err := Weld(m, DefaultWeldOptions())
	if err != nil {
		t.Fatalf("Weld(%s): %v", m.Name, err)
	}
	lo, hi := m.Bounds()
	ext := hi.Sub(lo)
	span := math.Max(ext.X, math.Max(ext.Y, ext.Z))
	a := &Animation{FPS: fps, Times: FrameTimes(n, step, fps)}
	sim := make([]vec.Vec3, len(w.Positions))
	last := a.Times[n-1]
	for _, tm := range a.Times {
		for i, p := range w.Positions {
			phase := 2 * math.Pi * ((p.X-lo.X)/span - tm)
			off := amp * math.Sin(phase) * (p.Z - lo.Z) / span
			sim[i] = p.Add(vec.V(0.3*off, off-drop*(tm/last)*(tm/last), 0))
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

// readTestMesh reads a testdata file with the package's reader.
func readTestMesh(t testing.TB, name string, opt ReadOptions) *Mesh {
	t.Helper()
	m, err := Read(filepath.Join("testdata", "write", name), opt)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return m
}

// writeTestFile writes m and a to dir/name and returns the path.
func writeTestFile(t testing.TB, dir, name string, m *Mesh, a *Animation, opt GLTFOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteGLTF(&buf, m, a, opt); err != nil {
		t.Fatalf("WriteGLTF(%s): %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bakeCase is one written file the real-client tests check.
type bakeCase struct {
	name string
	m    *Mesh
	a    *Animation
	opt  GLTFOptions
	// morphObjects is how many mesh objects carry the animation.
	morphObjects int
	// materials that must survive, by name; textured says they have images.
	materials []string
	textured  bool
}

// bakeCases builds the files every real-client test reads: OBJ-style and
// glTF inputs, binary and JSON, plain, quantized (including displacements
// beyond 1 m, which need a dequantization scale) and without normals, and
// frame step 2. Every animation shows scene frames 0, 6 and 12 at 24 fps.
func bakeCases(t testing.TB) []bakeCase {
	grid := gridMesh(10, 10, 1)
	morph := readTestMesh(t, "MorphPrimitivesTest/MorphPrimitivesTest.gltf", DefaultReadOptions())
	shapes := DefaultReadOptions()
	shapes.MeshName = "Torus"
	torus := readTestMesh(t, "ShapeCollection.glb", shapes)
	gridMats := []string{"material_0", "material_1"}
	morphMats := []string{"red", "green"}
	return []bakeCase{
		{"grid.glb", grid, waveAnimation(t, grid, 13, 1, 24, 0.1, 0.3), GLTFOptions{Binary: true, Normals: true}, 1, gridMats, false},
		{"grid_step2.gltf", grid, waveAnimation(t, grid, 7, 2, 24, 0.1, 0.3), GLTFOptions{Normals: true}, 1, gridMats, false},
		{"grid_quantized_fall.glb", grid, waveAnimation(t, grid, 13, 1, 24, 0.2, 1.5), GLTFOptions{Binary: true, Normals: true, Quantize: true}, 1, gridMats, false},
		{"morph.glb", morph, waveAnimation(t, morph, 13, 1, 24, 0.1, 0.2), GLTFOptions{Binary: true, Normals: true}, 1, morphMats, true},
		{"morph_quantized.glb", morph, waveAnimation(t, morph, 13, 1, 24, 0.1, 0.2), GLTFOptions{Binary: true, Normals: true, Quantize: true}, 1, morphMats, true},
		{"morph_quantized_fall.gltf", morph, waveAnimation(t, morph, 13, 1, 24, 0.1, 2.5), GLTFOptions{Normals: true, Quantize: true}, 1, morphMats, true},
		{"morph_no_normals.glb", morph, waveAnimation(t, morph, 13, 1, 24, 0.1, 0.2), GLTFOptions{Binary: true}, 1, morphMats, true},
		{"torus_instances.glb", torus, waveAnimation(t, torus, 13, 1, 24, 0.2, 0.5), GLTFOptions{Binary: true, Normals: true}, 2, nil, false},
	}
}

// sampleFrames are the stored frames checked in real clients: first, middle,
// last.
func sampleFrames(a *Animation) []int { return []int{0, len(a.Frames) / 2, len(a.Frames) - 1} }

// compareFlat returns the largest distance between got (flat xyz) and want,
// by index when the counts match, else by nearest neighbour both ways.
func compareFlat(got []float64, want []vec.Vec3) (worst float64, how string) {
	n := len(got) / 3
	at := func(i int) vec.Vec3 { return vec.V(got[3*i], got[3*i+1], got[3*i+2]) }
	if n == len(want) {
		for i := range n {
			worst = max(worst, at(i).Sub(want[i]).Len())
		}
		return worst, "by index"
	}
	for i := range n {
		best := math.Inf(1)
		for _, w := range want {
			best = min(best, at(i).Sub(w).Len())
		}
		worst = max(worst, best)
	}
	for _, w := range want {
		best := math.Inf(1)
		for i := range n {
			best = min(best, at(i).Sub(w).Len())
		}
		worst = max(worst, best)
	}
	return worst, fmt.Sprintf("nearest neighbour (%d vertices, want %d)", n, len(want))
}

// splitInstances splits a frame's render vertices into one slice per
// node instance, in Mesh order.
func splitInstances(m *Mesh, frame []vec.Vec3, instances int) [][]vec.Vec3 {
	if instances == 1 {
		return [][]vec.Vec3{frame}
	}
	var out [][]vec.Vec3
	r := 0
	per := len(m.Primitives) / instances
	for i := range instances {
		n := 0
		for _, p := range m.Primitives[i*per : (i+1)*per] {
			n += len(p.Positions)
		}
		out = append(out, frame[r:r+n])
		r += n
	}
	return out
}

const clientTol = 1e-4 // [m]

func TestWriteGLTFValidator(t *testing.T) {
	dir := t.TempDir()
	for _, c := range bakeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			path := writeTestFile(t, dir, c.name, c.m, c.a, c.opt)
			r := testtool.Validate(t, path)
			if !r.Info.HasMorphTargets || r.Info.AnimationCount < 1 {
				t.Errorf("validator info for %s: morph targets %v, animations %d, want true and >= 1", c.name, r.Info.HasMorphTargets, r.Info.AnimationCount)
			}
			if got := slices.Contains(r.Info.ExtensionsRequired, extQuantization); got != c.opt.Quantize {
				t.Errorf("%s requires %s = %v, want %v", c.name, extQuantization, got, c.opt.Quantize)
			}
			checkStructure(t, path, c)
		})
	}
}

// checkStructure decodes a written file and checks the morph layout: one
// target per frame on every primitive of every baked mesh, weights showing
// frame 0, target names, one LINEAR weights channel per baked node with
// nf x nf one-hot outputs, and the input's vertex counts.
func checkStructure(t *testing.T, path string, c bakeCase) {
	t.Helper()
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatalf("gltf.Open(%s): %v", path, err)
	}
	nf := len(c.a.Frames)
	baked := 0
	for mi, mesh := range doc.Meshes {
		if len(mesh.Primitives) == 0 || len(mesh.Primitives[0].Targets) == 0 {
			continue
		}
		baked++
		for pi, p := range mesh.Primitives {
			if len(p.Targets) != nf {
				t.Errorf("%s: meshes[%d].primitives[%d] has %d targets, want %d", c.name, mi, pi, len(p.Targets), nf)
			}
			_, hasN := p.Targets[0][gltf.NORMAL]
			if hasN != c.opt.Normals {
				t.Errorf("%s: meshes[%d].primitives[%d] NORMAL target %v, want %v", c.name, mi, pi, hasN, c.opt.Normals)
			}
		}
		if len(mesh.Weights) != nf || mesh.Weights[0] != 1 || slices.Max(mesh.Weights[1:]) != 0 {
			t.Errorf("%s: meshes[%d].weights = %v, want 1 then %d zeros", c.name, mi, mesh.Weights, nf-1)
		}
		names, _ := mesh.Extras.(map[string]any)["targetNames"].([]any)
		if len(names) != nf || names[0] != "frame_0000" || names[nf-1] != fmt.Sprintf("frame_%04d", nf-1) {
			t.Errorf("%s: meshes[%d].extras.targetNames = %v", c.name, mi, names)
		}
	}
	if baked != c.morphObjects {
		t.Errorf("%s: %d baked meshes, want %d", c.name, baked, c.morphObjects)
	}
	var anim *gltf.Animation
	for _, an := range doc.Animations {
		if an.Name == animationName {
			anim = an
		}
	}
	if anim == nil {
		t.Fatalf("%s: no animation %q", c.name, animationName)
	}
	if len(anim.Channels) != c.morphObjects {
		t.Errorf("%s: %d channels, want %d", c.name, len(anim.Channels), c.morphObjects)
	}
	for _, s := range anim.Samplers {
		in, out := doc.Accessors[s.Input], doc.Accessors[s.Output]
		if s.Interpolation != gltf.InterpolationLinear || in.Count != nf || out.Count != nf*nf {
			t.Errorf("%s: sampler %v: input %d, output %d, want LINEAR, %d, %d", c.name, s.Interpolation, in.Count, out.Count, nf, nf*nf)
		}
		if in.Max[0] != float64(float32(c.a.Times[nf-1])) {
			t.Errorf("%s: last key time %g, want %g", c.name, in.Max[0], c.a.Times[nf-1])
		}
	}
}

// TestWriteGLTFRealClients imports every case in headless Blender 3.4 (one
// Blender start) and plays it in three.js, and compares world-space vertex
// positions at the first, middle and last stored frame with the bake within
// 1e-4 m, and checks that materials, textures and UV maps survive.
func TestWriteGLTFRealClients(t *testing.T) {
	dir := t.TempDir()
	cases := bakeCases(t)
	const fps = 24
	var paths []string
	for _, c := range cases {
		paths = append(paths, writeTestFile(t, dir, c.name, c.m, c.a, c.opt))
	}
	sceneFrames := []string{"0", "6", "12"}
	var br testtool.BlenderResult
	testtool.BlenderJSON(t, &br, "tools/blender/gltf_frames.py", append([]string{strconv.Itoa(fps), strings.Join(sceneFrames, ",")}, paths...)...)
	if len(br.Files) != len(cases) {
		t.Fatalf("Blender evaluated %d files, want %d", len(br.Files), len(cases))
	}
	for ci, c := range cases {
		t.Run("blender/"+c.name, func(t *testing.T) {
			bf := br.Files[ci]
			var morph []int
			for oi, o := range bf.Objects {
				if o.ShapeKeys > 0 {
					morph = append(morph, oi)
					if o.ShapeKeys != len(c.a.Frames)+1 {
						t.Errorf("Blender object %s has %d shape keys, want %d (basis + one per frame)", o.Name, o.ShapeKeys, len(c.a.Frames)+1)
					}
				}
			}
			if len(morph) != c.morphObjects {
				t.Fatalf("Blender imported %d objects with shape keys, want %d", len(morph), c.morphObjects)
			}
			for _, oi := range morph {
				o := bf.Objects[oi]
				var names []string
				for _, mt := range o.Materials {
					names = append(names, mt.Name)
					if c.textured && len(mt.Images) == 0 {
						t.Errorf("Blender material %s of %s has no image texture", mt.Name, o.Name)
					}
				}
				for _, want := range c.materials {
					if !slices.Contains(names, want) {
						t.Errorf("Blender object %s materials = %v, want %s among them", o.Name, names, want)
					}
				}
				if len(o.UVLayers) == 0 {
					t.Errorf("Blender object %s has no UV map", o.Name)
				}
			}
			for fi, k := range sampleFrames(c.a) {
				want := splitInstances(c.m, c.a.Frames[k], c.morphObjects)
				for ii, oi := range morph {
					w := make([]vec.Vec3, len(want[ii]))
					for j, p := range want[ii] {
						w[j] = ToBlenderAxes(p)
					}
					worst, how := compareFlat(bf.Frames[fi].Positions[oi], w)
					t.Logf("Blender %s object %s scene frame %s: max error %.2g m (%s)", c.name, bf.Objects[oi].Name, sceneFrames[fi], worst, how)
					if worst > clientTol {
						t.Errorf("Blender %s object %s at scene frame %s (stored frame %d): max error %.3g m (%s), want <= %g", c.name, bf.Objects[oi].Name, sceneFrames[fi], k, worst, how, clientTol)
					}
				}
			}
		})
		t.Run("three/"+c.name, func(t *testing.T) {
			var times []float64
			for _, k := range sampleFrames(c.a) {
				times = append(times, c.a.Times[k])
			}
			r := testtool.Three(t, paths[ci], times...)
			var morph []int
			for mi, tm := range r.Meshes {
				if tm.MorphTargets > 0 {
					morph = append(morph, mi)
					if tm.MorphTargets != len(c.a.Frames) || (tm.MorphNormals > 0) != c.opt.Normals {
						t.Errorf("three mesh %s: %d morph targets, %d normal targets, want %d and normals %v", tm.Name, tm.MorphTargets, tm.MorphNormals, len(c.a.Frames), c.opt.Normals)
					}
					if !tm.UV {
						t.Errorf("three mesh %s has no uv attribute", tm.Name)
					}
					if c.materials != nil && !slices.Contains(c.materials, tm.MaterialName) {
						t.Errorf("three mesh %s material %q, want one of %v", tm.Name, tm.MaterialName, c.materials)
					}
					if c.textured && !tm.Texture {
						t.Errorf("three mesh %s material %q lost its texture", tm.Name, tm.MaterialName)
					}
				}
			}
			if len(r.Clips) != 1 {
				t.Errorf("three found %d clips, want 1", len(r.Clips))
			}
			for fi, k := range sampleFrames(c.a) {
				var got []float64
				for _, mi := range morph {
					got = append(got, r.Frames[fi].Positions[mi]...)
				}
				worst, how := compareFlat(got, c.a.Frames[k])
				t.Logf("three.js %s t = %.4g s: max error %.2g m (%s)", c.name, c.a.Times[k], worst, how)
				if worst > clientTol {
					t.Errorf("three.js %s at t = %g s (stored frame %d): max error %.3g m (%s), want <= %g", c.name, c.a.Times[k], k, worst, how, clientTol)
				}
			}
		})
	}
}

func TestWriteGLTFDeterministic(t *testing.T) {
	m := readTestMesh(t, "MorphPrimitivesTest/MorphPrimitivesTest.gltf", DefaultReadOptions())
	a := waveAnimation(t, m, 5, 1, 24, 0.1, 0.2)
	for _, opt := range []GLTFOptions{{Binary: true, Normals: true}, {Quantize: true, Normals: true}} {
		var b1, b2 bytes.Buffer
		if err := WriteGLTF(&b1, m, a, opt); err != nil {
			t.Fatal(err)
		}
		if err := WriteGLTF(&b2, m, a, opt); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Errorf("WriteGLTF(%+v) twice: outputs differ (%d and %d bytes)", opt, b1.Len(), b2.Len())
		}
	}
}

// TestWriteGLTFKeepsSource checks that the source document is untouched by
// writing and that the output keeps every node, material, texture and image.
func TestWriteGLTFKeepsSource(t *testing.T) {
	m := readTestMesh(t, "MorphPrimitivesTest/MorphPrimitivesTest.gltf", DefaultReadOptions())
	a := waveAnimation(t, m, 4, 1, 24, 0.1, 0.2)
	before := len(m.gltf.doc.Accessors)
	dir := t.TempDir()
	path := writeTestFile(t, dir, "keep.gltf", m, a, GLTFOptions{Normals: true})
	if len(m.gltf.doc.Accessors) != before || len(m.gltf.doc.Meshes[0].Primitives[0].Targets) != 1 {
		t.Errorf("WriteGLTF changed the source document: %d accessors (was %d), %d targets (was 1)", len(m.gltf.doc.Accessors), before, len(m.gltf.doc.Meshes[0].Primitives[0].Targets))
	}
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	src := m.gltf.doc
	if len(doc.Nodes) != len(src.Nodes) || len(doc.Materials) != len(src.Materials) || len(doc.Textures) != len(src.Textures) || len(doc.Images) != len(src.Images) || len(doc.Samplers) != len(src.Samplers) {
		t.Errorf("output has %d nodes, %d materials, %d textures, %d images, %d samplers; input %d, %d, %d, %d, %d",
			len(doc.Nodes), len(doc.Materials), len(doc.Textures), len(doc.Images), len(doc.Samplers),
			len(src.Nodes), len(src.Materials), len(src.Textures), len(src.Images), len(src.Samplers))
	}
	if len(doc.Buffers) != 1 || !strings.HasPrefix(doc.Buffers[0].URI, "data:") {
		t.Errorf("output buffers = %d (first uri %.20q), want one embedded data URI", len(doc.Buffers), doc.Buffers[0].URI)
	}
	if im := doc.Images[0]; im.BufferView == nil || im.MimeType != "image/jpeg" || im.URI != "" {
		t.Errorf("image 0: bufferView %v, mime %q, uri %q: want the JPEG embedded", im.BufferView, im.MimeType, im.URI)
	}
	for pi, p := range doc.Meshes[0].Primitives {
		for _, attr := range []string{gltf.POSITION, gltf.NORMAL, gltf.TEXCOORD_0} {
			if p.Attributes[attr] != src.Meshes[0].Primitives[pi].Attributes[attr] {
				t.Errorf("primitive %d %s accessor %d, want the input's %d", pi, attr, p.Attributes[attr], src.Meshes[0].Primitives[pi].Attributes[attr])
			}
		}
		if got, want := doc.Accessors[p.Attributes[gltf.POSITION]].Count, src.Accessors[src.Meshes[0].Primitives[pi].Attributes[gltf.POSITION]].Count; got != want {
			t.Errorf("primitive %d has %d vertices, want %d", pi, got, want)
		}
	}
}

func TestWriteGLTFErrors(t *testing.T) {
	m := gridMesh(2, 2, 1)
	good := func() *Animation { return waveAnimation(t, m, 3, 1, 24, 0.1, 0) }
	tests := []struct {
		name  string
		edit  func(a *Animation)
		wants string
	}{
		{"no frames", func(a *Animation) { a.Frames, a.Times, a.Normals = nil, nil, nil }, "no frames"},
		{"times mismatch", func(a *Animation) { a.Times = a.Times[:2] }, "2 times for 3 frames"},
		{"times not increasing", func(a *Animation) { a.Times[2] = a.Times[1] }, "increase"},
		{"negative time", func(a *Animation) { a.Times[0] = -1 }, ">= 0"},
		{"short frame", func(a *Animation) { a.Frames[1] = a.Frames[1][:3] }, "frame 1 has 3 positions"},
		{"bad fps", func(a *Animation) { a.FPS = 0 }, "fps = 0"},
		{"NaN position", func(a *Animation) { a.Frames[2][1].Y = math.NaN() }, "finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := good()
			tc.edit(a)
			err := WriteGLTF(&bytes.Buffer{}, m, a, GLTFOptions{Binary: true, Normals: true})
			if err == nil || !strings.Contains(err.Error(), tc.wants) {
				t.Errorf("WriteGLTF(%s) error = %v, want one containing %q", tc.name, err, tc.wants)
			}
		})
	}
}

func TestFitByteNormal(t *testing.T) {
	tests := []struct {
		base, target vec.Vec3
		fits         bool
	}{
		{vec.V(0, 1, 0), vec.V(0, 1, 0), true},
		{vec.V(0, 1, 0), vec.V(0, 0, 1), true},
		{vec.V(0, 1, 0), vec.V(0, -0.5, 0.866), false}, // below horizontal from +Y: impossible in [-1, 1]
		{vec.V(0.577, 0.577, 0.577), vec.V(-0.577, -0.577, -0.577), true},
		{vec.V(1, 0, 0), vec.V(0.6, 0.8, 0), true},
	}
	for _, tc := range tests {
		d := tc.target.Sub(tc.base)
		ok := fitByteNormal(&d, tc.base)
		if ok != tc.fits {
			t.Errorf("fitByteNormal(base %v, target %v) = %v, want %v", tc.base, tc.target, ok, tc.fits)
			continue
		}
		if !ok {
			continue
		}
		if max(math.Abs(d.X), math.Abs(d.Y), math.Abs(d.Z)) > 1 {
			t.Errorf("fitByteNormal(%v, %v): displacement %v outside [-1, 1]", tc.base, tc.target, d)
		}
		// quantize, blend, normalise as a renderer does
		q := vec.V(math.Round(d.X*127)/127, math.Round(d.Y*127)/127, math.Round(d.Z*127)/127)
		got := tc.base.Add(q).Normalize()
		if ang := math.Acos(math.Min(1, got.Dot(tc.target.Normalize()))); ang > 0.03 {
			t.Errorf("fitByteNormal(%v, %v): decoded normal %v is %.3g rad off", tc.base, tc.target, got, ang)
		}
	}
}

// BenchmarkWriteGLB writes 250 frames of a 10k-vertex cloth (a 100 x 100
// quad grid) and reports the file size.
func BenchmarkWriteGLB(b *testing.B) {
	m := gridMesh(100, 100, 2)
	full := waveAnimation(b, m, 250, 1, 24, 0.1, 0.5)
	half := &Animation{FPS: 24}
	for k := 0; k < 250; k += 2 {
		half.Times = append(half.Times, full.Times[k])
		half.Frames = append(half.Frames, full.Frames[k])
		half.Normals = append(half.Normals, full.Normals[k])
	}
	for _, bc := range []struct {
		name string
		a    *Animation
		opt  GLTFOptions
	}{
		{"plain", full, GLTFOptions{Binary: true, Normals: true}},
		{"quantized", full, GLTFOptions{Binary: true, Normals: true, Quantize: true}},
		{"step2", half, GLTFOptions{Binary: true, Normals: true}},
		{"no-normals", full, GLTFOptions{Binary: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				var cw countWriter
				if err := WriteGLTF(&cw, m, bc.a, bc.opt); err != nil {
					b.Fatal(err)
				}
				size = cw.n
			}
			b.ReportMetric(float64(size)/1e6, "MB")
		})
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
