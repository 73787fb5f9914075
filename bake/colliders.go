package bake

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
)

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
		c.StaticFriction, c.KineticFriction = f, 0.8*f
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
	switch cs.Type {
	case "sphere":
		return sdf.Sphere{Center: v3(cs.Center), Radius: cs.Radius}, nil
	case "capsule":
		return sdf.Capsule{A: v3(cs.A), B: v3(cs.B), Radius: cs.Radius}, nil
	case "cone":
		return sdf.CappedCone{A: v3(cs.A), B: v3(cs.B), RA: cs.RA, RB: cs.RB}, nil
	case "plane":
		n := v3(cs.Normal)
		l := n.Len()
		return sdf.Plane{Normal: n.Scale(1 / l), Offset: cs.Offset / l}, nil
	case "box":
		r := math.Min(cs.Rounding, math.Min(cs.Half[0], math.Min(cs.Half[1], cs.Half[2])))
		return sdf.Box{Center: v3(cs.Center), Half: v3(cs.Half), Rounding: r}, nil
	case "mesh":
		return meshCollider(sc, key, cs)
	}
	return nil, sc.rangeError(key+".type", cs.Type, "must be sphere, capsule, cone, plane, box or mesh")
}

// meshCollider reads and welds a closed mesh file into a signed-distance
// collider, in the scene's units and axes unless the collider sets its own.
func meshCollider(sc *Scene, key string, cs ColliderSpec) (sdf.SDF, error) {
	_, w, err := readColliderMesh(sc, key, cs)
	if err != nil {
		return nil, err
	}
	s, err := sdf.NewMesh(w.Positions, w.Triangles)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %s: %w", key, sc.Resolve(cs.Path), err),
			"a mesh collider must be closed and manifold; close holes (Blender: Select > All by Trait > Non Manifold, then Fill) or use analytic colliders")
	}
	return s, nil
}

// readColliderMesh reads and welds a mesh collider's file, in the scene's
// units and axes unless the collider sets its own.
func readColliderMesh(sc *Scene, key string, cs ColliderSpec) (*meshio.Mesh, *meshio.Welded, error) {
	path := sc.Resolve(cs.Path)
	opt := meshio.DefaultReadOptions()
	opt.AllMeshes = true
	opt.Scale = sc.Scale
	if cs.Scale > 0 {
		opt.Scale = cs.Scale
	}
	up := sc.Up
	if cs.Up != "" {
		up = cs.Up
	}
	if up == "z" {
		opt.Up = meshio.AxisZ
	}
	m, err := meshio.Read(path, opt)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("%s: %w", key, err), readFix(err))
	}
	w, err := meshio.Weld(m, meshio.DefaultWeldOptions())
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("%s: %s: %w", key, path, err), "")
	}
	return m, w, nil
}
