package solver

import (
	"github.com/drape-sim/drape/solver/internal/pool"
	"slices"
	"sort"
	"sync/atomic"
)

// A substep's constraint projection is a sequence of phases (the limit
// colours, the stretch colours, the bending colours), and by phase, with
// the workers waiting for each other at the end of every one, it costs a
// barrier per colour: about 30 per substep, each a few microseconds on two
// threads, where a phase of a 64 x 64 cloth does 10 to 25 microseconds of
// work. Yet a part of a phase only needs the parts of earlier phases that
// share a vertex with it to be done; the rest of the cloth may still be a
// phase behind.
//
// projGraph runs the projection so: the phases are cut into tasks, each
// owned by one goroutine, which runs its tasks in phase order and, before
// a task, waits only for the tasks it depends on: for each of its
// vertices, the last earlier task that touched the vertex. A constraint
// then reads and writes every vertex in the same order as phase by phase
// (everything that touched the vertex before is done, nothing after has
// started), so the arithmetic, and the result, are those of the phases,
// bit for bit, whatever the number of goroutines. A goroutine's tasks lie
// in the same part of the cloth in every phase (see newProjGraph): it
// finds its vertices in its own core's cache, and waits only along the
// borders with its neighbours' parts.

// Task kinds.
const (
	taskLimits  = iota // chains [lo, hi) of one limit colour
	taskStretch        // stretch constraints [lo, hi) of one colour
	taskBend           // bending constraints [lo, hi) of one colour
)

// projTask is a part of one phase.
type projTask struct {
	kind   uint8
	lo, hi int32
}

// projGraph is the projection's tasks, by owner, with their dependencies.
type projGraph struct {
	tasks  []projTask // in phase order
	own    [][]int32  // per goroutine: its tasks, in phase order
	bendAt []int      // per goroutine: where its bending tasks start in own
	depOff []int32    // task t waits for deps[depOff[t]:depOff[t+1]]
	deps   []int32
	done   []atomic.Uint32 // per task: the run (gen) it last finished in
	gen    uint32
	stalls atomic.Int32 // waits for a task longer than spinWait (runOwners)
}

// graphTaskMin is the fewest constraints of an average colour per
// goroutine.
const graphTaskMin = 64

// A goroutine's part of a phase is cut into up to graphSub tasks of at
// least graphPieceMin work units (constraints, or a chain's limits).
const (
	graphSub      = 4
	graphPieceMin = 32
)

// graphOwners returns how many goroutines of threads share the projection
// of m by tasks: as many as keep an average colour's tasks at least
// graphTaskMin constraints (below 2, the projection runs phase by phase).
func graphOwners(m *Model, threads int) int {
	s, b := m.NumColours()
	if s+b == 0 {
		return 0
	}
	avg := (len(m.stretch.v) + len(m.bend.v)) / (s + b)
	return min(threads, avg/graphTaskMin)
}

// newProjGraph cuts the projection phases of m among owners goroutines.
// The stretch and bending constraints of a colour are sorted by their
// first vertex (the lower of their edge's), so the cloth's vertices are
// cut once into owners·sub ranges of about equal work, and every such
// phase into the tasks of those ranges: goroutine o's tasks lie in the
// same vertex range in every phase (sub of them per phase, which it runs
// the farthest from its neighbours' ranges first), and wait for other
// goroutines only along the borders of its range. The limit chains, which
// cross the cloth, are cut by work.
func newProjGraph(m *Model, l *limitBlock, owners int) *projGraph {
	g := &projGraph{own: make([][]int32, owners), depOff: []int32{0}}
	st, bd := &m.stretch, &m.bend
	nc := len(st.colours) + len(bd.colours) - 2
	sub := max(1, min(graphSub, (len(st.v)+len(bd.v))/max(1, nc*owners*graphPieceMin)))
	n := owners * sub
	// the vertex ranges: range j is vertices [bound[j], bound[j+1])
	work := make([]int, len(m.Rest))
	for _, e := range st.v {
		work[e[0]]++
	}
	for _, h := range bd.v {
		work[h[0]]++
	}
	bound := make([]int, n+1)
	cutWork(bound, 0, len(m.Rest), func(v int) int { return work[v] })

	last := make([]int32, len(m.Rest)) // per vertex: the last task touching it
	for v := range last {
		last[v] = -1
	}
	var seen []int32 // per task: the last task that listed it as a dependency
	type piece struct {
		t    int32
		dist int // tasks between it and a neighbour's range
	}
	mine := make([][]piece, owners)
	var vs []int32 // a task's vertices
	// add makes the tasks of one phase: piece j of its items is items
	// [cut[j], cut[j+1])
	add := func(kind uint8, cut []int, verts func(vs []int32, i int) []int32) {
		for o := range mine {
			mine[o] = mine[o][:0]
		}
		for j := range n {
			a, b := cut[j], cut[j+1]
			if b == a {
				continue
			}
			t := int32(len(g.tasks))
			g.tasks = append(g.tasks, projTask{kind, int32(a), int32(b)})
			seen = append(seen, -1)
			vs = vs[:0]
			for i := a; i < b; i++ {
				vs = verts(vs, i)
			}
			for _, v := range vs {
				if d := last[v]; d >= 0 && seen[d] != t {
					seen[d] = t
					g.deps = append(g.deps, d)
				}
			}
			for _, v := range vs {
				last[v] = t
			}
			g.depOff = append(g.depOff, int32(len(g.deps)))
			o, q := j/sub, j%sub
			dist := sub
			if o > 0 {
				dist = q
			}
			if o < owners-1 {
				dist = min(dist, sub-1-q)
			}
			mine[o] = append(mine[o], piece{t, dist})
		}
		for o, ps := range mine {
			slices.SortStableFunc(ps, func(x, y piece) int { return y.dist - x.dist })
			for _, p := range ps {
				g.own[o] = append(g.own[o], p.t)
			}
		}
	}
	cut := make([]int, n+1)
	// byVertex cuts items [lo, hi), sorted by first vertex key(i), at the
	// vertex ranges (were they not sorted, the cuts would still be in
	// order and hold every item once, only less evenly)
	byVertex := func(lo, hi int, key func(i int) int32) []int {
		cut[0] = lo
		for j := 1; j < n; j++ {
			cut[j] = max(cut[j-1], lo+sort.Search(hi-lo, func(i int) bool { return int(key(lo+i)) >= bound[j] }))
		}
		cut[n] = hi
		return cut
	}
	for c := 0; c+1 < len(l.colours); c++ {
		// by work (chainWork)
		cutWork(cut, l.colours[c], l.colours[c+1], l.chainWork)
		add(taskLimits, cut, func(vs []int32, k int) []int32 {
			return append(vs, l.chainTouches(k)...)
		})
	}
	for c := 0; c+1 < len(st.colours); c++ {
		add(taskStretch, byVertex(st.colours[c], st.colours[c+1], func(i int) int32 { return st.v[i][0] }), func(vs []int32, i int) []int32 {
			return append(vs, st.v[i][:]...)
		})
	}
	// (the bending phases come last: a substep without bending runs each
	// goroutine's tasks up to its first bending task)
	g.bendAt = make([]int, owners)
	for o := range g.own {
		g.bendAt[o] = len(g.own[o])
	}
	for c := 0; c+1 < len(bd.colours); c++ {
		add(taskBend, byVertex(bd.colours[c], bd.colours[c+1], func(i int) int32 { return bd.v[i][0] }), func(vs []int32, i int) []int32 {
			return append(vs, bd.v[i][:]...)
		})
	}
	g.done = make([]atomic.Uint32, len(g.tasks))
	return g
}

// cutWork cuts items [lo, hi), item i holding work(i) units, into
// len(cut)-1 runs of about equal work: run j is items [cut[j], cut[j+1]),
// starting at the first item with at least j/(len(cut)-1) of the work
// before it.
func cutWork(cut []int, lo, hi int, work func(i int) int) {
	n := len(cut) - 1
	total := 0
	for i := lo; i < hi; i++ {
		total += work(i)
	}
	cut[0], cut[n] = lo, hi
	acc, j := 0, 1
	for i := lo; i < hi && j < n; i++ {
		for j < n && acc*n >= j*total {
			cut[j] = i
			j++
		}
		acc += work(i)
	}
	for ; j < n; j++ {
		cut[j] = hi
	}
}

// runGraph projects the limits, stretch and bending constraints once (the
// bending ones only if some hinge spans one substep, x.bendEach), by the
// graph's tasks, one goroutine per owner (see pool.Pool.RunSlots), and reports
// whether it did (not when the workers are not running).
func (x *XPBD) runGraph() bool {
	g := x.graph
	g.gen++
	if g.gen == 0 { // wrapped: every task's done must be older
		for i := range g.done {
			g.done[i].Store(0)
		}
		g.gen = 1
	}
	if !x.pool.RunSlots(len(g.own), x.fnOwners) {
		return false
	}
	// stalls count towards the pool's coarse grain, under which the
	// projection runs phase by phase: a phase never waits for a worker
	// that has not started
	x.pool.AddStalls(int(g.stalls.Swap(0)))
	return true
}

// runOwners runs the tasks of goroutines [lo, hi) in turn.
func (x *XPBD) runOwners(lo, hi int) {
	g := x.graph
	for o := lo; o < hi; o++ {
		tasks := g.own[o]
		if !x.bendEach() {
			tasks = tasks[:g.bendAt[o]]
		}
		for _, t := range tasks {
			for _, d := range g.deps[g.depOff[t]:g.depOff[t+1]] {
				if g.done[d].Load() == g.gen {
					continue
				}
				// a wait longer than spinWait is a stall: the owner of
				// d was descheduled, as on a machine busy with other work
				var s pool.Spinner
				stalled := false
				for g.done[d].Load() != g.gen {
					if s.Over(pool.SpinWait) && !stalled {
						stalled = true
						g.stalls.Add(1)
					}
				}
			}
			k := g.tasks[t]
			switch k.kind {
			case taskLimits:
				x.projectLimitRange(int(k.lo), int(k.hi))
			case taskStretch:
				x.projectStretchRange(int(k.lo), int(k.hi))
			case taskBend:
				x.projectBendRange(int(k.lo), int(k.hi))
			}
			g.done[t].Store(g.gen)
		}
	}
}
