package contact

import (
	"math"
	"slices"

	"github.com/drape-sim/drape/solver/internal/pool"

	"github.com/drape-sim/drape/internal/vec"
)

// The self-collision broad phase is a bounding volume hierarchy over the
// triangles, built once from the rest mesh (median splits of the rest
// centroids, so nodes are compact patches) and refitted at every rebuild
// of the neighbour list, with a normal cone per node (Volino and
// Magnenat-Thalmann 1994; Provot 1997). A connected patch whose normals
// stay within a cone of half-angle cullMaxAngle is a height field over the
// plane across the cone's axis: it cannot fold onto itself, and its own
// pairs are skipped. On cloth that is flat or smoothly bent (hanging,
// draped, sliding over a body) that culls most of the mesh, and only
// folds and the pairs between patches are searched. The same holds for
// the fan of triangles around one vertex (flatFan): between patches, most
// leaf pairs the traversal reaches are neighbours sharing a vertex whose
// fan is flat, and they are skipped without a test.
//
// The cull must hold until the next rebuild, so a leaf's cone holds its
// triangle's normals at the substep's start and at the current positions,
// widened by turnMaxAngle; every substep, a triangle a cull relies on
// whose normal has left its cone (turned), or that was compressed below
// cullMinArea of its rest area (compressed cloth brings neighbours
// together without folding, so such triangles are never culled), drops
// the culls it relied on: its flat node's and its vertices' flat fans
// (uncull); the neighbour list then searches the pairs they skipped.
//
// Each vertex and each edge is owned by one triangle (its lowest adjacent
// triangle), and a leaf pair tests the features its triangles own against
// the other triangle, so every pair is found once: first by boxes (kept
// per owned feature, triangle by triangle, so a leaf pair reads two short
// runs of memory), then by distance. A vertex no triangle uses takes no
// part in self-collision.

// bvhNode is one node of the triangle hierarchy. Children have larger
// indices than their parent.
type bvhNode struct {
	left, right int32 // children, -1 for a leaf
	tri         int32 // the leaf's triangle, -1 for an inner node
	connected   bool  // the node's triangles form one piece (rest mesh)
	size        int32 // triangles under the node
}

// triTree is the hierarchy and its per-rebuild state.
type triTree struct {
	nodes []bvhNode
	leaf  []int32 // per triangle: its leaf node

	vOwn []int32 // per vertex: its owning triangle (-1: none)
	eOwn []int32 // per edge: its owning triangle

	// the owned features, triangle by triangle (triangle t's are
	// ownVs[vStart[t]:vStart[t+1]] and ownEs[eStart[t]:eStart[t+1]]),
	// with their boxes at the last refit, inflated like the leaf boxes
	vStart, eStart []int32
	ownVs, ownEs   []int32
	vBox, eBox     []aabb
	edges          [][2]int32 // per edge: its vertices

	vertTris [][]int32 // per vertex: the triangles using it
	fan      []bool    // per vertex: its triangles form one closed fan
	ringFlat []bool    // per vertex: its fan is flat (refit)
	parent   []int32   // per node: its parent (-1 for the root)
	dirty    []bool    // per node: refitBoxes recomputes its box
	dirtyOn  []int32   // the dirty inner nodes

	restArea []float64 // per triangle: twice its rest area

	nd  []nodeState // refitted at every rebuild
	box []aabb      // per node: its box, inflated (refitted with nd)
	// per triangle: its leaf's cone, and whether a cull relies on it
	// (turned reads them in triangle order)
	cone []leafCone

	// refit's parallel passes: the pass the pool runs (runPhase) and
	// refit's arguments
	phase    treePhase
	fnPhase  func(lo, hi int)
	tris     [][3]int32
	x, now   []vec.Vec3
	skin     []float64
	pad      float64
	subtrees []int32 // roots of the subtrees refitted in parallel
	top      []int32 // the nodes above them, children first

	tasks, spare []treeTask
	slots        []pairSlot
}

// aabb is an axis-aligned box.
type aabb struct{ lo, hi vec.Vec3 }

// union returns the box around a and b.
func (a *aabb) union(b *aabb) aabb {
	return aabb{a.lo.Min(b.lo), a.hi.Max(b.hi)}
}

// overlaps reports whether boxes a and b overlap (touching counts).
func (a *aabb) overlaps(b *aabb) bool {
	return a.lo.X <= b.hi.X && b.lo.X <= a.hi.X && a.lo.Y <= b.hi.Y && b.lo.Y <= a.hi.Y && a.lo.Z <= b.hi.Z && b.lo.Z <= a.hi.Z
}

// nodeState is a node's normal cone at the last refit.
type nodeState struct {
	area   vec.Vec3 // sum of the triangle area vectors (x2)
	axis   vec.Vec3 // unit cone axis
	cc, cs float64  // cosine and sine of the half-angle; cc < cosCull: wide
	ok     bool     // flat: culled (finish)
	top    int32    // the highest flat inner node holding it, or -1
}

// leafCone is what turned reads of a triangle: its leaf's cone at the
// last refit (axis and squared cosine), the square of the smallest twice
// area it may take (cullMinArea of its rest area), and whether a cull
// relies on it (inside a flat inner node or fan).
type leafCone struct {
	axis     vec.Vec3
	cc2, ra2 float64
	inFlat   bool
}

// treeTask is one independent part of the traversal: the pairs within
// node a (b < 0) or between nodes a and b.
type treeTask struct{ a, b int32 }

var (
	cosCull          = math.Cos(cullMaxAngle)
	cosTurn, sinTurn = math.Cos(turnMaxAngle), math.Sin(turnMaxAngle)
)

// newTriTree builds the hierarchy of the triangles over their rest
// centroids and the feature ownership.
func newTriTree(rest []vec.Vec3, m *Mesh) *triTree {
	tris := m.Tris
	nv := len(rest)
	tt := &triTree{leaf: make([]int32, len(tris))}
	cent := make([]vec.Vec3, len(tris))
	order := make([]int32, len(tris))
	tt.restArea = make([]float64, len(tris))
	for i, t := range tris {
		tt.restArea[i] = rest[t[1]].Sub(rest[t[0]]).Cross(rest[t[2]].Sub(rest[t[0]])).Len()
		cent[i] = rest[t[0]].Add(rest[t[1]]).Add(rest[t[2]]).Scale(1.0 / 3)
		order[i] = int32(i)
	}
	// ownership
	owner := make([]int32, nv)
	for i := range owner {
		owner[i] = -1
	}
	tt.vOwn = owner
	for i, t := range tris {
		for _, v := range t {
			if owner[v] < 0 {
				owner[v] = int32(i)
			}
		}
	}
	tt.eOwn = make([]int32, len(m.Edges))
	tt.edges = m.Edges
	for i, et := range m.EdgeTris {
		tt.eOwn[i] = et[0]
	}
	// the owned features by triangle (CSR; in id order within one)
	tt.vStart, tt.ownVs = ownedBy(owner, len(tris))
	tt.eStart, tt.ownEs = ownedBy(tt.eOwn, len(tris))
	tt.vBox = make([]aabb, len(tt.ownVs))
	tt.eBox = make([]aabb, len(tt.ownEs))
	// adjacency for the connectivity of nodes: triangles sharing a vertex
	vt := make([][]int32, nv)
	for i, t := range tris {
		for _, v := range t {
			vt[v] = append(vt[v], int32(i))
		}
	}
	if len(tris) > 0 {
		mark := make([]int32, len(tris)) // node id + 1 whose member a triangle is
		stack := []int32{}
		tt.split(order, cent, tris, vt, mark, &stack)
	}
	tt.vertTris = vt
	tt.fan = closedFans(m, nv, vt)
	tt.ringFlat = make([]bool, nv)
	tt.tris = tris
	tt.fnPhase = tt.runPhase
	tt.nd = make([]nodeState, len(tt.nodes))
	tt.cone = make([]leafCone, len(tris))
	tt.box = make([]aabb, len(tt.nodes))
	tt.dirty = make([]bool, len(tt.nodes))
	tt.parent = make([]int32, len(tt.nodes))
	for id, n := range tt.nodes {
		if id == 0 {
			tt.parent[id] = -1
		}
		if n.left >= 0 {
			tt.parent[n.left], tt.parent[n.right] = int32(id), int32(id)
		}
	}
	// subtrees of fewer than refitSubtree triangles refit in parallel
	var walk func(id int32)
	walk = func(id int32) {
		n := tt.nodes[id]
		if n.left < 0 || n.size < refitSubtree {
			tt.subtrees = append(tt.subtrees, id)
			return
		}
		walk(n.left)
		walk(n.right)
		tt.top = append(tt.top, id)
	}
	if len(tt.nodes) > 0 {
		walk(0)
	}
	return tt
}

// treePhase names a parallel pass of refit.
type treePhase uint8

const (
	refitLeaves treePhase = iota
	refitSubtrees
	refitRings
	refitRelies
)

// run runs pass ph over count items on p.
func (tt *triTree) run(p *pool.Pool, ph treePhase, count, work int) {
	tt.phase = ph
	p.RunWork(count, work, pool.MinChunk, tt.fnPhase)
}

// runPhase runs items [lo, hi) of the current pass: leaves (triangles),
// subtrees, vertices' fans, or triangles' reliance on a cull.
func (tt *triTree) runPhase(lo, hi int) {
	switch tt.phase {
	case refitLeaves:
		tt.refitLeaves(lo, hi)
	case refitSubtrees:
		for _, root := range tt.subtrees[lo:hi] {
			for id := tt.last(root); id >= root; id-- {
				tt.merge(id)
			}
		}
	case refitRings:
		for v := lo; v < hi; v++ {
			tt.ringFlat[v] = tt.fan[v] && !tt.oneFlatNode(tt.vertTris[v]) && tt.flatFan(int32(v), tt.x, tt.tris)
		}
	case refitRelies:
		for t := lo; t < hi; t++ {
			tt.relies(tt.tris, int32(t))
		}
	}
}

// ownedBy groups ids 0..len(owner)-1 by their owner in 0..n-1 (-1: none)
// as a CSR: owner t's ids are ids[start[t]:start[t+1]], ascending.
func ownedBy(owner []int32, n int) (start, ids []int32) {
	start = make([]int32, n+1)
	for _, t := range owner {
		if t >= 0 {
			start[t+1]++
		}
	}
	for t := range n {
		start[t+1] += start[t]
	}
	ids = make([]int32, start[n])
	next := slices.Clone(start[:n])
	for i, t := range owner {
		if t >= 0 {
			ids[next[t]] = int32(i)
			next[t]++
		}
	}
	return start, ids
}

// split appends the node of triangles order (and its subtree) and returns
// its index.
func (tt *triTree) split(order []int32, cent []vec.Vec3, tris [][3]int32, vt [][]int32, mark []int32, stack *[]int32) int32 {
	id := int32(len(tt.nodes))
	tt.nodes = append(tt.nodes, bvhNode{left: -1, right: -1, tri: -1, size: int32(len(order))})
	tt.nodes[id].connected = connectedSet(order, id+1, tris, vt, mark, stack)
	if len(order) == 1 {
		tt.nodes[id].tri = order[0]
		tt.leaf[order[0]] = id
		return id
	}
	lo, hi := cent[order[0]], cent[order[0]]
	for _, t := range order {
		lo, hi = lo.Min(cent[t]), hi.Max(cent[t])
	}
	axis := hi.Sub(lo).MaxAxis()
	key := func(t int32) float64 { return cent[t].Get(axis) }
	slices.SortFunc(order, func(a, b int32) int {
		if ka, kb := key(a), key(b); ka != kb {
			if ka < kb {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	mid := len(order) / 2
	l := tt.split(order[:mid], cent, tris, vt, mark, stack)
	r := tt.split(order[mid:], cent, tris, vt, mark, stack)
	tt.nodes[id].left, tt.nodes[id].right = l, r
	return id
}

// connectedSet reports whether the triangles of set are one piece through
// shared vertices, marking them with tag.
func connectedSet(set []int32, tag int32, tris [][3]int32, vt [][]int32, mark []int32, stack *[]int32) bool {
	for _, t := range set {
		mark[t] = tag
	}
	// flood from the first triangle, re-marking reached ones with -tag
	s := append((*stack)[:0], set[0])
	mark[set[0]] = -tag
	reached := 1
	for len(s) > 0 {
		t := s[len(s)-1]
		s = s[:len(s)-1]
		for _, v := range tris[t] {
			for _, u := range vt[v] {
				if mark[u] == tag {
					mark[u] = -tag
					reached++
					s = append(s, u)
				}
			}
		}
	}
	*stack = s
	return reached == len(set)
}

// refit computes the boxes at positions x, each leaf box inflated by pad +
// the largest skin of its vertices (pad the vertex triangle contact
// distance /2), and the cones of the normals at x and at now (the
// substep's start and current positions) widened by turnMaxAngle.
func (tt *triTree) refit(x, now []vec.Vec3, skin []float64, pad float64, p *pool.Pool) {
	tt.x, tt.now, tt.skin, tt.pad = x, now, skin, pad
	tt.run(p, refitLeaves, len(tt.tris), len(tt.tris))
	// the subtrees (contiguous node ranges, children after parents) in
	// parallel, then the nodes above them
	n := len(tt.subtrees)
	tt.run(p, refitSubtrees, n, n*pool.MinChunk)
	for _, id := range tt.top {
		tt.merge(id)
	}
	// the highest flat inner node over each node (a leaf has no pairs of
	// its own to cull), parents before children
	for id := range tt.nd {
		ns := &tt.nd[id]
		ns.top = -1
		if id > 0 {
			ns.top = tt.nd[tt.parent[id]].top
		}
		if ns.top < 0 && ns.ok && tt.nodes[id].left >= 0 {
			ns.top = int32(id)
		}
	}
	// the fans, from the leaf cones; then which triangles a cull relies on
	tt.run(p, refitRings, len(tt.ringFlat), len(tt.ringFlat))
	tt.run(p, refitRelies, len(tt.tris), len(tt.tris))
	tt.x, tt.now, tt.skin = nil, nil, nil
}

// refitLeaves refits the leaves of triangles [lo, hi) (see refit).
func (tt *triTree) refitLeaves(lo, hi int) {
	x, now, skin, pad := tt.x, tt.now, tt.skin, tt.pad
	for t := lo; t < hi; t++ {
		tri := tt.tris[t]
		a, b, c := x[tri[0]], x[tri[1]], x[tri[2]]
		ns := &tt.nd[tt.leaf[t]]
		tt.box[tt.leaf[t]] = leafBox(x, tri, skin, pad)
		tt.featureBoxes(int32(t), x, skin, pad)
		n := b.Sub(a).Cross(c.Sub(a))
		ns.area = n
		// the cone holds the normals at x and now, and turnMaxAngle
		// more
		a1 := now[tri[0]]
		n1 := now[tri[1]].Sub(a1).Cross(now[tri[2]].Sub(a1))
		l, l1 := n.Len(), n1.Len()
		ns.cc, ns.cs = -1, 0
		if ra := cullMinArea * tt.restArea[t]; l < ra || l1 < ra || l < 1e-300 || l1 < 1e-300 {
			tt.finish(tt.leaf[t])
			continue
		}
		u := n.Scale(1 / l).Add(n1.Scale(1 / l1))
		lu := u.Len()
		if cp := lu / 2; cp > cosCull {
			// cp is the cosine of the angle between each normal and
			// their bisector
			sp := math.Sqrt(max(0, 1-cp*cp))
			ns.axis = u.Scale(1 / lu)
			ns.cc, ns.cs = cp*cosTurn-sp*sinTurn, sp*cosTurn+cp*sinTurn
		}
		tt.finish(tt.leaf[t])
	}
}

// closedFans reports, per vertex, whether its triangles vt[v] form one
// closed fan: every edge at the vertex joins exactly two of them, and they
// are one piece through those edges (an interior vertex of a manifold).
func closedFans(m *Mesh, nv int, vt [][]int32) []bool {
	nE := make([]int32, nv)
	open := make([]bool, nv)
	at := make([][]int32, nv) // per vertex: its edges
	for i, e := range m.Edges {
		for _, v := range e {
			nE[v]++
			open[v] = open[v] || m.EdgeTris[i][1] < 0
			at[v] = append(at[v], int32(i))
		}
	}
	for _, i := range m.NonManifold {
		for _, v := range m.Edges[i] {
			open[v] = true
		}
	}
	fan := make([]bool, nv)
	seen := make([]int32, len(m.Tris)) // vertex + 1 whose walk reached it
	for v := range fan {
		ts := vt[v]
		if open[v] || len(ts) < 3 || int(nE[v]) != len(ts) {
			continue
		}
		// walk the fan from its first triangle through the shared edges
		tag := int32(v) + 1
		seen[ts[0]] = tag
		n := 1
		for cur, moved := ts[0], true; moved; {
			moved = false
			for _, i := range at[v] {
				et := m.EdgeTris[i]
				var next int32 = -1
				switch cur {
				case et[0]:
					next = et[1]
				case et[1]:
					next = et[0]
				}
				if next >= 0 && seen[next] != tag {
					seen[next], cur, moved = tag, next, true
					n++
					break
				}
			}
		}
		fan[v] = n == len(ts)
	}
	return fan
}

// oneFlatNode reports whether triangles ts lie in one flat inner node,
// whose cull already skips their leaf pairs.
func (tt *triTree) oneFlatNode(ts []int32) bool {
	top := tt.nd[tt.leaf[ts[0]]].top
	if top < 0 {
		return false
	}
	for _, t := range ts[1:] {
		if tt.nd[tt.leaf[t]].top != top {
			return false
		}
	}
	return true
}

// flatFan reports whether the fan of vertex v (a closed fan) is flat at
// positions x: its leaf cones (refitted) fit in one cone of half-angle
// cullMaxAngle, and its projection onto the plane across the cone's axis
// winds once around v (each triangle's projection is positively oriented,
// and exactly one covers a direction inside the first one's), so the fan
// is a height field that cannot touch itself, and the leaf pairs of two of
// its triangles need no search. Like a flat node's, the cull holds while
// no normal leaves its leaf cone, which turned checks.
func (tt *triTree) flatFan(v int32, x []vec.Vec3, tris [][3]int32) bool {
	ts := tt.vertTris[v]
	var sum vec.Vec3
	for _, t := range ts {
		ns := &tt.nd[tt.leaf[t]]
		if ns.cc < cosCull {
			return false
		}
		sum = sum.Add(ns.area)
	}
	l := sum.Len()
	if l < 1e-300 {
		return false
	}
	axis := sum.Scale(1 / l)
	for _, t := range ts {
		ns := &tt.nd[tt.leaf[t]]
		cp := ns.axis.Dot(axis)
		if cp <= 0 {
			return false
		}
		sp := math.Sqrt(max(0, 1-cp*cp))
		if cp*ns.cc-sp*ns.cs < cosCull {
			return false
		}
	}
	// the spokes to the triangle's other two vertices, in its winding
	// order, projected across the axis
	xv := x[v]
	spokes := func(t int32) (p, q vec.Vec3) {
		tri := tris[t]
		i := 0
		for tri[i] != v {
			i++
		}
		p = x[tri[(i+1)%3]].Sub(xv)
		q = x[tri[(i+2)%3]].Sub(xv)
		return p.Sub(axis.Scale(p.Dot(axis))), q.Sub(axis.Scale(q.Dot(axis)))
	}
	p0, q0 := spokes(ts[0])
	lp, lq := p0.Len(), q0.Len()
	if lp < 1e-300 || lq < 1e-300 {
		return false
	}
	u := p0.Scale(1 / lp).Add(q0.Scale(1 / lq)) // inside the first sector
	covers := 0
	for _, t := range ts {
		p, q := spokes(t)
		if p.Cross(q).Dot(axis) <= 0 {
			return false
		}
		a, b := p.Cross(u).Dot(axis), u.Cross(q).Dot(axis)
		if a == 0 || b == 0 {
			return false // on a spoke: undecided
		}
		if a > 0 && b > 0 {
			covers++
		}
	}
	return covers == 1
}

// leafBox returns the box of triangle tri at positions x, inflated by pad
// plus the largest allowance of its vertices.
func leafBox(x []vec.Vec3, tri [3]int32, skin []float64, pad float64) aabb {
	a, b, c := x[tri[0]], x[tri[1]], x[tri[2]]
	r := pad + max(skin[tri[0]], skin[tri[1]], skin[tri[2]])
	rv := vec.V(r, r, r)
	return aabb{a.Min(b).Min(c).Sub(rv), a.Max(b).Max(c).Add(rv)}
}

// featureBoxes computes the boxes of the vertices and edges triangle t
// owns at positions x, inflated like leafBox (pad plus the largest
// allowance of their vertices): two features (or a feature and a leaf)
// whose boxes do not overlap are farther apart than 2·pad plus their
// allowances.
func (tt *triTree) featureBoxes(t int32, x []vec.Vec3, skin []float64, pad float64) {
	for k := tt.vStart[t]; k < tt.vStart[t+1]; k++ {
		v := tt.ownVs[k]
		r := pad + skin[v]
		rv := vec.V(r, r, r)
		tt.vBox[k] = aabb{x[v].Sub(rv), x[v].Add(rv)}
	}
	for k := tt.eStart[t]; k < tt.eStart[t+1]; k++ {
		e := tt.edges[tt.ownEs[k]]
		a, b := x[e[0]], x[e[1]]
		r := pad + max(skin[e[0]], skin[e[1]])
		rv := vec.V(r, r, r)
		tt.eBox[k] = aabb{a.Min(b).Sub(rv), a.Max(b).Add(rv)}
	}
}

// merge refits inner node id from its children.
func (tt *triTree) merge(id int32) {
	nd := &tt.nodes[id]
	if nd.left < 0 {
		return
	}
	l, r := &tt.nd[nd.left], &tt.nd[nd.right]
	ns := &tt.nd[id]
	tt.box[id] = tt.box[nd.left].union(&tt.box[nd.right])
	s := l.area.Add(r.area)
	ns.area = s
	ns.cc, ns.cs = -1, 0
	ls := s.Len()
	if l.cc >= cosCull && r.cc >= cosCull && ls >= 1e-300 {
		a := s.Scale(1 / ls)
		ns.axis = a
		cc, cs := 1.0, 0.0
		for _, ch := range [2]*nodeState{l, r} {
			cp := ch.axis.Dot(a)
			if cp <= 0 {
				cc = -1
				break
			}
			sp := math.Sqrt(max(0, 1-cp*cp))
			// cos and sin of the child's angle to a plus its half-angle
			if c2 := cp*ch.cc - sp*ch.cs; c2 < cc {
				cc, cs = c2, sp*ch.cc+cp*ch.cs
			}
		}
		if cc >= cosCull {
			ns.cc, ns.cs = cc, cs
		}
	}
	tt.finish(id)
}

// finish derives the cull flag of node id from its cone and box: one
// piece, normals within the cull cone, and a projected area no larger than
// the shadow of its box (which overlapping layers would exceed). The flag
// holds until the next refit; refitBoxes leaves it alone.
func (tt *triTree) finish(id int32) {
	ns := &tt.nd[id]
	ns.ok = false
	if !tt.nodes[id].connected || ns.cc < cosCull {
		return
	}
	a, d := ns.axis, tt.box[id].hi.Sub(tt.box[id].lo)
	shadow := math.Abs(a.X)*d.Y*d.Z + math.Abs(a.Y)*d.X*d.Z + math.Abs(a.Z)*d.X*d.Y
	ns.ok = ns.area.Dot(a)/2 <= shadow
}

// last returns the last node of node id's subtree, whose nodes are
// id..last (a subtree of k leaves holds 2k-1 nodes, numbered in walk
// order).
func (tt *triTree) last(id int32) int32 {
	return id + 2*tt.nodes[id].size - 2
}

// flat reports whether node id cannot touch itself (see finish).
func (tt *triTree) flat(id int32) bool {
	return tt.nd[id].ok
}

// turned marks in out the triangles of [lo, hi) that a cull relies on
// (inside a flat inner node or a flat fan) whose normal has left its leaf
// cone at positions x since the last refit, or that were compressed below
// cullMinArea, and reports whether there are any. Any other triangle may
// turn freely.
func (tt *triTree) turned(x []vec.Vec3, tris [][3]int32, lo, hi int, out []bool) bool {
	found := false
	for t := lo; t < hi; t++ {
		out[t] = false
		ns := &tt.cone[t]
		if !ns.inFlat {
			continue
		}
		tri := tris[t]
		a := x[tri[0]]
		n := x[tri[1]].Sub(a).Cross(x[tri[2]].Sub(a))
		d, l2 := n.Dot(ns.axis), n.LenSq()
		if d <= 0 || d*d < ns.cc2*l2 || l2 < ns.ra2 {
			out[t], found = true, true
		}
	}
	return found
}

// uncull drops the culls that the triangles marked in turn relied on:
// the flags of the nodes from each one's leaf up to its highest flat node
// (the rest of that node's subtree keeps its flags, as its normals stayed
// in their cones), and the flat fans around its vertices. It appends those
// highest flat nodes, ascending, to tops and the vertices whose fans were
// flat, ascending, to fans: the leaf pairs within the nodes and of two
// triangles around the vertices are what the dropped culls skipped.
func (tt *triTree) uncull(tris [][3]int32, turn []bool, tops, fans []int32) ([]int32, []int32) {
	t0, f0 := len(tops), len(fans)
	for t, on := range turn {
		if !on {
			continue
		}
		leaf := tt.leaf[t]
		if top := tt.nd[leaf].top; top >= 0 {
			if tt.nd[top].ok {
				tops = append(tops, top)
			}
			for id := tt.parent[leaf]; ; id = tt.parent[id] {
				tt.nd[id].ok = false
				if id == top {
					break
				}
			}
		}
		for _, u := range tris[t] {
			if tt.ringFlat[u] {
				tt.ringFlat[u] = false
				fans = append(fans, u)
			}
		}
	}
	slices.Sort(tops[t0:])
	slices.Sort(fans[f0:])
	// the highest flat node over each node of the dropped subtrees, as
	// refit derives it (nothing above a top is flat), and which triangles
	// a cull still relies on
	for _, top := range tops[t0:] {
		tt.nd[top].top = -1
		for id := top + 1; id <= tt.last(top); id++ {
			ns := &tt.nd[id]
			ns.top = tt.nd[tt.parent[id]].top
			if tt.nodes[id].left >= 0 {
				if ns.top < 0 && ns.ok {
					ns.top = id
				}
				continue
			}
			tt.relies(tris, tt.nodes[id].tri)
		}
	}
	for _, u := range fans[f0:] {
		for _, t := range tt.vertTris[u] {
			tt.relies(tris, t)
		}
	}
	return tops, fans
}

// relies sets whether a cull relies on triangle t (see turned).
func (tt *triTree) relies(tris [][3]int32, t int32) {
	tri := tris[t]
	ns := &tt.nd[tt.leaf[t]]
	ra := cullMinArea * tt.restArea[t]
	tt.cone[t] = leafCone{ns.axis, ns.cc * ns.cc, ra * ra, ns.top >= 0 || tt.ringFlat[tri[0]] || tt.ringFlat[tri[1]] || tt.ringFlat[tri[2]]}
}

func (tt *triTree) overlap(a, b int32) bool {
	return tt.box[a].overlaps(&tt.box[b])
}

// refitBoxes recomputes the boxes of the leaves of triangles ts and of
// their owned features at positions x (inflated as in refit) and of their
// ancestors, keeping every normal cone and cull flag.
func (tt *triTree) refitBoxes(x []vec.Vec3, tris [][3]int32, skin []float64, pad float64, ts []int32) {
	up := tt.dirtyOn[:0]
	for _, t := range ts {
		l := tt.leaf[t]
		tt.box[l] = leafBox(x, tris[t], skin, pad)
		tt.featureBoxes(t, x, skin, pad)
		for id := tt.parent[l]; id >= 0 && !tt.dirty[id]; id = tt.parent[id] {
			tt.dirty[id] = true
			up = append(up, id)
		}
	}
	// children before parents: they have larger indices
	slices.Sort(up)
	for _, id := range slices.Backward(up) {
		nd := tt.nodes[id]
		tt.box[id] = tt.box[nd.left].union(&tt.box[nd.right])
		tt.dirty[id] = false
	}
	tt.dirtyOn = up
}

// query calls visit(b) for every triangle b other than a whose leaf box
// overlaps a's, except those in a's highest flat inner node (whose cull
// skips their pairs with a): the leaf pairs with a that a full traversal
// visits.
func (tt *triTree) query(a int32, visit func(b int32)) {
	la := tt.leaf[a]
	q, skip := &tt.box[la], tt.nd[la].top
	// a median split tree is at most 32 levels deep, and the stack holds
	// at most one node per level and one more
	var stack [64]int32
	stack[0] = 0
	for n := 1; n > 0; {
		n--
		id := stack[n]
		if id == skip || !tt.box[id].overlaps(q) {
			continue
		}
		nd := &tt.nodes[id]
		if nd.left < 0 {
			if nd.tri != a {
				visit(nd.tri)
			}
			continue
		}
		stack[n], stack[n+1] = nd.right, nd.left
		n += 2
	}
}

// plan splits the traversal of the root into independent tasks, expanding
// every task a level per round until there are at least want of them or
// none can be split (the split depends only on the tree and the boxes,
// never on the thread count).
func (tt *triTree) plan(want int) {
	tt.tasks = tt.tasks[:0]
	if len(tt.nodes) == 0 {
		return
	}
	tt.tasks = append(tt.tasks, treeTask{0, -1})
	for len(tt.tasks) < want {
		next := tt.spare[:0]
		split := false
		for _, k := range tt.tasks {
			n := len(next)
			next = tt.expand(next, k)
			split = split || len(next) != n+1 || next[n] != k
		}
		tt.tasks, tt.spare = next, tt.tasks
		if !split {
			break
		}
	}
}

// expand appends the subtasks of task k to out, or k itself if it cannot
// be split.
func (tt *triTree) expand(out []treeTask, k treeTask) []treeTask {
	if k.b < 0 {
		nd := tt.nodes[k.a]
		if nd.left < 0 || tt.flat(k.a) {
			return append(out, k)
		}
		l, r := nd.left, nd.right
		out = append(out, treeTask{l, -1}, treeTask{r, -1})
		if tt.overlap(l, r) {
			out = append(out, treeTask{l, r})
		}
		return out
	}
	a, b := k.a, k.b
	if tt.nodes[a].left < 0 || tt.nodes[b].left >= 0 && tt.nodes[b].size > tt.nodes[a].size {
		a, b = b, a
	}
	if tt.nodes[a].left < 0 {
		return append(out, k)
	}
	for _, c := range [2]int32{tt.nodes[a].left, tt.nodes[a].right} {
		if tt.overlap(c, b) {
			out = append(out, treeTask{c, b})
		}
	}
	return out
}

// self visits the leaf pairs within node id.
func (tt *triTree) self(id int32, leafPair func(a, b int32)) {
	nd := tt.nodes[id]
	if nd.left < 0 || tt.flat(id) {
		return
	}
	tt.self(nd.left, leafPair)
	tt.self(nd.right, leafPair)
	if tt.overlap(nd.left, nd.right) {
		tt.pair(nd.left, nd.right, leafPair)
	}
}

// pair visits the leaf pairs between nodes a and b, whose boxes overlap.
func (tt *triTree) pair(a, b int32, leafPair func(a, b int32)) {
	na, nb := &tt.nodes[a], &tt.nodes[b]
	if na.left < 0 && nb.left < 0 {
		leafPair(na.tri, nb.tri)
		return
	}
	// descend the larger node
	if na.left < 0 || nb.size > na.size {
		a, b = b, a
		na = nb
	}
	if l := na.left; tt.overlap(l, b) {
		tt.pair(l, b, leafPair)
	}
	if r := na.right; tt.overlap(r, b) {
		tt.pair(r, b, leafPair)
	}
}
