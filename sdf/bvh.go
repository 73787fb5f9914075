package sdf

import (
	"cmp"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// bvhNode is an inner node of the triangle hierarchy. It stores both
// children's boxes (in float32, rounded outward), so visiting a node reads
// one 64-byte cache line. A child ref >= 0 is an inner node index; a
// negative ref is a leaf ^(first<<3 | count) holding triangles
// [first, first+count).
type bvhNode struct {
	lo, hi [2][3]float32
	child  [2]int32
	_      [2]int32 // pad to 64 bytes
}

const (
	leafSize   = 4  // a leaf holds at most 4 triangles (ref encodes up to 7)
	sahBins    = 16 // binned SAH (Wald 2007)
	maxDepth   = 64 // deeper subtrees fall back to median splits
	medianFrom = 48 // depth from which splits are medians
)

// buildBVH builds the hierarchy over triangles t with binned surface-area
// heuristic splits of the centroids along the longest axis (I. Wald, "On
// fast construction of SAH-based bounding volume hierarchies", 2007), and
// returns the triangle order of the leaves. It is deterministic.
func buildBVH(pos []vec.Vec3, t [][3]int32, nodes *[]bvhNode) []int32 {
	order := make([]int32, len(t))
	cen := make([]vec.Vec3, len(t))
	tlo := make([]vec.Vec3, len(t))
	thi := make([]vec.Vec3, len(t))
	for i, tr := range t {
		order[i] = int32(i)
		a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		tlo[i], thi[i] = a.Min(b).Min(c), a.Max(b).Max(c)
		cen[i] = tlo[i].Add(thi[i]).Scale(0.5)
	}
	*nodes = make([]bvhNode, 0, 2*len(t)/leafSize+1)
	bounds := func(ids []int32) (vec.Vec3, vec.Vec3) {
		lo, hi := tlo[ids[0]], thi[ids[0]]
		for _, i := range ids[1:] {
			lo, hi = lo.Min(tlo[i]), hi.Max(thi[i])
		}
		return lo, hi
	}
	// build returns the ref of the subtree over order[first:first+n].
	var build func(first, n, depth int) int32
	build = func(first, n, depth int) int32 {
		if n <= leafSize {
			return ^int32(first<<3 | n)
		}
		ids := order[first : first+n]
		clo, chi := cen[ids[0]], cen[ids[0]]
		for _, i := range ids[1:] {
			clo, chi = clo.Min(cen[i]), chi.Max(cen[i])
		}
		e := chi.Sub(clo)
		axis := e.MaxAxis()
		half := n / 2
		if ext := e.Get(axis); ext > 0 && depth < medianFrom {
			half = sahPartition(ids, cen, tlo, thi, axis, clo.Get(axis), ext)
		}
		if half <= 0 || half >= n {
			slices.SortFunc(ids, func(a, b int32) int {
				if c := cmp.Compare(cen[a].Get(axis), cen[b].Get(axis)); c != 0 {
					return c
				}
				return cmp.Compare(a, b)
			})
			half = n / 2
		}
		idx := len(*nodes)
		*nodes = append(*nodes, bvhNode{})
		l := build(first, half, depth+1)
		r := build(first+half, n-half, depth+1)
		var nd bvhNode
		for k, part := range [2][]int32{ids[:half], ids[half:]} {
			lo, hi := bounds(part)
			nd.lo[k] = [3]float32{down32(lo.X), down32(lo.Y), down32(lo.Z)}
			nd.hi[k] = [3]float32{up32(hi.X), up32(hi.Y), up32(hi.Z)}
		}
		nd.child = [2]int32{l, r}
		(*nodes)[idx] = nd
		return int32(idx)
	}
	if len(t) <= leafSize {
		// a root node with the single leaf and an empty child.
		inf := float32(math.Inf(1))
		lo, hi := bounds(order)
		*nodes = append(*nodes, bvhNode{
			lo:    [2][3]float32{{down32(lo.X), down32(lo.Y), down32(lo.Z)}, {inf, inf, inf}},
			hi:    [2][3]float32{{up32(hi.X), up32(hi.Y), up32(hi.Z)}, {-inf, -inf, -inf}},
			child: [2]int32{^int32(len(t)), ^int32(0)},
		})
		return order
	}
	build(0, len(t), 0)
	return order
}

// sahPartition splits ids by the cheapest of sahBins-1 planes along axis
// and returns the size of the left part (0 if no plane separates them).
func sahPartition(ids []int32, cen, tlo, thi []vec.Vec3, axis int, c0, ext float64) int {
	type bin struct {
		lo, hi vec.Vec3
		n      int
	}
	var bins [sahBins]bin
	binOf := func(i int32) int {
		b := int((cen[i].Get(axis) - c0) / ext * sahBins)
		return max(0, min(sahBins-1, b))
	}
	for _, i := range ids {
		b := &bins[binOf(i)]
		if b.n == 0 {
			b.lo, b.hi = tlo[i], thi[i]
		} else {
			b.lo, b.hi = b.lo.Min(tlo[i]), b.hi.Max(thi[i])
		}
		b.n++
	}
	area := func(lo, hi vec.Vec3) float64 {
		e := hi.Sub(lo)
		return e.X*e.Y + e.Y*e.Z + e.Z*e.X
	}
	// right-to-left sweep of areas and counts.
	var rArea [sahBins]float64
	var rN [sahBins]int
	var lo, hi vec.Vec3
	n := 0
	for b := sahBins - 1; b > 0; b-- {
		if bins[b].n > 0 {
			if n == 0 {
				lo, hi = bins[b].lo, bins[b].hi
			} else {
				lo, hi = lo.Min(bins[b].lo), hi.Max(bins[b].hi)
			}
			n += bins[b].n
		}
		rArea[b], rN[b] = area(lo, hi), n
	}
	best, bestCost := 0, math.Inf(1)
	n = 0
	for b := 0; b < sahBins-1; b++ {
		if bins[b].n > 0 {
			if n == 0 {
				lo, hi = bins[b].lo, bins[b].hi
			} else {
				lo, hi = lo.Min(bins[b].lo), hi.Max(bins[b].hi)
			}
			n += bins[b].n
		}
		if n == 0 || rN[b+1] == 0 {
			continue
		}
		if c := area(lo, hi)*float64(n) + rArea[b+1]*float64(rN[b+1]); c < bestCost {
			best, bestCost = b+1, c
		}
	}
	if math.IsInf(bestCost, 1) {
		return 0
	}
	// partition in place: bins < best to the left.
	i, j := 0, len(ids)-1
	for i <= j {
		if binOf(ids[i]) < best {
			i++
		} else {
			ids[i], ids[j] = ids[j], ids[i]
			j--
		}
	}
	return i
}

// down32 and up32 round a float64 to a float32 no greater / no smaller.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// childDistSq returns the squared distance from p to child k's box.
func (n *bvhNode) childDistSq(p vec.Vec3, k int) float64 {
	lo, hi := &n.lo[k], &n.hi[k]
	var d float64
	if v := float64(lo[0]) - p.X; v > 0 {
		d += v * v
	} else if v := p.X - float64(hi[0]); v > 0 {
		d += v * v
	}
	if v := float64(lo[1]) - p.Y; v > 0 {
		d += v * v
	} else if v := p.Y - float64(hi[1]); v > 0 {
		d += v * v
	}
	if v := float64(lo[2]) - p.Z; v > 0 {
		d += v * v
	} else if v := p.Z - float64(hi[2]); v > 0 {
		d += v * v
	}
	return d
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
	if boxDistSq(p, m.lo, m.hi) > bestSq {
		return -1, 0, q, 0
	}
	var stack [maxDepth + 1]int32
	var stackD [maxDepth + 1]float64
	sp := 0
	nodes := m.nodes
	ref := int32(0)
	for {
		if ref < 0 {
			e := ^ref
			first, end := e>>3, e>>3+e&7
			for i := first; i < end; i++ {
				d2, c, rg := closestOnTri(p, &m.geo[i])
				if d2 < bestSq {
					best, bestSq, q, reg = i, d2, c, rg
				}
			}
		} else {
			n := &nodes[ref]
			d0, d1 := n.childDistSq(p, 0), n.childDistSq(p, 1)
			a, b := n.child[0], n.child[1]
			if d1 < d0 {
				a, b, d0, d1 = b, a, d1, d0
			}
			if d0 < bestSq {
				if d1 < bestSq {
					stack[sp], stackD[sp] = b, d1
					sp++
				}
				ref = a
				continue
			}
		}
		// pop the next subtree still closer than the best so far.
		for {
			if sp == 0 {
				return best, bestSq, q, reg
			}
			sp--
			if stackD[sp] < bestSq {
				ref = stack[sp]
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

// sampleGridCells is gridCells for a MeshSequence's samples, built every
// frame: there the grid's build (a nearest-triangle search per cell) costs
// more than its early-outs save. The grid only bounds the searches, so the
// distances are the same whatever its size: the knee and sash examples and
// a 24-frame tshirt bake whose 27k-triangle body sways by a point cache
// bake byte-identically with 32768, 4096 and 1024 cells, at 35.3, 22.7 and
// 21.1 ms/frame (knee), 19.8, 6.3 and 4.4 (sash) and 212, 194 and 199
// (tshirt).
const sampleGridCells = 4096

func newBoundGrid(m *Mesh, cells int) boundGrid {
	e := m.hi.Sub(m.lo)
	big := math.Max(e.X, math.Max(e.Y, e.Z))
	// cell size: the cube root of volume per cell, but no thinner slab
	// than 1/256 of the longest side.
	vol := math.Max(e.X, big/256) * math.Max(e.Y, big/256) * math.Max(e.Z, big/256)
	h := math.Cbrt(vol / float64(cells))
	g := boundGrid{lo: m.lo, h: h, invH: 1 / h}
	dim := func(x float64) int { return max(1, min(1024, int(math.Ceil(x/h)))) }
	g.nx, g.ny, g.nz = dim(e.X), dim(e.Y), dim(e.Z)
	g.d = make([]float64, g.nx*g.ny*g.nz)
	// Each z layer in parallel; along a row the previous cell's distance
	// plus the step bounds the next search.
	parallelFor(g.nz, func(k int) {
		for j := 0; j < g.ny; j++ {
			prev, prevC := math.Inf(1), vec.Vec3{}
			for i := 0; i < g.nx; i++ {
				c := g.centre(i, j, k)
				ub := math.Abs(prev) + c.Sub(prevC).Len()
				d, _ := m.signed(c, ub)
				g.d[(k*g.ny+j)*g.nx+i] = d
				prev, prevC = d, c
			}
		}
	})
	return g
}

func (g *boundGrid) centre(i, j, k int) vec.Vec3 {
	return g.lo.Add(vec.Vec3{X: (float64(i) + 0.5) * g.h, Y: (float64(j) + 0.5) * g.h, Z: (float64(k) + 0.5) * g.h})
}

// bounds returns a lower bound lb on the signed distance at p, an upper
// bound ub and a lower bound uLow on the unsigned distance.
func (g *boundGrid) bounds(m *Mesh, p vec.Vec3) (lb, ub, uLow float64) {
	cell := func(x, lo float64, n int) int {
		i := int(math.Floor((x - lo) * g.invH))
		return max(0, min(n-1, i))
	}
	i, j, k := cell(p.X, g.lo.X, g.nx), cell(p.Y, g.lo.Y, g.ny), cell(p.Z, g.lo.Z, g.nz)
	dc := g.d[(k*g.ny+j)*g.nx+i]
	e := p.Sub(g.centre(i, j, k)).Len()
	lb = dc - e
	uLow = math.Abs(dc) - e
	if b := math.Sqrt(boxDistSq(p, m.lo, m.hi)); b > lb {
		lb = b
		uLow = math.Max(uLow, b)
	}
	return lb, math.Abs(dc) + e, uLow
}
