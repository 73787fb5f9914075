package contact

import (
	"math"
	"sync/atomic"

	"github.com/drape-sim/drape/solver/internal/pool"

	"github.com/drape-sim/drape/internal/vec"
)

// Contact is the self-contact of one cloth (see the package comment). Its
// state falls into the parts embedded below: the rest mesh, the neighbour
// list, the picks, the skipping of pairs out of contact and the narrowing
// of the rounds. Every order in it is fixed, so the result does not
// depend on the thread count.
type Contact struct {
	h  float64 // thickness [m]
	mu float64 // friction coefficient
	o  Options

	restMesh
	list
	picks
	skips
	narrowing

	// the substep's positions (Update), length and colliders (Project)
	pos, prev []vec.Vec3
	dt        float64
	col       Colliders  // nil: none
	before    []vec.Vec3 // positions before the contact phase (separate)

	// all is the group of every listed pair; the substep's projection
	// rounds run on it, or on each of comps.groups (comp.go)
	all   pairGroup
	comps components
	par   parSweeps // parallel sweeps (par.go)

	mark   []bool // scratch for touched
	inNear []bool // per vertex: in a near pair (see collideNear)

	stats Stats

	// the pool, and the pass it runs (runPhase)
	pool    *pool.Pool
	phase   phase
	fnPhase func(lo, hi int)
}

// restMesh is the mesh as New got it, and what it derives from the rest
// positions.
type restMesh struct {
	rest      []vec.Vec3
	tris      [][3]int32
	edges     [][2]int32
	edgeTris  [][2]int32
	w         []float64 // inverse masses (read every substep)
	seamStart []int32
	seamAdj   []int32
	restC     []vec.Vec3 // per triangle: rest centroid
	restR     []float64  // per triangle: rest bounding radius around restC
	edgeMidR  []float64  // per edge: half rest length
}

// list is the neighbour list: the references and allowances, the listed
// pairs, and the state of its rebuilds.
type list struct {
	ref     []vec.Vec3 // per vertex: reference position, relative to the mean
	skin    []float64  // per vertex: allowance around ref [m]
	valid   bool
	substep int // update's count
	fullAt  int // the substep of the last full rebuild

	esc  []int32 // vertices that left their allowance this substep
	part []int32 // the triangles of a partial rebuild
	turn []bool  // per triangle: its normal turned out of its cone (turned)
	tops []int32 // the flat nodes whose culls a partial rebuild dropped
	fans []int32 // the vertices whose flat fans it dropped
	// uncutAll counts the triangles whose culls were dropped since the
	// last full rebuild
	uncutAll int
	inA      []bool // per triangle: in part

	tree *triTree // broad phase

	// pairs, and those searched again, indexed by their ids
	vt, vtOld []vtPair
	pv        [][4]int32 // per listed pair (VT first, then EE): its four vertices (pairVertsRange)
	ee, eeOld []eePair
	vtOldAt   pairIndex
	eeOldAt   pairIndex
	// carried says the partial rebuild under way moves keep and budget
	// along with the pairs it keeps (rebuildPart, for setAside)
	carried bool

	turnedFlag atomic.Bool
	nextTask   atomic.Int32
	numTasks   int // the search's tasks
	numQueries int // a partial rebuild's tasks of queries (see runQueries)

	blocks   []vertBlock // update's per-vertex passes (mean, clamp)
	mNow, cs vec.Vec3    // the mean position now and its motion in the substep (clamp)
	mPrev    vec.Vec3    // the mean position at the substep's start (reset)
	factor   float64     // the allowance's factor of the substep's rebuild (reset)
}

// picks is the state of the picks of the pairs near contact.
type picks struct {
	nearFlag  []bool
	crossFlag []bool
	sides     bool       // pick refreshes the side memories
	pickPos   []vec.Vec3 // positions at the substep's first pick
	moved     []bool     // per vertex: moved since the substep's first pick

	// The substep's first pick skips the pairs that were surely far from
	// contact, or surely near it, when it last looked at them, while
	// their vertices stay close to where they were then (see
	// refreshPair): a resting heap's vertices hardly move, and refreshing
	// every listed pair's side memory and flags is most of its pick. Per
	// vertex: its positions (now and at the substep's start) when it was
	// last further than keepDrift·h from the ones before (keepQ, keepP),
	// whether that was in this substep (reanch), and its displacement in
	// the substep (mot). Per pair: keep (keepFar, keepNear or 0). keepOK
	// says keep is valid for the listed pairs.
	keepQ, keepP []vec.Vec3
	reanch       []bool
	mot          []float64
	keep         []uint8
	keepOK       bool
	keepSkip     bool // this substep's first pick skips the kept pairs
}

// skips is what lets the sweeps skip pairs out of contact.
type skips struct {
	// The projections skip a pair found out of contact (solve's result
	// depends only on the pair's positions, its substep-start positions
	// and constants) until one of its vertices moves: a group's tick
	// counts its pair evaluations in the substep, vStamp is the tick at
	// which a vertex last moved, pStamp the tick at which a pair was found
	// out of contact (0: not found so, or not since the substep started).
	// Only pairs and vertices of one group are compared.
	vStamp []int32
	pStamp []int32
	// A pair found out of contact by a margin stays so while its vertices
	// move less than that in all (see vertexTriangleApart's and
	// edgeEdgeApart's gap) and its side memory stays the same, so the
	// projections skip it too, in later substeps as well: walk is the
	// length of the path each vertex moved along (pushes and colliders,
	// and from one substep's first pick to the next, at least the
	// distance between its positions then, from walkAt), budget the sum
	// of the pair's four walks below which it is still out of contact
	// (0: none). In a resting heap most pairs near contact stay out of it
	// by more than their vertices move.
	walk   []float64
	walkAt []vec.Vec3
	budget []float64
}

// narrowing is what narrows the rounds to the pairs still pushed (narrow).
type narrowing struct {
	// per vertex: the hotTick of the last sweep (or later tick) that left
	// it convergedPush·h or more from its anchor, where that moved the
	// anchor (drift)
	vHot   []int32
	anchor []vec.Vec3
	adj    pairAdj // the listed pairs of each vertex (narrow)
	hotSq  float64 // (convergedPush·h)²
}

// pairGroup is a set of listed pairs whose projection rounds run on
// their own: every listed pair (Contact.all), or one component of
// the pairs that share vertices (comp.go).
type pairGroup struct {
	pairs []int32 // its listed pairs, ascending (nil for all)
	verts []int32 // the vertices of its pairs (a component's, see split)
	near  []int32 // its pairs near contact at its last pick, ascending (VT, then EE + len(vt))
	// tick counts the group's pair evaluations in the substep, and
	// pickTick is the tick of its last pick: a pair none of whose
	// vertices moved since (vStamp) keeps its flags
	tick, pickTick int32
	touched        []int32 // touched's result
	converged      bool    // its last rounds converged (selfRounds)
	crossOnly      bool    // its picks look for crossings only (failSafe)
	// hotTick marks (in Contact.vHot) the vertices its last sweep
	// left convergedPush·h or more from their anchors (drift): 1 + the
	// tick before that sweep
	hotTick int32
	// part is the scratch group of its hot pairs (narrow), and left is
	// part if its last rounds ended on it, unconverged (the rest of the
	// group converged), else nil
	part, left *pairGroup
	skipped    int // projections skipped (summed into Skipped)
	reverts    int // vertices put back (summed into Reverts)
	narrowed   int // narrow's parts (summed into Narrowed)
	share      float64
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

// Mesh is the cloth as self-contact sees it. New keeps the slices, copying
// none: InvMass is read at every substep, so the caller may change it
// between substeps (a sleeping vertex has 0); the others must not change.
type Mesh struct {
	// Rest are the rest positions [m]. A pair closer than the thickness at
	// rest keeps its rest distance instead.
	Rest []vec.Vec3
	// Tris are the triangles.
	Tris [][3]int32
	// Edges are the unique edges' vertex pairs, and EdgeTris each edge's
	// adjacent triangles: the second is -1 on a boundary edge and on a
	// non-manifold edge.
	Edges    [][2]int32
	EdgeTris [][2]int32
	// NonManifold lists the ids of the edges with more than two triangles.
	NonManifold []int32
	// InvMass is each vertex's inverse mass [1/kg]; 0 does not move.
	InvMass []float64
	// SeamAdj[SeamStart[v]:SeamStart[v+1]] are the vertices a seam joins
	// to vertex v; nil without seams. Self-contact ignores the pairs a
	// seam draws together.
	SeamStart, SeamAdj []int32
}

// Options are switches the tests turn; the zero value is what the solver
// runs.
type Options struct {
	// NoSkip projects every near pair in every sweep, also those found out
	// of contact whose vertices have not moved since (skipping them changes
	// no bit of the result; a test checks that).
	NoSkip bool
	// ParallelMin, if positive, replaces parMin: the fewest near pairs
	// whose sweeps run slab by slab in parallel.
	ParallelMin int
}

// Stats counts what the contact phases did since New, for tests and
// benchmarks.
type Stats struct {
	Rebuilds  int // full rebuilds of the neighbour list
	Partial   int // partial rebuilds
	Uncut     int // partial rebuilds that dropped culls
	Tight     int // full rebuilds with skinTight or skinOwn
	Rescues   int // substeps whose list was searched again after the rounds (rescue)
	Reverts   int // vertices put back by the fail-safe
	Untangled int // vertices put back by untangle
	Skipped   int // pair projections skipped (out of contact, not moved since)
	Classed   int // sweeps run class by class in parallel (classify)
	Split     int // substeps whose rounds ran component by component
	// Narrowed counts the sweeps narrowed to part of a group, and
	// NarrowedPart sums their shares of its listed pairs (narrow).
	Narrowed     int
	NarrowedPart float64
}

// Colliders projects vertices out of the cloth's colliders between the
// contact rounds, so that no contact push leaves a vertex inside one.
type Colliders interface {
	// Collide moves vertex v out of every collider.
	Collide(v int32)
	// Cost is one Collide's work in pool items (1 for analytic shapes).
	Cost() int
}

// New returns the self-contact of mesh m that keeps the cloth thickness h
// [m] away from itself with Coulomb friction coefficient mu, running its
// parallel phases on p.
func New(m Mesh, h, mu float64, p *pool.Pool, o Options) *Contact {
	sc := &Contact{h: h, mu: mu, o: o, pool: p, restMesh: restMesh{rest: m.Rest, tris: m.Tris, edgeTris: m.EdgeTris,
		w: m.InvMass, seamStart: m.SeamStart, seamAdj: m.SeamAdj}}
	sc.tree = newTriTree(m.Rest, &m)
	sc.edges = sc.tree.edges
	for _, e := range m.Edges {
		sc.edgeMidR = append(sc.edgeMidR, m.Rest[e[0]].Sub(m.Rest[e[1]]).Len()/2)
	}
	tris := m.Tris
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
	sc.ref = make([]vec.Vec3, nv)
	sc.inA = make([]bool, len(tris))
	sc.skin = make([]float64, nv)
	sc.before = make([]vec.Vec3, nv)
	sc.vStamp = make([]int32, nv)
	sc.walk, sc.walkAt = make([]float64, nv), make([]vec.Vec3, nv)
	sc.vHot = make([]int32, nv)
	sc.anchor = make([]vec.Vec3, nv)
	sc.hotSq = convergedPush * convergedPush * sc.h * sc.h
	sc.pickPos = make([]vec.Vec3, nv)
	sc.keepQ, sc.keepP = make([]vec.Vec3, nv), make([]vec.Vec3, nv)
	sc.reanch, sc.mot = make([]bool, nv), make([]float64, nv)
	sc.moved = make([]bool, nv)
	sc.mark = make([]bool, nv)
	sc.inNear = make([]bool, nv)
	sc.fnPhase = sc.runPhase
	sc.blocks = make([]vertBlock, (nv+blockSize-1)/blockSize)
	sc.par.init(sc)
	sc.turn = make([]bool, len(tris))
	return sc
}

// Rebuild searches the whole neighbour list again from the current
// references and allowances, as a full rebuild does, and returns the
// number of pairs listed. The benchmarks time it; the substeps never need
// it (Update decides when to rebuild).
func (sc *Contact) Rebuild() int {
	sc.rebuild()
	return len(sc.vt) + len(sc.ee)
}

// Stats returns the counts of what the contact phases did since New.
func (sc *Contact) Stats() Stats { return sc.stats }

// Update starts a substep whose start positions are prev and whose
// predicted and constrained positions are pos (both [m], kept until the
// next Update): it clamps each vertex's displacement relative to the
// cloth's mean motion, updates the neighbour list where vertices left
// their allowances or triangles turned, and picks the pairs near contact.
func (sc *Contact) Update(pos, prev []vec.Vec3) {
	sc.pos, sc.prev = pos, prev
	sc.update()
}

// Project runs the substep's contact rounds on the positions Update
// picked from: the sweeps over the near pairs with the colliders col
// (nil: none) in between, the rescue of vertices pushed far, the
// fail-safe and untangle, and the cap of the separating speed over the
// substep's length dt [s].
func (sc *Contact) Project(dt float64, col Colliders) {
	sc.dt, sc.col = dt, col
	if !sc.par.classed && sc.comps.ok {
		sc.stats.Split++
		sc.sides = false
		sc.comps.next.Store(0)
		sc.run(phaseGroups, len(sc.comps.groups), len(sc.vt)+len(sc.ee), refreshGrain)
		for i := range sc.comps.groups {
			sc.addStats(&sc.comps.groups[i])
		}
	} else {
		sc.rounds(&sc.all)
		sc.addStats(&sc.all)
	}
	sc.rescue()
	sc.stats.Untangled += sc.untangle()
	sc.run(phaseSeparate, len(sc.pos), len(sc.pos), pool.MinChunk)
	sc.col = nil
}
