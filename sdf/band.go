package sdf

import (
	"cmp"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// bandGrid accelerates exact queries near the surface, where the solver
// asks most: fine cells within about one cell of the surface each hold the
// list of every triangle that can be nearest to some point of the cell,
// sorted by distance from the cell centre. A query scans its cell's list
// and stops once the remaining triangles are provably farther, which is
// exact and avoids the tree walk.
//
// Why the list is complete: for p in a cell with centre c and half
// diagonal rc, the nearest triangle T* of p satisfies
// dist(c, T*) <= u(p) + |p-c| <= u(c) + 2 rc, where u is the unsigned
// distance; the list holds every triangle within u(c) + 2 rc of c. Why the
// scan may stop: dist(p, T) >= dist(c, T) - |p-c|.
type bandGrid struct {
	lo         vec.Vec3
	h, invH    float64
	nx, ny, nz int
	cell       []int32 // per cell: list id, or -1 outside the band
	start      []int32 // list k is ent[start[k]:start[k+1]]
	ent        []bandEntry
}

// bandEntry is a candidate triangle and its distance from the cell centre
// (rounded down).
type bandEntry struct {
	tri int32
	lb  float32
}

const (
	// bandCellEdges is the band cell size in median edge lengths: measured
	// on the MakeHuman body, 1.5 gives the fastest queries (1 is as fast
	// with 50% more memory and build time, 2 and 3 are slower).
	bandCellEdges  = 1.5
	maxBandCells   = 1 << 22 // dense cell index at most 16 MB
	maxBandEntries = 1 << 23 // candidate lists at most 64 MB
)

// newBandGrid builds the band with cells of 1.5 median edge lengths,
// or returns an empty band (queries fall back to the tree) if that would
// exceed the memory caps.
func newBandGrid(m *Mesh) bandGrid {
	edges := make([]float64, 0, 3*len(m.geo))
	for _, g := range m.geo {
		edges = append(edges, g.ab.Len(), g.ac.Len(), g.ac.Sub(g.ab).Len())
	}
	slices.Sort(edges)
	h := bandCellEdges * edges[len(edges)/2]
	e := m.hi.Sub(m.lo)
	if v := e.X * e.Y * e.Z; v/(h*h*h) > maxBandCells {
		h = math.Cbrt(v / maxBandCells)
	}
	h = math.Max(h, 1e-6*math.Max(e.X, math.Max(e.Y, e.Z)))
	dim := func(x float64) int { return max(1, int(math.Ceil(x/h))) }
	b := bandGrid{lo: m.lo, h: h, invH: 1 / h, nx: dim(e.X), ny: dim(e.Y), nz: dim(e.Z)}
	if b.nx*b.ny*b.nz > 2*maxBandCells {
		return bandGrid{}
	}
	b.cell = make([]int32, b.nx*b.ny*b.nz)
	rc := h * math.Sqrt(3) / 2
	band := 1.5 * h
	var scratch []bandEntry
	b.start = append(b.start, 0)
	for k := 0; k < b.nz; k++ {
		for j := 0; j < b.ny; j++ {
			for i := 0; i < b.nx; i++ {
				ci := (k*b.ny+j)*b.nx + i
				b.cell[ci] = -1
				c := b.lo.Add(vec.Vec3{X: (float64(i) + 0.5) * h, Y: (float64(j) + 0.5) * h, Z: (float64(k) + 0.5) * h})
				_, ub, uLow := m.grid.bounds(m, c)
				if uLow > band {
					continue
				}
				idx, d2, _, _ := m.nearest(c, ub)
				if idx < 0 {
					idx, d2, _, _ = m.nearest(c, math.Inf(1))
				}
				u := math.Sqrt(d2)
				if u > band {
					continue
				}
				r := (u+2*rc)*(1+1e-9) + 1e-12
				scratch = m.collect(c, r, scratch[:0])
				slices.SortFunc(scratch, func(x, y bandEntry) int {
					if c := cmp.Compare(x.lb, y.lb); c != 0 {
						return c
					}
					return cmp.Compare(x.tri, y.tri)
				})
				if len(b.ent)+len(scratch) > maxBandEntries {
					return bandGrid{}
				}
				b.cell[ci] = int32(len(b.start) - 1)
				b.ent = append(b.ent, scratch...)
				b.start = append(b.start, int32(len(b.ent)))
			}
		}
	}
	return b
}

// collect appends every triangle within r of p with its distance rounded
// down to float32.
func (m *Mesh) collect(p vec.Vec3, r float64, dst []bandEntry) []bandEntry {
	r2 := r * r
	if boxDistSq(p, m.lo, m.hi) > r2 {
		return dst
	}
	stack := []int32{0}
	for len(stack) > 0 {
		ref := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if ref < 0 {
			e := ^ref
			for i := e >> 3; i < e>>3+e&7; i++ {
				if d2, _, _ := closestOnTri(p, &m.geo[i]); d2 <= r2 {
					dst = append(dst, bandEntry{tri: i, lb: down32(math.Sqrt(d2))})
				}
			}
			continue
		}
		n := &m.nodes[ref]
		for k := 0; k < 2; k++ {
			if n.childDistSq(p, k) <= r2 {
				stack = append(stack, n.child[k])
			}
		}
	}
	return dst
}

// list returns the candidate list id of the cell holding p and the
// distance from p to the cell centre, or -1.
func (b *bandGrid) list(p vec.Vec3) (int32, float64) {
	if b.cell == nil {
		return -1, 0
	}
	fx, fy, fz := (p.X-b.lo.X)*b.invH, (p.Y-b.lo.Y)*b.invH, (p.Z-b.lo.Z)*b.invH
	if !(fx >= 0 && fy >= 0 && fz >= 0) {
		return -1, 0
	}
	i, j, k := int(fx), int(fy), int(fz)
	if i >= b.nx || j >= b.ny || k >= b.nz {
		return -1, 0
	}
	id := b.cell[(k*b.ny+j)*b.nx+i]
	if id < 0 {
		return -1, 0
	}
	c := b.lo.Add(vec.Vec3{X: (float64(i) + 0.5) * b.h, Y: (float64(j) + 0.5) * b.h, Z: (float64(k) + 0.5) * b.h})
	return id, p.Sub(c).Len()
}

// nearestIn scans list id for the triangle nearest to p within radius r
// (e = |p - cell centre|), like Mesh.nearest.
func (m *Mesh) nearestIn(p vec.Vec3, id int32, e, r float64) (int32, float64, vec.Vec3, uint8) {
	best := int32(-1)
	bestSq, bestD := math.Inf(1), math.Inf(1)
	if !math.IsInf(r, 1) {
		r = r*(1+1e-9) + 1e-12
		bestSq, bestD = r*r, r
	}
	var q vec.Vec3
	var reg uint8
	b := &m.band
	for _, en := range b.ent[b.start[id]:b.start[id+1]] {
		if float64(en.lb)-e >= bestD {
			break
		}
		d2, c, rg := closestOnTri(p, &m.geo[en.tri])
		if d2 < bestSq {
			best, bestSq, q, reg = en.tri, d2, c, rg
			bestD = math.Sqrt(d2)
		}
	}
	return best, bestSq, q, reg
}
