package solver

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/drape-sim/drape/internal/vec"
)

// Self-collision keeps every vertex at least Params.Thickness away from
// every triangle it does not belong to, and every edge that far from every
// edge it shares no vertex with (Bridson, Fedkiw, Anderson 2002; Müller et
// al. 2007 §4.4; seed 004), on the side it came from.
//
// Candidate pairs are a Verlet neighbour list: pairs closer than
// h + skin at the positions of the last rebuild (a spatial hash, seed 001,
// over cells as large as the longest edge plus the search radius). The
// distance of a pair changes by at most twice the largest vertex
// displacement relative to the cloth's mean displacement, so the list
// stays complete until that exceeds skin/2; it is rebuilt then, from the
// substep's start positions with a skin of selfSkinFactor times the
// substep's largest relative displacement (at least h). Displacements are
// clamped to selfMaxRel·h per substep (Ten Minute Physics' velocity
// clamp) so the list stays bounded. Pairs already closer than h in the rest mesh
// keep their rest distance instead.
//
// Projection is Jacobi with averaging (each vertex moves by the mean of the
// corrections of its active pairs), selfIterations times per substep, so
// it runs in parallel over pairs and then over vertices with no shared
// writes; every order is fixed, so the result does not depend on the
// thread count.
type selfCollision struct {
	b    *base
	m    *Model
	h    float64
	mu   float64
	lmax float64 // longest rest edge [m]

	edges    [][2]int32
	restC    []vec.Vec3 // per triangle: rest centroid
	restR    []float64  // per triangle: rest bounding radius around restC
	edgeMidR []float64  // per edge: half rest length

	// neighbour list
	x0       []vec.Vec3 // positions at the last rebuild
	valid    bool
	skin     float64
	r        float64 // search radius h + skin of the last rebuild
	Rebuilds int     // rebuild count (statistics for tests and benchmarks)

	// spatial hash
	inv        float64 // 1 / cell size
	mask       uint32
	vg, tg, eg grid
	tlo, thi   []vec.Vec3 // triangle boxes inflated by r
	elo, ehi   []vec.Vec3 // edge boxes inflated by r/2

	// pairs, and those of the previous rebuild indexed by vertex / edge
	vt, vtOld []vtPair
	ee, eeOld []eePair
	vtOldAt   csr
	eeOldAt   csr
	out       [][4]vec.Vec3 // corrections, VT pairs then EE pairs
	on        []bool
	act       []int32 // active pairs of the current iteration
	inc       []int32 // vertex -> pair incidences, code = pair·4 + slot
	incStart  []int32
	friction  bool

	slots []pairSlot
	next  atomic.Int32

	fnPairs, fnNarrow, fnBoxes, fnRefresh func(lo, hi int)
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
	selfIterations = 2
	selfSweeps     = 4
	selfSkinFactor = 2.2
	selfMaxRel     = 10.0
)

func newSelfCollision(b *base) *selfCollision {
	m := b.m
	sc := &selfCollision{b: b, m: m, h: m.Params.Thickness, mu: m.Params.SelfFriction}
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
	sc.x0 = make([]vec.Vec3, nv)
	sc.incStart = make([]int32, nv+1)
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
	sc.fnPairs, sc.fnNarrow, sc.fnBoxes, sc.fnRefresh = sc.solvePairs, sc.narrow, sc.boxes, sc.refresh
	return sc
}

// update clamps this substep's relative displacements and rebuilds the
// neighbour list if it may have become incomplete.
func (sc *selfCollision) update() {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	// mean displacement of the free vertices this substep and since the
	// last rebuild (sequential sums: deterministic)
	var cs, c0 vec.Vec3
	nf := 0
	for v := range pos {
		if w[v] == 0 {
			continue
		}
		cs = cs.Add(pos[v].Sub(prev[v]))
		c0 = c0.Add(pos[v].Sub(sc.x0[v]))
		nf++
	}
	if nf == 0 {
		return
	}
	cs, c0 = cs.Scale(1/float64(nf)), c0.Scale(1/float64(nf))
	// clamp displacements to selfMaxRel·h per substep (Ten Minute Physics'
	// velocity clamp, far above cloth speeds: 10.8 m/s at the defaults) and
	// measure the largest displacement relative to the mean
	maxD := selfMaxRel * sc.h
	mSub, mCum := 0.0, 0.0
	for v := range pos {
		if w[v] == 0 {
			continue
		}
		d := pos[v].Sub(prev[v])
		if l := d.Len(); l > maxD {
			pos[v] = prev[v].AddScaled(d, maxD/l)
		}
		mSub = math.Max(mSub, pos[v].Sub(prev[v]).Sub(cs).Len())
		mCum = math.Max(mCum, pos[v].Sub(sc.x0[v]).Sub(c0).Len())
	}
	if !sc.valid || mCum > sc.skin/2 {
		sc.rebuild(math.Max(sc.h, selfSkinFactor*mSub))
	}
	sc.b.pool.run(len(sc.vt)+len(sc.ee), sc.fnRefresh)
}

// refresh updates every pair's side memory from the substep's start
// positions (see vertexTriangleSide and edgeEdgeDir).
func (sc *selfCollision) refresh(lo, hi int) {
	prev, tris := sc.b.s.Prev, sc.m.Topo.Tris
	nvt := len(sc.vt)
	for k := lo; k < hi; k++ {
		if k < nvt {
			p := &sc.vt[k]
			t := tris[p.t]
			p.side = vertexTriangleSide([4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
			continue
		}
		p := &sc.ee[k-nvt]
		a, b := sc.edges[p.e0], sc.edges[p.e1]
		p.n = edgeEdgeDir([4]vec.Vec3{prev[a[0]], prev[a[1]], prev[b[0]], prev[b[1]]}, p.n)
	}
}

// iterate finds the active pairs (parallel over all pairs) and projects
// them with selfSweeps Gauss-Seidel sweeps in pair order (serial: the
// active pairs are few, and Gauss-Seidel converges where Jacobi averaging
// leaves stacked layers interpenetrating), with friction in the last sweep
// if asked.
func (sc *selfCollision) iterate(friction bool) {
	sc.friction = false
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

// rebuild collects the pairs closer than h + skin at the substep's start
// positions.
func (sc *selfCollision) rebuild(skin float64) {
	sc.Rebuilds++
	copy(sc.x0, sc.b.s.Prev)
	sc.skin, sc.r = skin, sc.h+skin
	sc.valid = true
	sc.inv = 1 / (sc.lmax + 2*sc.r)
	x := sc.x0
	tris := sc.m.Topo.Tris

	// boxes, then the three hashes
	sc.b.pool.run(max(len(tris), len(sc.edges)), sc.fnBoxes)
	sc.vg.build(sc, len(x), func(i int) (vec.Vec3, vec.Vec3) { return x[i], x[i] })
	sc.tg.build(sc, len(tris), func(i int) (vec.Vec3, vec.Vec3) { return sc.tlo[i], sc.thi[i] })
	sc.eg.build(sc, len(sc.edges), func(i int) (vec.Vec3, vec.Vec3) { return sc.elo[i], sc.ehi[i] })

	// index the old pairs by their first vertex / edge, so pairs that
	// persist keep the side they were on (a crossing left by an
	// unconverged substep is undone rather than accepted)
	sc.vt, sc.vtOld = sc.vtOld[:0], sc.vt
	sc.ee, sc.eeOld = sc.eeOld[:0], sc.ee
	index(&sc.vtOldAt, len(x), len(sc.vtOld), func(k int) int32 { return sc.vtOld[k].v })
	index(&sc.eeOldAt, len(sc.edges), len(sc.eeOld), func(k int) int32 { return sc.eeOld[k].e0 })

	// narrow phase, parallel over buckets; the pool hands out chunks of at
	// least minChunk/2 buckets, so this many slots always suffice
	if need := (int(sc.mask)+1)/(minChunk/2) + 2; len(sc.slots) < need {
		sc.slots = append(sc.slots, make([]pairSlot, need-len(sc.slots))...)
	}
	sc.next.Store(0)
	sc.b.pool.run(int(sc.mask)+1, sc.fnNarrow)
	used := int(sc.next.Load())
	slots := sc.slots[:used]
	slices.SortFunc(slots, func(a, b pairSlot) int { return a.lo - b.lo })
	for i := range slots {
		sc.vt = append(sc.vt, slots[i].vt...)
		sc.ee = append(sc.ee, slots[i].ee...)
	}

	// vertex -> pair incidences (CSR)
	n := len(sc.vt) + len(sc.ee)
	if cap(sc.out) < n {
		sc.out = make([][4]vec.Vec3, n, n+n/2)
		sc.on = make([]bool, n, n+n/2)
	}
	sc.out, sc.on = sc.out[:n], sc.on[:n]
	st := sc.incStart
	clear(st)
	each := func(f func(k int, vs [4]int32)) {
		for k, p := range sc.vt {
			t := tris[p.t]
			f(k, [4]int32{p.v, t[0], t[1], t[2]})
		}
		for k, p := range sc.ee {
			a, b := sc.edges[p.e0], sc.edges[p.e1]
			f(len(sc.vt)+k, [4]int32{a[0], a[1], b[0], b[1]})
		}
	}
	each(func(_ int, vs [4]int32) {
		for _, v := range vs {
			st[v+1]++
		}
	})
	for v := 1; v < len(st); v++ {
		st[v] += st[v-1]
	}
	if cap(sc.inc) < int(st[len(st)-1]) {
		sc.inc = make([]int32, st[len(st)-1], int(st[len(st)-1])*3/2)
	}
	sc.inc = sc.inc[:st[len(st)-1]]
	each(func(k int, vs [4]int32) {
		for slot, v := range vs {
			sc.inc[st[v]] = int32(4*k + slot)
			st[v]++
		}
	})
	// st[v] now holds the end of v's list: shift back
	for v := len(st) - 1; v > 0; v-- {
		st[v] = st[v-1]
	}
	st[0] = 0
}

// boxes computes the inflated triangle and edge boxes at x0.
func (sc *selfCollision) boxes(lo, hi int) {
	x, tris := sc.x0, sc.m.Topo.Tris
	r := vec.V(sc.r, sc.r, sc.r)
	r2 := r.Scale(0.5)
	for i := lo; i < hi; i++ {
		if i < len(tris) {
			t := tris[i]
			a, b, c := x[t[0]], x[t[1]], x[t[2]]
			sc.tlo[i], sc.thi[i] = a.Min(b).Min(c).Sub(r), a.Max(b).Max(c).Add(r)
		}
		if i < len(sc.edges) {
			e := sc.edges[i]
			a, b := x[e[0]], x[e[1]]
			sc.elo[i], sc.ehi[i] = a.Min(b).Sub(r2), a.Max(b).Add(r2)
		}
	}
}

func (sc *selfCollision) cellOf(p vec.Vec3) [3]int32 {
	return [3]int32{int32(math.Floor(p.X * sc.inv)), int32(math.Floor(p.Y * sc.inv)), int32(math.Floor(p.Z * sc.inv))}
}

func (sc *selfCollision) bucket(c [3]int32) uint32 {
	return (uint32(c[0])*73856093 ^ uint32(c[1])*19349663 ^ uint32(c[2])*83492791) & sc.mask
}

// build fills g with items 0..n-1 inserted into every cell their box
// [lo, hi] overlaps (counting sort by bucket; within a bucket by item).
func (g *grid) build(sc *selfCollision, n int, box func(i int) (vec.Vec3, vec.Vec3)) {
	clear(g.start)
	visit := func(i int, f func(c [3]int32)) {
		lo, hi := box(i)
		c0, c1 := sc.cellOf(lo), sc.cellOf(hi)
		for x := c0[0]; x <= c1[0]; x++ {
			for y := c0[1]; y <= c1[1]; y++ {
				for z := c0[2]; z <= c1[2]; z++ {
					f([3]int32{x, y, z})
				}
			}
		}
	}
	total := 0
	for i := 0; i < n; i++ {
		visit(i, func(c [3]int32) {
			g.start[sc.bucket(c)+1]++
			total++
		})
	}
	for k := 1; k < len(g.start); k++ {
		g.start[k] += g.start[k-1]
	}
	if cap(g.ent) < total {
		g.ent = make([]gridEnt, total, total+total/2)
	}
	g.ent = g.ent[:total]
	for i := 0; i < n; i++ {
		visit(i, func(c [3]int32) {
			k := sc.bucket(c)
			g.ent[g.start[k]] = gridEnt{int32(i), c}
			g.start[k]++
		})
	}
	for k := len(g.start) - 1; k > 0; k-- {
		g.start[k] = g.start[k-1]
	}
	g.start[0] = 0
}

// narrow finds the pairs of buckets [lo, hi).
func (sc *selfCollision) narrow(lo, hi int) {
	sl := &sc.slots[sc.next.Add(1)-1]
	sl.lo, sl.vt, sl.ee = lo, sl.vt[:0], sl.ee[:0]
	x, rest, tris, w := sc.x0, sc.m.Rest, sc.m.Topo.Tris, sc.m.InvMass
	r := sc.r
	for k := lo; k < hi; k++ {
		// vertex-triangle: each vertex is in one cell, so each pair once
		ts := sc.tg.ent[sc.tg.start[k]:sc.tg.start[k+1]]
		for _, ve := range sc.vg.ent[sc.vg.start[k]:sc.vg.start[k+1]] {
			v := ve.id
			p := x[v]
			for _, te := range ts {
				if te.c != ve.c {
					continue
				}
				t := tris[te.id]
				if t[0] == v || t[1] == v || t[2] == v {
					continue
				}
				if w[v] == 0 && w[t[0]] == 0 && w[t[1]] == 0 && w[t[2]] == 0 {
					continue
				}
				l, u := sc.tlo[te.id], sc.thi[te.id]
				if p.X < l.X || p.Y < l.Y || p.Z < l.Z || p.X > u.X || p.Y > u.Y || p.Z > u.Z {
					continue
				}
				a, b, c := x[t[0]], x[t[1]], x[t[2]]
				uu, vv, ww := closestOnTriangle(p, a, b, c)
				d := p.Sub(a.Scale(uu).Add(b.Scale(vv)).Add(c.Scale(ww)))
				if d.LenSq() >= r*r {
					continue
				}
				side := 1.0
				if d.Dot(b.Sub(a).Cross(c.Sub(a))) < 0 {
					side = -1
				}
				for _, o := range sc.vtOldAt.idx[sc.vtOldAt.start[v]:sc.vtOldAt.start[v+1]] {
					if sc.vtOld[o].t == te.id {
						side = sc.vtOld[o].side
						break
					}
				}
				h := sc.h
				if rest[v].Sub(sc.restC[te.id]).Len()-sc.restR[te.id] < h {
					h = math.Min(h, pointTriangleDist(rest[v], rest[t[0]], rest[t[1]], rest[t[2]]))
				}
				sl.vt = append(sl.vt, vtPair{v: v, t: te.id, h: h, side: side})
			}
		}
		// edge-edge: report a pair only in the cell holding the low corner
		// of the overlap of the two boxes
		es := sc.eg.ent[sc.eg.start[k]:sc.eg.start[k+1]]
		for i, ea := range es {
			e0 := sc.edges[ea.id]
			for _, eb := range es[i+1:] {
				if eb.c != ea.c {
					continue
				}
				e1 := sc.edges[eb.id]
				if e0[0] == e1[0] || e0[0] == e1[1] || e0[1] == e1[0] || e0[1] == e1[1] {
					continue
				}
				if w[e0[0]] == 0 && w[e0[1]] == 0 && w[e1[0]] == 0 && w[e1[1]] == 0 {
					continue
				}
				alo, ahi, blo, bhi := sc.elo[ea.id], sc.ehi[ea.id], sc.elo[eb.id], sc.ehi[eb.id]
				if !boxesOverlap(alo, ahi, blo, bhi) || sc.cellOf(alo.Max(blo)) != ea.c {
					continue
				}
				a, b, c, d := x[e0[0]], x[e0[1]], x[e1[0]], x[e1[1]]
				s, t := closestSegments(a, b, c, d)
				diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
				l := diff.Len()
				if l >= r {
					continue
				}
				var n vec.Vec3
				if l > 1e-12 {
					n = diff.Scale(1 / l)
				} else {
					n = b.Sub(a).Cross(d.Sub(c)).Normalize()
				}
				for _, o := range sc.eeOldAt.idx[sc.eeOldAt.start[ea.id]:sc.eeOldAt.start[ea.id+1]] {
					if sc.eeOld[o].e1 == eb.id {
						n = sc.eeOld[o].n
						break
					}
				}
				h := sc.h
				ra, rb := rest[e0[0]].Add(rest[e0[1]]).Scale(0.5), rest[e1[0]].Add(rest[e1[1]]).Scale(0.5)
				if ra.Sub(rb).Len()-sc.edgeMidR[ea.id]-sc.edgeMidR[eb.id] < h {
					h = math.Min(h, segmentDist(rest[e0[0]], rest[e0[1]], rest[e1[0]], rest[e1[1]]))
				}
				// keep the pair in ascending edge order
				sl.ee = append(sl.ee, eePair{e0: ea.id, e1: eb.id, h: h, n: n})
			}
		}
	}
}

// solvePairs evaluates pairs [lo, hi) (VT then EE) at the current positions.
func (sc *selfCollision) solvePairs(lo, hi int) {
	pos, prev, w, tris := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass, sc.m.Topo.Tris
	mu := 0.0
	if sc.friction {
		mu = sc.mu
	}
	nvt := len(sc.vt)
	for k := lo; k < hi; k++ {
		var vs [4]int32
		if k < nvt {
			p := &sc.vt[k]
			t := tris[p.t]
			vs = [4]int32{p.v, t[0], t[1], t[2]}
			q4, p4, w4 := gather4(pos, prev, w, vs)
			sc.out[k], sc.on[k] = solveVertexTriangle(q4, p4, w4, p.h, mu, p.side)
			continue
		}
		p := &sc.ee[k-nvt]
		a, b := sc.edges[p.e0], sc.edges[p.e1]
		vs = [4]int32{a[0], a[1], b[0], b[1]}
		q4, p4, w4 := gather4(pos, prev, w, vs)
		sc.out[k], sc.on[k] = solveEdgeEdge(q4, p4, w4, p.h, mu, p.n)
	}
}

func gather4(pos, prev []vec.Vec3, w []float64, vs [4]int32) (q4, p4 [4]vec.Vec3, w4 [4]float64) {
	for i, v := range vs {
		q4[i], p4[i], w4[i] = pos[v], prev[v], w[v]
	}
	return
}
