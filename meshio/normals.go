package meshio

import "github.com/drape-sim/drape/internal/vec"

// RenderNormals computes unit vertex normals of the deformed surface sim (one
// position per simulation vertex of w) and writes them to every render
// vertex: dst[r] is the normal of simulation vertex w.RenderToSim[r].
//
// A simulation vertex's normal is the sum of the cross products of its
// triangles' edges (so each triangle counts by its area), normalised. Because
// it is computed on the welded topology it is smooth across UV and material
// seams, where the render mesh splits vertices. A vertex in no triangle (or
// only in degenerate ones) gets +Y.
//
// dst must have len(w.RenderToSim) entries. It doubles as the scratch space,
// so no memory is allocated as long as the simulation vertices are numbered
// in order of first appearance among the render vertices, as Weld numbers
// them (RenderToSim[r] <= r for every r).
func RenderNormals(w *Welded, sim []vec.Vec3, dst []vec.Vec3) {
	nr := len(w.RenderToSim)
	if len(dst) < nr {
		panic("meshio: RenderNormals: dst shorter than the render vertices")
	}
	dst = dst[:nr]
	acc := dst
	inPlace := len(sim) <= nr
	for r, s := range w.RenderToSim {
		if int(s) > r {
			inPlace = false
			break
		}
	}
	if !inPlace {
		acc = make([]vec.Vec3, len(sim))
	}
	acc = acc[:len(sim)]

	// accumulate area-weighted face normals on the simulation vertices
	clear(acc)
	for _, t := range w.Triangles {
		a, b, c := sim[t[0]], sim[t[1]], sim[t[2]]
		n := b.Sub(a).Cross(c.Sub(a))
		acc[t[0]] = acc[t[0]].Add(n)
		acc[t[1]] = acc[t[1]].Add(n)
		acc[t[2]] = acc[t[2]].Add(n)
	}
	for i, n := range acc {
		acc[i] = unitOrUp(n)
	}

	// scatter to the render vertices; in place, go backwards so that
	// acc[s] (s <= r) is read before dst[s] is overwritten
	if inPlace {
		for r := nr - 1; r >= 0; r-- {
			dst[r] = acc[w.RenderToSim[r]]
		}
		return
	}
	for r, s := range w.RenderToSim {
		dst[r] = acc[s]
	}
}

// unitOrUp returns n normalised, or +Y when n is zero or not finite.
func unitOrUp(n vec.Vec3) vec.Vec3 {
	l := n.Len()
	if l == 0 || l != l || l > 1e300 {
		return vec.Vec3{Y: 1}
	}
	return n.Scale(1 / l)
}

// primitiveNormals computes area-weighted unit vertex normals of one render
// primitive from its own triangles (no welding, so seams show), into dst.
func primitiveNormals(pos []vec.Vec3, indices []int32, dst []vec.Vec3) {
	dst = dst[:len(pos)]
	clear(dst)
	for i := 0; i+2 < len(indices); i += 3 {
		i0, i1, i2 := indices[i], indices[i+1], indices[i+2]
		a, b, c := pos[i0], pos[i1], pos[i2]
		n := b.Sub(a).Cross(c.Sub(a))
		dst[i0] = dst[i0].Add(n)
		dst[i1] = dst[i1].Add(n)
		dst[i2] = dst[i2].Add(n)
	}
	for i, n := range dst {
		dst[i] = unitOrUp(n)
	}
}
