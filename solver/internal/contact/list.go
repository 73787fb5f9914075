package contact

import (
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver/internal/pool"
)

// update clamps this substep's relative displacements, updates the
// neighbour list if a vertex left its allowance or a triangle turned, and
// picks the pairs near contact.
func (sc *Contact) update() {
	pos := sc.pos
	// mean position of the free vertices now and at the substep's start
	// (block by block, then the blocks in order: deterministic)
	nb := len(sc.blocks)
	sc.run(phaseMean, nb, len(pos), pool.MinChunk)
	var mNow, mPrev vec.Vec3
	nf := 0
	for i := range sc.blocks {
		bl := &sc.blocks[i]
		mNow, mPrev, nf = mNow.Add(bl.now), mPrev.Add(bl.prev), nf+bl.n
	}
	if nf == 0 {
		copy(sc.before, pos)
		return
	}
	mNow, mPrev = mNow.Scale(1/float64(nf)), mPrev.Scale(1/float64(nf))
	cs := mNow.Sub(mPrev)
	// clamp displacements to maxRel·h per substep relative to the mean
	// and check every vertex against its allowance (clamp), and list the
	// vertices that left theirs in vertex order
	sc.mNow, sc.mPrev, sc.cs = mNow, mPrev, cs
	sc.run(phaseClamp, nb, len(pos), pool.MinChunk)
	esc := sc.gatherEsc()
	sc.substep++
	full := !sc.valid
	sc.tops, sc.fans = sc.tops[:0], sc.fans[:0]
	limit := len(sc.inA) / partMax
	uncut := 0 // triangles whose culls were dropped
	if !full {
		// the culled patches hold while no normal turned too far; where
		// one did, the culls it relied on are dropped, and the pairs they
		// skipped are searched
		sc.turnedFlag.Store(false)
		sc.run(phaseTurned, len(sc.tris), len(sc.tris), pool.MinChunk)
		if sc.turnedFlag.Load() {
			tt := sc.tree
			sc.tops, sc.fans = tt.uncull(sc.tris, sc.turn, sc.tops, sc.fans)
			for _, id := range sc.tops {
				uncut += int(tt.nodes[id].size)
			}
			for _, u := range sc.fans {
				uncut += len(tt.vertTris[u])
			}
			// a full rebuild restores the culls
			sc.uncutAll += uncut
			full = uncut > limit || float64(sc.uncutAll) > uncutMax*float64(len(sc.inA))
		}
	}
	// the triangles of the vertices that left their allowance
	sc.part = sc.part[:0]
	if !full {
		sc.markPart(esc)
		if len(sc.part)+uncut > limit {
			sc.unmarkPart()
			full = true
		}
	}
	part := sc.part
	// a vertex that starts over is measured from the substep's start,
	// ahead along its displacement (see Contact)
	sc.factor = skinFactor
	if full && sc.fullAt == sc.substep-1 {
		// the last list did not outlive its substep: this one will
		// hardly outlive its own either
		sc.factor = skinTight
		if float64(len(esc)) >= escMost*float64(len(pos)) {
			sc.factor = skinOwn
		}
		sc.stats.Tight++
	}
	carried := false
	switch {
	case full:
		sc.adj.changed(sc.substep)
		sc.fullAt = sc.substep
		sc.uncutAll = 0
		sc.run(phaseReset, len(pos), len(pos), pool.MinChunk)
		sc.rebuild()
	case len(part) > 0 || uncut > 0:
		if uncut > 0 {
			sc.stats.Uncut++
		}
		for _, v := range esc {
			sc.reset(int(v))
		}
		slices.Sort(part)
		sc.adj.changed(sc.substep)
		carried = sc.rebuildPart()
	}
	// the pairs a partial rebuild kept keep their keep and budget (the
	// new ones have none)
	sc.keepSkip = sc.keepOK && !full && (len(part) == 0 && uncut == 0 || carried)
	if !sc.keepSkip || len(sc.budget) != len(sc.vt)+len(sc.ee) {
		// the list is new (or the budgets are)
		sc.keepSkip = false
		sc.clearBudgets()
	}
	sc.pick(true)
	// the later picks of the substep, on parts of the list, keep the
	// flags of pairs that cannot have changed (see refreshPair) and the
	// side memories; they compute no keep (which holds for the first
	// pick's positions)
	sc.sides = false
	sc.keepOK = true
	// every pair is evaluated again in the substep's first sweep
	n := len(sc.vt) + len(sc.ee)
	if cap(sc.pStamp) < n {
		sc.pStamp = make([]int32, n, n+n/2)
	}
	sc.pStamp = sc.pStamp[:n]
	clear(sc.pStamp)
	clear(sc.vStamp)
	clear(sc.vHot)
	sc.all.tick, sc.all.pickTick = 0, 0
}

// reset gives vertex v a new reference and allowance, from its position
// at the substep's start (resolved) and its displacement d in the substep
// relative to the mean's (predicted and constrained): skinMin·h +
// sc.factor·|d| around the start position plus sc.factor·d. The
// allowance then holds the substep's own motion and, at a steady
// velocity, 2·sc.factor - 1 more substeps of it, so a resting heap keeps
// a list of near neighbours only, and a vertex that falls fast pairs with
// what lies along its path without inflating the search for the rest of
// the cloth. sc.factor is skinFactor, or skinTight while full rebuilds
// come every substep (a crumpling heap), or skinOwn when most vertices
// left their allowances (the substep's own displacement only).
// References taken at different substeps compare correctly, as each is
// relative to the mean of its own substep.
func (sc *Contact) reset(v int) {
	pos, prev := sc.pos, sc.prev
	d := pos[v].Sub(prev[v]).Sub(sc.cs)
	least := skinMin
	if sc.factor == skinOwn {
		least = skinOwnMin
	}
	sc.skin[v] = least*sc.h + sc.factor*d.Len()
	sc.ref[v] = prev[v].Sub(sc.mPrev).AddScaled(d, sc.factor)
}

// resetAll resets vertices [lo, hi) (see reset).
func (sc *Contact) resetAll(lo, hi int) {
	for v := lo; v < hi; v++ {
		sc.reset(v)
	}
}

// vertBlock is one block's part of update's per-vertex passes.
type vertBlock struct {
	now, prev vec.Vec3 // sums of the free vertices' positions, now and at the substep's start
	n         int      // free vertices
	esc       []int32  // vertices that left their allowance, ascending
}

// mean sums the free vertices' positions of blocks [lo, hi), now and at
// the substep's start.
func (sc *Contact) mean(lo, hi int) {
	pos, prev, w := sc.pos, sc.prev, sc.w
	for i := lo; i < hi; i++ {
		bl := &sc.blocks[i]
		bl.now, bl.prev, bl.n = vec.Vec3{}, vec.Vec3{}, 0
		for v := i * blockSize; v < min((i+1)*blockSize, len(pos)); v++ {
			if w[v] != 0 {
				bl.now, bl.prev = bl.now.Add(pos[v]), bl.prev.Add(prev[v])
				bl.n++
			}
		}
	}
}

// clamp runs blocks [lo, hi) of update's per-vertex pass: it keeps each
// vertex's position for separate (sc.before), clamps its displacement to
// maxRel·h per substep relative to the mean motion sc.cs (Ten Minute
// Physics' velocity clamp: 1.08 m/s relative to the mean at the
// defaults), lists it in its block's esc if it left its allowance around
// its reference (relative to the mean sc.mNow), and keeps its clamped
// position for the substep's picks (sc.pickPos).
func (sc *Contact) clamp(lo, hi int) {
	pos, prev, w := sc.pos, sc.prev, sc.w
	maxD := maxRel * sc.h
	dd := keepDrift * keepDrift * sc.h * sc.h
	cs := sc.cs
	for i := lo; i < hi; i++ {
		bl := &sc.blocks[i]
		bl.esc = bl.esc[:0]
		for v := i * blockSize; v < min((i+1)*blockSize, len(pos)); v++ {
			sc.before[v] = pos[v]
			if w[v] != 0 {
				d := pos[v].Sub(prev[v]).Sub(cs)
				if l := d.Len(); l > maxD {
					pos[v] = pos[v].AddScaled(d, maxD/l-1)
				}
			}
			if sc.valid && sc.outside(v, 0) {
				bl.esc = append(bl.esc, int32(v))
			}
			sc.pickPos[v], sc.anchor[v] = pos[v], pos[v]
			sc.reanch[v] = pos[v].Sub(sc.keepQ[v]).LenSq() >= dd || prev[v].Sub(sc.keepP[v]).LenSq() >= dd
			if sc.reanch[v] {
				sc.keepQ[v], sc.keepP[v] = pos[v], prev[v]
			}
			sc.mot[v] = pos[v].Sub(prev[v]).Len()
			sc.walk[v] += pos[v].Sub(sc.walkAt[v]).Len()
			sc.walkAt[v] = pos[v]
		}
	}
}

// rescue searches the pairs of the vertices the substep's rounds pushed
// more than escLate·h beyond their allowances, before the substep
// ends: a list made for one substep (skinOwn) leaves little room for
// pushes, and at the impact of a falling heap a vertex may be pushed past
// a triangle or an edge the list does not hold, a crossing no flag would
// catch, which the next substep's new pair would then take for its side.
// The vertices take new references and allowances (from their start and
// current positions) and their triangles' pairs are searched again (a
// partial rebuild); then every pair is picked afresh, its side
// memory from the substep's start, and the fail-safe and untangle run on
// the whole list.
func (sc *Contact) rescue() {
	if !sc.valid {
		return
	}
	sc.run(phaseLate, len(sc.blocks), len(sc.ref), pool.MinChunk)
	esc := sc.gatherEsc()
	if len(esc) == 0 {
		return
	}
	sc.stats.Rescues++
	sc.part = sc.part[:0]
	sc.markPart(esc)
	sc.adj.changed(sc.substep)
	// (always a partial rebuild: the vertices pushed that far are few;
	// see docs/benchmarks.md)
	for _, v := range esc {
		sc.reset(int(v))
	}
	slices.Sort(sc.part)
	sc.rebuildPart()
	// every pair picked afresh at the current positions (its flags, and
	// the keep of the next substep's first pick, are of the old list)
	sc.clearBudgets()
	sc.keepSkip = false
	copy(sc.pickPos, sc.pos)
	clear(sc.vStamp)
	sc.all.tick, sc.all.pickTick = 0, 0
	sc.pick(true)
	sc.sides, sc.keepOK, sc.comps.ok = false, false, false
	sc.all.converged, sc.all.left = false, nil
	sc.failSafe(&sc.all)
	sc.addStats(&sc.all)
}

// clearBudgets sizes sc.budget to the listed pairs, none yet.
func (sc *Contact) clearBudgets() {
	n := len(sc.vt) + len(sc.ee)
	sc.budget = slices.Grow(sc.budget[:0], n)[:n]
	clear(sc.budget)
}

// gatherEsc joins the blocks' esc lists, in block order, into sc.esc.
func (sc *Contact) gatherEsc() []int32 {
	esc := sc.esc[:0]
	for i := range sc.blocks {
		esc = append(esc, sc.blocks[i].esc...)
	}
	sc.esc = esc
	return esc
}

// markPart appends to sc.part the triangles of the vertices esc not in it
// yet, marking them in sc.inA.
func (sc *Contact) markPart(esc []int32) {
	vt := sc.tree.vertTris
	for _, v := range esc {
		for _, t := range vt[v] {
			if !sc.inA[t] {
				sc.inA[t] = true
				sc.part = append(sc.part, t)
			}
		}
	}
}

// unmarkPart empties sc.part, clearing its marks in sc.inA.
func (sc *Contact) unmarkPart() {
	for _, t := range sc.part {
		sc.inA[t] = false
	}
	sc.part = sc.part[:0]
}

// late lists in the blocks [lo, hi) the vertices further than
// escLate·h beyond their allowances (see rescue).
func (sc *Contact) late(lo, hi int) {
	late := escLate * sc.h
	for i := lo; i < hi; i++ {
		bl := &sc.blocks[i]
		bl.esc = bl.esc[:0]
		for v := i * blockSize; v < min((i+1)*blockSize, len(sc.ref)); v++ {
			if sc.outside(v, late) {
				bl.esc = append(bl.esc, int32(v))
			}
		}
	}
}

// outside reports whether vertex v lies more than extra beyond its
// allowance around its reference (relative to the mean sc.mNow).
func (sc *Contact) outside(v int, extra float64) bool {
	r := sc.skin[v] + extra
	return sc.pos[v].Sub(sc.mNow).Sub(sc.ref[v]).LenSq() > r*r
}

// rebuild collects the pairs that can come closer than h + margin while
// every vertex stays within its allowance, from the references (which
// update has just reset to the substep's start positions).
func (sc *Contact) rebuild() {
	sc.stats.Rebuilds++
	sc.valid = true
	tt := sc.tree
	tt.refit(sc.ref, sc.pos, sc.skin, (1+margin)*sc.h/2, sc.pool)
	// every old pair is searched again
	sc.vt, sc.vtOld = sc.vtOld[:0], sc.vt
	sc.ee, sc.eeOld = sc.eeOld[:0], sc.ee
	sc.indexOld()
	sc.search(false)
}

// indexOld indexes the old pairs searched again (sc.vtOld, sc.eeOld) by
// their ids, for search.
func (sc *Contact) indexOld() {
	sc.vtOldAt.fill(len(sc.vtOld), len(sc.ref), func(k int) uint64 { return pairKey(sc.vtOld[k].v, sc.vtOld[k].t) })
	sc.eeOldAt.fill(len(sc.eeOld), len(sc.edges), func(k int) uint64 { return pairKey(sc.eeOld[k].e0, sc.eeOld[k].e1) })
}

// search appends the pairs the tree's traversal finds, or with part those
// of the leaf pairs with a triangle of sc.part (each such triangle's query
// of the tree), in task order. The old pairs searched again (sc.vtOld,
// sc.eeOld) are indexed by their ids (indexOld), so pairs that persist
// keep the side they were on (a crossing left by an unconverged substep
// is undone rather than accepted). The tasks run in parallel, each into
// its own slot.
func (sc *Contact) search(part bool) {
	tt := sc.tree
	n, run := 0, phaseTasks
	if part {
		sc.numQueries = (len(sc.part) + partChunk - 1) / partChunk
		n, run = sc.numQueries+len(sc.tops), phaseQueries
		if len(sc.fans) > 0 {
			n++
		}
	} else {
		tt.plan(searchTasks)
		n = len(tt.tasks)
	}
	if len(tt.slots) < n {
		tt.slots = append(tt.slots, make([]pairSlot, n-len(tt.slots))...)
	}
	sc.numTasks = n
	sc.nextTask.Store(0)
	sc.run(run, n, n*pool.MinChunk, pool.MinChunk)
	for i := range tt.slots[:n] {
		sc.vt = append(sc.vt, tt.slots[i].vt...)
		sc.ee = append(sc.ee, tt.slots[i].ee...)
	}
	np := len(sc.vt) + len(sc.ee)
	sc.pv = slices.Grow(sc.pv[:0], np)[:np]
	sc.run(phasePairVerts, np, np, pool.MinChunk)
}

// pairVertsRange fills sc.pv for pairs [lo, hi) from the pairs' vertex
// and triangle, or edges.
func (sc *Contact) pairVertsRange(lo, hi int) {
	tris, nvt := sc.tris, len(sc.vt)
	for k := lo; k < hi; k++ {
		if k < nvt {
			p := &sc.vt[k]
			t := tris[p.t]
			sc.pv[k] = [4]int32{p.v, t[0], t[1], t[2]}
			continue
		}
		p := &sc.ee[k-nvt]
		a, b := sc.edges[p.e0], sc.edges[p.e1]
		sc.pv[k] = [4]int32{a[0], a[1], b[0], b[1]}
	}
}

// nextSlot claims the next search task and returns its index and its
// emptied slot, or -1 when none is left. Each chunk the pool hands out
// claims tasks one at a time, which balances tasks of very different
// sizes; each task writes only its own slot.
func (sc *Contact) nextSlot() (int, *pairSlot) {
	i := int(sc.nextTask.Add(1) - 1)
	if i >= sc.numTasks {
		return -1, nil
	}
	sl := &sc.tree.slots[i]
	sl.vt, sl.ee = sl.vt[:0], sl.ee[:0]
	return i, sl
}

// runQueries runs the tasks of a partial rebuild: task i queries the tree
// with partChunk triangles of sc.part, and the tasks after those
// search what the dropped culls skipped (see uncut).
func (sc *Contact) runQueries(_, _ int) {
	for {
		i, sl := sc.nextSlot()
		if i < 0 {
			return
		}
		if i >= sc.numQueries {
			sc.uncut(sl, i-sc.numQueries)
			continue
		}
		for _, a := range sc.part[i*partChunk : min((i+1)*partChunk, len(sc.part))] {
			sc.tree.query(a, func(b int32) {
				// a pair of two such triangles is found once, from the
				// larger
				if b < a || !sc.inA[b] {
					sc.leafPair(sl, a, b)
				}
			})
		}
	}
}

// uncut runs task k of the search after uncull: the leaf pairs within
// flat node sc.tops[k] that its cull skipped, or (k == len(sc.tops)) the
// leaf pairs around the vertices sc.fans whose fan culls skipped them. A
// leaf pair with a triangle of sc.part is left to that triangle's query,
// which finds it as well.
func (sc *Contact) uncut(sl *pairSlot, k int) {
	tt, inA := sc.tree, sc.inA
	if k < len(sc.tops) {
		tt.self(sc.tops[k], func(a, b int32) {
			if !inA[a] && !inA[b] {
				sc.leafPair(sl, a, b)
			}
		})
		return
	}
	// inside one of sc.tops: the tasks above have the pair
	within := func(a, b int32) bool {
		la, lb := tt.leaf[a], tt.leaf[b]
		for _, top := range sc.tops {
			last := tt.last(top)
			if top <= la && la <= last && top <= lb && lb <= last {
				return true
			}
		}
		return false
	}
	tris := sc.tris
	for _, u := range sc.fans {
		ts := tt.vertTris[u]
		for i, a := range ts {
			for _, b := range ts[i+1:] {
				if inA[a] || inA[b] || !tt.overlap(tt.leaf[a], tt.leaf[b]) {
					continue
				}
				// still culled by a flat node, or found around a lower
				// vertex of sc.fans they share
				if top := tt.nd[tt.leaf[a]].top; top >= 0 && top == tt.nd[tt.leaf[b]].top {
					continue
				}
				lower := false
				for _, w := range tris[a] {
					if w < u && (w == tris[b][0] || w == tris[b][1] || w == tris[b][2]) {
						_, lower = slices.BinarySearch(sc.fans, w)
						if lower {
							break
						}
					}
				}
				if !lower && !within(a, b) {
					sc.leafPair(sl, a, b)
				}
			}
		}
	}
}

// runTasks runs the traversal tasks of a full rebuild (tt.tasks).
func (sc *Contact) runTasks(_, _ int) {
	tt := sc.tree
	for {
		i, sl := sc.nextSlot()
		if i < 0 {
			return
		}
		leafPair := func(a, b int32) { sc.leafPair(sl, a, b) }
		if k := tt.tasks[i]; k.b < 0 {
			tt.self(k.a, leafPair)
		} else {
			tt.pair(k.a, k.b, leafPair)
		}
	}
}

// rebuildPart updates the neighbour list after the vertices sc.esc moved
// their reference positions: the pairs found by a leaf pair with a
// triangle of sc.part (every triangle using such a vertex) are dropped and
// searched again, by a query of the tree with each such triangle's box.
// Every other pair's four vertices kept their references and allowances,
// so it stays listed exactly as a full rebuild would list it.
//
// The pairs it keeps take their keep and budget along (carry), and the
// pairs it lists (new, or set aside and found again) take none: each pair's
// keep and budget depend only on its own vertices, none of which took a
// new reference. In a resting drape a few dozen vertices creep out of
// their allowances every substep, and the first pick would otherwise look
// at every pair again. It reports whether it carried them (they were
// sized to the list).
func (sc *Contact) rebuildPart() bool {
	sc.stats.Partial++
	n := len(sc.vt) + len(sc.ee)
	sc.carried = len(sc.keep) == n && len(sc.budget) == n
	if len(sc.part) == 0 {
		// only culls were dropped: every listed pair stays
		sc.vtOld, sc.eeOld = sc.vtOld[:0], sc.eeOld[:0]
		sc.indexOld()
	} else {
		// the new boxes of sc.part's triangles, and the pairs set aside,
		// side by side (two items, each worth pool.MinChunk: one chunk apiece)
		sc.run(phasePrepPart, 2, 2*pool.MinChunk, pool.MinChunk)
	}
	nvt, nee := len(sc.vt), len(sc.ee)
	sc.search(true)
	sc.unmarkPart()
	if sc.carried {
		sc.keep = carry(sc.keep, nvt, nee, len(sc.vt), len(sc.ee))
		sc.budget = carry(sc.budget, nvt, nee, len(sc.vt), len(sc.ee))
	}
	return sc.carried
}

// carry spreads the values of nvt kept vertex-triangle pairs and nee kept
// edge-edge pairs, packed at the start of s, over a list that appended
// more of each (nvtNow and neeNow in all): the edge-edge pairs' values
// move up past the new vertex-triangle pairs, and the new pairs' are
// zero.
func carry[T uint8 | float64](s []T, nvt, nee, nvtNow, neeNow int) []T {
	n := nvtNow + neeNow
	s = slices.Grow(s[:nvt+nee], n-nvt-nee)[:n]
	copy(s[nvtNow:nvtNow+nee], s[nvt:nvt+nee])
	clear(s[nvt:nvtNow])
	clear(s[nvtNow+nee:])
	return s
}

// prepPart runs the two independent parts [lo, hi) of a partial
// rebuild's preparation: 0 refits the boxes of the triangles of sc.part
// (and their ancestors'), 1 sets aside the pairs to search again and
// indexes them.
func (sc *Contact) prepPart(lo, hi int) {
	for i := lo; i < hi; i++ {
		if i == 0 {
			sc.tree.refitBoxes(sc.ref, sc.tris, sc.skin, (1+margin)*sc.h/2, sc.part)
			continue
		}
		sc.setAside()
		sc.indexOld()
	}
}

// setAside moves the pairs found by a leaf pair with a triangle of sc.part
// from the list to sc.vtOld and sc.eeOld, keeping both in pair order; with
// sc.carried, the kept pairs' keep and budget are packed at the start of
// theirs, in the same order.
func (sc *Contact) setAside() {
	tt, inA := sc.tree, sc.inA
	keep, budget, carried := sc.keep, sc.budget, sc.carried
	nvt, j := len(sc.vt), 0
	sc.vtOld, sc.eeOld = sc.vtOld[:0], sc.eeOld[:0]
	vt := sc.vt[:0]
	for i, p := range sc.vt {
		if inA[tt.vOwn[p.v]] || inA[p.t] {
			sc.vtOld = append(sc.vtOld, p)
			continue
		}
		vt = append(vt, p)
		if carried {
			keep[j], budget[j] = keep[i], budget[i]
			j++
		}
	}
	ee := sc.ee[:0]
	for i, p := range sc.ee {
		if inA[tt.eOwn[p.e0]] || inA[tt.eOwn[p.e1]] {
			sc.eeOld = append(sc.eeOld, p)
			continue
		}
		ee = append(ee, p)
		if carried {
			keep[j], budget[j] = keep[nvt+i], budget[nvt+i]
			j++
		}
	}
	sc.vt, sc.ee = vt, ee
}

// leafPair tests the features triangles a and b own against the other
// triangle.
func (sc *Contact) leafPair(sl *pairSlot, a, b int32) {
	tt, tris := sc.tree, sc.tris
	ta, tb := tris[a], tris[b]
	// two triangles of a flat fan cannot touch (see flatFan)
	for _, u := range ta {
		if (u == tb[0] || u == tb[1] || u == tb[2]) && tt.ringFlat[u] {
			return
		}
	}
	// the features' boxes first (see featureBoxes)
	box, vBox, eBox := tt.box, tt.vBox, tt.eBox
	la, lb := &box[tt.leaf[a]], &box[tt.leaf[b]]
	for k := tt.vStart[a]; k < tt.vStart[a+1]; k++ {
		if v := tt.ownVs[k]; vBox[k].overlaps(lb) && v != tb[0] && v != tb[1] && v != tb[2] {
			sc.vertexTriangle(sl, v, b)
		}
	}
	for k := tt.vStart[b]; k < tt.vStart[b+1]; k++ {
		if v := tt.ownVs[k]; vBox[k].overlaps(la) && v != ta[0] && v != ta[1] && v != ta[2] {
			sc.vertexTriangle(sl, v, a)
		}
	}
	for k := tt.eStart[a]; k < tt.eStart[a+1]; k++ {
		for l := tt.eStart[b]; l < tt.eStart[b+1]; l++ {
			if eBox[k].overlaps(&eBox[l]) {
				sc.edgeEdge(sl, tt.ownEs[k], tt.ownEs[l])
			}
		}
	}
}

// vertexTriangle lists vertex v and triangle ti if they are closer than
// h + margin + their allowances at their references (their boxes, which
// leafPair tested, overlap).
func (sc *Contact) vertexTriangle(sl *pairSlot, v, ti int32) {
	x, rest, w, sk := sc.ref, sc.rest, sc.w, sc.skin
	t := sc.tris[ti]
	if w[v] == 0 && w[t[0]] == 0 && w[t[1]] == 0 && w[t[2]] == 0 {
		return
	}
	p, a, b, c := x[v], x[t[0]], x[t[1]], x[t[2]]
	r := (1+margin)*sc.h + sk[v] + max(sk[t[0]], sk[t[1]], sk[t[2]])
	uu, vv, ww := closestOnTriangle(p, a, b, c)
	d := p.Sub(a.Scale(uu).Add(b.Scale(vv)).Add(c.Scale(ww)))
	if d.LenSq() >= r*r {
		return
	}
	if sc.seamAdj != nil && sc.sewnToAny(v, t[0], t[1], t[2]) {
		return // a seam draws them together (the solver's sewing.go)
	}
	// a pair listed again keeps its side; a new one takes the side the
	// vertex is on at the substep's start (see newSide)
	var side float64
	if o := sc.vtOldAt.get(pairKey(v, ti)); o >= 0 {
		side = sc.vtOld[o].side
	} else {
		side = sc.newSide(v, t, d.Dot(b.Sub(a).Cross(c.Sub(a))))
	}
	h := sc.h
	if rest[v].Sub(sc.restC[ti]).Len()-sc.restR[ti] < h {
		h = math.Min(h, PointTriangleDist(rest[v], rest[t[0]], rest[t[1]], rest[t[2]]))
	}
	sl.vt = append(sl.vt, vtPair{v: v, t: ti, h: h, side: side})
}

// edgeEdge lists edges ei and fi if they share no vertex and are closer
// than h + margin + their allowances at their references (their boxes,
// which leafPair tested, overlap).
func (sc *Contact) edgeEdge(sl *pairSlot, ei, fi int32) {
	x, rest, w, sk := sc.ref, sc.rest, sc.w, sc.skin
	e0, e1 := sc.edges[ei], sc.edges[fi]
	if e0[0] == e1[0] || e0[0] == e1[1] || e0[1] == e1[0] || e0[1] == e1[1] {
		return
	}
	if w[e0[0]] == 0 && w[e0[1]] == 0 && w[e1[0]] == 0 && w[e1[1]] == 0 {
		return
	}
	a, b, c, d := x[e0[0]], x[e0[1]], x[e1[0]], x[e1[1]]
	r := (1+margin)*sc.h + max(sk[e0[0]], sk[e0[1]]) + max(sk[e1[0]], sk[e1[1]])
	s, t := closestSegments(a, b, c, d)
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	l := diff.Len()
	if l >= r {
		return
	}
	if sc.seamAdj != nil && (sc.sewnToAny(e0[0], e1[0], e1[1]) || sc.sewnToAny(e0[1], e1[0], e1[1])) {
		return // a seam joins them (the solver's sewing.go)
	}
	// n points from edge hi to edge lo
	lo, hi := ei, fi
	if lo > hi {
		lo, hi = hi, lo
		diff = diff.Scale(-1)
	}
	var n vec.Vec3
	if o := sc.eeOldAt.get(pairKey(lo, hi)); o >= 0 {
		// a pair listed again keeps its direction
		n = sc.eeOld[o].n
	} else {
		// a new one takes the direction at the substep's start (see
		// newSide)
		n = sc.newDir(sc.edges[lo], sc.edges[hi], diff)
	}
	h := sc.h
	ra, rb := rest[e0[0]].Add(rest[e0[1]]).Scale(0.5), rest[e1[0]].Add(rest[e1[1]]).Scale(0.5)
	if ra.Sub(rb).Len()-sc.edgeMidR[ei]-sc.edgeMidR[fi] < h {
		h = math.Min(h, SegmentDist(rest[e0[0]], rest[e0[1]], rest[e1[0]], rest[e1[1]]))
	}
	sl.ee = append(sl.ee, eePair{e0: lo, e1: hi, h: h, n: n})
}

// newSide returns the side of triangle t (+1: along its normal) vertex v
// is on at the substep's start, for a pair listed for the first time. The
// references the search measures from may be of different substeps (a
// partial rebuild resets only some), each off the substep's start by up to
// its allowance, so a vertex close to a triangle can lie on the other side
// of it at the references; a side remembered so could then not be
// restored: the vertex would be pushed through the triangle, into whatever
// the triangle lies on. sdRef is the signed distance at the references,
// the fallback when the vertex lies in the triangle's plane.
func (sc *Contact) newSide(v int32, t [3]int32, sdRef float64) float64 {
	ref := 1.0
	if sdRef < 0 {
		ref = -1
	}
	x := sc.prev
	return planeSide([4]vec.Vec3{x[v], x[t[0]], x[t[1]], x[t[2]]}, ref)
}

// newDir returns the unit direction from edge f to edge e at the
// substep's start, for a pair listed for the first time (see newSide);
// diffRef, from f's closest point to e's at the references, is the
// fallback when the edges touch there.
func (sc *Contact) newDir(e, f [2]int32, diffRef vec.Vec3) vec.Vec3 {
	x := sc.prev
	a, b, c, d := x[e[0]], x[e[1]], x[f[0]], x[f[1]]
	s, t := closestSegments(a, b, c, d)
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	if l := diff.Len(); l > 1e-12 {
		return diff.Scale(1 / l)
	}
	if l := diffRef.Len(); l > 1e-12 {
		return diffRef.Scale(1 / l)
	}
	return b.Sub(a).Cross(d.Sub(c)).Normalize()
}

// sewnToAny reports whether a seam joins vertex a to one of vs.
func (sc *Contact) sewnToAny(a int32, vs ...int32) bool {
	adj := sc.seamAdj[sc.seamStart[a]:sc.seamStart[a+1]]
	for _, v := range vs {
		for _, u := range adj {
			if u == v {
				return true
			}
		}
	}
	return false
}

// pairSlot collects the pairs of one traversal task.
type pairSlot struct {
	vt []vtPair
	ee []eePair
}

// pairIndex finds a listed pair by its two ids (vertex and triangle, or
// two edges). Many pairs (a full rebuild sets aside every one) are indexed
// by their first id (CSR): a traversal looks up the pairs of one vertex or
// edge, and of neighbouring ones, together, which then share cache lines.
// A few (a partial rebuild sets aside a few dozen) go to a hash table with
// open addressing, linear probing, and at least twice as many slots as
// pairs, so filling it costs time in proportion to the pairs, not to every
// vertex or edge.
type pairIndex struct {
	hashed bool
	// CSR: the keys of first id a are keys[start[a]:start[a+1]], in pair
	// order, at pair indices at[...]; hash table: keys[h] is a key + 1
	// (0: empty slot), at[h] its pair index
	start []int32
	keys  []uint64
	at    []int32
	shift uint // hash table: 64 - log2(len(keys))
}

// pairKey packs two ids into a key.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// fill indexes the n pairs whose keys key(0..n-1) gives, their first ids
// below ids; of equal keys, get finds the first.
func (ix *pairIndex) fill(n, ids int, key func(i int) uint64) {
	ix.hashed = float64(n) < pairIndexHashed*float64(ids)
	if !ix.hashed {
		if len(ix.start) != ids+1 {
			ix.start = make([]int32, ids+1)
		}
		clear(ix.start)
		for i := range n {
			ix.start[key(i)>>32+1]++
		}
		for a := 1; a <= ids; a++ {
			ix.start[a] += ix.start[a-1]
		}
		if cap(ix.keys) < n {
			ix.keys, ix.at = make([]uint64, n, n+n/2), make([]int32, n, n+n/2)
		}
		ix.keys, ix.at = ix.keys[:n], ix.at[:n]
		for i := range n {
			k := key(i)
			j := ix.start[k>>32]
			ix.keys[j], ix.at[j] = k, int32(i)
			ix.start[k>>32]++
		}
		copy(ix.start[1:], ix.start[:ids])
		ix.start[0] = 0
		return
	}
	bits := uint(4)
	for 1<<bits < 2*n {
		bits++
	}
	size := 1 << bits
	if cap(ix.keys) < size {
		ix.keys, ix.at = make([]uint64, size), make([]int32, size)
	}
	ix.keys, ix.at = ix.keys[:size], ix.at[:size]
	clear(ix.keys)
	ix.shift = 64 - bits
	mask := uint64(size - 1)
	for i := range n {
		k := key(i)
		h := (k * 0x9e3779b97f4a7c15) >> ix.shift
		for ix.keys[h] != 0 && ix.keys[h] != k+1 {
			h = (h + 1) & mask
		}
		if ix.keys[h] == 0 {
			ix.keys[h], ix.at[h] = k+1, int32(i)
		}
	}
}

// get returns the index of the pair with key k, or -1.
func (ix *pairIndex) get(k uint64) int32 {
	if !ix.hashed {
		a := k >> 32
		for j := ix.start[a]; j < ix.start[a+1]; j++ {
			if ix.keys[j] == k {
				return ix.at[j]
			}
		}
		return -1
	}
	mask := uint64(len(ix.keys) - 1)
	for h := (k * 0x9e3779b97f4a7c15) >> ix.shift; ix.keys[h] != 0; h = (h + 1) & mask {
		if ix.keys[h] == k+1 {
			return ix.at[h]
		}
	}
	return -1
}
