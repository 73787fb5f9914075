package meshio

import (
	"fmt"
	"strings"

	"github.com/qmuntal/gltf"

	"github.com/drape-sim/drape/internal/vec"
)

// ColliderKinds are the collider shapes a glTF node can ask for.
var ColliderKinds = []string{"sphere", "capsule", "cone", "box", "plane", "mesh"}

// ColliderNode is a glTF node marked as a collider, so one file can carry
// the cloth and its body proxies. A node is a collider when its extras say
// {"drape": {"collider": "capsule"}} or its name starts with COL_ followed by
// the kind (COL_sphere_head, COL_capsule.001; COL_ with another word means a
// closed mesh). Collider nodes are never chosen as the cloth.
type ColliderNode struct {
	// Name is the node's name ("node N" when it has none).
	Name string
	// Node is the node's index in the file.
	Node int
	// Kind is one of ColliderKinds.
	Kind string
	// World maps the node's space to drape's world [m], the read scale
	// included.
	World vec.Mat4
	// LocalMin and LocalMax bound the node's mesh in the node's own space;
	// a node without a mesh (an empty) gets the cube [-1, 1]³, as Blender
	// draws an empty of size 1.
	LocalMin, LocalMax vec.Vec3
	// Local are the node's mesh vertices in node space; nil for an empty.
	Local []vec.Vec3
	// Triangles index Local.
	Triangles [][3]int32
	// Motion samples World over the glTF animation that moves the node or
	// one of its ancestors (the first such animation in the file), in
	// increasing time; nil for a node no animation moves. World is the
	// node's pose without animation.
	Motion []NodeKey
	// Animation names the animation Motion or Skin follows.
	Animation string
	// Skin deforms a skinned mesh collider node by its skeleton; nil for
	// any other node. A skinned node has no Motion: glTF moves it by its
	// joints alone.
	Skin *NodeSkin
}

// colliderKind reports whether node n is marked as a collider, and which
// kind it asks for.
func colliderKind(n *gltf.Node) (string, bool, error) {
	if ex, ok := n.Extras.(map[string]any); ok {
		if d, ok := ex["drape"].(map[string]any); ok {
			if c, ok := d["collider"]; ok {
				k, _ := c.(string)
				for _, kk := range ColliderKinds {
					if k == kk {
						return k, true, nil
					}
				}
				return "", false, fmt.Errorf("extras.drape.collider = %v: must be one of %s", c, strings.Join(ColliderKinds, ", "))
			}
		}
	}
	name := strings.ToLower(n.Name)
	if !strings.HasPrefix(name, "col_") {
		return "", false, nil
	}
	word := strings.FieldsFunc(name[4:], func(r rune) bool { return r == '_' || r == '.' || r == '-' || r == ' ' })
	if len(word) > 0 {
		for _, k := range ColliderKinds {
			if word[0] == k {
				return k, true, nil
			}
		}
	}
	return "mesh", true, nil
}

// colliderNodes walks the scene for collider nodes with their world
// transforms and reads their meshes' triangles in node space.
func (r *gltfReader) colliderNodes() ([]ColliderNode, map[int]bool, []string, error) {
	doc := r.doc
	marked := map[int]bool{}
	var out []ColliderNode
	var roots []int
	switch {
	case doc.Scene != nil && *doc.Scene >= 0 && *doc.Scene < len(doc.Scenes) && doc.Scenes[*doc.Scene] != nil:
		roots = doc.Scenes[*doc.Scene].Nodes
	case len(doc.Scenes) > 0 && doc.Scenes[0] != nil:
		roots = doc.Scenes[0].Nodes
	default:
		for i := range doc.Nodes {
			roots = append(roots, i)
		}
	}
	scale := vec.ScaleMat(vec.V(r.opt.Scale, r.opt.Scale, r.opt.Scale))
	visited := make([]bool, len(doc.Nodes))
	var walk func(ni int, parent vec.Mat4, depth int) error
	walk = func(ni int, parent vec.Mat4, depth int) error {
		if ni < 0 || ni >= len(doc.Nodes) || visited[ni] || depth > maxNodeDepth || doc.Nodes[ni] == nil {
			return nil // instances() reports broken hierarchies
		}
		visited[ni] = true
		n := doc.Nodes[ni]
		world := parent.Mul(nodeMatrix(n))
		kind, ok, err := colliderKind(n)
		if err != nil {
			return r.errf(fmt.Sprintf("nodes[%d] (%s)", ni, n.Name), "%v", err)
		}
		if ok {
			marked[ni] = true
			c := ColliderNode{Name: n.Name, Node: ni, Kind: kind, World: scale.Mul(world),
				LocalMin: vec.V(-1, -1, -1), LocalMax: vec.V(1, 1, 1)}
			if c.Name == "" {
				c.Name = fmt.Sprintf("node %d", ni)
			}
			if n.Mesh != nil && *n.Mesh >= 0 && *n.Mesh < len(doc.Meshes) && doc.Meshes[*n.Mesh] != nil {
				in := gltfInstance{node: ni, mesh: *n.Mesh, world: vec.Identity()}
				for pi, prim := range doc.Meshes[*n.Mesh].Primitives {
					p, ok, err := r.primitive(in, pi, prim)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
					base := int32(len(c.Local))
					c.Local = append(c.Local, p.Positions...)
					for t := 0; t+2 < len(p.Indices); t += 3 {
						c.Triangles = append(c.Triangles, [3]int32{base + p.Indices[t], base + p.Indices[t+1], base + p.Indices[t+2]})
					}
				}
				if world.Det3() < 0 {
					for i := range c.Triangles {
						c.Triangles[i][1], c.Triangles[i][2] = c.Triangles[i][2], c.Triangles[i][1]
					}
				}
				if len(c.Local) > 0 {
					c.LocalMin, c.LocalMax = c.Local[0], c.Local[0]
					for _, q := range c.Local {
						c.LocalMin, c.LocalMax = c.LocalMin.Min(q), c.LocalMax.Max(q)
					}
				}
			}
			out = append(out, c)
		}
		for _, ch := range n.Children {
			if err := walk(ch, world, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ni := range roots {
		if err := walk(ni, vec.Identity(), 0); err != nil {
			return nil, nil, nil, err
		}
	}
	parent := nodeParents(doc)
	chains := make([][]int, len(out)) // per collider: its nodes, root first
	for i, c := range out {
		chains[i] = ancestry(parent, c.Node)
	}
	warnings, err := r.animateColliders(out, chains)
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range out {
		c := &out[i]
		n := doc.Nodes[c.Node]
		if n.Skin == nil {
			continue
		}
		if c.Kind == "mesh" {
			sk, err := r.nodeSkin(c.Node, c.Local, parent)
			if err != nil {
				return nil, nil, nil, err
			}
			if sk != nil {
				if err := r.skinAnimation(sk); err != nil {
					return nil, nil, nil, err
				}
				// glTF moves a skinned mesh by its joints alone
				c.Skin, c.Motion, c.Animation = sk, nil, sk.Animation
				continue
			}
		}
		switch c.Kind {
		case "mesh":
			warnings = append(warnings, fmt.Sprintf("collider node %q has a skin but its mesh no JOINTS_0 and WEIGHTS_0: drape uses the mesh as it is, without the skeleton", c.Name))
		case "plane":
		default:
			warnings = append(warnings, fmt.Sprintf("collider node %q is skinned: as a %s drape fits it to its mesh in the bind pose, without the skeleton's deformation; to follow the skeleton, mark it as a mesh collider (COL_ followed by any other word), or mark capsules parented to the bones as colliders", c.Name, c.Kind))
		}
	}
	return out, marked, warnings, nil
}
