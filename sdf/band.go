package sdf

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
	ent        []uint64
}

// A band entry packs a candidate triangle and its distance from the cell
// centre rounded down to float32: the distance's bits (ordered like the
// distance, as it is >= 0) above the triangle index, so sorting the
// integers sorts by distance, then index.
func bandEntry(tri int32, lb float32) uint64 {
	return uint64(math.Float32bits(lb))<<32 | uint64(uint32(tri))
}

func entryTri(e uint64) int32  { return int32(uint32(e)) }
func entryLB(e uint64) float32 { return math.Float32frombits(uint32(e >> 32)) }

const (
	// bandCellEdges is the band cell size in median edge lengths: measured
	// on the MakeHuman body, 1.5 gives the fastest queries (1 is as fast
	// with 50% more memory and build time, 2 and 3 are slower).
	bandCellEdges  = 1.5
	bandWidth      = 1.5     // lists for cells whose centre is within 1.5 cells of the surface
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
	// the grid covers the mesh box padded by the band width on each side.
	e := m.hi.Sub(m.lo)
	pad := func(h float64) vec.Vec3 { return e.Add(vec.Vec3{X: 4 * h, Y: 4 * h, Z: 4 * h}) }
	if p := pad(h); p.X*p.Y*p.Z/(h*h*h) > maxBandCells {
		h = math.Cbrt(e.X * e.Y * e.Z / maxBandCells)
		for p := pad(h); p.X*p.Y*p.Z/(h*h*h) > maxBandCells; p = pad(h) {
			h *= 1.1
		}
	}
	h = math.Max(h, 1e-6*math.Max(e.X, math.Max(e.Y, e.Z)))
	dim := func(x float64) int { return max(1, int(math.Ceil(x/h))) }
	pe := pad(h)
	b := bandGrid{lo: m.lo.Sub(vec.Vec3{X: 2 * h, Y: 2 * h, Z: 2 * h}), h: h, invH: 1 / h, nx: dim(pe.X), ny: dim(pe.Y), nz: dim(pe.Z)}
	if b.nx*b.ny*b.nz > 2*maxBandCells {
		return bandGrid{}
	}
	b.cell = make([]int32, b.nx*b.ny*b.nz)
	// Each z slab is built independently (in parallel) and the slabs are
	// concatenated in order, so the result does not depend on GOMAXPROCS.
	slabs := make([]bandSlab, b.nz)
	parallelFor(b.nz, func(k int) { slabs[k] = b.buildSlab(m, k) })
	b.start = append(b.start, 0)
	total := 0
	for _, s := range slabs {
		total += len(s.ent)
	}
	if total > maxBandEntries {
		return bandGrid{}
	}
	b.ent = make([]uint64, 0, total)
	for k, s := range slabs {
		base := int32(len(b.start) - 1)
		off := int32(len(b.ent))
		for i, id := range s.cell {
			if id >= 0 {
				id += base
			}
			b.cell[k*b.nx*b.ny+i] = id
		}
		for _, st := range s.start[1:] {
			b.start = append(b.start, st+off)
		}
		b.ent = append(b.ent, s.ent...)
	}
	return b
}

// bandSlab is one z layer of the band with list ids and offsets local to
// the layer.
type bandSlab struct {
	cell  []int32
	start []int32
	ent   []uint64
}

func (b *bandGrid) buildSlab(m *Mesh, k int) bandSlab {
	h := b.h
	rc := h * math.Sqrt(3) / 2
	band := bandWidth * h
	s := bandSlab{cell: make([]int32, b.nx*b.ny), start: []int32{0}}
	var scratch []uint64
	var stack []int32
	for j := 0; j < b.ny; j++ {
		// bounds on u carried along the row: u is 1-Lipschitz, so u at the
		// next centre is within h of u here.
		lowPrev, upPrev := 0.0, math.Inf(1)
		for i := 0; i < b.nx; i++ {
			ci := j*b.nx + i
			s.cell[ci] = -1
			c := b.lo.Add(vec.Vec3{X: (float64(i) + 0.5) * h, Y: (float64(j) + 0.5) * h, Z: (float64(k) + 0.5) * h})
			_, ub, uLow := m.grid.bounds(m, c)
			low, up := math.Max(uLow, lowPrev-h), math.Min(ub, upPrev+h)
			lowPrev, upPrev = low, up
			if low > band {
				continue
			}
			idx, d2, _, _ := m.nearest(c, up)
			if idx < 0 {
				_, d2, _, _ = m.nearest(c, math.Inf(1))
			}
			u := math.Sqrt(d2)
			lowPrev, upPrev = u, u
			if u > band {
				continue
			}
			r := (u+2*rc)*(1+1e-9) + 1e-12
			scratch, stack = m.collect(c, r, scratch[:0], stack)
			slices.Sort(scratch)
			s.cell[ci] = int32(len(s.start) - 1)
			s.ent = append(s.ent, scratch...)
			s.start = append(s.start, int32(len(s.ent)))
		}
	}
	return s
}

// parallelFor calls fn(0..n-1) on GOMAXPROCS goroutines.
func parallelFor(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// collect appends every triangle within r of p with its distance rounded
// down to float32.
func (m *Mesh) collect(p vec.Vec3, r float64, dst []uint64, stack []int32) ([]uint64, []int32) {
	r2 := r * r
	if boxDistSq(p, m.lo, m.hi) > r2 {
		return dst, stack
	}
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		ref := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if ref < 0 {
			e := ^ref
			for i := e >> 3; i < e>>3+e&7; i++ {
				if d2, _, _ := closestOnTri(p, &m.geo[i]); d2 <= r2 {
					dst = append(dst, bandEntry(i, down32(math.Sqrt(d2))))
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
	return dst, stack
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
		if float64(entryLB(en))-e >= bestD {
			break
		}
		tri := entryTri(en)
		d2, c, rg := closestOnTri(p, &m.geo[tri])
		if d2 < bestSq {
			best, bestSq, q, reg = tri, d2, c, rg
			bestD = math.Sqrt(d2)
		}
	}
	return best, bestSq, q, reg
}
