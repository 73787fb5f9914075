package contact

import (
	"math"
	"sync/atomic"

	"github.com/drape-sim/drape/solver/internal/pool"

	"github.com/drape-sim/drape/internal/vec"
)

// Self-collision keeps every vertex at least Params.Thickness away from
// every triangle it does not belong to, and every edge that far from every
// edge it shares no vertex with (Bridson, Fedkiw, Anderson 2002; Müller et
// al. 2007 §4.4; seed 004), on the side it came from.
//
// Candidate pairs are a neighbour list with a skin per vertex. Each vertex
// v has a reference position r_v, relative to the mean position of the free
// vertices, and an allowance s_v: how far it may move from r_v, relative to
// the mean, before its pairs must be searched again. A pair is listed when
// it is closer than h + margin + s_v + s_t at the references (s_t the
// largest allowance of the other side's vertices), so while its vertices
// stay within their allowances the list holds it whenever it can come
// closer than h + margin; references taken at different substeps compare
// correctly, as each is relative to the mean of its own substep. They are
// taken in a substep from the vertex's position at its start (resolved) and
// its relative displacement d in it (predicted and constrained): the
// allowance is skinMin·h plus skinFactor·|d|, and the reference is
// the start position plus skinFactor·d, so the allowance holds the
// substep's own motion and, at a steady velocity, 2·skinFactor - 1 more
// substeps of it (where a reference at the start position held one: the
// 64 x 64 sphere drape took 9 % longer so). A resting heap keeps a list of
// near neighbours only, and a vertex that falls fast pairs with what lies
// along its path, without inflating the search for the rest of the cloth
// (while full rebuilds come every substep, as in a crumpling heap, the
// factor is skinTight, whose allowance covers the substep and, at a
// steady velocity, one more; when a quarter of the vertices or more left
// their allowances, it is skinOwn, which covers the substep's own
// displacement only). Candidates come from a hierarchy of the
// triangles with normal cones (bvh.go), which skips the patches and
// vertex fans that cannot fold onto themselves. When a few vertices leave
// their allowances, only they take new references, and only the pairs of
// their triangles are searched again (rebuildPart); when a triangle a cull
// relies on turns out of its cone, the culls it relied on are dropped
// (uncull) and the pairs they skipped are searched as well. When many
// vertices leave, or many culls were dropped since the last full rebuild,
// every vertex starts over and the whole list is rebuilt, with fresh culls
// (rebuild). The pairs are listed in the hierarchy's traversal order, which
// keeps neighbouring pairs together. Displacements relative to the cloth's
// mean motion are clamped to maxRel·h per substep (Ten Minute Physics'
// velocity clamp): the side memories below are only trustworthy when no
// pair moves much more than the thickness in one substep. Pairs already
// closer than h in the rest mesh keep their rest distance instead.
//
// Every substep, one parallel pass over the list refreshes each pair's
// side memory from the substep's start positions and picks the pairs near
// contact at the current positions (closer than h + margin, or crossed),
// passing over the pairs it found surely far from contact, or surely near
// it, while their vertices stay where they were then (sc.keep); only the
// near ones are projected, with numSweeps Gauss-Seidel sweeps in pair
// order, every other one backwards (Gauss-Seidel converges where Jacobi
// averaging leaves stacked layers interpenetrating; serial while they are
// few, and in a heap slab by slab in parallel, see classify),
// numRounds times with the colliders in between (for the vertices
// the pushes moved); a pair found out of contact by more than its
// vertices have moved since is skipped (sc.budget). These rounds touch
// only the vertices of listed pairs, so they run on each component of the
// list (pairs joined by shared vertices) on its own, the components in
// parallel (comp.go). Once the vertices a sweep still pushes are
// few, the sweeps and rounds narrow to their pairs (narrow). The pairs of
// vertices the rounds pushed far beyond their allowances are searched
// before the substep ends (rescue). A pair still
// crossed at the end sends its vertices back to the substep's start
// (failSafe), and so do two triangles of a near pair that intersect
// though no pair is flagged crossed, in rounds that did not converge
// (untangle); the separating speed the pushes give is capped (separate).
// Every order is fixed, so the result does not depend on the thread
// count.
type Contact struct {
	h  float64 // thickness [m]
	mu float64 // friction coefficient
	o  Options

	// the mesh (see Mesh), and each substep's positions and length
	rest      []vec.Vec3
	tris      [][3]int32
	edgeTris  [][2]int32
	w         []float64
	seamStart []int32
	seamAdj   []int32
	pool      *pool.Pool
	pos, prev []vec.Vec3
	dt        float64
	col       Colliders // the colliders between the rounds (nil: none)

	stats Stats

	edges    [][2]int32
	restC    []vec.Vec3 // per triangle: rest centroid
	restR    []float64  // per triangle: rest bounding radius around restC
	edgeMidR []float64  // per edge: half rest length

	// neighbour list
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
	nearFlag  []bool
	crossFlag []bool
	sides     bool // pick refreshes the side memories

	// all is the group of every listed pair; the substep's projection
	// rounds run on it, or on each of comps.groups (comp.go)
	all   pairGroup
	comps components

	// The projections skip a pair found out of contact (solve's result
	// depends only on the pair's positions, its substep-start positions and
	// constants) until one of its vertices moves: a group's tick counts its
	// pair evaluations in the substep, vStamp is the tick at which a vertex
	// last moved, pStamp the tick at which a pair was found out of contact
	// (0: not found so, or not since the substep started). Only pairs and
	// vertices of one group are compared.
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
	// per vertex: the hotTick of the last sweep (or later tick) that left
	// it convergedPush·h or more from its anchor, where that moved the
	// anchor (drift)
	vHot   []int32
	anchor []vec.Vec3
	adj    pairAdj // the listed pairs of each vertex (narrow)
	hotSq  float64 // (convergedPush·h)²

	before  []vec.Vec3 // positions before the self-collision phase
	pickPos []vec.Vec3 // positions at the substep's first pick

	// The substep's first pick skips the pairs that were surely far from
	// contact, or surely near it, when it last looked at them, while
	// their vertices stay close to where they were then (see
	// refreshPair): a resting heap's vertices hardly move, and refreshing
	// every listed pair's side memory and flags took about a third of its
	// time. Per vertex: its positions (now and at the substep's start)
	// when it was last further than keepDrift·h from the ones before
	// (keepQ, keepP), whether that was in this substep (reanch), and its
	// displacement in the substep (mot). Per pair: keep (keepFar,
	// keepNear or 0). keepOK says keep is valid for the listed pairs.
	keepQ, keepP []vec.Vec3
	reanch       []bool
	mot          []float64
	keep         []uint8
	keepOK       bool
	keepSkip     bool // this substep's first pick skips the kept pairs
	// carried says the partial rebuild under way moves keep and budget
	// along with the pairs it keeps (rebuildPart, for setAside)
	carried bool

	mark   []bool // scratch for touched
	inNear []bool // per vertex: in a near pair (see collideNear)
	moved  []bool // per vertex: moved since the substep's first pick

	par parSweeps // parallel sweeps (par.go)

	turnedFlag atomic.Bool
	nextTask   atomic.Int32
	numTasks   int // the search's tasks
	numQueries int // a partial rebuild's tasks of queries (see runQueries)

	blocks   []vertBlock // update's per-vertex passes (mean, clamp)
	mNow, cs vec.Vec3    // the mean position now and its motion in the substep (clamp)
	mPrev    vec.Vec3    // the mean position at the substep's start (reset)
	factor   float64     // the allowance's factor of the substep's rebuild (reset)

	fnTasks, fnQueries, fnRefresh, fnRefreshSplit, fnSeparate, fnTurned, fnMean, fnClamp, fnPrepPart, fnReset, fnPairVerts, fnLate, fnNear, fnGroups func(lo, hi int)
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

const (
	// numRounds rounds of picking near pairs, numSweeps Gauss-Seidel
	// sweeps over them (alternating direction), and the colliders run each
	// substep. Re-picking matters more than sweeping: the 64 x 64 heap's
	// closest pair for a 3 mm thickness is 1.37 mm with 5 x 3, 1.43 mm
	// with 5 x 4, 2.27 mm with 6 x 3 and 2.44 mm with 8 x 2 (which costs
	// 14 % more).
	numRounds = 6
	numSweeps = 3
	// convergedPush·h is the largest push of a converged sweep, and the
	// drift that marks a vertex hot (see narrow). With narrowing, 1e-2
	// left the 64 x 64 heap's closest vertex-triangle pair at 1.78 mm of
	// the 3 mm thickness (TestSelfCollisionHeap), 2e-2 to 5e-2 at 2.17 mm
	// (2.22 mm without narrowing); its resting frames took 160 ms on one
	// thread at 1e-2, 136 at 2e-2 and 128 at 3e-2.
	convergedPush = 3e-2
	// keepDrift·h is how far a vertex may move before the first pick
	// looks again at the pairs it kept (see Contact.keep).
	keepDrift = 0.02
	// keepFar and keepNear: how the first pick keeps a pair (see
	// Contact.keep)
	keepFar  = 1
	keepNear = 2
	// maxRel·h is the largest displacement per substep relative to the
	// cloth's mean motion.
	maxRel = 1.0

	// maxSeparation is the largest separating speed [m/s] self-collision
	// pushes may give a vertex (see separate).
	maxSeparation = 0.1

	// crossReach·h is how far apart two edges may be after crossing
	// within one substep (relative motion is clamped to 2·maxRel·h).
	crossReach = 3.0

	// failSafeRounds bounds the rounds of failSafe.
	failSafeRounds = 8

	// margin·h is added to the contact distance when pairs are listed
	// and when near pairs are picked, for the pushes of the substep's own
	// projections (between two picks). 0.5 baked the 64 x 64 sphere drape
	// bit for bit as 0.35 did, with 3 % more instructions (9 % on the
	// heap). At 0.25 the 128 x 128 heap (BenchmarkHeap) ended with 12
	// intersecting pairs, until crossings that no pair flags were left to
	// untangle: with it, 0.25 ends the 128 x 128 heap and four slightly
	// changed ones (thickness x1.02 and x0.98, 16 substeps, friction 0.45)
	// with none, as 0.35 does, for 4.4 % fewer instructions on the bench's
	// self-collision drape (46.94 G against 49.09 G over 120 frames; its
	// figures the same to 1e-5) and 7.9 % on the 64 x 64 heap, whose
	// closest vertex-triangle pair keeps 2.24 mm of the 3 mm thickness
	// (2.22 at 0.35). (Without untangle the 128 x 128 heap and those four
	// ended with 1, 6, 0, 6 and 1 pairs at 0.35.)
	margin = 0.25
	// skinMin·h is the smallest allowance, which lets a resting cloth
	// jitter without rebuilding.
	skinMin = 0.25
	// skinFactor times a vertex's relative displacement in the
	// rebuild's substep is added to its allowance: the list then lasts
	// about that many substeps of steady motion.
	skinFactor = 2.0
	// skinTight replaces skinFactor in a full rebuild right after
	// another (a crumpling heap rebuilds every substep): the allowance
	// then covers the rebuild's own substep and, at a steady velocity, one
	// more (skinFactor: three more). The 64 x 64
	// heap's first 8 frames (BenchmarkHeap, 1 thread) take 164 G
	// instructions so, 272 G with skinFactor.
	skinTight = 1.0
	// skinOwn replaces skinTight when at least escMost of the
	// vertices left their allowances: the allowance then covers the
	// substep's displacement only (half of it, around the midpoint of its
	// path), the least a list needs, as most of the cloth moves too much
	// for a list to last longer. The 64 x 64 heap's first 48 frames took
	// 3.2 s a frame on one thread so, 3.7 s with skinTight (frames
	// 12-19, BenchmarkHeap's: 15 % less); 0.1 to 0.35 for escMost all
	// gave 3.2 to 3.3 s.
	skinOwn = 0.5
	escMost = 0.25
	// skinOwnMin replaces skinMin with skinOwn: a list that
	// lasts one substep need not let a resting cloth jitter. What is left
	// is slack for the substep's own pushes, with the margin; in a
	// crumpling heap 7 % of the vertices are pushed further than
	// skinMin·h in a substep anyway, 13 % further than this; those
	// pushed far out are searched again (rescue). On the 64 x 64 heap and
	// its four variants of margin's comment (48 frames) every frame
	// had 0 intersecting pairs and the same closest vertex-triangle pairs
	// as with skinMin, and with the rescue so had the 128 x 128 ones
	// (36 frames; 1 or 2 at some frame before it, and before skinOwn).
	// BenchmarkHeap's crumpling frames took 13 % (64 x 64) and 25 %
	// (128 x 128) less. At 0.02 the 128 x 128 ones kept 0.29-0.49 mm of
	// the 3 mm thickness, against 0.81-1.11 mm at 0.1.
	skinOwnMin = 0.1
	// escLate·h is how far beyond its allowance the substep's rounds
	// may leave a vertex before its pairs are searched again within the
	// substep (rescue). While no vertex is further out than that, a pair
	// the list lacks stays (1 + margin - 2·escLate)·h apart, at
	// the substep's start, at its end and on the straight path between
	// them that the crossing tests interpolate: it cannot have crossed.
	escLate = 0.5

	// narrowMax: the substep's iterations narrow to the pairs near
	// the vertices still pushed (narrow) while those are at most
	// 1/narrowMax of the listed pairs. The 64 x 64 heap's frames
	// 48-64 took 165 ms/frame on one thread at 2, 127 at 4 and 132 at 8.
	narrowMax = 4
	// scansMax is the most scans of the whole list narrow makes in a
	// substep that changed it before it builds the index of the
	// vertices' pairs, which costs about as much as five.
	scansMax = 3

	// searchTasks is about how many independent parts a rebuild's
	// traversal is cut into.
	searchTasks = 256
	// A partial rebuild searches again the pairs of the triangles of the
	// vertices that left their allowance, unless they are more than
	// 1/partMax of the triangles: then a full rebuild, which also
	// resets every allowance and normal cone, is as cheap.
	partMax = 4
	// uncutMax is the most triangles, relative to all, whose culls
	// partial rebuilds drop (counted per drop) before a full rebuild
	// restores them: each dropped cull makes later searches visit more
	// pairs. On the 64 x 64 sphere drape (thickness 5 mm, 1 thread) 0.05
	// took 29.06 G instructions over 60 frames, 0.02 29.11 G, 0.1 29.11 G,
	// and without a bound 29.85 G.
	uncutMax = 0.05
	// partChunk is how many triangles of a partial rebuild one search
	// task queries.
	partChunk = 16
	// refreshGrain is the fewest pairs a pick's refresh hands to
	// another worker: a resting fold's list of about 1850 pairs, picked
	// seven times a substep, is worth splitting (the 64 x 64 sphere
	// drape's frames 60-120 took 27.8 ms/frame on two threads with
	// pool.MinChunk, 25.9 with this).
	refreshGrain = 256
)

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
	sc := &Contact{h: h, mu: mu, o: o, rest: m.Rest, tris: m.Tris, edgeTris: m.EdgeTris, w: m.InvMass,
		seamStart: m.SeamStart, seamAdj: m.SeamAdj, pool: p}
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
	sc.fnTasks, sc.fnQueries, sc.fnRefresh, sc.fnSeparate = sc.runTasks, sc.runQueries, sc.refresh, sc.separate
	sc.fnRefreshSplit, sc.fnPairVerts = sc.refreshSplit, sc.pairVertsRange
	sc.fnMean, sc.fnClamp, sc.fnPrepPart, sc.fnReset = sc.mean, sc.clamp, sc.prepPart, sc.resetAll
	sc.fnLate = sc.late
	sc.fnNear, sc.fnGroups = sc.collideNear, sc.runGroups
	sc.blocks = make([]vertBlock, (nv+blockSize-1)/blockSize)
	sc.par.init(sc)
	sc.turn = make([]bool, len(tris))
	sc.fnTurned = func(lo, hi int) {
		if sc.tree.turned(sc.pos, sc.tris, lo, hi, sc.turn) {
			sc.turnedFlag.Store(true)
		}
	}
	return sc
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
		sc.pool.RunWork(len(sc.comps.groups), len(sc.vt)+len(sc.ee), refreshGrain, sc.fnGroups)
		for i := range sc.comps.groups {
			sc.addStats(&sc.comps.groups[i])
		}
	} else {
		sc.rounds(&sc.all)
		sc.addStats(&sc.all)
	}
	sc.rescue()
	sc.stats.Untangled += sc.untangle()
	sc.pool.Run(len(sc.pos), sc.fnSeparate)
	sc.col = nil
}
