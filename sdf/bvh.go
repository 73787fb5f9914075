package sdf

import (
	"cmp"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// bvhNode is a node of the triangle hierarchy, stored depth first: an
// inner node's left child follows it and right is its right child; a leaf
// holds triangles [first, first+count).
type bvhNode struct {
	lo, hi vec.Vec3
	right  int32 // inner: right child; leaf: first triangle
	count  int32 // leaf: number of triangles; inner: 0
}

const (
	leafSize = 4
	maxDepth = 64 // median splits give depth log2(n/leafSize)+1 < 30
)

// buildBVH builds the hierarchy over triangles t by median split of their
// centroids along the longest axis (ties broken by index, so the result is
// deterministic) and returns the triangle order of the leaves.
func buildBVH(pos []vec.Vec3, t [][3]int32, nodes *[]bvhNode) []int32 {
	order := make([]int32, len(t))
	cen := make([]vec.Vec3, len(t))
	for i, tr := range t {
		order[i] = int32(i)
		cen[i] = pos[tr[0]].Add(pos[tr[1]]).Add(pos[tr[2]]).Scale(1.0 / 3)
	}
	*nodes = make([]bvhNode, 0, 2*len(t)/leafSize+1)
	var build func(first, n int)
	build = func(first, n int) {
		idx := len(*nodes)
		*nodes = append(*nodes, bvhNode{})
		ids := order[first : first+n]
		tr := t[ids[0]]
		lo, hi := pos[tr[0]], pos[tr[0]]
		clo, chi := cen[ids[0]], cen[ids[0]]
		for _, i := range ids {
			for _, v := range t[i] {
				lo, hi = lo.Min(pos[v]), hi.Max(pos[v])
			}
			clo, chi = clo.Min(cen[i]), chi.Max(cen[i])
		}
		if n <= leafSize {
			(*nodes)[idx] = bvhNode{lo: lo, hi: hi, right: int32(first), count: int32(n)}
			return
		}
		e := chi.Sub(clo)
		axis := 0
		if e.Y > e.X && e.Y >= e.Z {
			axis = 1
		} else if e.Z > e.X && e.Z > e.Y {
			axis = 2
		}
		slices.SortFunc(ids, func(a, b int32) int {
			if c := cmp.Compare(cen[a].Get(axis), cen[b].Get(axis)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		half := n / 2
		build(first, half)
		right := len(*nodes)
		build(first+half, n-half)
		(*nodes)[idx] = bvhNode{lo: lo, hi: hi, right: int32(right)}
	}
	build(0, len(t))
	return order
}

// nearest returns the triangle nearest to p within radius r [m] (-1 if
// none), the squared distance, the nearest point and its region. Children
// are visited nearest first and pruned by box distance.
func (m *Mesh) nearest(p vec.Vec3, r float64) (int32, float64, vec.Vec3, uint8) {
	best := int32(-1)
	bestSq := math.Inf(1)
	if !math.IsInf(r, 1) {
		r = r*(1+1e-9) + 1e-12 // keep a point exactly at r
		bestSq = r * r
	}
	var q vec.Vec3
	var reg uint8
	var stack [maxDepth]int32
	var stackD [maxDepth]float64
	sp := 0
	nodes := m.nodes
	node := int32(0)
	if boxDistSq(p, nodes[0].lo, nodes[0].hi) > bestSq {
		return -1, 0, q, 0
	}
	for {
		n := &nodes[node]
		if n.count > 0 {
			for i := n.right; i < n.right+n.count; i++ {
				d2, c, rg := closestOnTri(p, &m.geo[i])
				if d2 < bestSq {
					best, bestSq, q, reg = i, d2, c, rg
				}
			}
		} else {
			l, rt := node+1, n.right
			dl := boxDistSq(p, nodes[l].lo, nodes[l].hi)
			dr := boxDistSq(p, nodes[rt].lo, nodes[rt].hi)
			if dr < dl {
				l, rt, dl, dr = rt, l, dr, dl
			}
			if dl < bestSq {
				if dr < bestSq {
					stack[sp], stackD[sp] = rt, dr
					sp++
				}
				node = l
				continue
			}
		}
		// pop the next node still closer than the best so far.
		for {
			if sp == 0 {
				return best, bestSq, q, reg
			}
			sp--
			if stackD[sp] < bestSq {
				node = stack[sp]
				break
			}
		}
	}
}

// boundGrid stores the signed distance at the centres of a coarse grid of
// cells over the mesh's box. The distance is 1-Lipschitz, so a cell centre
// c bounds every point p: d(p) >= d(c) - |p-c| and |d(p)| <= |d(c)| + |p-c|.
type boundGrid struct {
	lo         vec.Vec3
	h, invH    float64
	nx, ny, nz int
	d          []float64
}

// gridCells is the target number of cells of the bound grid.
const gridCells = 32768

func newBoundGrid(m *Mesh) boundGrid {
	e := m.hi.Sub(m.lo)
	big := math.Max(e.X, math.Max(e.Y, e.Z))
	// cell size: the cube root of volume per cell, but no thinner slab
	// than 1/256 of the longest side.
	vol := math.Max(e.X, big/256) * math.Max(e.Y, big/256) * math.Max(e.Z, big/256)
	h := math.Cbrt(vol / gridCells)
	g := boundGrid{lo: m.lo, h: h, invH: 1 / h}
	dim := func(x float64) int { return max(1, min(1024, int(math.Ceil(x/h)))) }
	g.nx, g.ny, g.nz = dim(e.X), dim(e.Y), dim(e.Z)
	g.d = make([]float64, g.nx*g.ny*g.nz)
	// Walk the cells in order; the previous cell's distance plus the step
	// bounds the next search.
	prev, prevC := math.Inf(1), vec.Vec3{}
	for k := 0; k < g.nz; k++ {
		for j := 0; j < g.ny; j++ {
			for i := 0; i < g.nx; i++ {
				c := g.centre(i, j, k)
				ub := math.Abs(prev) + c.Sub(prevC).Len()
				d, _ := m.signed(c, ub)
				g.d[(k*g.ny+j)*g.nx+i] = d
				prev, prevC = d, c
			}
		}
	}
	return g
}

func (g *boundGrid) centre(i, j, k int) vec.Vec3 {
	return g.lo.Add(vec.Vec3{X: (float64(i) + 0.5) * g.h, Y: (float64(j) + 0.5) * g.h, Z: (float64(k) + 0.5) * g.h})
}

// bounds returns a lower bound lb on the signed distance at p, an upper
// bound ub on the unsigned distance, and whether p is certainly outside.
func (g *boundGrid) bounds(m *Mesh, p vec.Vec3) (lb, ub float64, outside bool) {
	cell := func(x, lo float64, n int) int {
		i := int(math.Floor((x - lo) * g.invH))
		return max(0, min(n-1, i))
	}
	i, j, k := cell(p.X, g.lo.X, g.nx), cell(p.Y, g.lo.Y, g.ny), cell(p.Z, g.lo.Z, g.nz)
	dc := g.d[(k*g.ny+j)*g.nx+i]
	e := p.Sub(g.centre(i, j, k)).Len()
	lb = dc - e
	if b := math.Sqrt(boxDistSq(p, m.lo, m.hi)); b > lb {
		lb = b
	}
	return lb, math.Abs(dc) + e, lb > 0
}
