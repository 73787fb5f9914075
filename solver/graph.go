package solver

import "sync/atomic"

// A substep's constraint projection is a sequence of phases (the limit
// colours, the stretch colours, the bending colours), and by phase, with
// the workers waiting for each other at the end of every one, it costs a
// barrier per colour: about 30 per substep, each a few microseconds on two
// threads, where a phase of a 64 x 64 cloth does 10 to 25 microseconds of
// work. Yet a part of a phase only needs the parts of earlier phases that
// share a vertex with it to be done; the rest of the cloth may still be a
// phase behind.
//
// projGraph runs the projection so: every phase is cut into one task per
// goroutine (by work), goroutine o runs task o of every phase in phase
// order, and before a task it waits only for the tasks it depends on: for
// each of its vertices, the last earlier task that touched the vertex. A
// constraint then reads and writes every vertex in the same order as
// phase by phase (everything that touched the vertex before is done,
// nothing after has started), so the arithmetic, and the result, are those
// of the phases, bit for bit, whatever the number of goroutines. The
// constraints of a colour are in mesh order, so task o of each phase lies
// in about the same part of the cloth: a goroutine finds its vertices in
// its own core's cache, and waits only along the borders with its
// neighbours' parts.

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
	depOff []int32    // task t waits for deps[depOff[t]:depOff[t+1]]
	deps   []int32
	done   []atomic.Uint32 // per task: the run (gen) it last finished in
	gen    uint32
}

// graphTaskMin is the fewest constraints of an average colour per task.
const graphTaskMin = 64

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
func newProjGraph(m *Model, owners int) *projGraph {
	g := &projGraph{own: make([][]int32, owners), depOff: []int32{0}}
	last := make([]int32, len(m.Rest)) // per vertex: the last task touching it
	for v := range last {
		last[v] = -1
	}
	var seen []int32 // per task: the last task that listed it as a dependency
	// add cuts the phase of items [lo, hi), item i holding work(i) units,
	// into owners tasks of about equal work
	add := func(kind uint8, lo, hi int, work func(i int) int, verts func(i int, f func(v int32))) {
		total := 0
		for i := lo; i < hi; i++ {
			total += work(i)
		}
		a, acc := lo, 0
		for o := range owners {
			// up to (o+1)/owners of the phase's work
			b := a
			for b < hi && (o == owners-1 || (acc+work(b))*owners <= (o+1)*total) {
				acc += work(b)
				b++
			}
			if b == a {
				continue
			}
			t := int32(len(g.tasks))
			g.tasks = append(g.tasks, projTask{kind, int32(a), int32(b)})
			g.own[o] = append(g.own[o], t)
			seen = append(seen, -1)
			for i := a; i < b; i++ {
				verts(i, func(v int32) {
					if d := last[v]; d >= 0 && seen[d] != t {
						seen[d] = t
						g.deps = append(g.deps, d)
					}
				})
			}
			for i := a; i < b; i++ {
				verts(i, func(v int32) { last[v] = t })
			}
			g.depOff = append(g.depOff, int32(len(g.deps)))
			a = b
		}
	}
	one := func(int) int { return 1 }
	l := &m.limit
	for c := 0; c+1 < len(l.colours); c++ {
		add(taskLimits, l.colours[c], l.colours[c+1],
			func(k int) int { return int(l.chainOff[k+1] - l.chainOff[k]) },
			func(k int, f func(v int32)) {
				for i := l.chainOff[k]; i < l.chainOff[k+1]; i++ {
					for _, v := range l.path[l.off[i]:l.off[i+1]] {
						f(v)
					}
				}
			})
	}
	s := &m.stretch
	for c := 0; c+1 < len(s.colours); c++ {
		add(taskStretch, s.colours[c], s.colours[c+1], one, func(i int, f func(v int32)) {
			f(s.v[i][0])
			f(s.v[i][1])
		})
	}
	b := &m.bend
	for c := 0; c+1 < len(b.colours); c++ {
		add(taskBend, b.colours[c], b.colours[c+1], one, func(i int, f func(v int32)) {
			for _, v := range b.v[i] {
				f(v)
			}
		})
	}
	g.done = make([]atomic.Uint32, len(g.tasks))
	return g
}

// runGraph projects the limits, stretch and bending constraints once, by
// the graph's tasks, one goroutine per owner (see pool.runSlots), and
// reports whether it did (not when the workers are not running).
func (x *XPBD) runGraph() bool {
	g := x.graph
	g.gen++
	if g.gen == 0 { // wrapped: every task's done must be older
		for i := range g.done {
			g.done[i].Store(0)
		}
		g.gen = 1
	}
	return x.pool.runSlots(len(g.own), x.fnOwners)
}

// runOwners runs the tasks of goroutines [lo, hi) in turn.
func (x *XPBD) runOwners(lo, hi int) {
	g := x.graph
	for o := lo; o < hi; o++ {
		for _, t := range g.own[o] {
			for _, d := range g.deps[g.depOff[t]:g.depOff[t+1]] {
				var s spinner
				for g.done[d].Load() != g.gen {
					s.poll()
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
