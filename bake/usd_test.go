package bake

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// TestUSDPointCache bakes a cloth hung over a keyed sphere, beside a box
// and above a ground plane, to .usda, .usd, .usdc and .pc2, and opens each
// USD file with Pixar's usd-core: the same layer in text and crate form, no composition errors, no validator errors
// (the checks usdchecker runs), the stage metadata (fps, metres, Y up, the
// frame range), the cloth's faces, UVs and normals, one points and normals
// sample per frame equal to the PC2's positions of the same bake within
// 1e-5 m, and the sphere moving with its keys. Blender's USD importer
// (Blender 4.5 LTS as a Python module; Debian's Blender 3.4 is built without
// USD) plays the cloth at the same positions.
func TestUSDPointCache(t *testing.T) {
	dir := t.TempDir()
	const frames = 24
	sc := hangingScene(t, dir, frames, "out.usda", "out.usd", "out.usdc", "out.pc2")
	sc.Input = writeUVGridOBJ(t, dir, 16)
	sc.Colliders = []ColliderSpec{
		{Type: ColliderSphere, Center: &[3]float64{0, 0.3, 0.1}, Radius: 0.2,
			Keys: []KeySpec{{Time: 0}, {Time: 1, Translation: &[3]float64{0, 0, 0.3}}}},
		{Type: ColliderBox, Center: &[3]float64{0.6, 0, 0}, Half: &[3]float64{0.1, 0.2, 0.1}},
		{Type: ColliderPlane, Normal: &[3]float64{0, 1, 0}, Offset: -0.5},
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	j, rec := prepareAndSimulate(t, sc)
	if _, err := j.Write(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	pc, err := meshio.ReadPC2File(filepath.Join(dir, "out.pc2"))
	if err != nil {
		t.Fatal(err)
	}
	// the PC2 holds the input's vertices in Blender's axes: map each back to
	// its welded vertex, the USD mesh's points
	simOf := map[int32]int32{}
	r := 0
	for _, p := range j.Mesh.Primitives {
		for _, src := range p.Source {
			simOf[src] = j.Welded.RenderToSim[r]
			r++
		}
	}
	codes := []float64{0, frames / 2, frames - 1}
	blenderUSD(t, filepath.Join(dir, "out.usda"), sc.FPS, codes, rec)
	blenderUSD(t, filepath.Join(dir, "out.usdc"), sc.FPS, codes, rec)
	layer := ""
	for _, name := range []string{"out.usda", "out.usd", "out.usdc"} {
		u := testtool.USD(t, filepath.Join(dir, name), codes...)
		if len(u.LayerSHA256) != 64 {
			t.Fatalf("%s: layer hash %q", name, u.LayerSHA256)
		}
		if layer == "" {
			layer = u.LayerSHA256
		} else if u.LayerSHA256 != layer {
			t.Errorf("%s holds another layer than out.usda (text SHA-256 %s, want %s)", name, u.LayerSHA256, layer)
		}
		if len(u.CompositionErrors) != 0 {
			t.Errorf("%s: composition errors %q", name, u.CompositionErrors)
		}
		if u.Checker.Validators < 10 || len(u.Checker.Errors) != 0 {
			t.Errorf("%s: %d validators found %q, want many and no error", name, u.Checker.Validators, u.Checker.Errors)
		}
		st := u.Stage
		if st.TimeCodesPerSecond != sc.FPS || st.FramesPerSecond != sc.FPS || st.MetersPerUnit != 1 || st.UpAxis != "Y" ||
			st.StartTimeCode != 0 || st.EndTimeCode != frames-1 || st.DefaultPrim != "/drape" {
			t.Errorf("%s: stage %+v, want %g time codes per second, metres, Y up, frames 0..%d, default prim /drape", name, st, sc.FPS, frames-1)
		}
		meshes := map[string]testtool.USDMesh{}
		for _, m := range u.Meshes {
			meshes[m.Path] = m
		}
		cloth, ok := meshes["/drape/cloth"]
		nv := len(j.Welded.Positions)
		if !ok || cloth.FaceCounts != len(j.Welded.Triangles) || cloth.FaceIndices != 3*cloth.FaceCounts || cloth.Points != nv ||
			cloth.Normals != nv || cloth.ST != len(j.Welded.RenderToSim) || cloth.STInterpolation != "faceVarying" ||
			cloth.PointSamples != frames || cloth.NormalSamples != frames {
			t.Fatalf("%s: cloth found %v: %d triangles (%d indices), %d points, %d normals, %d UVs (%s), %d point and %d normal samples; want %d triangles, %d points and normals, %d face-varying UVs, %d samples",
				name, ok, cloth.FaceCounts, cloth.FaceIndices, cloth.Points, cloth.Normals, cloth.ST, cloth.STInterpolation, cloth.PointSamples, cloth.NormalSamples,
				len(j.Welded.Triangles), nv, len(j.Welded.RenderToSim), frames)
		}
		faces := 0
		for _, sub := range cloth.Subsets {
			faces += sub.Faces
			if sub.Family != "materialBind" {
				t.Errorf("%s: subset %s in family %q, want materialBind", name, sub.Name, sub.Family)
			}
		}
		if len(cloth.Subsets) != 2 || faces != cloth.FaceCounts || cloth.MaterialBindFamily != "nonOverlapping" {
			t.Errorf("%s: %d subsets (%s) holding %d of %d faces, want 2 materials holding all of them, non-overlapping",
				name, len(cloth.Subsets), cloth.MaterialBindFamily, faces, cloth.FaceCounts)
		}
		for i, c := range codes {
			got := cloth.Frames[i].World
			worst := 0.0
			for src, s := range simOf {
				b := pc.Frames[int(c)][src] // Blender axes (x, -z, y)
				want := vec.V(b.X, b.Z, -b.Y)
				worst = math.Max(worst, vec.V(got[3*s], got[3*s+1], got[3*s+2]).Sub(want).Len())
			}
			if worst > 1e-5 {
				t.Errorf("%s: cloth at time code %g: a point is %.3g m from the PC2, want <= 1e-5", name, c, worst)
			}
		}
		var sphere *testtool.USDMesh
		for p, m := range meshes {
			if strings.HasPrefix(p, "/drape/colliders/sphere") {
				sphere = &m
			}
		}
		if sphere == nil || sphere.TransformSamples != frames || len(meshes) != 4 {
			t.Fatalf("%s: meshes %v; want cloth, sphere (keyed, %d transform samples), box and plane", name, keysOf(meshes), frames)
		}
		for i, c := range codes {
			tm := math.Min(c/sc.FPS, 1)
			center := vec.V(0, 0.3, 0.1+0.3*tm)
			w := sphere.Frames[i].World
			worst := 0.0
			for k := 0; k < len(w); k += 3 {
				worst = math.Max(worst, math.Abs(vec.V(w[k], w[k+1], w[k+2]).Sub(center).Len()-0.2))
			}
			if worst > 1e-4 {
				t.Errorf("%s: sphere at time code %g: a point is %.3g m off the keyed sphere", name, c, worst)
			}
		}
	}
}

// blenderUSD imports path with Blender 4.5's USD importer and checks the
// cloth object's positions at the time codes against the bake's.
func blenderUSD(t *testing.T, path string, fps float64, codes []float64, rec *Recording) {
	t.Helper()
	var frames []string
	for _, c := range codes {
		frames = append(frames, fmt.Sprint(c))
	}
	var br testtool.BlenderResult
	testtool.BpyJSON(t, "4.5.15", &br, "tools/blender/usd_frames.py", fmt.Sprint(fps), strings.Join(frames, ","), path)
	f := br.Files[0]
	cloth := -1
	for i, o := range f.Objects {
		if o.Name == "cloth" {
			cloth = i
		}
	}
	if cloth < 0 || f.Objects[cloth].Vertices != len(rec.Pos[0]) {
		t.Fatalf("Blender 4.5 imported %v from %s; want a cloth object of %d vertices", f.Objects, path, len(rec.Pos[0]))
	}
	for i, c := range codes {
		compareBlender(t, "Blender 4.5 USD "+filepath.Base(path), int(c), f.Frames[i].Positions[cloth], rec.Pos[int(c)], 1e-5)
	}
}

func keysOf(m map[string]testtool.USDMesh) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// writeUVGridOBJ writes a 1 m n x n vertex grid at height 1 with UVs, cut
// along its middle column in UV space (a seam: those vertices have two UVs
// each), so the welded cloth has fewer vertices than UV corners, and two
// materials (rows before and after the middle).
func writeUVGridOBJ(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		for k := range n {
			fmt.Fprintf(&b, "v %g 1 %g\n", -0.5+float64(k)/float64(n-1), -0.5+float64(i)/float64(n-1))
		}
	}
	half := (n - 1) / 2
	for i := range n {
		for k := range n {
			u := float64(k) / float64(n-1)
			fmt.Fprintf(&b, "vt %g %g\n", u, float64(i)/float64(n-1))
		}
	}
	// the seam column's second UVs, shifted right
	for i := range n {
		fmt.Fprintf(&b, "vt %g %g\n", float64(half)/float64(n-1)+0.01, float64(i)/float64(n-1))
	}
	for i := 0; i < n-1; i++ {
		// the first rows are one material, the rest another
		if i == 0 {
			b.WriteString("usemtl front\n")
		} else if i == n/2 {
			b.WriteString("usemtl back\n")
		}
		for k := 0; k < n-1; k++ {
			v := func(r, c int) string {
				id := r*n + c + 1
				uv := id
				if c == half && k >= half {
					uv = n*n + r + 1
				}
				return fmt.Sprintf("%d/%d", id, uv)
			}
			fmt.Fprintf(&b, "f %s %s %s %s\n", v(i, k), v(i+1, k), v(i+1, k+1), v(i, k+1))
		}
	}
	return writeOBJ(t, dir, "uvgrid.obj", b.String())
}

// TestUSDColliders writes the colliders that move in other ways as USD:
// a glTF collider node that the input's animation lifts by 1 m in 1 s (a
// time-sampled transform whose points rise by 1 m) and a mesh collider
// whose point cache raises its top from 0.2 m to 0.5 m (time-sampled
// points), as usd-core reads them from .usdc.
func TestUSDColliders(t *testing.T) {
	dir := t.TempDir()
	mean := func(w []float64) vec.Vec3 {
		var s vec.Vec3
		for k := 0; k < len(w); k += 3 {
			s = s.Add(vec.V(w[k], w[k+1], w[k+2]))
		}
		return s.Scale(3 / float64(len(w)))
	}
	top := func(w []float64) float64 {
		y := math.Inf(-1)
		for k := 1; k < len(w); k += 3 {
			y = math.Max(y, w[k])
		}
		return y
	}
	collider := func(u *testtool.USDResult) testtool.USDMesh {
		t.Helper()
		for _, m := range u.Meshes {
			if strings.HasPrefix(m.Path, "/drape/colliders/") {
				return m
			}
		}
		t.Fatalf("no collider prim under /drape/colliders")
		return testtool.USDMesh{}
	}

	sc := DefaultScene()
	sc.Input = writeRisingBall(t, true)
	sc.Frames = 25
	sc.Output = []string{filepath.Join(dir, "ball.usdc")}
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatal(err)
	}
	u := testtool.USD(t, sc.Output[0], 0, 24)
	if len(u.CompositionErrors)+len(u.Checker.Errors) != 0 {
		t.Errorf("ball.usdc: %q %q", u.CompositionErrors, u.Checker.Errors)
	}
	ball := collider(u)
	rise := mean(ball.Frames[1].World).Sub(mean(ball.Frames[0].World))
	if ball.TransformSamples != 25 || math.Abs(rise.Y-1) > 1e-6 || math.Abs(rise.X)+math.Abs(rise.Z) > 1e-6 {
		t.Errorf("ball %s: %d transform samples, rises by %v between time codes 0 and 24; want 25 and (0, 1, 0)", ball.Path, ball.TransformSamples, rise)
	}

	obj, pc2 := writeGrowingBox(t, dir)
	sc = DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 13, 0.6, 0.3)
	sc.Frames = 25
	sc.Output = []string{filepath.Join(dir, "box.usdc")}
	sc.Colliders = []ColliderSpec{{Type: ColliderMesh, Path: obj, Cache: pc2}}
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatal(err)
	}
	u = testtool.USD(t, sc.Output[0], 0, 24)
	if len(u.CompositionErrors)+len(u.Checker.Errors) != 0 {
		t.Errorf("box.usdc: %q %q", u.CompositionErrors, u.Checker.Errors)
	}
	box := collider(u)
	if box.PointSamples != 25 || math.Abs(top(box.Frames[0].World)-0.2) > 1e-6 || math.Abs(top(box.Frames[1].World)-0.5) > 1e-6 {
		t.Errorf("box %s: %d point samples, top %.4f m at time code 0 and %.4f m at 24; want 25, 0.2 and 0.5",
			box.Path, box.PointSamples, top(box.Frames[0].World), top(box.Frames[1].World))
	}
}
