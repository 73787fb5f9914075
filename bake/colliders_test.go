package bake

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// boxMesh returns the 8 corners and 12 outward triangles of the box lo..hi.
func boxMesh(lo, hi vec.Vec3) ([]vec.Vec3, [][3]int32) {
	p := []vec.Vec3{
		{X: lo.X, Y: lo.Y, Z: lo.Z}, {X: hi.X, Y: lo.Y, Z: lo.Z}, {X: hi.X, Y: hi.Y, Z: lo.Z}, {X: lo.X, Y: hi.Y, Z: lo.Z},
		{X: lo.X, Y: lo.Y, Z: hi.Z}, {X: hi.X, Y: lo.Y, Z: hi.Z}, {X: hi.X, Y: hi.Y, Z: hi.Z}, {X: lo.X, Y: hi.Y, Z: hi.Z},
	}
	t := [][3]int32{{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4}, {3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}}
	return p, t
}

func TestFitNodeShapes(t *testing.T) {
	// A node at (0, 1, 0), scaled 0.5, holding a mesh spanning x in [-1, 1],
	// y in [-3, 3], z in [-1, 1] in its own space.
	world := vec.TRS(vec.V(0, 1, 0), vec.QuatIdentity(), vec.V(0.5, 0.5, 0.5))
	local, tris := boxMesh(vec.V(-1, -3, -1), vec.V(1, 3, 1))
	node := func(kind string) meshio.ColliderNode {
		return meshio.ColliderNode{Name: "n", Kind: kind, World: world, LocalMin: vec.V(-1, -3, -1), LocalMax: vec.V(1, 3, 1), Local: local, Triangles: tris}
	}
	cases := []struct {
		kind    string
		p       vec.Vec3 // a world point
		want    float64  // its signed distance
		tol     float64
		comment string
	}{
		{"sphere", vec.V(0, 1, 0), -1.5, 1e-9, "radius = largest half extent 3, scaled 0.5"},
		{"sphere", vec.V(0, 3, 0), 0.5, 1e-9, ""},
		{"capsule", vec.V(1, 1, 0), 0.5, 1e-9, "radius 1 x 0.5 around the local Y axis"},
		{"capsule", vec.V(0, 3, 0), 0.5, 1e-9, "segment ends at local y = ±2, cap radius 1"},
		{"box", vec.V(0, 1, 0), -0.5, 1e-9, ""},
		{"box", vec.V(0, 3, 0), 0.5, 1e-9, ""},
		{"plane", vec.V(0, 2.5, 0), 0, 1e-9, "the node's XZ plane at the top of its mesh"},
		{"mesh", vec.V(0, 3, 0), 0.5, 1e-9, ""},
		{"mesh", vec.V(0, 1, 0), -0.5, 1e-9, ""},
	}
	for _, c := range cases {
		s, err := fitNodeShape(node(c.kind))
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		if d := s.Dist(c.p); math.Abs(d-c.want) > c.tol {
			t.Errorf("%s Dist(%v) = %g, want %g (%s)", c.kind, c.p, d, c.want, c.comment)
		}
	}
	// A cone: radius 1 at the bottom, 0.25 at the top.
	cone := meshio.ColliderNode{Kind: "cone", World: vec.Identity(), LocalMin: vec.V(-1, 0, -1), LocalMax: vec.V(1, 2, 1),
		Local: []vec.Vec3{{X: 1, Y: 0, Z: 0}, {X: -1, Y: 0, Z: 0}, {X: 0, Y: 0, Z: 1}, {X: 0.25, Y: 2, Z: 0}, {X: -0.25, Y: 2, Z: 0}}}
	s, err := fitNodeShape(cone)
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Dist(vec.V(0, 2.5, 0)); math.Abs(d-0.5) > 1e-9 {
		t.Errorf("cone top: Dist = %g, want 0.5", d)
	}
	// beside the top rim the nearest point is on the slanted side, which
	// runs from radius 0.25 at y = 2 to radius 1 at y = 0
	if d, want := s.Dist(vec.V(0.6, 2, 0)), 0.35*2/math.Hypot(0.75, 2); math.Abs(d-want) > 1e-9 {
		t.Errorf("cone beside the top rim: Dist = %g, want %g", d, want)
	}
	// An open mesh is refused with a message naming the node.
	open := node("mesh")
	open.Triangles = open.Triangles[:11]
	if _, _, err := nodeColliders(&meshio.Mesh{Path: "x.glb", Colliders: []meshio.ColliderNode{open}}, 0.5, 24, 10); err == nil || ExitCode(err) != ExitBadInput {
		t.Errorf("open mesh collider: %v, want a bad-input error", err)
	}
}

func TestAttributePins(t *testing.T) {
	m := &meshio.Mesh{Path: "c.glb", SourceVertices: 4, Primitives: []meshio.Primitive{{
		Positions:  []vec.Vec3{{X: 0}, {X: 1}, {X: 1, Z: 1}, {Z: 1}},
		Indices:    []int32{0, 1, 2, 0, 2, 3},
		Attributes: map[string][]float32{"_PIN": {1, 0.5, 0, 0}},
		Source:     []int32{0, 1, 2, 3},
	}}}
	w, err := meshio.Weld(m, meshio.DefaultWeldOptions())
	if err != nil {
		t.Fatal(err)
	}
	sc := DefaultScene()
	sc.Input = "c.glb"
	sc.Pins = []PinSpec{{Attribute: "_PIN"}}
	pins, err := selectPins(sc, m, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(pins) != 2 || pins[0].strength != 1 || pins[1].strength != 0.5 {
		t.Errorf("pins = %+v, want vertex 0 at 1 and vertex 1 at 0.5", pins)
	}
	sc.Pins = []PinSpec{{Attribute: "_WEIGHT"}}
	if _, err := selectPins(sc, m, w); err == nil || ExitCode(err) != ExitBadInput {
		t.Errorf("missing attribute: %v, want a bad-input error", err)
	}
}
