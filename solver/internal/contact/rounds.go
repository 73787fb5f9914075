package contact

import (
	"math/bits"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver/internal/pool"
)

// runGroups runs the rounds of the components the workers claim.
func (sc *Contact) runGroups(_, _ int) {
	for g := sc.comps.claim(); g != nil; g = sc.comps.claim() {
		sc.startGroup(g)
		sc.rounds(g)
	}
}

// rounds runs the substep's self-collision rounds on group g:
// numRounds rounds of a pick (the first is update's), up to
// numSweeps Gauss-Seidel sweeps over the near pairs, every other one
// backwards (symmetric Gauss-Seidel: no pair order is favoured), and the
// colliders for the vertices they moved; then the fail-safe. The last
// round's last sweep applies friction. A sweep that moves no vertex by
// convergedPush·h or more ends its round; when a round's first sweep does,
// nothing came near, and only the friction sweep is left to run, over the
// same pairs.
//
// Once the pairs near the vertices a sweep still pushed that far are few
// (see narrow), the sweeps and rounds run on them alone, and the friction
// sweep on all of g's near pairs of its last pick.
func (sc *Contact) rounds(g *pairGroup) {
	tol := sc.hotSq
	converged := false
	cur := g // g, or the part of it the sweeps narrowed to
	g.left = nil
	for it := 0; it < numRounds; it++ {
		last := it == numRounds-1
		if it > 0 && !converged {
			cur = sc.narrow(g, cur, true)
		}
		moved, onG := false, false
		for s := 0; s < numSweeps; s++ {
			friction := last && s == numSweeps-1
			if converged && !friction {
				continue
			}
			mu := 0.0
			if friction {
				mu = sc.mu
				if cur != g {
					if moved && sc.col != nil {
						sc.reproject(cur)
						cur.tick++
					}
					g.left = cur
					g.tick, cur = cur.tick, g
				}
			}
			// the whole list's first sweep of a round marks the near
			// pairs' vertices for the colliders (collideNear)
			mark := cur == &sc.all && !onG && sc.col != nil
			onG = onG || cur == g
			if sc.sweep(cur, mu, s%2 == 1, mark) >= tol {
				moved = true
				if s+1 < numSweeps && !(last && s+2 == numSweeps) {
					cur = sc.narrow(g, cur, false)
				}
				continue
			}
			if !last {
				break
			}
			s = max(s, numSweeps-2) // on to the friction sweep
		}
		if !moved && !last {
			it, converged = numRounds-2, true
			continue
		}
		if sc.col != nil {
			// the colliders for the vertices the round's sweeps on g
			// moved, and on its part
			if onG {
				g.tick = cur.tick
				sc.reproject(g)
				g.tick++ // the ticks collideStamped stamped
				cur.tick = g.tick
			}
			if cur != g {
				sc.reproject(cur)
				cur.tick++
			}
		}
	}
	sc.failSafe(g)
	g.converged = converged
}

// reproject projects the vertices of group g's near pairs out of the
// colliders: for the whole list in parallel (found by the marks its
// sweeps left), for a component on the calling goroutine.
func (sc *Contact) reproject(g *pairGroup) {
	if g != &sc.all {
		for _, v := range sc.touched(g) {
			sc.collideStamped(v, g.tick)
		}
		return
	}
	n := len(sc.pos)
	sc.run(phaseNear, n, n*sc.col.Cost(), pool.MinChunk)
}

// collideNear projects the vertices of [lo, hi) in near pairs, which the
// whole list's sweeps mark (Contact.inNear), out of every collider
// (see collideStamped), and clears the marks.
func (sc *Contact) collideNear(lo, hi int) {
	in := sc.inNear
	for v := lo; v < hi; v++ {
		if in[v] {
			in[v] = false
			sc.collideStamped(int32(v), sc.all.tick)
		}
	}
}

// collideStamped projects vertex v out of every collider and, if that
// moves it, stamps it for the self-collision projections (see
// Contact.pStamp) with the tick after tick, its group's, and marks
// it hot if it drifted far enough (see Contact.drift).
func (sc *Contact) collideStamped(v, tick int32) {
	pos := sc.pos
	x := pos[v]
	sc.col.Collide(v)
	if pos[v] != x {
		sc.pushed(v, pos[v].Sub(x).Len(), tick+1, tick+1)
	}
}

// touched lists the vertices of group g's pairs near contact, each once,
// in g.touched.
func (sc *Contact) touched(g *pairGroup) []int32 {
	g.touched = sc.vertsOf(g.near, g.touched)
	return g.touched
}

// vertsOf returns the vertices of pairs, each once, in out's storage.
// Groups use it concurrently: their pairs share no vertex (sc.mark).
func (sc *Contact) vertsOf(pairs, out []int32) []int32 {
	out = out[:0]
	for _, k := range pairs {
		for _, v := range sc.pv[k] {
			if !sc.mark[v] {
				sc.mark[v] = true
				out = append(out, v)
			}
		}
	}
	for _, v := range out {
		sc.mark[v] = false
	}
	return out
}

// failSafe puts the vertices of every pair of group g still crossed
// after the iterations back where they started the substep (which was
// resolved), and checks again, up to failSafeRounds times: a crossing
// the projection could not undo costs those vertices the substep's motion
// instead of leaving the cloth interpenetrating. It returns the number of
// pairs still crossed.
func (sc *Contact) failSafe(g *pairGroup) int {
	pos, prev, w := sc.pos, sc.prev, sc.w
	crossed := 0
	g.crossOnly = true
	defer func() { g.crossOnly = false }()
	for round := 0; round <= failSafeRounds; round++ {
		sc.repick(g)
		crossed = 0
		g.tick++ // stamps the vertices put back, for the next pick
		for _, k := range g.near {
			if !sc.crossFlag[k] {
				continue
			}
			crossed++
			if round == failSafeRounds {
				continue
			}
			for _, v := range sc.pv[k] {
				if w[v] != 0 && pos[v] != prev[v] {
					pos[v] = prev[v]
					sc.vStamp[v] = g.tick
					g.reverts++
				}
			}
		}
		if crossed == 0 {
			break
		}
	}
	return crossed
}

// untangle puts back where they started the substep the vertices of the
// triangles of each pair near contact that intersect now but did not
// then: a crossing the pairs' flags miss (an edge through a triangle's
// interior while both its ends stay on their remembered sides, in a heap
// squeezed below the thickness), which the fail-safe therefore leaves.
// The triangles checked are a vertex-triangle pair's triangle against
// those around its vertex, and the triangles of an edge-edge pair's two
// edges. It runs on every near list serially, in group and pair order,
// until a round puts nothing back (at most failSafeRounds), and
// returns the vertices put back.
func (sc *Contact) untangle() int {
	pos, prev, w := sc.pos, sc.prev, sc.w
	tris, edgeTris := sc.tris, sc.edgeTris
	nvt := int32(len(sc.vt))
	reverts := 0
	// test reports whether triangles a and b (sharing no vertex) cross
	// now but not at the substep's start, and if so puts theirs back
	test := func(a, b int32) bool {
		ta, tb := tris[a], tris[b]
		if shareVertex(ta, tb) || oneSide(pos, ta, tb) || oneSide(pos, tb, ta) ||
			!trianglesIntersect(pos, ta, tb) || trianglesIntersect(prev, ta, tb) {
			return false
		}
		for _, t := range [2][3]int32{ta, tb} {
			for _, v := range t {
				if w[v] != 0 && pos[v] != prev[v] {
					pos[v] = prev[v]
					reverts++
				}
			}
		}
		return true
	}
	// scan tests group g's near pairs, unless its rounds converged (or
	// only those of the part its rounds ended on)
	scan := func(g *pairGroup) (found bool) {
		if g.converged {
			return false
		}
		pairs, all := g.near, true
		if g.left != nil {
			pairs, all = g.left.pairs, false
		}
		for _, k := range pairs {
			if !all && !sc.nearFlag[k] {
				continue
			}
			if k < nvt {
				p := &sc.vt[k]
				for _, a := range sc.tree.vertTris[p.v] {
					found = test(a, p.t) || found
				}
				continue
			}
			p := &sc.ee[k-nvt]
			for _, a := range edgeTris[p.e0] {
				for _, b := range edgeTris[p.e1] {
					if a >= 0 && b >= 0 {
						found = test(a, b) || found
					}
				}
			}
		}
		return found
	}
	split := !sc.par.classed && sc.comps.ok
	for round := 0; round < failSafeRounds; round++ {
		found := false
		if split {
			for i := range sc.comps.groups {
				found = scan(&sc.comps.groups[i]) || found
			}
		} else {
			found = scan(&sc.all)
		}
		if !found {
			break
		}
	}
	return reverts
}

// oneSide reports whether triangle t lies strictly on one side of the
// plane of triangle u, so that the two cannot intersect (the cheap
// rejection of Möller's triangle-triangle test).
func oneSide(pos []vec.Vec3, t, u [3]int32) bool {
	o := pos[u[0]]
	n := pos[u[1]].Sub(o).Cross(pos[u[2]].Sub(o))
	d0, d1, d2 := pos[t[0]].Sub(o).Dot(n), pos[t[1]].Sub(o).Dot(n), pos[t[2]].Sub(o).Dot(n)
	return d0 > 0 && d1 > 0 && d2 > 0 || d0 < 0 && d1 < 0 && d2 < 0
}

// separate caps the separating velocity the self-collision pushes of this
// substep give vertices [lo, hi) at maxSeparation (the maximum
// depenetration velocity of rigid-body engines): a push that cancels a
// vertex's approach keeps its full effect on the velocity, but a pair that
// started the substep closer than h is pushed apart in position without
// being thrown apart, which would feed energy into a resting heap.
func (sc *Contact) separate(lo, hi int) {
	pos, prev, w := sc.pos, sc.prev, sc.w
	dt := sc.dt
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
		if ex := vf - max(maxSeparation, vb); ex > 0 {
			prev[v] = prev[v].AddScaled(u, ex*dt)
		}
	}
}

// pushed records that a projection (stamp tick, marking drift with mark)
// moved vertex v by dist: its walk, its stamp (sc.pStamp) and whether it
// drifted hot (drift).
func (sc *Contact) pushed(v int32, dist float64, tick, mark int32) {
	sc.walk[v] += dist
	sc.walkAt[v] = sc.pos[v]
	sc.vStamp[v] = tick
	sc.drift(v, mark)
}

// drift marks vertex v hot with mark (the tick of the sweep, or later)
// once it has moved convergedPush·h or more from its anchor (its position
// at the substep's first pick, or when it was last marked), and moves the
// anchor there. A pair none of whose vertices was marked since its last
// projection has moved less than twice that since: narrow leaves it out.
func (sc *Contact) drift(v, mark int32) {
	if x := sc.pos[v]; x.Sub(sc.anchor[v]).LenSq() >= sc.hotSq {
		sc.vHot[v], sc.anchor[v] = mark, x
	}
}

// sweep projects group g's near pairs once in pair order (or class by
// class, see classify), backwards if back, with friction mu, and returns
// the largest squared push. With mark set it marks the pairs' vertices for
// the colliders (collideNear).
//
// Each pair's evaluation has a tick, its place in the sweep's order after
// the ticks of earlier sweeps (sc.pStamp, sc.vStamp); pairs that share a
// vertex are evaluated in the order of their ticks, in parallel sweeps too.
func (sc *Contact) sweep(g *pairGroup, mu float64, back, mark bool) float64 {
	n := int32(len(g.near))
	g.hotTick = g.tick + 1
	var maxSq float64
	if g == &sc.all && sc.par.classed {
		if !sc.par.cut {
			sc.classify()
			sc.par.cut = true
		}
		maxSq = sc.sweepParallel(mu, back, mark)
	} else {
		var skipped int
		maxSq, skipped = sc.sweepRange(g.near, 0, n, mu, back, g.tick, mark)
		g.skipped += skipped
	}
	g.tick += n
	return maxSq
}

// narrow returns the pairs group g's next sweep runs on, after a sweep
// on cur (g or g.part): the pairs of g with a vertex that sweep, or the
// colliders after it, marked hot (see drift: the pairs it left
// unconverged, and their neighbours) in g.part, if they are at most
// 1/narrowMax of g's pairs, else g. With pick set they are picked
// again, together with the pairs of the vertices that moved
// margin·h/2 since the substep's first pick, else they keep the near
// flags of the last pick. In a resting heap a few pairs squeezed against
// the ground keep pushing while the rest has converged, and sweeping and
// picking the whole list for them would cost most of its self-collision
// time. The part continues g's ticks, and its pick
// refreshes the pairs whose vertices moved since g's last pick.
func (sc *Contact) narrow(g, cur *pairGroup, pick bool) *pairGroup {
	if g.part == nil {
		g.part = &pairGroup{}
	}
	pt := g.part
	if pick {
		// pairs not near at g's last pick came near only if a vertex
		// moved margin·h/2 since the first (see refreshPair)
		sc.movedSince(g)
	}
	if !sc.hotPairs(g, cur.hotTick, pick, pt) {
		g.tick = cur.tick
		if pick {
			sc.pickMoved(g)
		}
		return g
	}
	g.narrowed++
	g.share += float64(len(pt.pairs)) / float64(max(sc.pairsOf(g), 1))
	pt.tick, pt.pickTick = cur.tick, g.pickTick
	if pick {
		sc.pickMoved(pt)
	} else {
		sc.listGroupNear(pt)
	}
	return pt
}

// hotPairs lists in pt.pairs, ascending, the pairs of group g with a
// vertex marked hot at tick hot or later (sc.vHot), or moved (sc.moved) if
// moved is set, and reports whether they are at most 1/narrowMax of
// g's pairs. The whole list finds them through the vertices' pairs
// (sc.adj), a component by scanning its pairs.
func (sc *Contact) hotPairs(g *pairGroup, hot int32, moved bool, pt *pairGroup) bool {
	vh, mv := sc.vHot, sc.moved
	isHot := func(v int32) bool { return vh[v] >= hot || moved && mv[v] }
	pt.pairs = pt.pairs[:0]
	limit := sc.pairsOf(g) / narrowMax
	// scan lists the hot pairs among pairs (nil: every listed pair)
	scan := func(pairs []int32) bool {
		for i := range sc.pairsOf(g) {
			k := int32(i)
			if pairs != nil {
				k = pairs[i]
			}
			vs := sc.pv[k]
			if !isHot(vs[0]) && !isHot(vs[1]) && !isHot(vs[2]) && !isHot(vs[3]) {
				continue
			}
			if len(pt.pairs) == limit {
				return false
			}
			pt.pairs = append(pt.pairs, k)
		}
		return true
	}
	if g != &sc.all {
		return scan(g.pairs)
	}
	// more than a 4·narrowMax-th of the vertices hot means too many
	// pairs to narrow to, found by a scan of the vertices without
	// building the index of the pairs (which a crumpling heap would
	// rebuild every substep)
	a := &sc.adj
	a.hot = a.hot[:0]
	for v := range vh {
		if isHot(int32(v)) {
			a.hot = append(a.hot, int32(v))
		}
	}
	if len(a.hot) > len(vh)/(4*narrowMax) {
		return false
	}
	if !a.ok {
		if a.at == sc.substep && a.scans < scansMax {
			// the list changed in this substep, and may again in the
			// next: a few scans cost less than the index (see scansMax)
			a.scans++
			return scan(nil)
		}
		sc.indexAdj()
	}
	// the pairs are flagged in a bit set, read back in ascending order
	// (cheaper than sorting them)
	seen, count, ok := a.seen, 0, true
hot:
	for _, v := range a.hot {
		for _, k := range a.pairs[a.start[v]:a.start[v+1]] {
			w, b := k>>6, uint64(1)<<(k&63)
			if seen[w]&b != 0 {
				continue
			}
			if count == limit {
				ok = false
				break hot
			}
			seen[w] |= b
			count++
		}
	}
	for w, x := range seen {
		if x == 0 {
			continue
		}
		seen[w] = 0
		for ; ok && x != 0; x &= x - 1 {
			pt.pairs = append(pt.pairs, int32(w<<6+bits.TrailingZeros64(x)))
		}
	}
	return ok
}

// pairsOf returns the number of group g's listed pairs (every listed
// pair for the whole list).
func (sc *Contact) pairsOf(g *pairGroup) int {
	if g == &sc.all {
		return len(sc.vt) + len(sc.ee)
	}
	return len(g.pairs)
}

// pairAdj lists each vertex's listed pairs (CSR): vertex v's are
// pairs[start[v]:start[v+1]], ascending. It is built when narrow needs it
// after the list changed (ok false), unless scans find the pairs instead
// (see scansMax).
type pairAdj struct {
	ok    bool
	at    int // the substep in which the list last changed
	scans int // the scans hotPairs made instead since
	start []int32
	pairs []int32
	seen  []uint64 // scratch: hotPairs's bit set of the pairs it lists (zero between)
	hot   []int32  // scratch: hotPairs's hot vertices, ascending
}

// changed records that the list changed in substep substep.
func (a *pairAdj) changed(substep int) {
	a.ok, a.at, a.scans = false, substep, 0
}

// indexAdj builds sc.adj from the listed pairs.
func (sc *Contact) indexAdj() {
	a := &sc.adj
	nv := len(sc.ref)
	n := len(sc.vt) + len(sc.ee)
	a.start = slices.Grow(a.start[:0], nv+1)[:nv+1]
	clear(a.start)
	for k := range n {
		for _, v := range sc.pv[k] {
			a.start[v+1]++
		}
	}
	for v := range nv {
		a.start[v+1] += a.start[v]
	}
	a.pairs = slices.Grow(a.pairs[:0], 4*n)[:4*n]
	for k := range n {
		for _, v := range sc.pv[k] {
			// start[v] is v's next free place while filling
			a.pairs[a.start[v]] = int32(k)
			a.start[v]++
		}
	}
	// the filling moved each start to the next vertex's
	copy(a.start[1:], a.start[:nv])
	a.start[0] = 0
	a.seen = slices.Grow(a.seen[:0], (n+63)/64)[:(n+63)/64]
	clear(a.seen)
	a.ok = true
}

// sweepRange projects the near pairs near[lo:hi] in order (backwards if
// back), the pair at position j with tick base + j + 1 (base + len(near) -
// j backwards), and returns the largest squared push and the number of
// pairs skipped. With mark set it sets sc.inNear of the pairs' vertices.
func (sc *Contact) sweepRange(near []int32, lo, hi int32, mu float64, back bool, base int32, mark bool) (maxSq float64, skipped int) {
	pos, prev, w := sc.pos, sc.prev, sc.w
	nvt := int32(len(sc.vt))
	n := int32(len(near))
	st, wk := sc.vStamp, sc.walk
	for i := lo; i < hi; i++ {
		j, tick := i, base+i+1
		if back {
			j = hi - 1 - (i - lo)
			tick = base + n - j
		}
		k := near[j]
		vs := sc.pv[k]
		if mark {
			in := sc.inNear
			in[vs[0]], in[vs[1]], in[vs[2]], in[vs[3]] = true, true, true, true
		}
		// a pair found out of contact stays so while its vertices keep
		// the positions it was found at (see sc.pStamp)
		if ps := sc.pStamp[k]; !sc.o.NoSkip && ps > 0 && st[vs[0]] < ps && st[vs[1]] < ps && st[vs[2]] < ps && st[vs[3]] < ps {
			skipped++
			continue
		}
		// (summed in a fixed order: a sum of walks that only grow does
		// not decrease when rounded)
		ws := wk[vs[0]] + wk[vs[1]] + wk[vs[2]] + wk[vs[3]]
		if !sc.o.NoSkip && ws < sc.budget[k] {
			skipped++
			continue
		}
		// the separation tests first, which need only the positions
		q4 := [4]vec.Vec3{pos[vs[0]], pos[vs[1]], pos[vs[2]], pos[vs[3]]}
		var dx [4]vec.Vec3
		var on, apart bool
		var gap float64
		if k < nvt {
			p4 := &sc.vt[k]
			if gap, apart = vertexTriangleApart(q4, p4.h, p4.side); !apart {
				pr4, w4 := gather4(prev, w, vs)
				dx, on = projectVertexTriangle(q4, pr4, w4, p4.h, mu, p4.side)
			}
		} else {
			e4 := &sc.ee[k-nvt]
			if gap, apart = edgeEdgeApart(q4, e4.h, e4.n); !apart {
				pr4, w4 := gather4(prev, w, vs)
				dx, on = projectEdgeEdge(q4, pr4, w4, e4.h, mu, e4.n)
			}
		}
		if !on {
			sc.pStamp[k] = tick
			sc.budget[k] = ws + gap
			continue
		}
		sc.pStamp[k] = 0
		sc.budget[k] = 0
		for i, v := range vs {
			pos[v] = pos[v].Add(dx[i])
			sc.pushed(v, dx[i].Len(), tick, base+1)
			maxSq = max(maxSq, dx[i].LenSq())
		}
	}
	return maxSq, skipped
}

// gather4 returns the positions at the substep's start and the inverse
// masses of vertices vs.
func gather4(prev []vec.Vec3, w []float64, vs [4]int32) (p4 [4]vec.Vec3, w4 [4]float64) {
	for i, v := range vs {
		p4[i], w4[i] = prev[v], w[v]
	}
	return
}
