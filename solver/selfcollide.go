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
// Candidate pairs are a neighbour list with a skin per vertex. At a
// rebuild (from a substep's start positions x0, which are resolved) each
// vertex v gets an allowance s_v: how far it may move, relative to the
// mean motion of the cloth, before the list must be rebuilt. A pair is
// listed when it is closer than h + margin + s_v + s_t at x0 (s_t the
// largest allowance of the other side's vertices), so while every vertex
// stays within its allowance the list holds every pair that can come
// closer than h + margin. The allowance is selfSkinMin·h plus
// selfSkinFactor times the vertex's relative displacement in the rebuild's
// substep: a resting heap keeps a list of near neighbours only, and a
// vertex that falls fast pairs with what lies along its path, without
// inflating the search for the rest of the cloth. Candidates come from a
// spatial hash (seed 001) of the inflated boxes of vertices, triangles and
// edges; a pair is reported in the one cell holding the low corner of the
// overlap of its two boxes. Displacements relative to the cloth's mean
// motion are clamped to selfMaxRel·h per substep (Ten Minute Physics'
// velocity clamp): the side memories below are only trustworthy when no
// pair moves much more than the thickness in one substep. Pairs already
// closer than h in the rest mesh keep their rest distance instead.
//
// Every substep, one parallel pass over the list refreshes each pair's
// side memory from the substep's start positions and picks the pairs near
// contact at the current positions (closer than h + margin, or crossed);
// only those are projected, with selfSweeps Gauss-Seidel sweeps in pair
// order (serial: they are few, and Gauss-Seidel converges where Jacobi
// averaging leaves stacked layers interpenetrating), selfIterations times
// with the colliders in between. A pair still crossed at the end sends
// its vertices back to the substep's start (failSafe), and the separating
// speed the pushes give is capped (separate). Every order is fixed, so the
// result does not depend on the thread count.
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
	skin     []float64  // per vertex allowance since the last rebuild [m]
	valid    bool
	Rebuilds int // rebuild count (statistics for tests and benchmarks)

	// spatial hash
	inv        float64 // 1 / cell size
	mask       uint32
	vg, tg, eg grid
	vlo, vhi   []vec.Vec3 // vertex boxes: x0 ± skin
	tlo, thi   []vec.Vec3 // triangle boxes inflated by h + margin + skin
	elo, ehi   []vec.Vec3 // edge boxes inflated by (h + margin)/2 + skin

	// pairs, and those of the previous rebuild indexed by vertex / edge
	vt, vtOld []vtPair
	ee, eeOld []eePair
	vtOldAt   csr
	eeOldAt   csr
	nearFlag  []bool
	crossFlag []bool
	Reverts   int     // vertices put back by the fail-safe (statistics)
	sides     bool    // pick refreshes the side memories
	near      []int32 // pairs near contact this substep (VT, then EE + len(vt))

	slots []pairSlot
	next  atomic.Int32

	before  []vec.Vec3 // positions before the self-collision phase
	pickPos []vec.Vec3 // positions at the substep's first pick

	fnNarrow, fnBoxes, fnRefresh, fnSeparate func(lo, hi int)
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
	id     int32
	c      [3]int32 // the cell the entry was inserted in
	v      [3]int32 // the item's vertices (-1 where it has fewer)
	lo, hi vec.Vec3 // the item's box
}

const (
	// selfIterations rounds of picking near pairs, selfSweeps Gauss-Seidel
	// sweeps over them, and the colliders run each substep (the 64 x 64
	// heap's closest pair for a 3 mm thickness: 1.05 mm with 3 rounds,
	// 1.33 mm with 4, 1.88 mm with 5).
	selfIterations = 5
	selfSweeps     = 4
	// selfMaxRel·h is the largest displacement per substep relative to the
	// cloth's mean motion.
	selfMaxRel = 1.0

	// selfMaxSeparation is the largest separating speed [m/s] self-collision
	// pushes may give a vertex (see separate).
	selfMaxSeparation = 0.1

	// selfCrossReach·h is how far apart two edges may be after crossing
	// within one substep (relative motion is clamped to 2·selfMaxRel·h).
	selfCrossReach = 3.0

	// selfFailSafeRounds bounds the rounds of failSafe.
	selfFailSafeRounds = 8

	// selfMargin·h is added to the contact distance when pairs are listed
	// and when near pairs are picked, for the pushes of the substep's own
	// projections.
	selfMargin = 0.5
	// selfSkinMin·h is the smallest allowance, which lets a resting cloth
	// jitter without rebuilding.
	selfSkinMin = 0.25
	// selfSkinFactor times a vertex's relative displacement in the
	// rebuild's substep is added to its allowance: the list then lasts
	// about that many substeps of steady motion.
	selfSkinFactor = 2.0
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
	sc.skin = make([]float64, nv)
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
	sc.before = make([]vec.Vec3, nv)
	sc.pickPos = make([]vec.Vec3, nv)
	sc.fnNarrow, sc.fnBoxes, sc.fnRefresh, sc.fnSeparate = sc.narrow, sc.boxes, sc.refresh, sc.separate
	return sc
}

// update clamps this substep's relative displacements, rebuilds the
// neighbour list if a vertex left its allowance, and picks the pairs near
// contact.
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
	// clamp displacements to selfMaxRel·h per substep relative to the mean
	// (Ten Minute Physics' velocity clamp: 1.08 m/s relative to the mean at
	// the defaults) and check every vertex against its allowance
	maxD := selfMaxRel * sc.h
	ok := sc.valid
	for v := range pos {
		if w[v] != 0 {
			d := pos[v].Sub(prev[v]).Sub(cs)
			if l := d.Len(); l > maxD {
				pos[v] = pos[v].AddScaled(d, maxD/l-1)
			}
		}
		if ok && pos[v].Sub(sc.x0[v]).Sub(c0).LenSq() > sc.skin[v]*sc.skin[v] {
			ok = false
		}
	}
	if !ok {
		hMin := selfSkinMin * sc.h
		for v := range pos {
			sc.skin[v] = hMin + selfSkinFactor*pos[v].Sub(prev[v]).Sub(cs).Len()
		}
		sc.rebuild()
	}
	sc.pick(true)
}

// pick flags the pairs closer than h + margin at the current positions (or
// crossed), refreshing the side memories first if sides is set, and lists
// them in sc.near.
func (sc *selfCollision) pick(sides bool) {
	sc.sides = sides
	if sides {
		copy(sc.pickPos, sc.b.s.Pos)
	}
	n := len(sc.vt) + len(sc.ee)
	if cap(sc.nearFlag) < n {
		sc.nearFlag = make([]bool, n, n+n/2)
		sc.crossFlag = make([]bool, n, n+n/2)
	}
	sc.nearFlag, sc.crossFlag = sc.nearFlag[:n], sc.crossFlag[:n]
	sc.b.pool.run(n, sc.fnRefresh)
	sc.near = sc.near[:0]
	for k, on := range sc.nearFlag {
		if on {
			sc.near = append(sc.near, int32(k))
		}
	}
}

// refresh updates every pair's side memory from the substep's start
// positions (see vertexTriangleSide and edgeEdgeDir) and flags the pairs
// closer than h + margin at the current positions.
func (sc *selfCollision) refresh(lo, hi int) {
	pos, prev, tris := sc.b.s.Pos, sc.b.s.Prev, sc.m.Topo.Tris
	nvt := len(sc.vt)
	// after the substep's first pick, a pair neither near nor crossed then
	// stays so while none of its vertices has moved selfMargin·h/2 since
	// (the distance of the pair changes by less than selfMargin·h)
	still := selfMargin * sc.h / 2
	still *= still
	snap := sc.pickPos
	moved := func(vs [4]int32) bool {
		for _, v := range vs {
			if pos[v].Sub(snap[v]).LenSq() >= still {
				return true
			}
		}
		return false
	}
	for k := lo; k < hi; k++ {
		if k < nvt {
			p := &sc.vt[k]
			t := tris[p.t]
			if !sc.sides && !sc.nearFlag[k] && !moved([4]int32{p.v, t[0], t[1], t[2]}) {
				continue
			}
			if sc.sides {
				p.side = vertexTriangleSide([4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
			}
			r := p.h + selfMargin*sc.h
			x, a, b, c := pos[p.v], pos[t[0]], pos[t[1]], pos[t[2]]
			// cheap rejection by the triangle's box first
			if x.X < min(a.X, b.X, c.X)-r || x.X > max(a.X, b.X, c.X)+r ||
				x.Y < min(a.Y, b.Y, c.Y)-r || x.Y > max(a.Y, b.Y, c.Y)+r ||
				x.Z < min(a.Z, b.Z, c.Z)-r || x.Z > max(a.Z, b.Z, c.Z)+r {
				cr := crossedTriangle([4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
				sc.nearFlag[k], sc.crossFlag[k] = cr, cr
				continue
			}
			u, v, ww := closestOnTriangle(x, a, b, c)
			d := x.Sub(a.Scale(u).Add(b.Scale(v)).Add(c.Scale(ww)))
			cr := x.Sub(a).Dot(b.Sub(a).Cross(c.Sub(a)))*p.side < 0 &&
				(u > 0 && v > 0 && ww > 0 || crossedTriangle([4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side))
			sc.nearFlag[k], sc.crossFlag[k] = cr || d.LenSq() < r*r, cr
			continue
		}
		p := &sc.ee[k-nvt]
		e0, e1 := sc.edges[p.e0], sc.edges[p.e1]
		if !sc.sides && !sc.nearFlag[k] && !moved([4]int32{e0[0], e0[1], e1[0], e1[1]}) {
			continue
		}
		if sc.sides {
			p.n = edgeEdgeDir([4]vec.Vec3{prev[e0[0]], prev[e0[1]], prev[e1[0]], prev[e1[1]]}, p.n)
		}
		a, b, c, d := pos[e0[0]], pos[e0[1]], pos[e1[0]], pos[e1[1]]
		r := p.h + selfMargin*sc.h
		// cheap rejection by the edges' boxes first: neither near nor, with
		// relative motion clamped to about 2h per substep, crossed
		if g := selfCrossReach * sc.h; min(a.X, b.X) > max(c.X, d.X)+g || min(c.X, d.X) > max(a.X, b.X)+g ||
			min(a.Y, b.Y) > max(c.Y, d.Y)+g || min(c.Y, d.Y) > max(a.Y, b.Y)+g ||
			min(a.Z, b.Z) > max(c.Z, d.Z)+g || min(c.Z, d.Z) > max(a.Z, b.Z)+g {
			sc.nearFlag[k], sc.crossFlag[k] = false, false
			continue
		}
		s, t := closestSegments(a, b, c, d)
		diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
		const eps = 1e-6
		cr := diff.Dot(p.n) < 0 && s > eps && s < 1-eps && t > eps && t < 1-eps
		sc.nearFlag[k], sc.crossFlag[k] = cr || diff.LenSq() < r*r, cr
	}
}

// failSafe puts the vertices of every pair still crossed after the
// iterations back where they started the substep (which was resolved),
// and checks again, up to selfFailSafeRounds times: a crossing the
// projection could not undo costs those vertices the substep's motion
// instead of leaving the cloth interpenetrating. It returns the number of
// pairs still crossed.
func (sc *selfCollision) failSafe() int {
	pos, prev, w, tris := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass, sc.m.Topo.Tris
	nvt := len(sc.vt)
	crossed := 0
	for round := 0; round <= selfFailSafeRounds; round++ {
		sc.pick(false)
		crossed = 0
		for _, k := range sc.near {
			if !sc.crossFlag[k] {
				continue
			}
			crossed++
			if round == selfFailSafeRounds {
				continue
			}
			var vs [4]int32
			if int(k) < nvt {
				p := &sc.vt[k]
				t := tris[p.t]
				vs = [4]int32{p.v, t[0], t[1], t[2]}
			} else {
				p := &sc.ee[int(k)-nvt]
				a, b := sc.edges[p.e0], sc.edges[p.e1]
				vs = [4]int32{a[0], a[1], b[0], b[1]}
			}
			for _, v := range vs {
				if w[v] != 0 && pos[v] != prev[v] {
					pos[v] = prev[v]
					sc.Reverts++
				}
			}
		}
		if crossed == 0 {
			break
		}
	}
	return crossed
}

// separate caps the separating velocity the self-collision pushes of this
// substep give vertices [lo, hi) at selfMaxSeparation (the maximum
// depenetration velocity of rigid-body engines): a push that cancels a
// vertex's approach keeps its full effect on the velocity, but a pair that
// started the substep closer than h is pushed apart in position without
// being thrown apart, which would feed energy into a resting heap.
func (sc *selfCollision) separate(lo, hi int) {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	dt := sc.b.dt
	for v := lo; v < hi; v++ {
		if w[v] == 0 {
			continue
		}
		d := pos[v].Sub(sc.before[v])
		l := d.Len()
		if l < 1e-12 {
			continue
		}
		u := d.Scale(1 / l)
		vf := pos[v].Sub(prev[v]).Dot(u) / dt
		vb := sc.before[v].Sub(prev[v]).Dot(u) / dt
		if ex := vf - max(selfMaxSeparation, vb); ex > 0 {
			prev[v] = prev[v].AddScaled(u, ex*dt)
		}
	}
}

// iterate projects the near pairs with selfSweeps Gauss-Seidel sweeps in
// pair order, with friction in the last sweep if asked.
func (sc *selfCollision) iterate(friction bool) {
	pos, prev, w, tris := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass, sc.m.Topo.Tris
	nvt := len(sc.vt)
	for sweep := 0; sweep < selfSweeps; sweep++ {
		mu := 0.0
		if friction && sweep == selfSweeps-1 {
			mu = sc.mu
		}
		for _, k := range sc.near {
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

// rebuild collects the pairs that can come closer than h + margin while
// every vertex stays within its allowance, from the substep's start
// positions.
func (sc *selfCollision) rebuild() {
	sc.Rebuilds++
	copy(sc.x0, sc.b.s.Prev)
	sc.valid = true
	maxSkin := slices.Max(sc.skin)
	sc.inv = 1 / (sc.lmax + (1+selfMargin)*sc.h + 2*math.Min(maxSkin, sc.lmax))
	x := sc.x0
	tris := sc.m.Topo.Tris

	// boxes, then the three hashes
	sc.b.pool.run(max(len(x), len(tris), len(sc.edges)), sc.fnBoxes)
	// the edge hash (the largest) on another goroutine while this one
	// builds the other two
	var wg sync.WaitGroup
	wg.Go(func() {
		sc.eg.build(sc, len(sc.edges), sc.elo, sc.ehi, func(i int) [3]int32 { e := sc.edges[i]; return [3]int32{e[0], e[1], -1} })
	})
	sc.vg.build(sc, len(x), sc.vlo, sc.vhi, func(i int) [3]int32 { return [3]int32{int32(i), -1, -1} })
	sc.tg.build(sc, len(tris), sc.tlo, sc.thi, func(i int) [3]int32 { return tris[i] })
	wg.Wait()

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
}

// boxes computes the inflated vertex, triangle and edge boxes at x0.
func (sc *selfCollision) boxes(lo, hi int) {
	x, tris, sk := sc.x0, sc.m.Topo.Tris, sc.skin
	hm := (1 + selfMargin) * sc.h
	for i := lo; i < hi; i++ {
		if i < len(x) {
			r := vec.V(sk[i], sk[i], sk[i])
			sc.vlo[i], sc.vhi[i] = x[i].Sub(r), x[i].Add(r)
		}
		if i < len(tris) {
			t := tris[i]
			a, b, c := x[t[0]], x[t[1]], x[t[2]]
			s := hm + max(sk[t[0]], sk[t[1]], sk[t[2]])
			r := vec.V(s, s, s)
			sc.tlo[i], sc.thi[i] = a.Min(b).Min(c).Sub(r), a.Max(b).Max(c).Add(r)
		}
		if i < len(sc.edges) {
			e := sc.edges[i]
			a, b := x[e[0]], x[e[1]]
			s := hm/2 + max(sk[e[0]], sk[e[1]])
			r := vec.V(s, s, s)
			sc.elo[i], sc.ehi[i] = a.Min(b).Sub(r), a.Max(b).Add(r)
		}
	}
}

func (sc *selfCollision) cellOf(p vec.Vec3) [3]int32 {
	return [3]int32{int32(math.Floor(p.X * sc.inv)), int32(math.Floor(p.Y * sc.inv)), int32(math.Floor(p.Z * sc.inv))}
}

func (sc *selfCollision) bucket(c [3]int32) uint32 {
	return (uint32(c[0])*73856093 ^ uint32(c[1])*19349663 ^ uint32(c[2])*83492791) & sc.mask
}

// build fills g with items 0..n-1 (vertices vs of each) inserted into
// every cell their box [lo[i], hi[i]] overlaps (counting sort by bucket;
// within a bucket by item). Each entry carries the item's box and
// vertices, so the narrow phase reads its buckets sequentially.
func (g *grid) build(sc *selfCollision, n int, lo, hi []vec.Vec3, vs func(i int) [3]int32) {
	clear(g.start)
	total := 0
	for i := 0; i < n; i++ {
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
	for i := 0; i < n; i++ {
		e := gridEnt{id: int32(i), v: vs(i), lo: lo[i], hi: hi[i]}
		c0, c1 := sc.cellOf(lo[i]), sc.cellOf(hi[i])
		for x := c0[0]; x <= c1[0]; x++ {
			for y := c0[1]; y <= c1[1]; y++ {
				for z := c0[2]; z <= c1[2]; z++ {
					e.c = [3]int32{x, y, z}
					k := sc.bucket(e.c)
					g.ent[g.start[k]] = e
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

// narrow finds the pairs of buckets [lo, hi). A pair is reported in the
// cell holding the low corner of the overlap of its two boxes, so once.
func (sc *selfCollision) narrow(lo, hi int) {
	sl := &sc.slots[sc.next.Add(1)-1]
	sl.lo, sl.vt, sl.ee = lo, sl.vt[:0], sl.ee[:0]
	x, rest, w, sk := sc.x0, sc.m.Rest, sc.m.InvMass, sc.skin
	hm := (1 + selfMargin) * sc.h
	for k := lo; k < hi; k++ {
		ts := sc.tg.ent[sc.tg.start[k]:sc.tg.start[k+1]]
		for vi := range sc.vg.ent[sc.vg.start[k]:sc.vg.start[k+1]] {
			ve := &sc.vg.ent[int(sc.vg.start[k])+vi]
			v := ve.id
			p := x[v]
			vl, vh := ve.lo, ve.hi
			for ti := range ts {
				te := &ts[ti]
				if te.c != ve.c || !boxesOverlap(vl, vh, te.lo, te.hi) {
					continue
				}
				t := te.v
				if t[0] == v || t[1] == v || t[2] == v {
					continue
				}
				if w[v] == 0 && w[t[0]] == 0 && w[t[1]] == 0 && w[t[2]] == 0 {
					continue
				}
				if sc.cellOf(vl.Max(te.lo)) != ve.c {
					continue
				}
				a, b, c := x[t[0]], x[t[1]], x[t[2]]
				uu, vv, ww := closestOnTriangle(p, a, b, c)
				d := p.Sub(a.Scale(uu).Add(b.Scale(vv)).Add(c.Scale(ww)))
				r := hm + sk[v] + max(sk[t[0]], sk[t[1]], sk[t[2]])
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
		es := sc.eg.ent[sc.eg.start[k]:sc.eg.start[k+1]]
		for i := range es {
			ea := &es[i]
			alo, ahi := ea.lo, ea.hi
			e0 := [2]int32{ea.v[0], ea.v[1]}
			for j := i + 1; j < len(es); j++ {
				eb := &es[j]
				if eb.c != ea.c || !boxesOverlap(alo, ahi, eb.lo, eb.hi) {
					continue
				}
				e1 := [2]int32{eb.v[0], eb.v[1]}
				if e0[0] == e1[0] || e0[0] == e1[1] || e0[1] == e1[0] || e0[1] == e1[1] {
					continue
				}
				if w[e0[0]] == 0 && w[e0[1]] == 0 && w[e1[0]] == 0 && w[e1[1]] == 0 {
					continue
				}
				if sc.cellOf(alo.Max(eb.lo)) != ea.c {
					continue
				}
				a, b, c, d := x[e0[0]], x[e0[1]], x[e1[0]], x[e1[1]]
				s, t := closestSegments(a, b, c, d)
				diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
				l := diff.Len()
				r := hm + max(sk[e0[0]], sk[e0[1]]) + max(sk[e1[0]], sk[e1[1]])
				if l >= r {
					continue
				}
				var n vec.Vec3
				if l > 1e-12 {
					n = diff.Scale(1 / l)
				} else {
					n = b.Sub(a).Cross(d.Sub(c)).Normalize()
				}
				lo, hi := ea.id, eb.id
				if lo > hi {
					lo, hi = hi, lo
					n = n.Scale(-1)
				}
				for _, o := range sc.eeOldAt.idx[sc.eeOldAt.start[lo]:sc.eeOldAt.start[lo+1]] {
					if sc.eeOld[o].e1 == hi {
						n = sc.eeOld[o].n
						break
					}
				}
				h := sc.h
				ra, rb := rest[e0[0]].Add(rest[e0[1]]).Scale(0.5), rest[e1[0]].Add(rest[e1[1]]).Scale(0.5)
				if ra.Sub(rb).Len()-sc.edgeMidR[ea.id]-sc.edgeMidR[eb.id] < h {
					h = math.Min(h, segmentDist(rest[e0[0]], rest[e0[1]], rest[e1[0]], rest[e1[1]]))
				}
				sl.ee = append(sl.ee, eePair{e0: lo, e1: hi, h: h, n: n})
			}
		}
	}
}

func gather4(pos, prev []vec.Vec3, w []float64, vs [4]int32) (q4, p4 [4]vec.Vec3, w4 [4]float64) {
	for i, v := range vs {
		q4[i], p4[i], w4[i] = pos[v], prev[v], w[v]
	}
	return
}
