package meshio

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
)

// writeAnimatedColliders writes a GLB with a 3x3 cloth, a ball collider
// under a node "rig" at (0, 0, 1) turned 90 degrees about Y, and a box
// collider at the root. Animation "Walk" moves the ball from x = 0 to 1
// over 1 s (LINEAR) and the box along a cubic spline from x = 0 to 1 over
// 2 s whose first out-tangent is 2 m/s; animation "Turn" turns the rig.
// broken gives the ball's sampler one output value too few. A third
// collider node, COL_mesh_skinned, has a skin but no joint weights.
func writeAnimatedColliders(t testing.TB, broken bool) string {
	t.Helper()
	doc := gltf.NewDocument()
	addGrid(doc, 2, 1)
	addMesh(doc, "Proxy", unitBox, unitBoxIdx)
	s := math.Sqrt(0.5)
	doc.Nodes = []*gltf.Node{
		{Name: "cloth", Mesh: gltf.Index(0)},
		{Name: "rig", Translation: [3]float64{0, 0, 1}, Rotation: [4]float64{0, s, 0, s}, Children: []int{2}},
		{Name: "COL_sphere_ball", Mesh: gltf.Index(1), Scale: [3]float64{0.1, 0.1, 0.1}},
		{Name: "COL_box_cubic", Mesh: gltf.Index(1), Scale: [3]float64{0.1, 0.1, 0.1}},
		{Name: "COL_mesh_skinned", Mesh: gltf.Index(1), Skin: gltf.Index(0)},
	}
	doc.Skins = []*gltf.Skin{{Joints: []int{1}}}
	doc.Scenes[0].Nodes = []int{0, 1, 3, 4}
	acc := func(data any) int { return modeler.WriteAccessor(doc, gltf.TargetNone, data) }
	// times: an animation input accessor must carry its min and max
	times := func(ts ...float32) int {
		i := acc(ts)
		doc.Accessors[i].Min, doc.Accessors[i].Max = []float64{float64(ts[0])}, []float64{float64(ts[len(ts)-1])}
		return i
	}
	ballOut := [][3]float32{{0, 0, 0}, {1, 0, 0}}
	if broken {
		ballOut = ballOut[:1]
	}
	doc.Animations = []*gltf.Animation{
		{Name: "Walk",
			Samplers: []*gltf.AnimationSampler{
				{Input: times(0, 1), Output: acc(ballOut)},
				{Input: times(0, 2), Output: acc([][3]float32{{0, 0, 0}, {0, 0, 0}, {2, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 0}}),
					Interpolation: gltf.InterpolationCubicSpline},
			},
			Channels: []*gltf.AnimationChannel{
				{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(2), Path: gltf.TRSTranslation}},
				{Sampler: 1, Target: gltf.AnimationChannelTarget{Node: gltf.Index(3), Path: gltf.TRSTranslation}},
			}},
		{Name: "Turn",
			Samplers: []*gltf.AnimationSampler{{Input: times(0, 2), Output: acc([][4]float32{{0, 0, 0, 1}, {0, 1, 0, 0}})}},
			Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(1), Path: gltf.TRSRotation}}}},
	}
	path := filepath.Join(t.TempDir(), "animated.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAnimatedColliderNodes reads collider nodes that glTF animations move:
// the ball through its own LINEAR channel under a turned parent, the box
// along a cubic spline, both sampled at least every 1/240 s and scaled by
// the read scale; a second animation moving the ball's parent is named in
// a warning, not mixed in.
func TestAnimatedColliderNodes(t *testing.T) {
	opt := DefaultReadOptions()
	opt.Scale = 2
	m, err := Read(writeAnimatedColliders(t, false), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Colliders) != 3 {
		t.Fatalf("%d colliders, want 3", len(m.Colliders))
	}
	at := func(c ColliderNode, tm float64) vec.Vec3 {
		for i := 1; i < len(c.Motion); i++ {
			k0, k1 := c.Motion[i-1], c.Motion[i]
			if k1.Time >= tm {
				u := (tm - k0.Time) / (k1.Time - k0.Time)
				return k0.World.MulPoint(vec.Vec3{}).Lerp(k1.World.MulPoint(vec.Vec3{}), u)
			}
		}
		return c.Motion[len(c.Motion)-1].World.MulPoint(vec.Vec3{})
	}
	ball, cubic := m.Colliders[0], m.Colliders[1]
	for i, c := range []ColliderNode{ball, cubic} {
		end := float64(i + 1) // the ball's keys span 1 s, the box's 2 s
		n := int(240*end) + 1
		if c.Animation != "Walk" || len(c.Motion) != n || c.Motion[0].Time != 0 || c.Motion[n-1].Time != end {
			t.Fatalf("%s: animation %q with %d samples, want Walk with %d from 0 to %g s", c.Name, c.Animation, len(c.Motion), n, end)
		}
		for i := 1; i < len(c.Motion); i++ {
			if d := c.Motion[i].Time - c.Motion[i-1].Time; !(d > 0 && d <= 1.0/240+1e-12) {
				t.Fatalf("%s: samples %d and %d are %g s apart", c.Name, i-1, i, d)
			}
		}
	}
	// the ball: rig (0, 0, 1) turned 90 degrees about Y maps x to -z
	for _, c := range []struct {
		tm   float64
		want vec.Vec3
	}{{0, vec.V(0, 0, 2)}, {0.5, vec.V(0, 0, 1)}, {1, vec.V(0, 0, 0)}, {3, vec.V(0, 0, 0)}} {
		if got := at(ball, c.tm); got.Sub(c.want).Len() > 1e-6 {
			t.Errorf("ball at %g s: centre %v, want %v", c.tm, got, c.want)
		}
	}
	if got := ball.World.MulPoint(vec.Vec3{}); got.Sub(vec.V(0, 0, 2)).Len() > 1e-9 {
		t.Errorf("ball without animation at %v, want (0, 0, 2)", got)
	}
	// the box: Hermite with v0 = 0, v1 = 1, out-tangent 2 m/s, in-tangent
	// 0, over 2 s: halfway x = 0.125 x 2 s x 2 m/s + 0.5 x 1 = 1, times
	// the read scale 2
	if got := at(cubic, 1); math.Abs(got.X-2) > 1e-6 {
		t.Errorf("cubic box at 1 s: centre %v, want x = 2", got)
	}
	warned := false
	for _, w := range m.Warnings {
		warned = warned || strings.Contains(w, "COL_sphere_ball") && strings.Contains(w, "Turn")
	}
	if !warned {
		t.Errorf("warnings %q: want one naming the ball and the second animation Turn", m.Warnings)
	}
	warned = false
	for _, w := range m.Warnings {
		warned = warned || strings.Contains(w, `"COL_mesh_skinned" has a skin`) && strings.Contains(w, "JOINTS_0")
	}
	if !warned || m.Colliders[2].Motion != nil || m.Colliders[2].Skin != nil {
		t.Errorf("warnings %q: want one saying the skinned collider node without joint weights is used as it is", m.Warnings)
	}
}

// TestBrokenColliderAnimation: a sampler whose output does not match its
// times is an error naming the file and the sampler.
func TestBrokenColliderAnimation(t *testing.T) {
	_, err := Read(writeAnimatedColliders(t, true), DefaultReadOptions())
	if err == nil {
		t.Fatal("a sampler with one output for two times read without error")
	}
	for _, w := range []string{"animated.glb", "animations[0].samplers[0]", "2 output values"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}
