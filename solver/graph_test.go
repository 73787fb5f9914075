package solver

import (
	"slices"
	"testing"
)

// TestProjGraphOrdersSharedVertices checks the promise the task graph's
// results rest on: of any two tasks that touch a vertex, the later waits for
// the earlier (directly: it lists the last earlier task on each of its
// vertices), tasks of one phase share no vertex, every constraint is in
// exactly one task, and every goroutine runs its tasks in phase order.
func TestProjGraphOrdersSharedVertices(t *testing.T) {
	pos, tris := gridMesh(40, 40, 1, 1)
	m := newModel(t, pos, tris, topPins(40), DefaultParams())
	lb := newLimits(m)
	if l, _ := lb.num(); l == 0 {
		t.Fatal("the grid has no stretch limits: the test would not cover them")
	}
	for _, owners := range []int{2, 3, 8} {
		g := newProjGraph(m, &lb, owners)
		// the vertices of each task, and which task touched each last
		verts := func(k projTask) []int32 {
			var vs []int32
			for i := k.lo; i < k.hi; i++ {
				switch k.kind {
				case taskLimits:
					vs = append(vs, lb.chainTouches(int(i))...)
				case taskStretch:
					vs = append(vs, m.stretch.v[i][:]...)
				case taskBend:
					vs = append(vs, m.bend.v[i][:]...)
				}
			}
			return vs
		}
		last := make([]int32, len(m.Rest))
		for v := range last {
			last[v] = -1
		}
		covered := map[[2]int32]int{} // (kind, constraint) -> tasks holding it
		// a task's phase: its kind and colour
		phaseOf := make([][2]int, len(g.tasks))
		colours := [][]int{lb.colours, m.stretch.colours, m.bend.colours}
		for ti, k := range g.tasks {
			cs := colours[k.kind]
			c := 0
			for int(k.lo) >= cs[c+1] {
				c++
			}
			if int(k.hi) > cs[c+1] {
				t.Fatalf("owners %d: task %d spans colours %d and %d", owners, ti, c, c+1)
			}
			phaseOf[ti] = [2]int{int(k.kind), c}
			if ti > 0 && phaseOf[ti-1] != phaseOf[ti] && (phaseOf[ti-1][0] > phaseOf[ti][0] || phaseOf[ti-1][0] == phaseOf[ti][0] && phaseOf[ti-1][1] > c) {
				t.Fatalf("owners %d: task %d's phase comes before task %d's", owners, ti, ti-1)
			}
			for i := k.lo; i < k.hi; i++ {
				covered[[2]int32{int32(k.kind), i}]++
			}
			deps := g.deps[g.depOff[ti]:g.depOff[ti+1]]
			vs := verts(k)
			for _, v := range vs {
				d := last[v]
				if d < 0 {
					continue
				}
				if phaseOf[d] == phaseOf[ti] {
					t.Fatalf("owners %d: tasks %d and %d of one phase share vertex %d", owners, d, ti, v)
				}
				if !slices.Contains(deps, d) {
					t.Fatalf("owners %d: task %d touches vertex %d after task %d but does not wait for it", owners, ti, v, d)
				}
			}
			for _, v := range vs {
				last[v] = int32(ti)
			}
		}
		want := len(m.stretch.v) + len(m.bend.v) + len(lb.chainOff) - 1
		if len(covered) != want {
			t.Fatalf("owners %d: the tasks hold %d constraints and chains, the model %d", owners, len(covered), want)
		}
		for c, n := range covered {
			if n != 1 {
				t.Fatalf("owners %d: constraint %v is in %d tasks", owners, c, n)
			}
		}
		for o, ts := range g.own {
			for i := 1; i < len(ts); i++ {
				if p, q := phaseOf[ts[i-1]], phaseOf[ts[i]]; p[0] > q[0] || p[0] == q[0] && p[1] > q[1] {
					t.Fatalf("owners %d: goroutine %d runs task %d (phase %v) before task %d (phase %v)", owners, o, ts[i-1], p, ts[i], q)
				}
			}
		}
	}
}

// TestProjGraphMatchesPhases bakes a pinned cloth with the projection by
// tasks and phase by phase, on the same two threads, with two iterations
// (multipliers carried between them): the positions must agree bit for bit.
func TestProjGraphMatchesPhases(t *testing.T) {
	pos, tris := gridMesh(48, 48, 1, 1)
	for i := range pos {
		pos[i].Z = -0.5 * pos[i].Y
	}
	p := DefaultParams()
	p.Threads = 2
	p.Iterations = 2
	var ref []float64
	for _, tasks := range []bool{true, false} {
		m := newModel(t, pos, tris, topPins(48), p)
		s := NewState(m)
		x := NewXPBD(m)
		if x.graph == nil {
			t.Fatal("no task graph on two threads")
		}
		if !tasks {
			x.graph = nil
		}
		for i := range 6 {
			f := m.FrameAt(i, 24)
			if err := x.Step(s, &f); err != nil {
				t.Fatal(err)
			}
		}
		var got []float64
		for _, q := range s.Pos {
			got = append(got, q.X, q.Y, q.Z)
		}
		if ref == nil {
			ref = got
			continue
		}
		for i := range ref {
			if got[i] != ref[i] {
				t.Fatalf("coordinate %d: %v phase by phase, %v by tasks", i, got[i], ref[i])
			}
		}
	}
}
