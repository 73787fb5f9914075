package bake

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/testtool"
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/render"
)

// writeRisingBall writes a GLB with a 0.6 m cloth (13 x 13 vertices) at
// y = 0.3 and a collider node COL_sphere_ball of radius 0.2 at
// (0, -0.5, 0); with animate, a glTF animation lifts the ball to
// (0, 0.5, 0) over its first second.
func writeRisingBall(t *testing.T, animate bool) string {
	t.Helper()
	doc := gltf.NewDocument()
	const n = 13
	var grid [][3]float32
	for i := range n {
		for j := range n {
			grid = append(grid, [3]float32{-0.3 + 0.6*float32(j)/(n-1), 0.3, -0.3 + 0.6*float32(i)/(n-1)})
		}
	}
	var idx []uint16
	for i := range n - 1 {
		for j := range n - 1 {
			a := uint16(i*n + j)
			idx = append(idx, a, a+n, a+1, a+1, a+n, a+n+1)
		}
	}
	box := [][3]float32{{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}}
	boxIdx := []uint16{0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5}
	doc.Meshes = []*gltf.Mesh{
		{Name: "Cloth", Primitives: []*gltf.Primitive{{Indices: gltf.Index(modeler.WriteIndices(doc, idx)),
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, grid)}}}},
		{Name: "Ball", Primitives: []*gltf.Primitive{{Indices: gltf.Index(modeler.WriteIndices(doc, boxIdx)),
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, box)}}}},
	}
	doc.Nodes = []*gltf.Node{
		{Name: "cloth", Mesh: gltf.Index(0)},
		{Name: "COL_sphere_ball", Mesh: gltf.Index(1), Translation: [3]float64{0, -0.5, 0}, Scale: [3]float64{0.2, 0.2, 0.2}},
	}
	doc.Scenes[0].Nodes = []int{0, 1}
	if animate {
		acc := func(data any) int { return modeler.WriteAccessor(doc, gltf.TargetNone, data) }
		// times: an animation input accessor must carry its min and max
		times := func(ts ...float32) int {
			i := acc(ts)
			doc.Accessors[i].Min, doc.Accessors[i].Max = []float64{float64(ts[0])}, []float64{float64(ts[len(ts)-1])}
			return i
		}
		doc.Animations = []*gltf.Animation{{Name: "Rise",
			Samplers: []*gltf.AnimationSampler{{Input: times(0, 1), Output: acc([][3]float32{{0, -0.5, 0}, {0, 0.5, 0}})}},
			Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(1), Path: gltf.TRSTranslation}}},
		}}
	}
	path := filepath.Join(t.TempDir(), "ball.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAnimatedNodeColliderLiftsCloth bakes a cloth falling onto a ball
// that a glTF animation lifts by 1 m in 1 s: after 1 s the cloth must lie
// on the ball's top (0.7 m) without sinking into it, where the same file
// without the animation leaves the cloth below the still ball's top
// (-0.3 m).
func TestAnimatedNodeColliderLiftsCloth(t *testing.T) {
	for _, animate := range []bool{true, false} {
		sc := DefaultScene()
		sc.Input = writeRisingBall(t, animate)
		sc.Frames = 25
		glb := filepath.Join(t.TempDir(), "out.glb")
		sc.Output = []string{filepath.Join(t.TempDir(), "out.pc2"), glb}
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("animated %v: highest %.4f m, lowest %.4f m, max penetration %.2f mm, thickness %.2f mm",
			animate, rep.HighestY, rep.LowestY, 1000*rep.MaxPenetration, 1000*rep.Thickness)
		if animate && (rep.HighestY < 0.7 || rep.HighestY > 0.75) {
			t.Errorf("ball lifted to a top of 0.7 m: the cloth's highest point is %.4f m, want on the ball (0.7-0.75 m)", rep.HighestY)
		}
		if !animate && rep.HighestY > -0.25 {
			t.Errorf("still ball with a top at -0.3 m: the cloth's highest point is %.4f m, want below -0.25 m", rep.HighestY)
		}
		// the baked glTF keeps the ball's animation beside the cloth's, so
		// an engine plays both
		doc, err := gltf.Open(glb)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range doc.Animations {
			names = append(names, a.Name)
		}
		if want := map[bool]int{true: 2, false: 1}[animate]; len(names) != want || animate && names[0] != "Rise" {
			t.Errorf("baked glTF animations %q, want %d (the input's Rise kept)", names, want)
		}
		if animate {
			if v := testtool.Validate(t, glb); v.Info.AnimationCount != 2 {
				t.Errorf("glTF validator counts %d animations, want 2", v.Info.AnimationCount)
			}
		}
		if rep.MaxPenetration > 0.1*rep.Thickness {
			t.Errorf("max penetration %.2f mm, want at most a tenth of the thickness %.2f mm", 1000*rep.MaxPenetration, 1000*rep.Thickness)
		}
	}
}

// TestInspectListsColliderNodes: drape inspect names a file's collider
// nodes and the animation each follows.
func TestInspectListsColliderNodes(t *testing.T) {
	for _, animate := range []bool{true, false} {
		r, err := Inspect(writeRisingBall(t, animate), DefaultInspectOptions())
		if err != nil {
			t.Fatal(err)
		}
		want := InspectCollider{Name: "COL_sphere_ball", Kind: "sphere"}
		if animate {
			want.Animation, want.Samples, want.End = "Rise", 241, 1
		}
		if len(r.Colliders) != 1 || r.Colliders[0] != want {
			t.Fatalf("animated %v: colliders %+v, want [%+v]", animate, r.Colliders, want)
		}
		var b strings.Builder
		r.WriteText(&b)
		line := "collider node:      COL_sphere_ball (sphere), still"
		if animate {
			line = `collider node:      COL_sphere_ball (sphere), animation "Rise", 0..1 s (241 samples)`
		}
		if !strings.Contains(b.String(), line) {
			t.Errorf("inspect text lacks %q:\n%s", line, b.String())
		}
	}
}

// TestBlenderAnimatedColliderGLB bakes the file Blender's own glTF exporter
// writes for a cloth over a ball keyframed to rise 1 m in 1 s
// (tools/blender/collider_glb.py): the ball, named COL_sphere_ball,
// must be read as a collider following the exported animation, so the
// cloth ends on its top (0.7 m) without sinking into it.
//
// The ball is read twice: fitted as a sphere (COL_sphere_ball), and as its
// own mesh (COL_ball), whose exported vertices are split at the UV seams
// and must be welded to close it.
func TestBlenderAnimatedColliderGLB(t *testing.T) {
	for _, c := range [][2]string{{"COL_sphere_ball", "sphere"}, {"COL_ball", "mesh"}} {
		name, kind := c[0], c[1]
		glb := filepath.Join(t.TempDir(), "blender.glb")
		testtool.Blender(t, "tools/blender/collider_glb.py", glb, kind)
		sc := DefaultScene()
		sc.Input = glb
		sc.Frames = 30
		sc.Output = []string{filepath.Join(t.TempDir(), "out.pc2")}
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s, Blender-exported, rising: highest %.4f m, max penetration %.2f mm, thickness %.2f mm, colliders %d",
			name, rep.HighestY, 1000*rep.MaxPenetration, 1000*rep.Thickness, rep.Colliders)
		if rep.Colliders != 1 || rep.HighestY < 0.69 || rep.HighestY > 0.75 {
			t.Errorf("%s: %d colliders, the cloth's highest point %.4f m: want 1 collider, the cloth on the risen ball's top (0.69-0.75 m)", name, rep.Colliders, rep.HighestY)
		}
		if rep.MaxPenetration > 0.1*rep.Thickness {
			t.Errorf("%s: max penetration %.2f mm, want at most a tenth of the thickness %.2f mm", name, 1000*rep.MaxPenetration, 1000*rep.Thickness)
		}
	}
}

// TestBlenderSkinnedColliderGLB bakes the file Blender's own glTF exporter
// writes for a cloth over a cube deformed by an armature whose bone lifts
// the cube's top from 0.2 to 0.5 m in 1 s (tools/blender/
// collider_glb.py): the skinned mesh collider must follow its
// skeleton, so the cloth ends on the raised top without sinking in,
// where the cube read in its bind pose would leave it at 0.2 m.
func TestBlenderSkinnedColliderGLB(t *testing.T) {
	glb := filepath.Join(t.TempDir(), "skinned.glb")
	testtool.Blender(t, "tools/blender/collider_glb.py", glb, "skinned")
	r, err := Inspect(glb, DefaultInspectOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Colliders) != 1 || !r.Colliders[0].Skinned || r.Colliders[0].Animation == "" {
		t.Fatalf("inspect: colliders %+v, want COL_body skinned and animated", r.Colliders)
	}
	sc := DefaultScene()
	sc.Input = glb
	sc.Frames = 30
	out := filepath.Join(t.TempDir(), "out.glb")
	usdOut := filepath.Join(t.TempDir(), "out.usdc")
	sc.Output = []string{out, usdOut}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// the USD point cache holds the skinned cube as time-sampled points
	// whose top rises from 0.2 m (time code 1) to 0.5 m (time code 25)
	u := testtool.USD(t, usdOut, 1, 25)
	for _, m := range u.Meshes {
		if !strings.HasPrefix(m.Path, "/drape/colliders/") {
			continue
		}
		tops := [2]float64{math.Inf(-1), math.Inf(-1)}
		for i := range tops {
			w := m.Frames[i].World
			for k := 1; k < len(w); k += 3 {
				tops[i] = math.Max(tops[i], w[k])
			}
		}
		if m.PointSamples != sc.Frames || math.Abs(tops[0]-0.2) > 1e-4 || math.Abs(tops[1]-0.5) > 1e-4 {
			t.Errorf("USD %s: %d point samples, top %.4f m at time code 1 and %.4f m at 25; want %d, 0.2 and 0.5",
				m.Path, m.PointSamples, tops[0], tops[1], sc.Frames)
		}
	}
	if len(u.Meshes) != 2 || len(u.CompositionErrors)+len(u.Checker.Errors) != 0 {
		t.Errorf("USD: %d meshes (want the cloth and the cube), errors %q %q", len(u.Meshes), u.CompositionErrors, u.Checker.Errors)
	}
	// the baked file keeps the skinned body and its animation beside the
	// cloth's morph animation
	if v := testtool.Validate(t, out); v.Info.AnimationCount != 2 {
		t.Errorf("baked glTF: the validator counts %d animations, want 2 (the armature's and drape's)", v.Info.AnimationCount)
	}
	// the preview draws the cube as its skeleton poses it; Blender's
	// exporter puts scene frame k at k/fps, so the keys at frames 1 and 25
	// are at 1/24 and 25/24 s
	draws, err := nodeSurfaces(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, top float64 }{{1.0 / 24, 0.2}, {13.0 / 24, 0.35}, {25.0 / 24, 0.5}} {
		if top := surfaceTop(drawAll(t, draws, c.t)); math.Abs(top-c.top) > 1e-4 {
			t.Errorf("preview at %.4g s: the skinned cube's top at %.4f m, want %.2f m", c.t, top, c.top)
		}
	}
	t.Logf("Blender-exported skinned cube (animation %q): highest %.4f m, max penetration %.2f mm, thickness %.2f mm",
		r.Colliders[0].Animation, rep.HighestY, 1000*rep.MaxPenetration, 1000*rep.Thickness)
	if rep.HighestY < 0.5 || rep.HighestY > 0.51 {
		t.Errorf("the cloth's highest point is %.4f m, want on the raised top (0.5-0.51 m)", rep.HighestY)
	}
	if rep.MaxPenetration > 0.1*rep.Thickness {
		t.Errorf("max penetration %.2f mm, want at most a tenth of the thickness %.2f mm", 1000*rep.MaxPenetration, 1000*rep.Thickness)
	}

	// the cloth's middle pinned and attached to the skinned cube rides on
	// its rising top: 0.3 m up between frames 1 and 25
	sc.Pins = []PinSpec{{Box: []float64{-0.1, 0.25, -0.1, 0.1, 0.35, 0.1}, Attach: "COL_body"}}
	j, rec := prepareAndSimulate(t, sc)
	if len(j.Pins) < 9 {
		t.Fatalf("%d pinned vertices, want the cloth's middle", len(j.Pins))
	}
	for _, ps := range j.Pins {
		rest := j.Welded.Positions[ps.vertex]
		for _, c := range []struct {
			k    int
			rise float64
		}{{1, 0}, {13, 0.15}, {25, 0.3}} {
			want := rest.Add(vec.V(0, c.rise, 0))
			if d := rec.Pos[c.k][ps.vertex].Sub(want).Len(); d > 1e-4 {
				t.Fatalf("frame %d: pinned vertex %d at %v, want %v (%.2f m up with the cube's top), %.3g m off", c.k, ps.vertex, rec.Pos[c.k][ps.vertex], want, c.rise, d)
			}
		}
	}
}

// drawAll draws every collider of draws at time at.
func drawAll(t *testing.T, draws []surfaceAt, at float64) []render.Surface {
	t.Helper()
	out, err := drawAt(draws, at)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// surfaceTop returns the highest point of the surfaces.
func surfaceTop(surfs []render.Surface) float64 {
	top := math.Inf(-1)
	for _, s := range surfs {
		for _, p := range s.Positions {
			top = math.Max(top, p.Y)
		}
	}
	return top
}

// TestPreviewDrawsAnimatedNodeColliders: drape preview --scene draws a
// glTF input's collider nodes where the bake has them: the rising ball's
// top at -0.3 m at 0 s and 0.7 m at 1 s.
func TestPreviewDrawsAnimatedNodeColliders(t *testing.T) {
	sc := DefaultScene()
	sc.Input = writeRisingBall(t, true)
	draws, err := nodeSurfaces(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, top float64 }{{0, -0.3}, {0.5, 0.2}, {1, 0.7}} {
		surfs := drawAll(t, draws, c.t)
		if len(surfs) != 1 || math.Abs(surfaceTop(surfs)-c.top) > 1e-3 {
			t.Errorf("t = %g s: %d surfaces, top %.4f m; want the ball's top at %.1f m", c.t, len(surfs), surfaceTop(surfs), c.top)
		}
	}
}
