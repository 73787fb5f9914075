package main

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
	"github.com/drape-sim/drape/solver"
)

// quality are the figures measured on a baked point cache, the same way
// for both tools.
type quality struct {
	MaxStretch        float64 // largest edge strain over all frames (length/rest - 1)
	MaxPenetration    float64 // deepest vertex inside the collider surface over all frames [m]
	SelfIntersections int     // intersecting non-adjacent triangle pairs at the last frame
	LowestY           float64 // lowest vertex at the last frame [m]
}

// measurer holds a scene's rest mesh (drape's reading and welding of the
// cloth OBJ) and its collider.
type measurer struct {
	scale  float64
	rest   []vec.Vec3 // simulation vertices at rest [m]
	tris   [][3]int32
	edges  [][2]int32
	restL  []float64
	srcSim []int32 // file vertex -> simulation vertex, -1 if unused
	col    sdf.SDF
}

func newMeasurer(sc scene) (*measurer, error) {
	opt := meshio.DefaultReadOptions()
	opt.Scale = sc.Scale
	m, err := meshio.Read(sc.Cloth, opt)
	if err != nil {
		return nil, err
	}
	w, err := meshio.Weld(m, meshio.DefaultWeldOptions())
	if err != nil {
		return nil, err
	}
	topo, err := solver.NewTopology(len(w.Positions), w.Triangles)
	if err != nil {
		return nil, err
	}
	ms := &measurer{scale: sc.Scale, rest: w.Positions, tris: w.Triangles}
	for _, e := range topo.Edges {
		ms.edges = append(ms.edges, e.V)
		ms.restL = append(ms.restL, w.Positions[e.V[0]].Sub(w.Positions[e.V[1]]).Len())
	}
	ms.srcSim = make([]int32, m.SourceVertices)
	for i := range ms.srcSim {
		ms.srcSim[i] = -1
	}
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		start := w.PrimitiveStart[pi]
		for j := range p.Positions {
			src := int32(j)
			if p.Source != nil {
				src = p.Source[j]
			}
			ms.srcSim[src] = w.RenderToSim[start+int32(j)]
		}
	}
	if sc.Sphere > 0 {
		ms.col = sdf.Sphere{Radius: sc.Sphere}
	} else {
		bm, err := meshio.Read(sc.Body, opt)
		if err != nil {
			return nil, err
		}
		bw, err := meshio.Weld(bm, meshio.DefaultWeldOptions())
		if err != nil {
			return nil, err
		}
		if ms.col, err = sdf.NewMesh(bw.Positions, bw.Triangles); err != nil {
			return nil, fmt.Errorf("body %s: %w", sc.Body, err)
		}
	}
	return ms, nil
}

// measurePC2 reads a point cache in the cloth file's vertex order and units
// and measures it. blenderAxes says the cache is in Blender's Z-up axes
// (x, -z, y), as drape writes PC2 for a Y-up input; otherwise it is Y-up.
func (ms *measurer) measurePC2(path string, blenderAxes bool) (quality, error) {
	pc, err := meshio.ReadPC2File(path)
	if err != nil {
		return quality{}, fmt.Errorf("%s: %w", path, err)
	}
	frames := pc.Frames
	if len(frames[0]) != len(ms.srcSim) {
		return quality{}, fmt.Errorf("%s: %d points, want %d (the cloth file's vertices)", path, len(frames[0]), len(ms.srcSim))
	}
	q := quality{}
	pos := make([]vec.Vec3, len(ms.rest))
	for k, fr := range frames {
		copy(pos, ms.rest)
		for s, v := range ms.srcSim {
			if v >= 0 {
				p := fr[s]
				if blenderAxes {
					p = vec.V(p.X, p.Z, -p.Y)
				}
				pos[v] = p.Scale(ms.scale)
			}
		}
		for i, e := range ms.edges {
			if ms.restL[i] > 0 {
				q.MaxStretch = math.Max(q.MaxStretch, pos[e[0]].Sub(pos[e[1]]).Len()/ms.restL[i]-1)
			}
		}
		for _, p := range pos {
			if !p.IsFinite() {
				return q, fmt.Errorf("%s: frame %d: non-finite position", path, k)
			}
			if d, _, ok := ms.col.DistGradWithin(p, 0); ok && -d > q.MaxPenetration {
				q.MaxPenetration = -d
			}
		}
		if k == len(frames)-1 {
			q.LowestY = math.Inf(1)
			for _, p := range pos {
				q.LowestY = math.Min(q.LowestY, p.Y)
			}
			q.SelfIntersections = solver.SelfIntersections(pos, ms.tris)
		}
	}
	return q, nil
}
