package bake

import (
	"fmt"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
)

// kineticRatio is a collider's kinetic friction coefficient relative to
// its static one (the scene's friction): a contact that slides is held
// less than one that sticks, as cloth on most surfaces is.
const kineticRatio = 0.8

func v3(a *[3]float64) vec.Vec3 { return vec.V(a[0], a[1], a[2]) }

// toKeys converts scene keyframes to sdf keys; missing parts are identity.
func toKeys(ks []KeySpec) []sdf.Key {
	out := make([]sdf.Key, len(ks))
	for i, k := range ks {
		key := sdf.Key{Time: k.Time, Rotation: vec.QuatIdentity(), Scale: vec.V(1, 1, 1)}
		if k.Translation != nil {
			key.Translation = v3(k.Translation)
		}
		if k.Rotation != nil {
			r := k.Rotation
			key.Rotation = vec.Quat{X: r[0], Y: r[1], Z: r[2], W: r[3]}.Normalize()
		}
		if k.Scale != nil {
			key.Scale = v3(k.Scale)
		}
		out[i] = key
	}
	return out
}

// nodeColliders fits colliders to the glTF nodes the input marks as
// colliders (meshio.ColliderNode): the shape is fitted to the node's mesh in
// the node's own space, then moved by the node's world transform.
func nodeColliders(m *meshio.Mesh, friction, fps float64, frames int) ([]sdf.Collider, []string, error) {
	var out []sdf.Collider
	var names []string
	for _, n := range m.Colliders {
		var shape sdf.SDF
		var err error
		if n.Skin != nil {
			shape, err = skinnedNode(n, fps, frames)
		} else {
			shape, err = fitNodeShape(n)
		}
		if err != nil {
			return nil, nil, badInput(fmt.Errorf("%s: collider node %q (%s): %w", m.Path, n.Name, n.Kind, err),
				"a mesh collider must be closed; or mark the node as sphere, capsule, cone or box")
		}
		c := sdf.NewCollider(shape)
		c.StaticFriction, c.KineticFriction = friction, kineticRatio*friction
		name := fmt.Sprintf("%s node %q", n.Kind, n.Name)
		if n.Skin != nil && n.Animation != "" {
			name += fmt.Sprintf(" (skinned, animation %q)", n.Animation)
		}
		if len(n.Motion) > 0 {
			if c.Keys, err = nodeKeys(n); err != nil {
				return nil, nil, badInput(fmt.Errorf("%s: collider node %q, animation %q: %w", m.Path, n.Name, n.Animation, err),
					"animate the node by translation, rotation and uniform scale, or key the collider in the scene file")
			}
			name += fmt.Sprintf(" (animation %q)", n.Animation)
		}
		out = append(out, c)
		names = append(names, name)
	}
	return out, names, nil
}

// skinnedNode makes the deforming collider of a skinned mesh collider node:
// its skeleton's pose at each of the bake's frames (k/fps, k < frames)
// deforms the welded mesh (sdf.MeshSequence).
func skinnedNode(n meshio.ColliderNode, fps float64, frames int) (sdf.SDF, error) {
	rest := n.Skin.At(0)
	w, err := weldTriangles(rest, n.Triangles)
	if err != nil {
		return nil, err
	}
	samples := make([][]vec.Vec3, max(frames, 1))
	for k := range samples {
		pos := rest
		if k > 0 {
			pos = n.Skin.At(float64(k) / fps)
		}
		samples[k] = make([]vec.Vec3, len(w.Positions))
		w.Gather(samples[k], pos)
	}
	return sdf.NewMeshSequence(w.Triangles, samples, 1/fps)
}

// weldTriangles welds a glTF collider node's mesh, whose vertices are split
// at UV seams and hard edges, which would leave the surface open along
// them.
func weldTriangles(pos []vec.Vec3, tris [][3]int32) (*meshio.Welded, error) {
	prim := meshio.Primitive{Positions: pos, Indices: make([]int32, 0, 3*len(tris))}
	for _, t := range tris {
		prim.Indices = append(prim.Indices, t[0], t[1], t[2])
	}
	return meshio.Weld(&meshio.Mesh{Primitives: []meshio.Primitive{prim}}, meshio.DefaultWeldOptions())
}

// nodeKeys turns an animated collider node's sampled world transforms into
// the keys of its shape, which fitNodeShape placed at the node's pose
// without animation (World): each key is World(t) World⁻¹, split into
// translation, rotation and scale.
func nodeKeys(n meshio.ColliderNode) ([]sdf.Key, error) {
	inv := n.World.Inverse()
	keys := make([]sdf.Key, len(n.Motion))
	for i, k := range n.Motion {
		t, r, s, ok := k.World.Mul(inv).DecomposeTRS(1e-6)
		if !ok {
			return nil, fmt.Errorf("at %.4g s the node's motion is not a translation, rotation and scale (a non-uniform scale under a rotation shears it)", k.Time)
		}
		keys[i] = sdf.Key{Time: k.Time, Translation: t, Rotation: r, Scale: s}
	}
	return keys, nil
}

// fitNodeShape fits the node's kind of shape to its mesh in its own space
// (colliderKinds), then moves it by the node's world transform. A plane
// is moved as a plane (its normal and a point on it), and a mesh collider
// is the node's mesh in world space.
func fitNodeShape(n meshio.ColliderNode) (sdf.SDF, error) {
	k, err := ParseColliderKind(n.Kind)
	if err != nil {
		return nil, fmt.Errorf("collider kind %q: %w", n.Kind, err)
	}
	switch k {
	case ColliderPlane:
		up := n.World.MulDir(vec.V(0, 1, 0)).Normalize()
		origin := n.World.MulPoint(vec.V(0, n.LocalMax.Y, 0))
		return sdf.Plane{Normal: up, Offset: up.Dot(origin)}, nil
	case ColliderMesh:
		pos := make([]vec.Vec3, len(n.Local))
		for i, p := range n.Local {
			pos[i] = n.World.MulPoint(p)
		}
		w, err := weldTriangles(pos, n.Triangles)
		if err != nil {
			return nil, err
		}
		return sdf.NewMesh(w.Positions, w.Triangles)
	}
	spec, _ := k.Fit(FitMesh{Min: n.LocalMin, Max: n.LocalMax, Points: n.Local})
	local, err := k.kind().shape(nil, "", spec)
	if err != nil {
		return nil, err
	}
	return sdf.NewTransformed(local, n.World)
}

// buildColliders makes the solver's colliders from the scene. friction is
// the scene's cloth-collider friction, used where a collider sets none.
func buildColliders(sc *Scene, friction float64) ([]sdf.Collider, error) {
	var out []sdf.Collider
	for i, cs := range sc.Colliders {
		key := fmt.Sprintf("colliders[%d]", i)
		shape, err := colliderShape(sc, key, cs)
		if err != nil {
			return nil, err
		}
		c := sdf.NewCollider(shape)
		f := friction
		if cs.Friction != nil {
			f = *cs.Friction
		}
		c.StaticFriction, c.KineticFriction = f, kineticRatio*f
		c.Thickness = cs.Thickness
		c.Keys = toKeys(cs.Keys)
		if err := c.Validate(); err != nil {
			return nil, sc.rangeError(key, cs.Type, err.Error())
		}
		out = append(out, c)
	}
	return out, nil
}

func colliderShape(sc *Scene, key string, cs ColliderSpec) (sdf.SDF, error) {
	e := cs.Type.kind()
	if e == nil {
		return nil, sc.rangeError(key+".type", cs.Type, "must be "+colliderKindList())
	}
	return e.shape(sc, key, cs)
}

// meshCollider reads and welds a closed mesh file into a signed-distance
// collider, in the scene's units and axes unless the collider sets its own.
// With a cache (a PC2 of the file's vertices per frame) it is a deforming
// collider (sdf.MeshSequence).
func meshCollider(sc *Scene, key string, cs ColliderSpec) (sdf.SDF, error) {
	m, w, err := readColliderMesh(sc, key, cs)
	if err != nil {
		return nil, err
	}
	if cs.Cache != "" {
		return meshSequence(sc, key, cs, m, w)
	}
	s, err := sdf.NewMesh(w.Positions, w.Triangles)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %s: %w", key, sc.Resolve(cs.Path), err),
			"a mesh collider must be closed and manifold; close holes (Blender: Select > All by Trait > Non Manifold, then Fill) or use analytic colliders")
	}
	return s, nil
}

// colliderReadOptions are the read options of a mesh collider's file: the
// scene's units and axes unless the collider sets its own.
func colliderReadOptions(sc *Scene, cs ColliderSpec) meshio.ReadOptions {
	opt := meshio.DefaultReadOptions()
	opt.AllMeshes = true
	opt.Scale = sc.Scale
	if cs.Scale > 0 {
		opt.Scale = cs.Scale
	}
	opt.Up = sc.Up
	if cs.Up != 0 {
		opt.Up = cs.Up
	}
	return opt
}

// readColliderMesh reads and welds a mesh collider's file, in the scene's
// units and axes unless the collider sets its own.
func readColliderMesh(sc *Scene, key string, cs ColliderSpec) (*meshio.Mesh, *meshio.Welded, error) {
	path := sc.Resolve(cs.Path)
	m, err := meshio.Read(path, colliderReadOptions(sc, cs))
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("%s: %w", key, err), readFix(err))
	}
	w, err := meshio.Weld(m, meshio.DefaultWeldOptions())
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("%s: %s: %w", key, path, err), "")
	}
	return m, w, nil
}

// meshSequence makes the deforming collider of a mesh collider with a
// cache (see cacheFrames).
func meshSequence(sc *Scene, key string, cs ColliderSpec, m *meshio.Mesh, w *meshio.Welded) (sdf.SDF, error) {
	frames, err := cacheFrames(sc, key, cs, m, w)
	if err != nil {
		return nil, err
	}
	seq, err := sdf.NewMeshSequence(w.Triangles, frames, 1/sc.FPS)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %s with cache %s: %w", key, sc.Resolve(cs.Path), sc.Resolve(cs.Cache), err),
			"a mesh collider must stay closed and manifold in every frame of its cache, with no triangle collapsed to zero area")
	}
	return seq, nil
}

// cacheFrames reads a mesh collider's cache, whose sample k holds the mesh
// file's vertices (in the file's own order: OBJ v lines) at time k/fps in
// the file's axes and units, and returns the welded vertices (w) per
// sample in the scene's axes and metres.
func cacheFrames(sc *Scene, key string, cs ColliderSpec, m *meshio.Mesh, w *meshio.Welded) ([][]vec.Vec3, error) {
	path := sc.Resolve(cs.Cache)
	pc, err := meshio.ReadPointCacheFile(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s.cache: %w", key, err), "")
	}
	if n := len(pc.Frames[0]); n != m.SourceVertices {
		return nil, badInput(fmt.Errorf("%s.cache: %s holds %d points, %s has %d vertices", key, path, n, sc.Resolve(cs.Path), m.SourceVertices),
			"write the cache from the same mesh, every vertex in the file's order (OBJ: its v lines)")
	}
	for _, p := range m.Primitives {
		if len(p.Source) != len(p.Positions) {
			return nil, badInput(fmt.Errorf("%s.cache: %s does not number its vertices for a cache", key, sc.Resolve(cs.Path)),
				"give a mesh collider with a cache as OBJ")
		}
	}
	// each sample's points in render order, mapped as the file's vertices
	// were, then one per welded vertex
	opt := colliderReadOptions(sc, cs)
	render := make([]vec.Vec3, len(w.RenderToSim))
	frames := make([][]vec.Vec3, len(pc.Frames))
	for k, f := range pc.Frames {
		r := 0
		for _, p := range m.Primitives {
			for _, sv := range p.Source {
				render[r] = opt.Place(m.Format, f[sv])
				r++
			}
		}
		frames[k] = make([]vec.Vec3, len(w.Positions))
		w.Gather(frames[k], render)
	}
	return frames, nil
}
