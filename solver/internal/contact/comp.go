package contact

import (
	"slices"
	"sync/atomic"
)

// A substep's projection rounds (picks, sweeps, the colliders between
// them and the fail-safe) touch only the vertices of listed pairs, and a
// pair only its own four. So the listed pairs fall into components that
// share no vertex (joined through shared vertices), and the rounds of one
// component never see another's: they run component by component, in
// parallel, without a barrier between sweeps. A resting drape's folds are
// a handful of components: the 64 x 64 sphere drape's list of about 2600
// pairs holds 9 or 10, the largest with about a quarter of the pairs.
//
// Each component runs the rounds of the whole list on its own pairs, in
// pair order, with its own ticks and its own convergence test: a
// component stops sweeping once its own pushes are small, whatever the
// others do. What it computes depends only on its pairs, so the result
// does not depend on which worker ran it, or on the thread count.
//
// The whole list runs as one group instead when a component holds more
// than half of the pairs (nothing to share) or when the pairs near
// contact are many (a heap, whose sweeps run slab by slab in parallel, see
// classify).

// components is the split of the listed pairs into components.
type components struct {
	ok     bool // the substep's rounds run on groups (split's result)
	groups []pairGroup
	order  []int32 // groups by size, largest first (the order they are claimed in)
	next   atomic.Int32

	root   []int32 // per vertex: union-find parent (-1: in no listed pair)
	id     []int32 // per vertex: its root's component (-1: none yet)
	verts  []int32 // the vertices of listed pairs, in first-seen order
	pairs  []int32 // every group's pairs, group after group (backing)
	gverts []int32 // every group's vertices, group after group (backing)
	vg     []int32 // scratch: per vertex of verts, its group
	nv     []int32 // scratch: per group, its vertices
	first  []int32 // scratch: per listed pair, its first vertex
	of     []int32 // scratch: per listed pair, its group
	count  []int32 // scratch: per group, its pairs
}

// find returns the union-find root of vertex v, halving the path.
func (cs *components) find(v int32) int32 {
	r := cs.root
	for r[v] != v {
		r[v] = r[r[v]]
		v = r[v]
	}
	return v
}

// split divides the listed pairs into components (sc.comps.groups) and
// reports whether the rounds run component by component.
func (sc *Contact) split() bool {
	cs := &sc.comps
	n := len(sc.vt) + len(sc.ee)
	if n == 0 {
		return false
	}
	if cs.root == nil {
		cs.root = make([]int32, len(sc.ref))
		cs.id = make([]int32, len(sc.ref))
		for v := range cs.root {
			cs.root[v], cs.id[v] = -1, -1
		}
	}
	// union the vertices of every pair
	verts := cs.verts[:0]
	root := cs.root
	first := slices.Grow(cs.first[:0], n)[:n]
	union := func(vs [4]int32) {
		for _, v := range vs {
			if root[v] < 0 {
				root[v] = v
				verts = append(verts, v)
			}
		}
		a := cs.find(vs[0])
		for _, v := range vs[1:] {
			if b := cs.find(v); b != a {
				a, b = min(a, b), max(a, b)
				root[b] = a
			}
		}
	}
	for k, vs := range sc.pv {
		first[k] = vs[0]
		union(vs)
	}
	cs.first = first
	cs.verts = verts
	// every vertex straight to its root
	for _, v := range verts {
		cs.root[v] = cs.find(v)
	}
	// number the components by their first pair, and count their pairs
	groups := 0
	count := cs.count[:0]
	of := slices.Grow(cs.of[:0], n)[:n]
	for k, v := range first {
		r := root[v]
		if cs.id[r] < 0 {
			cs.id[r] = int32(groups)
			groups++
			count = append(count, 0)
		}
		of[k] = cs.id[r]
		count[of[k]]++
	}
	cs.of, cs.count = of, count
	// each vertex's group, before reset forgets them
	vg := slices.Grow(cs.vg[:0], len(verts))[:len(verts)]
	for i, v := range verts {
		vg[i] = cs.id[root[v]]
	}
	cs.vg = vg
	cs.reset()
	if groups < 2 || 2*int(slices.Max(count)) > n {
		return false
	}
	// the groups' pairs in pair order, group after group
	cs.pairs = slices.Grow(cs.pairs[:0], n)[:n]
	if cap(cs.groups) < groups {
		cs.groups = make([]pairGroup, groups)
	}
	cs.groups = cs.groups[:groups]
	carve(cs.pairs, count, func(g int, run []int32) { cs.groups[g].pairs = run })
	for k, g := range of {
		cs.groups[g].pairs = append(cs.groups[g].pairs, int32(k))
	}
	// and their vertices, in the order the pairs first use them
	nv := slices.Grow(cs.nv[:0], groups)[:groups]
	clear(nv)
	cs.nv = nv
	for _, g := range vg {
		nv[g]++
	}
	cs.gverts = slices.Grow(cs.gverts[:0], len(verts))[:len(verts)]
	carve(cs.gverts, nv, func(g int, run []int32) { cs.groups[g].verts = run })
	for i, v := range verts {
		g := &cs.groups[vg[i]]
		g.verts = append(g.verts, v)
	}
	// the largest first, so that the last ones claimed are small
	cs.order = cs.order[:0]
	for g := range cs.groups {
		cs.order = append(cs.order, int32(g))
	}
	slices.SortStableFunc(cs.order, func(a, b int32) int {
		return len(cs.groups[b].pairs) - len(cs.groups[a].pairs)
	})
	return true
}

// carve cuts backing into consecutive empty runs, run g with room for
// counts[g] items, and hands each to set (which keeps it to append to).
func carve(backing, counts []int32, set func(g int, run []int32)) {
	lo := int32(0)
	for g, c := range counts {
		set(g, backing[lo:lo:lo+c])
		lo += c
	}
}

// refreshSplit is refresh for the substep's first pick, whose first chunk
// also splits the list into components: the split needs only the list,
// and runs while the other workers refresh.
func (sc *Contact) refreshSplit(lo, hi int) {
	if lo == 0 {
		sc.comps.ok = sc.split()
	}
	sc.refresh(lo, hi)
}

// reset clears the per-vertex union-find state of the vertices split used.
func (cs *components) reset() {
	for _, v := range cs.verts {
		cs.root[v], cs.id[v] = -1, -1
	}
}

// claim returns the next group to run, or nil when none is left.
func (cs *components) claim() *pairGroup {
	i := int(cs.next.Add(1) - 1)
	if i >= len(cs.order) {
		return nil
	}
	return &cs.groups[cs.order[i]]
}

// startGroup readies group g for the substep's rounds after the first
// pick (update): its near pairs and its ticks at the substep's start
// (split listed its vertices).
func (sc *Contact) startGroup(g *pairGroup) {
	g.tick, g.pickTick = 0, 0
	sc.listGroupNear(g)
}

// listGroupNear lists component g's pairs flagged near in g.near.
func (sc *Contact) listGroupNear(g *pairGroup) {
	g.near = g.near[:0]
	for _, k := range g.pairs {
		if sc.nearFlag[k] {
			g.near = append(g.near, k)
		}
	}
}

// repick picks group g's near pairs again (without the side memories):
// the whole list in parallel, a component on the calling goroutine.
func (sc *Contact) repick(g *pairGroup) {
	sc.movedSince(g)
	sc.pickMoved(g)
}

// pickMoved is repick once sc.moved flags which of g's vertices moved
// (movedSince of g, or of a group holding g).
func (sc *Contact) pickMoved(g *pairGroup) {
	if g == &sc.all {
		sc.pick(false)
		return
	}
	for _, k := range g.pairs {
		sc.refreshPair(int(k), g.pickTick, g.crossOnly)
	}
	g.pickTick = g.tick
	sc.listGroupNear(g)
}

// movedSince flags in sc.moved which vertices of group g (every vertex
// for the whole list) moved margin·h/2 since the substep's first pick.
func (sc *Contact) movedSince(g *pairGroup) {
	still := margin * sc.h / 2
	still *= still
	pos := sc.pos
	if g == &sc.all {
		for v, p := range sc.pickPos {
			sc.moved[v] = pos[v].Sub(p).LenSq() >= still
		}
		return
	}
	for _, v := range g.verts {
		sc.moved[v] = pos[v].Sub(sc.pickPos[v]).LenSq() >= still
	}
}

// addStats adds group g's counters to the statistics and clears them.
func (sc *Contact) addStats(g *pairGroup) {
	sc.stats.Skipped += g.skipped
	sc.stats.Reverts += g.reverts
	sc.stats.Narrowed += g.narrowed
	sc.stats.NarrowedPart += g.share
	g.skipped, g.reverts, g.narrowed, g.share = 0, 0, 0, 0
}
