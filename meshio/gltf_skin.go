package meshio

import (
	"fmt"
	"math"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/drape-sim/drape/internal/vec"
)

// NodeSkin deforms a skinned collider node's mesh by its skeleton (glTF
// linear blend skinning) as the animation that moves its joints has it.
// ColliderNode.Skin holds one for a skinned mesh collider node.
type NodeSkin struct {
	// Animation names the animation that moves the joints ("" for none:
	// the skeleton stays in its rest pose).
	Animation string

	local  []vec.Vec3   // the mesh's vertices (ColliderNode.Local)
	vj     [][4]int32   // per vertex: its joints (indices into joints)
	vw     [][4]float64 // per vertex: their weights, summing to 1
	joints []int        // per joint: its node
	ibm    []vec.Mat4   // per joint: its inverse bind matrix
	parent []int        // per node of the file: its parent (-1: a root)
	nodes  []*gltf.Node
	curves map[int]*nodeCurves // the animation's channels by node
	scale  float64
}

// At returns the mesh's vertices at the animation's time t [s] in drape's
// world [m]: Σ w_j·(J_j(t)·IBM_j)·v over each vertex's joints, with J_j the
// joint's world transform at t (the node's own transform takes no part, as
// glTF has it for skinned meshes).
func (s *NodeSkin) At(t float64) []vec.Vec3 {
	world := worldsOf(s.parent, func(i int) vec.Mat4 {
		if s.nodes[i] == nil {
			return vec.Identity()
		}
		return animatedMatrix(s.nodes[i], s.curves[i], t)
	})
	skin := make([]vec.Mat4, len(s.joints))
	for j, n := range s.joints {
		skin[j] = vec.ScaleMat(vec.V(s.scale, s.scale, s.scale)).Mul(world[n]).Mul(s.ibm[j])
	}
	out := make([]vec.Vec3, len(s.local))
	for i, v := range s.local {
		var p vec.Vec3
		for k, j := range s.vj[i] {
			if w := s.vw[i][k]; w != 0 {
				p = p.AddScaled(skin[j].MulPoint(v), w)
			}
		}
		out[i] = p
	}
	return out
}

// nodeSkin reads the skin of mesh collider node ni (its mesh's primitives
// in the order colliderNodes appended them to Local), or returns nil when
// the node has no skin or its primitives carry no joints. parent maps every
// node to its parent.
func (r *gltfReader) nodeSkin(ni int, local []vec.Vec3, parent []int) (*NodeSkin, error) {
	doc := r.doc
	n := doc.Nodes[ni]
	if n.Skin == nil || n.Mesh == nil {
		return nil, nil
	}
	place := fmt.Sprintf("nodes[%d] (%s) skin %d", ni, n.Name, *n.Skin)
	if *n.Skin < 0 || *n.Skin >= len(doc.Skins) || doc.Skins[*n.Skin] == nil {
		return nil, r.errf(place, "skin %d does not exist (%d skins)", *n.Skin, len(doc.Skins))
	}
	sk := doc.Skins[*n.Skin]
	if *n.Mesh < 0 || *n.Mesh >= len(doc.Meshes) || doc.Meshes[*n.Mesh] == nil {
		return nil, nil // colliderNodes read no mesh either
	}
	s := &NodeSkin{local: local, joints: sk.Joints, parent: parent, nodes: doc.Nodes, scale: r.opt.Scale}
	for _, j := range sk.Joints {
		if j < 0 || j >= len(doc.Nodes) || doc.Nodes[j] == nil {
			return nil, r.errf(place, "joint node %d does not exist (%d nodes)", j, len(doc.Nodes))
		}
	}
	s.ibm = make([]vec.Mat4, len(sk.Joints))
	for j := range s.ibm {
		s.ibm[j] = vec.Identity()
	}
	if sk.InverseBindMatrices != nil {
		acr, err := r.checkedAccessor(*sk.InverseBindMatrices, place)
		if err != nil {
			return nil, err
		}
		ms, err := modeler.ReadInverseBindMatrices(doc, acr, nil)
		if err != nil || len(ms) < len(sk.Joints) {
			return nil, r.errf(place, "inverse bind matrices: %d for %d joints (%v)", len(ms), len(sk.Joints), err)
		}
		for j := range s.ibm {
			var a [16]float64
			for c := range 4 {
				for rr := range 4 {
					a[c*4+rr] = float64(ms[j][c][rr])
				}
			}
			s.ibm[j] = vec.Mat4FromColumnMajor(a)
		}
	}
	for pi, prim := range doc.Meshes[*n.Mesh].Primitives {
		if prim == nil || prim.Mode != gltf.PrimitiveTriangles && prim.Mode != gltf.PrimitiveTriangleStrip && prim.Mode != gltf.PrimitiveTriangleFan {
			continue // primitive() skipped it too
		}
		pplace := fmt.Sprintf("meshes[%d].primitives[%d]", *n.Mesh, pi)
		ja, jok := prim.Attributes[gltf.JOINTS_0]
		wa, wok := prim.Attributes[gltf.WEIGHTS_0]
		if !jok || !wok {
			return nil, nil // not skinned after all: the bind-pose warning stands
		}
		jacr, err := r.checkedAccessor(ja, pplace)
		if err != nil {
			return nil, err
		}
		wacr, err := r.checkedAccessor(wa, pplace)
		if err != nil {
			return nil, err
		}
		js, err := modeler.ReadJoints(doc, jacr, nil)
		if err != nil {
			return nil, r.errf(pplace, "JOINTS_0: %v", strings.TrimPrefix(err.Error(), "gltf: "))
		}
		ws, err := modeler.ReadWeights(doc, wacr, nil)
		if err != nil {
			return nil, r.errf(pplace, "WEIGHTS_0: %v", strings.TrimPrefix(err.Error(), "gltf: "))
		}
		if len(js) != len(ws) {
			return nil, r.errf(pplace, "JOINTS_0 has %d entries, WEIGHTS_0 %d", len(js), len(ws))
		}
		for i := range js {
			var vj [4]int32
			var vw [4]float64
			sum := 0.0
			for k := range 4 {
				w := float64(ws[i][k])
				if math.IsNaN(w) || w < 0 {
					return nil, r.errf(pplace, "WEIGHTS_0 %d = %v: weights must be >= 0", i, ws[i])
				}
				if w > 0 && int(js[i][k]) >= len(sk.Joints) {
					return nil, r.errf(pplace, "JOINTS_0 %d names joint %d of a skin with %d", i, js[i][k], len(sk.Joints))
				}
				vj[k], vw[k] = int32(js[i][k]), w
				sum += w
			}
			if !(sum > 0) {
				return nil, r.errf(pplace, "vertex %d has no joint weight: every skinned vertex needs one", i)
			}
			for k := range vw {
				vw[k] /= sum
			}
			s.vj, s.vw = append(s.vj, vj), append(s.vw, vw)
		}
	}
	if len(s.vj) != len(local) {
		return nil, r.errf(place, "joints and weights for %d vertices, the mesh has %d", len(s.vj), len(local))
	}
	return s, nil
}

// skinAnimation gives s the channels of the first animation that moves one
// of its joints or their ancestors.
func (r *gltfReader) skinAnimation(s *NodeSkin) error {
	moved := map[int]bool{}
	for _, j := range s.joints {
		for n := j; n >= 0 && !moved[n]; n = s.parent[n] {
			moved[n] = true
		}
	}
	for ai, a := range r.doc.Animations {
		if a == nil {
			continue
		}
		curves, err := r.channelCurves(a, ai, func(n int) bool { return moved[n] })
		if err != nil {
			return err
		}
		if len(curves) > 0 {
			s.curves, s.Animation = curves, a.Name
			if s.Animation == "" {
				s.Animation = fmt.Sprintf("animations[%d]", ai)
			}
			return nil
		}
	}
	return nil
}
