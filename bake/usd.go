package bake

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
)

// usdPlaneHalf is half the side [m] of the square a plane collider is
// drawn as in a USD output.
const usdPlaneHalf = 5

// usdStage builds the USD point cache of a bake: the cloth as /drape/cloth
// (its simulation vertices, welded across UV seams, with face-varying UVs,
// vertex normals and points per stored frame) and every collider of the
// scene and of the input's collider nodes under /drape/colliders, rigid
// ones with a time-sampled transform where they are keyed, deforming ones
// with time-sampled points. Time codes are scene frame numbers.
func (j *Job) usdStage(rec *Recording) (*meshio.USDStage, error) {
	sc := j.Scene
	st := &meshio.USDStage{FPS: sc.FPS, Root: "drape", Doc: "drape " + Version + " bake of " + sc.Input}
	times := make([]float64, len(rec.Frames))
	for k, f := range rec.Frames {
		st.TimeCodes = append(st.TimeCodes, float64(f))
		times[k] = float64(f) / sc.FPS
	}
	cloth, err := j.usdCloth(rec)
	if err != nil {
		return nil, err
	}
	st.Meshes = append(st.Meshes, cloth)
	cols, err := j.usdColliders(times)
	if err != nil {
		return nil, err
	}
	st.Meshes = append(st.Meshes, cols...)
	return st, nil
}

// usdCloth is the cloth mesh of a USD output.
func (j *Job) usdCloth(rec *Recording) (meshio.USDMesh, error) {
	w := j.Welded
	cm := meshio.USDMesh{Name: "cloth", Triangles: w.Triangles, Points: rec.Pos, DoubleSided: true}
	if j.normalsOn() {
		rn := make([]vec.Vec3, len(w.RenderToSim))
		for _, sim := range rec.Pos {
			meshio.RenderNormals(w, sim, rn)
			n := make([]vec.Vec3, len(w.Positions))
			for r, s := range w.RenderToSim {
				n[s] = rn[r]
			}
			cm.Normals = append(cm.Normals, n)
		}
	}
	prims := j.Mesh.Primitives
	triStart := make([]int, len(prims)+1)
	for i, p := range prims {
		triStart[i+1] = triStart[i] + len(p.Indices)/3
	}
	primOf := func(g int) int {
		pi := 0
		for g >= triStart[pi+1] {
			pi++
		}
		return pi
	}
	// material subsets, when the primitives use more than one material
	var mats []int
	for _, p := range prims {
		if !slices.Contains(mats, p.Material) {
			mats = append(mats, p.Material)
		}
	}
	if len(mats) > 1 {
		slices.Sort(mats)
		faces := make([][]int32, len(mats))
		for i := range w.Triangles {
			mi := slices.Index(mats, prims[primOf(int(w.TriangleSource[i]))].Material)
			faces[mi] = append(faces[mi], int32(i))
		}
		for mi, m := range mats {
			name := "no_material"
			if m >= 0 {
				name = fmt.Sprintf("material_%d", m)
			}
			cm.Subsets = append(cm.Subsets, meshio.USDSubset{Name: name, Faces: faces[mi]})
		}
	}
	// UVs: every render vertex's, indexed by the render vertex at each
	// corner of each welded triangle
	for _, p := range prims {
		if len(p.UVs) != len(p.Positions) {
			return cm, nil // a primitive without UVs: none at all
		}
	}
	flip := j.Mesh.Format == meshio.FormatGLTF || j.Mesh.Format == meshio.FormatGLB
	for _, p := range prims {
		for _, t := range p.UVs {
			if flip {
				t[1] = 1 - t[1] // glTF's v points down, USD's st up
			}
			cm.UVs = append(cm.UVs, t)
		}
	}
	cm.UVIndices = make([]int32, 0, 3*len(w.Triangles))
	for i, tri := range w.Triangles {
		g := int(w.TriangleSource[i])
		pi := primOf(g)
		p := prims[pi]
		base := int(w.PrimitiveStart[pi])
		var corners [3]int32
		for c := range 3 {
			corners[c] = int32(base) + p.Indices[3*(g-triStart[pi])+c]
		}
		for _, s := range tri {
			r := int32(-1)
			for _, rc := range corners {
				if w.RenderToSim[rc] == s {
					r = rc
					break
				}
			}
			if r < 0 {
				return cm, fmt.Errorf("usd: welded triangle %d does not match its render triangle %d", i, g)
			}
			cm.UVIndices = append(cm.UVIndices, r)
		}
	}
	return cm, nil
}

// usdColliders are the scene's colliders and the input's collider nodes as
// USD meshes at the given times [s].
func (j *Job) usdColliders(times []float64) ([]meshio.USDMesh, error) {
	sc := j.Scene
	var out []meshio.USDMesh
	rigid := func(name string, pos []vec.Vec3, tris [][3]int32, a *sdf.Animated) meshio.USDMesh {
		m := meshio.USDMesh{Name: name, Group: "colliders", Triangles: tris, Points: [][]vec.Vec3{pos}}
		if len(a.Keys) > 0 {
			// Transform poses a shape (a nil one fails to identity); the
			// matrix depends on the keys alone
			a.Shape = sdf.Sphere{Radius: 1}
			for _, t := range times {
				m.Transforms = append(m.Transforms, a.Transform(t))
			}
		}
		return m
	}
	for i, cs := range sc.Colliders {
		key := fmt.Sprintf("colliders[%d]", i)
		name := fmt.Sprintf("%s_%d", cs.Type, i)
		if cs.Name != "" {
			name = fmt.Sprintf("%s_%d", cs.Name, i)
		}
		a := &sdf.Animated{Keys: toKeys(cs.Keys)}
		switch cs.Type {
		case ColliderMesh:
			m, w, err := readColliderMesh(sc, key, cs)
			if err != nil {
				return nil, err
			}
			if cs.Cache == "" {
				out = append(out, rigid(name, w.Positions, w.Triangles, a))
				continue
			}
			frames, err := cacheFrames(sc, key, cs, m, w)
			if err != nil {
				return nil, err
			}
			um := meshio.USDMesh{Name: name, Group: "colliders", Triangles: w.Triangles}
			for _, t := range times {
				um.Points = append(um.Points, sampleFrames(frames, t*sc.FPS))
			}
			out = append(out, um)
		case ColliderPlane:
			shape, err := colliderShape(sc, key, cs)
			if err != nil {
				return nil, err
			}
			pos, tris := planeQuad(shape.(sdf.Plane))
			out = append(out, rigid(name, pos, tris, a))
		default:
			shape, err := colliderShape(sc, key, cs)
			if err != nil {
				return nil, err
			}
			s := tessellate(shape)
			out = append(out, rigid(name, s.Positions, s.Triangles, a))
		}
	}
	for i, n := range j.Mesh.Colliders {
		name := fmt.Sprintf("%s_node_%d", n.Name, i)
		keys, err := nodeKeys(n)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: collider node %q: %w", j.Mesh.Path, n.Name, err), "")
		}
		a := &sdf.Animated{Keys: keys}
		switch {
		case n.Kind == "mesh" && n.Skin != nil:
			um := meshio.USDMesh{Name: name, Group: "colliders", Triangles: n.Triangles}
			for _, t := range times {
				um.Points = append(um.Points, n.Skin.At(t))
			}
			out = append(out, um)
		case n.Kind == "mesh":
			pos := make([]vec.Vec3, len(n.Local))
			for k, p := range n.Local {
				pos[k] = n.World.MulPoint(p)
			}
			out = append(out, rigid(name, pos, n.Triangles, a))
		case n.Kind == "plane":
			shape, err := fitNodeShape(n)
			if err != nil {
				return nil, badInput(fmt.Errorf("%s: collider node %q: %w", j.Mesh.Path, n.Name, err), "")
			}
			pl, ok := shape.(sdf.Plane)
			if !ok {
				continue // a plane under a transform: drawn by the ground only
			}
			pos, tris := planeQuad(pl)
			out = append(out, rigid(name, pos, tris, a))
		default:
			shape, err := fitNodeShape(n)
			if err != nil {
				return nil, badInput(fmt.Errorf("%s: collider node %q: %w", j.Mesh.Path, n.Name, err), "")
			}
			s := tessellate(shape)
			out = append(out, rigid(name, s.Positions, s.Triangles, a))
		}
	}
	return out, nil
}

// sampleFrames interpolates a cache whose sample k is at frame k, at frame
// u (clamped to the cache).
func sampleFrames(frames [][]vec.Vec3, u float64) []vec.Vec3 {
	u = min(max(u, 0), float64(len(frames)-1))
	k := min(int(u), len(frames)-1)
	b := min(k+1, len(frames)-1)
	pos := make([]vec.Vec3, len(frames[k]))
	for i := range pos {
		pos[i] = frames[k][i].Lerp(frames[b][i], u-float64(k))
	}
	return pos
}

// planeQuad draws a plane as a square of side 2 usdPlaneHalf centred on the
// point of the plane nearest the origin, facing along its normal.
func planeQuad(p sdf.Plane) ([]vec.Vec3, [][3]int32) {
	n := p.Normal.Normalize()
	c := n.Scale(p.Offset / p.Normal.Len())
	a := vec.V(1, 0, 0)
	if math.Abs(n.X) > 0.9 {
		a = vec.V(0, 0, 1)
	}
	u := n.Cross(a).Normalize().Scale(usdPlaneHalf)
	v := n.Cross(u)
	pos := []vec.Vec3{c.Sub(u).Sub(v), c.Add(u).Sub(v), c.Add(u).Add(v), c.Sub(u).Add(v)}
	// counter-clockwise seen from the side the normal points to
	return pos, [][3]int32{{0, 1, 2}, {0, 2, 3}}
}

// writeUSD writes the USD layer of a bake, as text or as a crate file.
func (j *Job) writeUSD(w io.Writer, rec *Recording, crate bool) error {
	st, err := j.usdStage(rec)
	if err != nil {
		return err
	}
	if crate {
		return meshio.WriteUSDC(w, st)
	}
	return meshio.WriteUSDA(w, st)
}
