package solver

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/drape-sim/drape/internal/vec"
)

// Self-collision keeps every vertex at least Params.Thickness away from
// every triangle it does not belong to, and every edge that far from every
// edge it shares no vertex with (Bridson, Fedkiw, Anderson 2002; Müller et
// al. 2007 §4.4; seed 004), on the side it came from.
//
// Candidate pairs are searched again in every substep (Ten Minute Physics'
// per-step hash, seed 001), so the search radius never depends on how far
// other parts of the cloth moved. Each vertex gets the box swept by its
// own substep motion (substep start Prev to the projected Pos), inflated
// by r/2 with r = selfSearch·h; a triangle's or an edge's box is the union
// of its vertices' boxes. Boxes go into a uniform spatial hash whose cells
// are as large as the longest rest edge plus r; a pair whose boxes overlap
// is reported once, in the cell holding the low corner of the overlap, and
// kept if its distance at the substep start or end is under r, or if it
// changed sides during the substep (a crossing, which the projection
// undoes). r is several thicknesses because the projection itself moves
// vertices by a few thicknesses per substep (measured: with r = 2.2h the
// 32x32 heap leaks). Displacements are first clamped to selfMaxRel·h per
// substep (Ten Minute Physics' velocity clamp). Pairs already closer than
// h in the rest mesh keep their rest distance.
//
// Every pair remembers its side (vertex-triangle) or direction (edge-edge):
// carried over from the previous substep's list when the pair was there,
// else the side at the substep start if the pair crossed during the
// substep, else the current side. Old pairs that are still crossed but
// were not found again (deeper than r) are carried over up to selfCarry·h,
// so a crossing left by an unconverged substep is undone, not accepted.
//
// The search runs in parallel over hash buckets; each chunk of buckets
// fills its own slot and the slots are joined in bucket order, so the
// pair list does not depend on the thread count. Projection is
// Gauss-Seidel over the active pairs in list order, selfIterations times
// per substep, alternating with the collider projection (collide.go).
type selfCollision struct {
	b    *base
	m    *Model
	h    float64
	mu   float64
	r    float64 // search radius [m]
	lmax float64 // longest rest edge [m]

	edges    [][2]int32
	restC    []vec.Vec3 // per triangle: rest centroid
	restR    []float64  // per triangle: rest bounding radius around restC
	edgeMidR []float64  // per edge: half rest length

	// Rebuilds counts pair searches (statistics for tests and benchmarks).
	Rebuilds int

	// spatial hash
	inv        float64 // 1 / cell size
	mask       uint32
	vg, tg, eg grid
	vlo, vhi   []vec.Vec3 // vertex swept boxes inflated by r/2
	tlo, thi   []vec.Vec3 // triangle boxes: union of their vertices' boxes
	elo, ehi   []vec.Vec3 // edge boxes: union of their vertices' boxes

	// pairs, and those of the previous search indexed by vertex / edge
	vt, vtOld []vtPair
	ee, eeOld []eePair
	vtOldAt   csr
	eeOldAt   csr
	vtSeen    []bool // old pair found again by this search
	eeSeen    []bool
	on        []bool
	act       []int32 // active pairs of the current iteration
	friction  bool

	slots    []*pairSlot
	next     atomic.Int32
	extraMu  sync.Mutex
	extra    []*pairSlot // slots claimed beyond len(slots) (a pool with finer chunks)
	joined   []*pairSlot
	fnPairs  func(lo, hi int)
	fnNarrow func(lo, hi int)
	fnVerts  func(lo, hi int)
	fnBoxes  func(lo, hi int)
}

// vtPair is a vertex-triangle proximity pair.
type vtPair struct {
	v, t int32
	h    float64 // minimum distance [m]
	side float64 // +1 or -1: the side of the triangle the vertex is on
}

// eePair is an edge-edge proximity pair.
type eePair struct {
	e0, e1 int32
	h      float64
	n      vec.Vec3 // direction from edge e1 to edge e0
}

// csr lists items by key: items of key k are idx[start[k]:start[k+1]].
type csr struct {
	start []int32
	idx   []int32
}

// index fills c with items 0..n-1 grouped by key(i) in [0, keys),
// ascending within a key.
func index(c *csr, keys, n int, key func(i int) int32) {
	if len(c.start) != keys+1 {
		c.start = make([]int32, keys+1)
	}
	clear(c.start)
	for i := 0; i < n; i++ {
		c.start[key(i)+1]++
	}
	for k := 1; k <= keys; k++ {
		c.start[k] += c.start[k-1]
	}
	if cap(c.idx) < n {
		c.idx = make([]int32, n, n+n/2)
	}
	c.idx = c.idx[:n]
	for i := 0; i < n; i++ {
		k := key(i)
		c.idx[c.start[k]] = int32(i)
		c.start[k]++
	}
	for k := keys; k > 0; k-- {
		c.start[k] = c.start[k-1]
	}
	c.start[0] = 0
}

// pairSlot collects one worker's pairs of a narrow phase.
type pairSlot struct {
	lo int
	vt []vtPair
	ee []eePair
}

// grid is a spatial hash: entries sorted by bucket (counting sort), each
// with the cell it was inserted in, so hash collisions are rejected.
type grid struct {
	start []int32
	ent   []gridEnt
}

type gridEnt struct {
	id int32
	c  [3]int32
}

const (
	selfIterations = 4
	selfSweeps     = 4
	selfSearch     = 4.2  // search radius in thicknesses (covers the projection's own motion)
	selfCarry      = 10.0 // crossed pairs are remembered up to this depth in thicknesses
	selfMaxRel     = 10.0 // displacement clamp per substep in thicknesses
)

func newSelfCollision(b *base) *selfCollision {
	m := b.m
	sc := &selfCollision{b: b, m: m, h: m.Params.Thickness, mu: m.Params.SelfFriction}
	sc.r = selfSearch * sc.h
	for _, e := range m.Topo.Edges {
		sc.edges = append(sc.edges, e.V)
		l := m.Rest[e.V[0]].Sub(m.Rest[e.V[1]]).Len()
		sc.lmax = math.Max(sc.lmax, l)
		sc.edgeMidR = append(sc.edgeMidR, l/2)
	}
	tris := m.Topo.Tris
	sc.restC = make([]vec.Vec3, len(tris))
	sc.restR = make([]float64, len(tris))
	for i, t := range tris {
		c := m.Rest[t[0]].Add(m.Rest[t[1]]).Add(m.Rest[t[2]]).Scale(1.0 / 3)
		sc.restC[i] = c
		for _, v := range t {
			sc.restR[i] = math.Max(sc.restR[i], m.Rest[v].Sub(c).Len())
		}
	}
	nv := len(m.Rest)
	sc.inv = 1 / (sc.lmax + sc.r)
	sc.vlo, sc.vhi = make([]vec.Vec3, nv), make([]vec.Vec3, nv)
	sc.tlo, sc.thi = make([]vec.Vec3, len(tris)), make([]vec.Vec3, len(tris))
	sc.elo, sc.ehi = make([]vec.Vec3, len(sc.edges)), make([]vec.Vec3, len(sc.edges))
	size := uint32(1024)
	for int(size) < 2*len(sc.edges) {
		size *= 2
	}
	sc.mask = size - 1
	for _, g := range []*grid{&sc.vg, &sc.tg, &sc.eg} {
		g.start = make([]int32, size+1)
	}
	// the pool hands out chunks of at least minChunk/2 items; more
	// claims than this go to sc.extra
	sc.slots = make([]*pairSlot, int(size)/(minChunk/2)+2)
	for i := range sc.slots {
		sc.slots[i] = &pairSlot{}
	}
	sc.fnPairs, sc.fnNarrow, sc.fnVerts, sc.fnBoxes = sc.solvePairs, sc.narrow, sc.vertBoxes, sc.boxes
	return sc
}

// update clamps this substep's displacements and searches the pairs.
func (sc *selfCollision) update() {
	sc.Rebuilds++
	nv, nt, ne := len(sc.vlo), len(sc.tlo), len(sc.elo)
	sc.b.pool.run(nv, sc.fnVerts)
	sc.b.pool.run(max(nt, ne), sc.fnBoxes)
	sc.vg.build(sc, sc.vlo, sc.vhi)
	sc.tg.build(sc, sc.tlo, sc.thi)
	sc.eg.build(sc, sc.elo, sc.ehi)

	// index the old pairs by their vertex / first edge, so pairs that
	// persist keep their side memory
	sc.vt, sc.vtOld = sc.vtOld[:0], sc.vt
	sc.ee, sc.eeOld = sc.eeOld[:0], sc.ee
	index(&sc.vtOldAt, nv, len(sc.vtOld), func(k int) int32 { return sc.vtOld[k].v })
	index(&sc.eeOldAt, ne, len(sc.eeOld), func(k int) int32 { return sc.eeOld[k].e0 })

	sc.vtSeen = resetBools(sc.vtSeen, len(sc.vtOld))
	sc.eeSeen = resetBools(sc.eeSeen, len(sc.eeOld))
	sc.next.Store(0)
	sc.extra = sc.extra[:0]
	sc.b.pool.run(int(sc.mask)+1, sc.fnNarrow)
	used := min(int(sc.next.Load()), len(sc.slots))
	sc.joined = append(append(sc.joined[:0], sc.slots[:used]...), sc.extra...)
	slices.SortFunc(sc.joined, func(a, b *pairSlot) int { return a.lo - b.lo })
	for _, s := range sc.joined {
		sc.vt = append(sc.vt, s.vt...)
		sc.ee = append(sc.ee, s.ee...)
	}
	sc.carry()
	n := len(sc.vt) + len(sc.ee)
	if cap(sc.on) < n {
		sc.on = make([]bool, n, n+n/2)
	}
	sc.on = sc.on[:n]
}

func resetBools(b []bool, n int) []bool {
	if cap(b) < n {
		b = make([]bool, n, n+n/2)
	}
	b = b[:n]
	clear(b)
	return b
}

// carry keeps the old pairs the search did not find again while they are
// still crossed (the vertex on the other side of the triangle than its
// memory, or the edges on the other side of each other) and closer than
// selfCarry·h, so a crossing deeper than the search radius keeps the side
// it must be undone to. They follow the found pairs in old-list order.
func (sc *selfCollision) carry() {
	prev, tris := sc.b.s.Prev, sc.m.Topo.Tris
	lim := selfCarry * sc.h
	for o, p := range sc.vtOld {
		if sc.vtSeen[o] {
			continue
		}
		t := tris[p.t]
		p4 := [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}
		side := vertexTriangleSide(p4, p.side)
		if side != p.side || p4[0].Sub(p4[1]).Dot(p4[2].Sub(p4[1]).Cross(p4[3].Sub(p4[1])))*side >= 0 ||
			pointTriangleDist(p4[0], p4[1], p4[2], p4[3]) > lim {
			continue
		}
		sc.vt = append(sc.vt, p)
	}
	for o, p := range sc.eeOld {
		if sc.eeSeen[o] {
			continue
		}
		a, b := sc.edges[p.e0], sc.edges[p.e1]
		p4 := [4]vec.Vec3{prev[a[0]], prev[a[1]], prev[b[0]], prev[b[1]]}
		n := edgeEdgeDir(p4, p.n)
		s, t := closestSegments(p4[0], p4[1], p4[2], p4[3])
		diff := p4[0].Lerp(p4[1], s).Sub(p4[2].Lerp(p4[3], t))
		if n != p.n || diff.Dot(n) >= 0 || diff.Len() > lim {
			continue
		}
		sc.ee = append(sc.ee, p)
	}
}

// vertBoxes clamps the substep displacement of vertices [lo, hi) and
// computes their swept boxes.
func (sc *selfCollision) vertBoxes(lo, hi int) {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	maxD := selfMaxRel * sc.h
	r2 := vec.V(sc.r/2, sc.r/2, sc.r/2)
	for v := lo; v < hi; v++ {
		if w[v] != 0 {
			d := pos[v].Sub(prev[v])
			if l2 := d.LenSq(); l2 > maxD*maxD {
				pos[v] = prev[v].AddScaled(d, maxD/math.Sqrt(l2))
			}
		}
		sc.vlo[v], sc.vhi[v] = pos[v].Min(prev[v]).Sub(r2), pos[v].Max(prev[v]).Add(r2)
	}
}

// boxes computes the triangle and edge boxes [lo, hi).
func (sc *selfCollision) boxes(lo, hi int) {
	tris := sc.m.Topo.Tris
	vlo, vhi := sc.vlo, sc.vhi
	for i := lo; i < hi; i++ {
		if i < len(tris) {
			t := tris[i]
			sc.tlo[i] = vlo[t[0]].Min(vlo[t[1]]).Min(vlo[t[2]])
			sc.thi[i] = vhi[t[0]].Max(vhi[t[1]]).Max(vhi[t[2]])
		}
		if i < len(sc.edges) {
			e := sc.edges[i]
			sc.elo[i], sc.ehi[i] = vlo[e[0]].Min(vlo[e[1]]), vhi[e[0]].Max(vhi[e[1]])
		}
	}
}

func (sc *selfCollision) cellOf(p vec.Vec3) [3]int32 {
	return [3]int32{int32(math.Floor(p.X * sc.inv)), int32(math.Floor(p.Y * sc.inv)), int32(math.Floor(p.Z * sc.inv))}
}

func (sc *selfCollision) bucket(c [3]int32) uint32 {
	return (uint32(c[0])*73856093 ^ uint32(c[1])*19349663 ^ uint32(c[2])*83492791) & sc.mask
}

// build fills g with the boxes [lo[i], hi[i]], each inserted into every
// cell it overlaps (counting sort by bucket; within a bucket by item).
func (g *grid) build(sc *selfCollision, lo, hi []vec.Vec3) {
	clear(g.start)
	total := 0
	for i := range lo {
		c0, c1 := sc.cellOf(lo[i]), sc.cellOf(hi[i])
		for x := c0[0]; x <= c1[0]; x++ {
			for y := c0[1]; y <= c1[1]; y++ {
				for z := c0[2]; z <= c1[2]; z++ {
					g.start[sc.bucket([3]int32{x, y, z})+1]++
					total++
				}
			}
		}
	}
	for k := 1; k < len(g.start); k++ {
		g.start[k] += g.start[k-1]
	}
	if cap(g.ent) < total {
		g.ent = make([]gridEnt, total, total+total/2)
	}
	g.ent = g.ent[:total]
	for i := range lo {
		c0, c1 := sc.cellOf(lo[i]), sc.cellOf(hi[i])
		for x := c0[0]; x <= c1[0]; x++ {
			for y := c0[1]; y <= c1[1]; y++ {
				for z := c0[2]; z <= c1[2]; z++ {
					c := [3]int32{x, y, z}
					k := sc.bucket(c)
					g.ent[g.start[k]] = gridEnt{int32(i), c}
					g.start[k]++
				}
			}
		}
	}
	for k := len(g.start) - 1; k > 0; k-- {
		g.start[k] = g.start[k-1]
	}
	g.start[0] = 0
}

// claim returns a fresh slot for the chunk starting at bucket lo.
func (sc *selfCollision) claim(lo int) *pairSlot {
	var sl *pairSlot
	if i := int(sc.next.Add(1)) - 1; i < len(sc.slots) {
		sl = sc.slots[i]
	} else {
		sl = &pairSlot{}
		sc.extraMu.Lock()
		sc.extra = append(sc.extra, sl)
		sc.extraMu.Unlock()
	}
	sl.lo, sl.vt, sl.ee = lo, sl.vt[:0], sl.ee[:0]
	return sl
}

// narrow finds the pairs of buckets [lo, hi).
func (sc *selfCollision) narrow(lo, hi int) {
	sl := sc.claim(lo)
	for k := lo; k < hi; k++ {
		vs := sc.vg.ent[sc.vg.start[k]:sc.vg.start[k+1]]
		ts := sc.tg.ent[sc.tg.start[k]:sc.tg.start[k+1]]
		for _, ve := range vs {
			for _, te := range ts {
				if te.c == ve.c {
					sc.testVT(sl, ve.id, te.id, ve.c)
				}
			}
		}
		es := sc.eg.ent[sc.eg.start[k]:sc.eg.start[k+1]]
		for i, ea := range es {
			for _, eb := range es[i+1:] {
				if eb.c == ea.c {
					sc.testEE(sl, ea.id, eb.id, ea.c)
				}
			}
		}
	}
}

// testVT keeps vertex v and triangle ti as a pair if their boxes overlap
// with the overlap's low corner in cell c, and they come within r or
// change sides during the substep.
func (sc *selfCollision) testVT(sl *pairSlot, v, ti int32, c [3]int32) {
	t := sc.m.Topo.Tris[ti]
	if t[0] == v || t[1] == v || t[2] == v {
		return
	}
	w := sc.m.InvMass
	if w[v] == 0 && w[t[0]] == 0 && w[t[1]] == 0 && w[t[2]] == 0 {
		return
	}
	vlo, tlo := sc.vlo[v], sc.tlo[ti]
	if !boxesOverlap(vlo, sc.vhi[v], tlo, sc.thi[ti]) || sc.cellOf(vlo.Max(tlo)) != c {
		return
	}
	pos, prev := sc.b.s.Pos, sc.b.s.Prev
	r := sc.r
	x1, a1, b1, c1 := pos[v], pos[t[0]], pos[t[1]], pos[t[2]]
	x0, a0, b0, c0 := prev[v], prev[t[0]], prev[t[1]], prev[t[2]]
	s0 := x0.Sub(a0).Dot(b0.Sub(a0).Cross(c0.Sub(a0)))
	s1 := x1.Sub(a1).Dot(b1.Sub(a1).Cross(c1.Sub(a1)))
	if (s0 > 0) == (s1 > 0) && pointTriangleDist(x1, a1, b1, c1) >= r && pointTriangleDist(x0, a0, b0, c0) >= r {
		return
	}
	p4 := [4]vec.Vec3{x0, a0, b0, c0}
	side := 0.0
	for _, o := range sc.vtOldAt.idx[sc.vtOldAt.start[v]:sc.vtOldAt.start[v+1]] {
		if sc.vtOld[o].t == ti {
			sc.vtSeen[o] = true
			side = vertexTriangleSide(p4, sc.vtOld[o].side)
			break
		}
	}
	if side == 0 {
		// a new pair: the side at the substep start if the vertex went
		// through the triangle since, else the side it is on now
		side = 1
		if s0 < 0 {
			side = -1
		}
		if !crossedTriangle([4]vec.Vec3{x1, a1, b1, c1}, p4, side) && s1 != 0 {
			side = math.Copysign(1, s1)
		}
	}
	rest := sc.m.Rest
	h := sc.h
	if rest[v].Sub(sc.restC[ti]).Len()-sc.restR[ti] < h {
		h = math.Min(h, pointTriangleDist(rest[v], rest[t[0]], rest[t[1]], rest[t[2]]))
	}
	sl.vt = append(sl.vt, vtPair{v: v, t: ti, h: h, side: side})
}

// testEE keeps edges ea < eb as a pair if they share no vertex, their
// boxes overlap with the overlap's low corner in cell c, and they come
// within r or pass through each other's line during the substep.
func (sc *selfCollision) testEE(sl *pairSlot, ea, eb int32, c [3]int32) {
	e0, e1 := sc.edges[ea], sc.edges[eb]
	if e0[0] == e1[0] || e0[0] == e1[1] || e0[1] == e1[0] || e0[1] == e1[1] {
		return
	}
	w := sc.m.InvMass
	if w[e0[0]] == 0 && w[e0[1]] == 0 && w[e1[0]] == 0 && w[e1[1]] == 0 {
		return
	}
	alo, blo := sc.elo[ea], sc.elo[eb]
	if !boxesOverlap(alo, sc.ehi[ea], blo, sc.ehi[eb]) || sc.cellOf(alo.Max(blo)) != c {
		return
	}
	pos, prev := sc.b.s.Pos, sc.b.s.Prev
	r := sc.r
	a1, b1, c1, d1 := pos[e0[0]], pos[e0[1]], pos[e1[0]], pos[e1[1]]
	a0, b0, c0, d0 := prev[e0[0]], prev[e0[1]], prev[e1[0]], prev[e1[1]]
	v0 := b0.Sub(a0).Cross(d0.Sub(c0)).Dot(c0.Sub(a0))
	v1 := b1.Sub(a1).Cross(d1.Sub(c1)).Dot(c1.Sub(a1))
	passed := (v0 > 0) != (v1 > 0) // through each other's line
	if !passed && segmentDist(a1, b1, c1, d1) >= r && segmentDist(a0, b0, c0, d0) >= r {
		return
	}
	var n vec.Vec3
	found := false
	for _, o := range sc.eeOldAt.idx[sc.eeOldAt.start[ea]:sc.eeOldAt.start[ea+1]] {
		if sc.eeOld[o].e1 == eb {
			sc.eeSeen[o] = true
			n, found = edgeEdgeDir([4]vec.Vec3{a0, b0, c0, d0}, sc.eeOld[o].n), true
			break
		}
	}
	if !found {
		// a new pair: the direction at the substep start if the edges
		// may have passed through each other since, else the current one
		n = segmentDir(a0, b0, c0, d0)
		if passed {
			n = edgeEdgeDir([4]vec.Vec3{a1, b1, c1, d1}, n)
		} else {
			n = segmentDir(a1, b1, c1, d1)
		}
	}
	rest := sc.m.Rest
	h := sc.h
	ra, rb := rest[e0[0]].Add(rest[e0[1]]).Scale(0.5), rest[e1[0]].Add(rest[e1[1]]).Scale(0.5)
	if ra.Sub(rb).Len()-sc.edgeMidR[ea]-sc.edgeMidR[eb] < h {
		h = math.Min(h, segmentDist(rest[e0[0]], rest[e0[1]], rest[e1[0]], rest[e1[1]]))
	}
	sl.ee = append(sl.ee, eePair{e0: ea, e1: eb, h: h, n: n})
}

// iterate finds the active pairs (parallel over all pairs) and projects
// them with selfSweeps Gauss-Seidel sweeps in pair order (serial: the
// active pairs are few, and Gauss-Seidel converges where Jacobi averaging
// leaves stacked layers interpenetrating), with friction in the last sweep
// if asked.
func (sc *selfCollision) iterate(friction bool) {
	sc.b.pool.run(len(sc.vt)+len(sc.ee), sc.fnPairs)
	sc.act = sc.act[:0]
	for k, on := range sc.on {
		if on {
			sc.act = append(sc.act, int32(k))
		}
	}
	pos, prev, w, tris := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass, sc.m.Topo.Tris
	nvt := len(sc.vt)
	for sweep := 0; sweep < selfSweeps; sweep++ {
		mu := 0.0
		if friction && sweep == selfSweeps-1 {
			mu = sc.mu
		}
		for _, k := range sc.act {
			var vs [4]int32
			var dx [4]vec.Vec3
			var on bool
			if int(k) < nvt {
				p := &sc.vt[k]
				t := tris[p.t]
				vs = [4]int32{p.v, t[0], t[1], t[2]}
				q4, p4, w4 := gather4(pos, prev, w, vs)
				dx, on = solveVertexTriangle(q4, p4, w4, p.h, mu, p.side)
			} else {
				p := &sc.ee[int(k)-nvt]
				a, b := sc.edges[p.e0], sc.edges[p.e1]
				vs = [4]int32{a[0], a[1], b[0], b[1]}
				q4, p4, w4 := gather4(pos, prev, w, vs)
				dx, on = solveEdgeEdge(q4, p4, w4, p.h, mu, p.n)
			}
			if on {
				for i, v := range vs {
					pos[v] = pos[v].Add(dx[i])
				}
			}
		}
	}
}

// solvePairs marks which of pairs [lo, hi) (VT then EE) are active at the
// current positions.
func (sc *selfCollision) solvePairs(lo, hi int) {
	pos, prev, w, tris := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass, sc.m.Topo.Tris
	nvt := len(sc.vt)
	for k := lo; k < hi; k++ {
		if k < nvt {
			p := &sc.vt[k]
			t := tris[p.t]
			q4, p4, w4 := gather4(pos, prev, w, [4]int32{p.v, t[0], t[1], t[2]})
			_, sc.on[k] = solveVertexTriangle(q4, p4, w4, p.h, 0, p.side)
			continue
		}
		p := &sc.ee[k-nvt]
		a, b := sc.edges[p.e0], sc.edges[p.e1]
		q4, p4, w4 := gather4(pos, prev, w, [4]int32{a[0], a[1], b[0], b[1]})
		_, sc.on[k] = solveEdgeEdge(q4, p4, w4, p.h, 0, p.n)
	}
}

func gather4(pos, prev []vec.Vec3, w []float64, vs [4]int32) (q4, p4 [4]vec.Vec3, w4 [4]float64) {
	for i, v := range vs {
		q4[i], p4[i], w4[i] = pos[v], prev[v], w[v]
	}
	return
}

// segmentDir returns the unit direction from segment p2-q2 to segment
// p1-q1 between their closest points (their common normal if they touch).
func segmentDir(p1, q1, p2, q2 vec.Vec3) vec.Vec3 {
	s, t := closestSegments(p1, q1, p2, q2)
	diff := p1.Lerp(q1, s).Sub(p2.Lerp(q2, t))
	if l := diff.Len(); l > 1e-12 {
		return diff.Scale(1 / l)
	}
	return q1.Sub(p1).Cross(q2.Sub(p2)).Normalize()
}
