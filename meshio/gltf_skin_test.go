package meshio

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
)

// writeSkinnedBox writes a GLB with a 0.6 m cloth grid 0.3 m up and a
// skinned mesh collider COL_body: a box of half size 0.2 whose top four
// corners follow joint "Lift" and bottom four joint "Root" (weights 1),
// with identity inverse bind matrices. Animation "Rise" moves Lift up by
// 0.3 m over its first second (LINEAR), so the box's top rises from 0.2
// to 0.5 m while its bottom stays. It returns the path.
func writeSkinnedBox(t testing.TB, dir string) string {
	t.Helper()
	doc := gltf.NewDocument()
	addGrid(doc, 0.3, 0.3)
	box := make([][3]float32, len(unitBox))
	joints := make([][4]uint8, len(unitBox))
	weights := make([][4]float32, len(unitBox))
	for i, p := range unitBox {
		box[i] = [3]float32{0.2 * p[0], 0.2 * p[1], 0.2 * p[2]}
		if p[1] > 0 {
			joints[i] = [4]uint8{1}
		}
		weights[i] = [4]float32{1}
	}
	addMesh(doc, "Body", box, unitBoxIdx)
	prim := doc.Meshes[1].Primitives[0]
	prim.Attributes[gltf.JOINTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, joints)
	prim.Attributes[gltf.WEIGHTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, weights)
	doc.Nodes = []*gltf.Node{
		{Name: "cloth", Mesh: gltf.Index(0)},
		{Name: "Root", Children: []int{2}},
		{Name: "Lift"},
		{Name: "COL_body", Mesh: gltf.Index(1), Skin: gltf.Index(0)},
	}
	doc.Skins = []*gltf.Skin{{Name: "Armature", Joints: []int{1, 2}}}
	doc.Scenes[0].Nodes = []int{0, 1, 3}
	in := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0, 1})
	doc.Accessors[in].Min, doc.Accessors[in].Max = []float64{0}, []float64{1}
	out := modeler.WriteAccessor(doc, gltf.TargetNone, [][3]float32{{0, 0, 0}, {0, 0.3, 0}})
	doc.Animations = []*gltf.Animation{{Name: "Rise",
		Samplers: []*gltf.AnimationSampler{{Input: in, Output: out}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(2), Path: gltf.TRSTranslation}}},
	}}
	path := filepath.Join(dir, "skinned.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSkinnedColliderNode reads a skinned mesh collider node: its skin
// follows the animation that moves its joints, so its top corners rise
// with the joint (0.2, 0.35 and 0.5 m at 0, 0.5 and 1 s, then held), its
// bottom ones stay, and the read scale applies.
func TestSkinnedColliderNode(t *testing.T) {
	opt := DefaultReadOptions()
	opt.Scale = 2
	m, err := Read(writeSkinnedBox(t, t.TempDir()), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Colliders) != 1 || m.Colliders[0].Skin == nil || m.Colliders[0].Animation != "Rise" || m.Colliders[0].Motion != nil {
		t.Fatalf("colliders %+v: want COL_body skinned, following Rise, with no rigid motion", m.Colliders)
	}
	c := m.Colliders[0]
	for _, s := range []struct{ t, top float64 }{{0, 0.2}, {0.5, 0.35}, {1, 0.5}, {2, 0.5}} {
		pos := c.Skin.At(s.t)
		for i, p := range pos {
			want := vec.V(0.2*float64(unitBox[i][0]), 0.2*float64(unitBox[i][1]), 0.2*float64(unitBox[i][2]))
			if want.Y > 0 {
				want.Y = s.top
			}
			if p.Sub(want.Scale(2)).Len() > 1e-6 {
				t.Errorf("t = %g s: corner %d at %v, want %v (read scale 2)", s.t, i, p, want.Scale(2))
			}
		}
	}
}

// TestSkinnedColliderBadFiles: broken skins, and a joint hierarchy with a
// cycle, are errors naming the file and the place.
func TestSkinnedColliderBadFiles(t *testing.T) {
	edit := func(fn func(doc *gltf.Document)) string {
		path := writeSkinnedBox(t, t.TempDir())
		doc, err := gltf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		fn(doc)
		if err := gltf.SaveBinary(doc, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name string
		fn   func(doc *gltf.Document)
		want string // "" for no error
	}{
		{"joint out of range", func(doc *gltf.Document) { doc.Skins[0].Joints = []int{1, 99} }, "joint node 99 does not exist"},
		{"skin out of range", func(doc *gltf.Document) { doc.Nodes[3].Skin = gltf.Index(5) }, "skin 5 does not exist"},
		{"cycle", func(doc *gltf.Document) { doc.Nodes[2].Children = []int{1} }, "reached twice"},
	}
	for _, c := range cases {
		_, err := Read(edit(c.fn), DefaultReadOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "skinned.glb") {
			t.Errorf("%s: error %v, want one naming skinned.glb and %q", c.name, err, c.want)
		}
	}
}
