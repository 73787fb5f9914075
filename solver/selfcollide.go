package solver

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

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
// allowance is selfSkinMin·h plus selfSkinFactor·|d|, and the reference is
// the start position plus selfSkinFactor·d, so the allowance holds the
// substep's own motion and, at a steady velocity, 2·selfSkinFactor - 1 more
// substeps of it (where a reference at the start position held one: the
// 64 x 64 sphere drape took 9 % longer so). A resting heap keeps a list of
// near neighbours only, and a vertex that falls fast pairs with what lies
// along its path, without inflating the search for the rest of the cloth
// (while full rebuilds come every substep, as in a crumpling heap, the
// factor is selfSkinTight, whose allowance covers the substep and, at a
// steady velocity, one more; when a quarter of the vertices or more left
// their allowances, it is selfSkinOwn, which covers the substep's own
// displacement only). Candidates come from a hierarchy of the
// triangles with normal cones (selfbvh.go), which skips the patches and
// vertex fans that cannot fold onto themselves. When a few vertices leave
// their allowances, only they take new references, and only the pairs of
// their triangles are searched again (rebuildPart); when a triangle a cull
// relies on turns out of its cone, the culls it relied on are dropped
// (uncull) and the pairs they skipped are searched as well. When many
// vertices leave, or many culls were dropped since the last full rebuild,
// every vertex starts over and the whole list is rebuilt, with fresh culls
// (rebuild). The pairs are listed in the hierarchy's traversal order, which
// keeps neighbouring pairs together. Displacements relative to the cloth's
// mean motion are clamped to selfMaxRel·h per substep (Ten Minute Physics'
// velocity clamp): the side memories below are only trustworthy when no
// pair moves much more than the thickness in one substep. Pairs already
// closer than h in the rest mesh keep their rest distance instead.
//
// Every substep, one parallel pass over the list refreshes each pair's
// side memory from the substep's start positions and picks the pairs near
// contact at the current positions (closer than h + margin, or crossed),
// passing over the pairs it found surely far from contact, or surely near
// it, while their vertices stay where they were then (sc.keep); only the
// near ones are projected, with selfSweeps Gauss-Seidel sweeps in pair
// order, every other one backwards (Gauss-Seidel converges where Jacobi
// averaging leaves stacked layers interpenetrating; serial while they are
// few, and in a heap slab by slab in parallel, see classify),
// selfIterations times with the colliders in between (for the vertices
// the pushes moved); a pair found out of contact by more than its
// vertices have moved since is skipped (sc.budget). These rounds touch
// only the vertices of listed pairs, so they run on each component of the
// list (pairs joined by shared vertices) on its own, the components in
// parallel (selfcomp.go). Once the vertices a sweep still pushes are
// few, the sweeps and rounds narrow to their pairs (narrow). The pairs of
// vertices the rounds pushed far beyond their allowances are searched
// before the substep ends (rescue). A pair still
// crossed at the end sends its vertices back to the substep's start
// (failSafe), and so do two triangles of a near pair that intersect
// though no pair is flagged crossed, in rounds that did not converge
// (untangle); the separating speed the pushes give is capped (separate).
// Every order is fixed, so the result does not depend on the thread
// count.
type selfCollision struct {
	b  *base
	m  *Model
	h  float64
	mu float64

	edges    [][2]int32
	restC    []vec.Vec3 // per triangle: rest centroid
	restR    []float64  // per triangle: rest bounding radius around restC
	edgeMidR []float64  // per edge: half rest length

	// neighbour list
	ref      []vec.Vec3 // per vertex: reference position, relative to the mean
	skin     []float64  // per vertex: allowance around ref [m]
	valid    bool
	substep  int // update's count
	Rebuilds int // full rebuilds (statistics for tests and benchmarks)
	Partial  int // partial rebuilds (statistics)
	Uncut    int // partial rebuilds that dropped culls (statistics)
	Tight    int // full rebuilds with selfSkinTight or selfSkinOwn (statistics)
	Rescues  int // substeps whose list was searched again after the rounds (statistics, see rescue)
	fullAt   int // the substep of the last full rebuild

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
	Reverts   int  // vertices put back by the fail-safe (statistics)
	Untangled int  // vertices put back by untangle (statistics)
	sides     bool // pick refreshes the side memories

	// all is the group of every listed pair; the substep's projection
	// rounds run on it, or on each of comps.groups (selfcomp.go)
	all   pairGroup
	comps selfComps

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
	// it selfConverged·h or more from its anchor, where that moved the
	// anchor (drift)
	vHot    []int32
	anchor  []vec.Vec3
	adj     pairAdj // the listed pairs of each vertex (narrow)
	hotSq   float64 // (selfConverged·h)²
	Skipped int     // pair projections skipped so (statistics)
	Classed int     // sweeps run class by class (statistics, see classify)
	Split   int     // substeps whose rounds ran component by component (statistics)
	// sweeps narrowed to part of a group, and their share of its listed
	// pairs summed (statistics, see narrow)
	Narrowed     int
	NarrowedPart float64

	before  []vec.Vec3 // positions before the self-collision phase
	pickPos []vec.Vec3 // positions at the substep's first pick

	// The substep's first pick skips the pairs that were surely far from
	// contact, or surely near it, when it last looked at them, while
	// their vertices stay close to where they were then (see
	// refreshPair): a resting heap's vertices hardly move, and refreshing
	// every listed pair's side memory and flags took about a third of its
	// time. Per vertex: its positions (now and at the substep's start)
	// when it was last further than selfKeepDrift·h from the ones before
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

	par selfPar // parallel sweeps (selfpar.go)

	turnedFlag atomic.Bool
	nextTask   atomic.Int32
	numTasks   int // the search's tasks
	numQueries int // a partial rebuild's tasks of queries (see runQueries)

	blocks   []vertBlock // update's per-vertex passes (mean, clamp)
	mNow, cs vec.Vec3    // the mean position now and its motion in the substep (clamp)
	mPrev    vec.Vec3    // the mean position at the substep's start (reset)
	factor   float64     // the allowance's factor of the substep's rebuild (reset)

	fnTasks, fnQueries, fnRefresh, fnRefreshSplit, fnSeparate, fnTurned, fnMean, fnClamp, fnPrepPart, fnReset, fnPairVerts, fnLate func(lo, hi int)
}

// pairGroup is a set of listed pairs whose projection rounds run on
// their own: every listed pair (selfCollision.all), or one component of
// the pairs that share vertices (selfcomp.go).
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
	// hotTick marks (in selfCollision.vHot) the vertices its last sweep
	// left selfConverged·h or more from their anchors (drift): 1 + the
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

// pairIndex hashes fewer pairs than pairIndexHashed times the ids: for
// those, clearing and summing a CSR over every id costs more than its
// cache-friendly lookups save.
const pairIndexHashed = 1.0 / 8

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

// selfSkipStill lets the projections skip the pairs found out of contact
// (see selfCollision.pStamp and selfCollision.budget); a test turns it off
// to check that skipping changes no bit of the result.
var selfSkipStill = true

// pairSlot collects the pairs of one traversal task.
type pairSlot struct {
	vt []vtPair
	ee []eePair
}

const (
	// selfIterations rounds of picking near pairs, selfSweeps Gauss-Seidel
	// sweeps over them (alternating direction), and the colliders run each
	// substep. Re-picking matters more than sweeping: the 64 x 64 heap's
	// closest pair for a 3 mm thickness is 1.37 mm with 5 x 3, 1.43 mm
	// with 5 x 4, 2.27 mm with 6 x 3 and 2.44 mm with 8 x 2 (which costs
	// 14 % more).
	selfIterations = 6
	selfSweeps     = 3
	// selfConverged·h is the largest push of a converged sweep, and the
	// drift that marks a vertex hot (see narrow). With narrowing, 1e-2
	// left the 64 x 64 heap's closest vertex-triangle pair at 1.78 mm of
	// the 3 mm thickness (TestSelfCollisionHeap), 2e-2 to 5e-2 at 2.17 mm
	// (2.22 mm without narrowing); its resting frames took 160 ms on one
	// thread at 1e-2, 136 at 2e-2 and 128 at 3e-2.
	selfConverged = 3e-2
	// selfKeepDrift·h is how far a vertex may move before the first pick
	// looks again at the pairs it kept (see selfCollision.keep).
	selfKeepDrift = 0.02
	// keepFar and keepNear: how the first pick keeps a pair (see
	// selfCollision.keep)
	keepFar  = 1
	keepNear = 2
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
	selfMargin = 0.25
	// selfSkinMin·h is the smallest allowance, which lets a resting cloth
	// jitter without rebuilding.
	selfSkinMin = 0.25
	// selfSkinFactor times a vertex's relative displacement in the
	// rebuild's substep is added to its allowance: the list then lasts
	// about that many substeps of steady motion.
	selfSkinFactor = 2.0
	// selfSkinTight replaces selfSkinFactor in a full rebuild right after
	// another (a crumpling heap rebuilds every substep): the allowance
	// then covers the rebuild's own substep and, at a steady velocity, one
	// more (selfSkinFactor: three more). The 64 x 64
	// heap's first 8 frames (BenchmarkHeap, 1 thread) take 164 G
	// instructions so, 272 G with selfSkinFactor.
	selfSkinTight = 1.0
	// selfSkinOwn replaces selfSkinTight when at least selfEscMost of the
	// vertices left their allowances: the allowance then covers the
	// substep's displacement only (half of it, around the midpoint of its
	// path), the least a list needs, as most of the cloth moves too much
	// for a list to last longer. The 64 x 64 heap's first 48 frames took
	// 3.2 s a frame on one thread so, 3.7 s with selfSkinTight (frames
	// 12-19, BenchmarkHeap's: 15 % less); 0.1 to 0.35 for selfEscMost all
	// gave 3.2 to 3.3 s.
	selfSkinOwn = 0.5
	selfEscMost = 0.25
	// selfSkinOwnMin replaces selfSkinMin with selfSkinOwn: a list that
	// lasts one substep need not let a resting cloth jitter. What is left
	// is slack for the substep's own pushes, with the margin; in a
	// crumpling heap 7 % of the vertices are pushed further than
	// selfSkinMin·h in a substep anyway, 13 % further than this; those
	// pushed far out are searched again (rescue). On the 64 x 64 heap and
	// its four variants of selfMargin's comment (48 frames) every frame
	// had 0 intersecting pairs and the same closest vertex-triangle pairs
	// as with selfSkinMin, and with the rescue so had the 128 x 128 ones
	// (36 frames; 1 or 2 at some frame before it, and before selfSkinOwn).
	// BenchmarkHeap's crumpling frames took 13 % (64 x 64) and 25 %
	// (128 x 128) less. At 0.02 the 128 x 128 ones kept 0.29-0.49 mm of
	// the 3 mm thickness, against 0.81-1.11 mm at 0.1.
	selfSkinOwnMin = 0.1
	// selfEscLate·h is how far beyond its allowance the substep's rounds
	// may leave a vertex before its pairs are searched again within the
	// substep (rescue). While no vertex is further out than that, a pair
	// the list lacks stays (1 + selfMargin - 2·selfEscLate)·h apart, at
	// the substep's start, at its end and on the straight path between
	// them that the crossing tests interpolate: it cannot have crossed.
	selfEscLate = 0.5

	// selfNarrowMax: the substep's iterations narrow to the pairs near
	// the vertices still pushed (narrow) while those are at most
	// 1/selfNarrowMax of the listed pairs. The 64 x 64 heap's frames
	// 48-64 took 165 ms/frame on one thread at 2, 127 at 4 and 132 at 8.
	selfNarrowMax = 4
	// selfScansMax is the most scans of the whole list narrow makes in a
	// substep that changed it before it builds the index of the
	// vertices' pairs, which costs about as much as five.
	selfScansMax = 3

	// selfTasks is about how many independent parts a rebuild's
	// traversal is cut into.
	selfTasks = 256
	// A partial rebuild searches again the pairs of the triangles of the
	// vertices that left their allowance, unless they are more than
	// 1/selfPartMax of the triangles: then a full rebuild, which also
	// resets every allowance and normal cone, is as cheap.
	selfPartMax = 4
	// selfUncutMax is the most triangles, relative to all, whose culls
	// partial rebuilds drop (counted per drop) before a full rebuild
	// restores them: each dropped cull makes later searches visit more
	// pairs. On the 64 x 64 sphere drape (thickness 5 mm, 1 thread) 0.05
	// took 29.06 G instructions over 60 frames, 0.02 29.11 G, 0.1 29.11 G,
	// and without a bound 29.85 G.
	selfUncutMax = 0.05
	// selfPartChunk is how many triangles of a partial rebuild one search
	// task queries.
	selfPartChunk = 16
	// selfRefreshGrain is the fewest pairs a pick's refresh hands to
	// another worker: a resting fold's list of about 1850 pairs, picked
	// seven times a substep, is worth splitting (the 64 x 64 sphere
	// drape's frames 60-120 took 27.8 ms/frame on two threads with
	// minChunk, 25.9 with this).
	selfRefreshGrain = 256
)

func newSelfCollision(b *base) *selfCollision {
	m := b.m
	sc := &selfCollision{b: b, m: m, h: m.Params.Thickness, mu: m.Params.SelfFriction}
	sc.tree = newTriTree(m.Rest, m.Topo)
	sc.edges = sc.tree.edges
	for _, e := range m.Topo.Edges {
		sc.edgeMidR = append(sc.edgeMidR, m.Rest[e.V[0]].Sub(m.Rest[e.V[1]]).Len()/2)
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
	sc.ref = make([]vec.Vec3, nv)
	sc.inA = make([]bool, len(tris))
	sc.skin = make([]float64, nv)
	sc.before = make([]vec.Vec3, nv)
	sc.vStamp = make([]int32, nv)
	sc.walk, sc.walkAt = make([]float64, nv), make([]vec.Vec3, nv)
	sc.vHot = make([]int32, nv)
	sc.anchor = make([]vec.Vec3, nv)
	sc.hotSq = selfConverged * selfConverged * sc.h * sc.h
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
	sc.blocks = make([]vertBlock, (nv+selfBlock-1)/selfBlock)
	sc.par.init(sc)
	sc.turn = make([]bool, len(tris))
	sc.fnTurned = func(lo, hi int) {
		if sc.tree.turned(sc.b.s.Pos, sc.m.Topo.Tris, lo, hi, sc.turn) {
			sc.turnedFlag.Store(true)
		}
	}
	return sc
}

// update clamps this substep's relative displacements, updates the
// neighbour list if a vertex left its allowance or a triangle turned, and
// picks the pairs near contact.
func (sc *selfCollision) update() {
	pos := sc.b.s.Pos
	// mean position of the free vertices now and at the substep's start
	// (block by block, then the blocks in order: deterministic)
	nb := len(sc.blocks)
	sc.b.pool.runWork(nb, len(pos), minChunk, sc.fnMean)
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
	// clamp displacements to selfMaxRel·h per substep relative to the mean
	// and check every vertex against its allowance (clamp), and list the
	// vertices that left theirs in vertex order
	sc.mNow, sc.mPrev, sc.cs = mNow, mPrev, cs
	sc.b.pool.runWork(nb, len(pos), minChunk, sc.fnClamp)
	esc := sc.gatherEsc()
	sc.substep++
	full := !sc.valid
	sc.tops, sc.fans = sc.tops[:0], sc.fans[:0]
	limit := len(sc.inA) / selfPartMax
	uncut := 0 // triangles whose culls were dropped
	if !full {
		// the culled patches hold while no normal turned too far; where
		// one did, the culls it relied on are dropped, and the pairs they
		// skipped are searched
		sc.turnedFlag.Store(false)
		sc.b.pool.run(len(sc.m.Topo.Tris), sc.fnTurned)
		if sc.turnedFlag.Load() {
			tt := sc.tree
			sc.tops, sc.fans = tt.uncull(sc.m.Topo.Tris, sc.turn, sc.tops, sc.fans)
			for _, id := range sc.tops {
				uncut += int(tt.nodes[id].size)
			}
			for _, u := range sc.fans {
				uncut += len(tt.vertTris[u])
			}
			// a full rebuild restores the culls
			sc.uncutAll += uncut
			full = uncut > limit || float64(sc.uncutAll) > selfUncutMax*float64(len(sc.inA))
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
	// ahead along its displacement (see selfCollision)
	sc.factor = selfSkinFactor
	if full && sc.fullAt == sc.substep-1 {
		// the last list did not outlive its substep: this one will
		// hardly outlive its own either
		sc.factor = selfSkinTight
		if float64(len(esc)) >= selfEscMost*float64(len(pos)) {
			sc.factor = selfSkinOwn
		}
		sc.Tight++
	}
	carried := false
	switch {
	case full:
		sc.adj.changed(sc.substep)
		sc.fullAt = sc.substep
		sc.uncutAll = 0
		sc.b.pool.run(len(pos), sc.fnReset)
		sc.rebuild()
	case len(part) > 0 || uncut > 0:
		if uncut > 0 {
			sc.Uncut++
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
// at the substep's start and its displacement in the substep relative to
// the mean's (see selfCollision): selfSkinMin·h + sc.factor·|d| around the
// start position plus sc.factor·d.
func (sc *selfCollision) reset(v int) {
	pos, prev := sc.b.s.Pos, sc.b.s.Prev
	d := pos[v].Sub(prev[v]).Sub(sc.cs)
	least := selfSkinMin
	if sc.factor == selfSkinOwn {
		least = selfSkinOwnMin
	}
	sc.skin[v] = least*sc.h + sc.factor*d.Len()
	sc.ref[v] = prev[v].Sub(sc.mPrev).AddScaled(d, sc.factor)
}

// resetAll resets vertices [lo, hi) (see reset).
func (sc *selfCollision) resetAll(lo, hi int) {
	for v := lo; v < hi; v++ {
		sc.reset(v)
	}
}

// selfBlock is how many vertices one block of update's per-vertex passes
// holds: fixed, so that the mean, summed block by block, does not depend
// on the thread count.
const selfBlock = 512

// vertBlock is one block's part of update's per-vertex passes.
type vertBlock struct {
	now, prev vec.Vec3 // sums of the free vertices' positions, now and at the substep's start
	n         int      // free vertices
	esc       []int32  // vertices that left their allowance, ascending
}

// mean sums the free vertices' positions of blocks [lo, hi), now and at
// the substep's start.
func (sc *selfCollision) mean(lo, hi int) {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	for i := lo; i < hi; i++ {
		bl := &sc.blocks[i]
		bl.now, bl.prev, bl.n = vec.Vec3{}, vec.Vec3{}, 0
		for v := i * selfBlock; v < min((i+1)*selfBlock, len(pos)); v++ {
			if w[v] != 0 {
				bl.now, bl.prev = bl.now.Add(pos[v]), bl.prev.Add(prev[v])
				bl.n++
			}
		}
	}
}

// clamp runs blocks [lo, hi) of update's per-vertex pass: it keeps each
// vertex's position for separate (sc.before), clamps its displacement to
// selfMaxRel·h per substep relative to the mean motion sc.cs (Ten Minute
// Physics' velocity clamp: 1.08 m/s relative to the mean at the
// defaults), lists it in its block's esc if it left its allowance around
// its reference (relative to the mean sc.mNow), and keeps its clamped
// position for the substep's picks (sc.pickPos).
func (sc *selfCollision) clamp(lo, hi int) {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	maxD := selfMaxRel * sc.h
	dd := selfKeepDrift * selfKeepDrift * sc.h * sc.h
	cs := sc.cs
	for i := lo; i < hi; i++ {
		bl := &sc.blocks[i]
		bl.esc = bl.esc[:0]
		for v := i * selfBlock; v < min((i+1)*selfBlock, len(pos)); v++ {
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
// more than selfEscLate·h beyond their allowances, before the substep
// ends: a list made for one substep (selfSkinOwn) leaves little room for
// pushes, and at the impact of a falling heap a vertex may be pushed past
// a triangle or an edge the list does not hold, a crossing no flag would
// catch, which the next substep's new pair would then take for its side.
// The vertices take new references and allowances (from their start and
// current positions) and their triangles' pairs are searched again (a
// partial rebuild); then every pair is picked afresh, its side
// memory from the substep's start, and the fail-safe and untangle run on
// the whole list.
func (sc *selfCollision) rescue() {
	if !sc.valid {
		return
	}
	sc.b.pool.runWork(len(sc.blocks), len(sc.ref), minChunk, sc.fnLate)
	esc := sc.gatherEsc()
	if len(esc) == 0 {
		return
	}
	sc.Rescues++
	sc.part = sc.part[:0]
	sc.markPart(esc)
	sc.adj.changed(sc.substep)
	// (always a partial rebuild: the 48 x 48 and 64 x 64 heaps' rescues
	// reached at most a quarter of the triangles, where update turns to a
	// full one)
	for _, v := range esc {
		sc.reset(int(v))
	}
	slices.Sort(sc.part)
	sc.rebuildPart()
	// every pair picked afresh at the current positions (its flags, and
	// the keep of the next substep's first pick, are of the old list)
	sc.clearBudgets()
	sc.keepSkip = false
	copy(sc.pickPos, sc.b.s.Pos)
	clear(sc.vStamp)
	sc.all.tick, sc.all.pickTick = 0, 0
	sc.pick(true)
	sc.sides, sc.keepOK, sc.comps.ok = false, false, false
	sc.all.converged, sc.all.left = false, nil
	sc.failSafe(&sc.all)
	sc.addStats(&sc.all)
}

// clearBudgets sizes sc.budget to the listed pairs, none yet.
func (sc *selfCollision) clearBudgets() {
	n := len(sc.vt) + len(sc.ee)
	sc.budget = slices.Grow(sc.budget[:0], n)[:n]
	clear(sc.budget)
}

// gatherEsc joins the blocks' esc lists, in block order, into sc.esc.
func (sc *selfCollision) gatherEsc() []int32 {
	esc := sc.esc[:0]
	for i := range sc.blocks {
		esc = append(esc, sc.blocks[i].esc...)
	}
	sc.esc = esc
	return esc
}

// markPart appends to sc.part the triangles of the vertices esc not in it
// yet, marking them in sc.inA.
func (sc *selfCollision) markPart(esc []int32) {
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
func (sc *selfCollision) unmarkPart() {
	for _, t := range sc.part {
		sc.inA[t] = false
	}
	sc.part = sc.part[:0]
}

// late lists in the blocks [lo, hi) the vertices further than
// selfEscLate·h beyond their allowances (see rescue).
func (sc *selfCollision) late(lo, hi int) {
	late := selfEscLate * sc.h
	for i := lo; i < hi; i++ {
		bl := &sc.blocks[i]
		bl.esc = bl.esc[:0]
		for v := i * selfBlock; v < min((i+1)*selfBlock, len(sc.ref)); v++ {
			if sc.outside(v, late) {
				bl.esc = append(bl.esc, int32(v))
			}
		}
	}
}

// outside reports whether vertex v lies more than extra beyond its
// allowance around its reference (relative to the mean sc.mNow).
func (sc *selfCollision) outside(v int, extra float64) bool {
	r := sc.skin[v] + extra
	return sc.b.s.Pos[v].Sub(sc.mNow).Sub(sc.ref[v]).LenSq() > r*r
}

// pick flags the pairs closer than h + margin at the current positions (or
// crossed), refreshing the side memories first if sides is set, and lists
// them in sc.all.near. Without sides it reads which vertices moved since
// the first pick in sc.moved (repick).
func (sc *selfCollision) pick(sides bool) {
	sc.sides = sides
	n := len(sc.vt) + len(sc.ee)
	if cap(sc.nearFlag) < n {
		sc.nearFlag = make([]bool, n, n+n/2)
		sc.crossFlag = make([]bool, n, n+n/2)
	}
	sc.nearFlag, sc.crossFlag = sc.nearFlag[:n], sc.crossFlag[:n]
	if cap(sc.keep) < n {
		sc.keep = make([]uint8, n, n+n/2)
		sc.keepSkip = false
	}
	sc.keep = sc.keep[:n]
	fn := sc.fnRefresh
	sc.comps.ok = false
	if sides && n <= selfSplitMax {
		// the first pick of a substep splits the list into components
		// alongside (see split)
		fn = sc.fnRefreshSplit
	}
	sc.b.pool.runWork(n, n, selfRefreshGrain, fn)
	sc.all.pickTick = sc.all.tick
	sc.listNear()
	// (the classes are cut when a sweep first needs them: see sweep)
	sc.par.classed = len(sc.all.near) >= selfParMin
	sc.par.cut = false
}

// refresh updates the side memories of pairs [lo, hi) from the
// substep's start positions and flags those near contact (refreshPair).
func (sc *selfCollision) refresh(lo, hi int) {
	pt, cross := sc.all.pickTick, sc.all.crossOnly
	for k := lo; k < hi; k++ {
		sc.refreshPair(k, pt, cross)
	}
}

// refreshPair updates pair k's side memory from the substep's start
// positions (see vertexTriangleSide and edgeEdgeDir) and flags it if it is
// closer than h + margin at the current positions, or crossed; pt is the
// tick of its group's last pick. The substep's first pick (sc.sides) also
// records how it may keep the pair at the next one (sc.keep). With
// crossOnly (failSafe's picks), and at a later pick for a pair already
// near, it only flags whether the pair is crossed.
func (sc *selfCollision) refreshPair(k int, pt int32, crossOnly bool) {
	pos, prev := sc.b.s.Pos, sc.b.s.Prev
	// after the substep's first pick, a pair neither near nor crossed then
	// stays so while none of its vertices has moved selfMargin·h/2 since
	// (the distance of the pair changes by less than selfMargin·h), and a
	// pair none of whose vertices moved since the last pick keeps its flags
	mv, st := sc.moved, sc.vStamp
	moved := func(vs [4]int32) bool {
		return mv[vs[0]] || mv[vs[1]] || mv[vs[2]] || mv[vs[3]]
	}
	still := func(vs [4]int32) bool {
		return st[vs[0]] <= pt && st[vs[1]] <= pt && st[vs[2]] <= pt && st[vs[3]] <= pt
	}
	// the first pick skips a pair it found surely far from contact, or
	// surely near it (sc.keep), while none of its vertices moved
	// selfKeepDrift·h from where it was then (sc.reanch): it is then at
	// most 4·selfKeepDrift·h closer or further
	re, mot := sc.reanch, sc.mot
	skip := func(vs [4]int32) bool {
		if !sc.keepSkip || sc.keep[k] == 0 || re[vs[0]] || re[vs[1]] || re[vs[2]] || re[vs[3]] {
			return false
		}
		near := sc.keep[k] == keepNear
		sc.nearFlag[k], sc.crossFlag[k] = near, false
		return true
	}
	drift := 4 * selfKeepDrift * sc.h
	// keepOf returns how a pair at distance dist (squared: dsq), not
	// crossed, is kept. Far beyond r + drift + twice its vertices'
	// longest displacement in the substep, it is still beyond r, and so
	// are the substep's paths, which the crossing tests interpolate. Near
	// within r - drift it is still within r; at least 3·drift + twice
	// that displacement away, neither can it cross nor pass round an edge
	// end (which turns the side memory, kept with it) unseen.
	keepOf := func(vs [4]int32, dsq, r float64) uint8 {
		m := 2 * max(mot[vs[0]], mot[vs[1]], mot[vs[2]], mot[vs[3]])
		if f := (r + drift + m) * apartMargin; dsq >= f*f {
			return keepFar
		}
		if f, c := r-drift, 3*drift+m; f > 0 && dsq*apartMargin*apartMargin <= f*f && dsq >= c*c*apartMargin*apartMargin {
			return keepNear
		}
		return 0
	}
	nvt := len(sc.vt)
	vs := sc.pv[k]
	if k < nvt {
		p := &sc.vt[k]
		t := [3]int32{vs[1], vs[2], vs[3]}
		if !sc.sides && (still(vs) || !sc.nearFlag[k] && !moved(vs)) {
			return
		}
		if sc.sides {
			if skip(vs) {
				return
			}
			side := vertexTriangleSide([4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
			if side != p.side {
				p.side, sc.budget[k] = side, 0
			}
			sc.keep[k] = 0
		}
		r := p.h + selfMargin*sc.h
		x, a, b, c := pos[p.v], pos[t[0]], pos[t[1]], pos[t[2]]
		if crossOnly || !sc.sides && sc.nearFlag[k] {
			// the crossed flag as below, the vertex on its side of the
			// plane first (then not crossed either way); a pair near
			// at an earlier pick of the substep stays near (a projection
			// of a pair out of contact changes nothing)
			cr := false
			if nt := b.Sub(a).Cross(c.Sub(a)); x.Sub(a).Dot(nt)*p.side < 0 {
				q4, p4 := [4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}
				if outsideBox(x, a, b, c, r) {
					cr = crossedTriangle(q4, p4, p.side)
				} else {
					u, v, ww := closestOnTriangle(x, a, b, c)
					cr = u > 0 && v > 0 && ww > 0 || crossedTriangle(q4, p4, p.side)
				}
			}
			sc.crossFlag[k] = cr
			sc.nearFlag[k] = sc.nearFlag[k] || cr
			return
		}
		// cheap rejection by the triangle's box first
		if outsideBox(x, a, b, c, r) {
			cr := crossedTriangle([4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side)
			sc.nearFlag[k], sc.crossFlag[k] = cr, cr
			if sc.sides && !cr {
				// the box's gap is a lower bound of the distance
				g := max(min(a.X, b.X, c.X)-x.X, x.X-max(a.X, b.X, c.X),
					min(a.Y, b.Y, c.Y)-x.Y, x.Y-max(a.Y, b.Y, c.Y),
					min(a.Z, b.Z, c.Z)-x.Z, x.Z-max(a.Z, b.Z, c.Z))
				sc.keep[k] = keepOf(vs, g*g, r) & keepFar
			}
			return
		}
		// r or more off the triangle's plane on its side: neither near
		// nor crossed
		nt := b.Sub(a).Cross(c.Sub(a))
		if sd := x.Sub(a).Dot(nt) * p.side; sd > 0 && sd*sd >= r*r*apartMargin*apartMargin*nt.LenSq() {
			sc.nearFlag[k], sc.crossFlag[k] = false, false
			if sc.sides {
				sc.keep[k] = keepOf(vs, sd*sd/nt.LenSq(), r) & keepFar
			}
			return
		}
		u, v, ww := closestOnTriangle(x, a, b, c)
		d := x.Sub(a.Scale(u).Add(b.Scale(v)).Add(c.Scale(ww)))
		cr := x.Sub(a).Dot(nt)*p.side < 0 &&
			(u > 0 && v > 0 && ww > 0 || crossedTriangle([4]vec.Vec3{x, a, b, c}, [4]vec.Vec3{prev[p.v], prev[t[0]], prev[t[1]], prev[t[2]]}, p.side))
		sc.nearFlag[k], sc.crossFlag[k] = cr || d.LenSq() < r*r, cr
		if sc.sides && !cr {
			sc.keep[k] = keepOf(vs, d.LenSq(), r)
		}
		return
	}
	p := &sc.ee[k-nvt]
	e0, e1 := [2]int32{vs[0], vs[1]}, [2]int32{vs[2], vs[3]}
	if !sc.sides && (still(vs) || !sc.nearFlag[k] && !moved(vs)) {
		return
	}
	if sc.sides {
		if skip(vs) {
			return
		}
		n := edgeEdgeDir([4]vec.Vec3{prev[e0[0]], prev[e0[1]], prev[e1[0]], prev[e1[1]]}, p.n)
		if n != p.n {
			p.n, sc.budget[k] = n, 0
		}
		sc.keep[k] = 0
	}
	a, b, c, d := pos[e0[0]], pos[e0[1]], pos[e1[0]], pos[e1[1]]
	r := p.h + selfMargin*sc.h
	if crossOnly || !sc.sides && sc.nearFlag[k] {
		// the crossed flag as below, the edges apart along the
		// remembered direction first (then not crossed either way); a
		// near pair stays near, as above
		g := selfCrossReach * sc.h
		cr := false
		if apartBy(a, b, c, d, p.n) < 0 && !boxesApart(a, b, c, d, g) {
			s, t := closestSegments(a, b, c, d)
			const eps = 1e-6
			cr = a.Lerp(b, s).Sub(c.Lerp(d, t)).Dot(p.n) < 0 && s > eps && s < 1-eps && t > eps && t < 1-eps
		}
		sc.crossFlag[k] = cr
		sc.nearFlag[k] = sc.nearFlag[k] || cr
		return
	}
	// cheap rejection by the edges' boxes first: neither near nor, with
	// relative motion clamped to about 2h per substep, crossed
	if g := selfCrossReach * sc.h; boxesApart(a, b, c, d, g) {
		sc.nearFlag[k], sc.crossFlag[k] = false, false
		if sc.sides {
			sc.keep[k] = keepOf(vs, g*g, r) & keepFar
		}
		return
	}
	// r or more apart along the remembered direction: neither near
	// nor crossed
	if sep := apartBy(a, b, c, d, p.n); sep >= r*apartMargin {
		sc.nearFlag[k], sc.crossFlag[k] = false, false
		if sc.sides {
			sc.keep[k] = keepOf(vs, sep*sep, r) & keepFar
		}
		return
	}
	s, t := closestSegments(a, b, c, d)
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	const eps = 1e-6
	cr := diff.Dot(p.n) < 0 && s > eps && s < 1-eps && t > eps && t < 1-eps
	sc.nearFlag[k], sc.crossFlag[k] = cr || diff.LenSq() < r*r, cr
	if sc.sides && !cr {
		sc.keep[k] = keepOf(vs, diff.LenSq(), r)
	}
}

// outsideBox reports whether x lies more than r outside the bounding box
// of a, b and c.
func outsideBox(x, a, b, c vec.Vec3, r float64) bool {
	return x.X < min(a.X, b.X, c.X)-r || x.X > max(a.X, b.X, c.X)+r ||
		x.Y < min(a.Y, b.Y, c.Y)-r || x.Y > max(a.Y, b.Y, c.Y)+r ||
		x.Z < min(a.Z, b.Z, c.Z)-r || x.Z > max(a.Z, b.Z, c.Z)+r
}

// boxesApart reports whether the bounding boxes of segments ab and cd are
// more than g apart.
func boxesApart(a, b, c, d vec.Vec3, g float64) bool {
	return min(a.X, b.X) > max(c.X, d.X)+g || min(c.X, d.X) > max(a.X, b.X)+g ||
		min(a.Y, b.Y) > max(c.Y, d.Y)+g || min(c.Y, d.Y) > max(a.Y, b.Y)+g ||
		min(a.Z, b.Z) > max(c.Z, d.Z)+g || min(c.Z, d.Z) > max(a.Z, b.Z)+g
}

// touched lists the vertices of group g's pairs near contact, each once,
// in g.touched.
func (sc *selfCollision) touched(g *pairGroup) []int32 {
	g.touched = sc.vertsOf(g.near, g.touched)
	return g.touched
}

// vertsOf returns the vertices of pairs, each once, in out's storage.
// Groups use it concurrently: their pairs share no vertex (sc.mark).
func (sc *selfCollision) vertsOf(pairs, out []int32) []int32 {
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
// resolved), and checks again, up to selfFailSafeRounds times: a crossing
// the projection could not undo costs those vertices the substep's motion
// instead of leaving the cloth interpenetrating. It returns the number of
// pairs still crossed.
func (sc *selfCollision) failSafe(g *pairGroup) int {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	crossed := 0
	g.crossOnly = true
	defer func() { g.crossOnly = false }()
	for round := 0; round <= selfFailSafeRounds; round++ {
		sc.repick(g)
		crossed = 0
		g.tick++ // stamps the vertices put back, for the next pick
		for _, k := range g.near {
			if !sc.crossFlag[k] {
				continue
			}
			crossed++
			if round == selfFailSafeRounds {
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
// until a round puts nothing back (at most selfFailSafeRounds), and
// returns the vertices put back.
func (sc *selfCollision) untangle() int {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
	tris, edges := sc.m.Topo.Tris, sc.m.Topo.Edges
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
			for _, a := range edges[p.e0].Tri {
				for _, b := range edges[p.e1].Tri {
					if a >= 0 && b >= 0 {
						found = test(a, b) || found
					}
				}
			}
		}
		return found
	}
	split := !sc.par.classed && sc.comps.ok
	for round := 0; round < selfFailSafeRounds; round++ {
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

// pushed records that a projection (stamp tick, marking drift with mark)
// moved vertex v by dist: its walk, its stamp (sc.pStamp) and whether it
// drifted hot (drift).
func (sc *selfCollision) pushed(v int32, dist float64, tick, mark int32) {
	sc.walk[v] += dist
	sc.walkAt[v] = sc.b.s.Pos[v]
	sc.vStamp[v] = tick
	sc.drift(v, mark)
}

// drift marks vertex v hot with mark (the tick of the sweep, or later)
// once it has moved selfConverged·h or more from its anchor (its position
// at the substep's first pick, or when it was last marked), and moves the
// anchor there. A pair none of whose vertices was marked since its last
// projection has moved less than twice that since: narrow leaves it out.
func (sc *selfCollision) drift(v, mark int32) {
	if x := sc.b.s.Pos[v]; x.Sub(sc.anchor[v]).LenSq() >= sc.hotSq {
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
func (sc *selfCollision) sweep(g *pairGroup, mu float64, back, mark bool) float64 {
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
// 1/selfNarrowMax of g's pairs, else g. With pick set they are picked
// again, together with the pairs of the vertices that moved
// selfMargin·h/2 since the substep's first pick, else they keep the near
// flags of the last pick. In a resting heap a few pairs squeezed against
// the ground keep pushing while the rest has converged: sweeping and
// picking the whole list for them took most of the 64 x 64 heap's
// self-collision time. The part continues g's ticks, and its pick
// refreshes the pairs whose vertices moved since g's last pick.
func (sc *selfCollision) narrow(g, cur *pairGroup, pick bool) *pairGroup {
	if g.part == nil {
		g.part = &pairGroup{}
	}
	pt := g.part
	if pick {
		// pairs not near at g's last pick came near only if a vertex
		// moved selfMargin·h/2 since the first (see refreshPair)
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
// moved is set, and reports whether they are at most 1/selfNarrowMax of
// g's pairs. The whole list finds them through the vertices' pairs
// (sc.adj), a component by scanning its pairs.
func (sc *selfCollision) hotPairs(g *pairGroup, hot int32, moved bool, pt *pairGroup) bool {
	vh, mv := sc.vHot, sc.moved
	isHot := func(v int32) bool { return vh[v] >= hot || moved && mv[v] }
	pt.pairs = pt.pairs[:0]
	limit := sc.pairsOf(g) / selfNarrowMax
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
	// more than a 4·selfNarrowMax-th of the vertices hot means too many
	// pairs, found by a scan of the vertices rather than of the pairs
	// (19 % of the 128 x 128 crumpling heap's time went to building and
	// filling the index, serially): on the 64 x 64 heap a narrowed sweep
	// had at most 172 of its 4096 vertices hot, and once it lay still no
	// sweep with 255 or more narrowed
	a := &sc.adj
	a.hot = a.hot[:0]
	for v := range vh {
		if isHot(int32(v)) {
			a.hot = append(a.hot, int32(v))
		}
	}
	if len(a.hot) > len(vh)/(4*selfNarrowMax) {
		return false
	}
	if !a.ok {
		if a.at == sc.substep && a.scans < selfScansMax {
			// the list changed in this substep, and may again in the
			// next: a few scans cost less than the index (which took
			// 6 % of the 128 x 128 crumpling heap's time, rebuilt every
			// substep), more of them more (16 % there)
			a.scans++
			return scan(nil)
		}
		sc.indexAdj()
	}
	// the pairs are flagged in a bit set, read back in ascending order
	// (sorting them took 8 % of the resting 64 x 64 heap's time)
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
func (sc *selfCollision) pairsOf(g *pairGroup) int {
	if g == &sc.all {
		return len(sc.vt) + len(sc.ee)
	}
	return len(g.pairs)
}

// pairAdj lists each vertex's listed pairs (CSR): vertex v's are
// pairs[start[v]:start[v+1]], ascending. It is built when narrow needs it
// after the list changed (ok false), unless scans find the pairs instead
// (see selfScansMax).
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
func (sc *selfCollision) indexAdj() {
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
func (sc *selfCollision) sweepRange(near []int32, lo, hi int32, mu float64, back bool, base int32, mark bool) (maxSq float64, skipped int) {
	pos, prev, w := sc.b.s.Pos, sc.b.s.Prev, sc.m.InvMass
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
		if ps := sc.pStamp[k]; selfSkipStill && ps > 0 && st[vs[0]] < ps && st[vs[1]] < ps && st[vs[2]] < ps && st[vs[3]] < ps {
			skipped++
			continue
		}
		// (summed in a fixed order: a sum of walks that only grow does
		// not decrease when rounded)
		ws := wk[vs[0]] + wk[vs[1]] + wk[vs[2]] + wk[vs[3]]
		if selfSkipStill && ws < sc.budget[k] {
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

// rebuild collects the pairs that can come closer than h + margin while
// every vertex stays within its allowance, from the references (which
// update has just reset to the substep's start positions).
func (sc *selfCollision) rebuild() {
	sc.Rebuilds++
	sc.valid = true
	tt := sc.tree
	tt.refit(sc.ref, sc.b.s.Pos, sc.m.Topo.Tris, sc.skin, (1+selfMargin)*sc.h/2, sc.b.pool)
	// every old pair is searched again
	sc.vt, sc.vtOld = sc.vtOld[:0], sc.vt
	sc.ee, sc.eeOld = sc.eeOld[:0], sc.ee
	sc.indexOld()
	sc.search(false)
}

// indexOld indexes the old pairs searched again (sc.vtOld, sc.eeOld) by
// their ids, for search.
func (sc *selfCollision) indexOld() {
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
func (sc *selfCollision) search(part bool) {
	tt := sc.tree
	n, run := 0, sc.fnTasks
	if part {
		sc.numQueries = (len(sc.part) + selfPartChunk - 1) / selfPartChunk
		n, run = sc.numQueries+len(sc.tops), sc.fnQueries
		if len(sc.fans) > 0 {
			n++
		}
	} else {
		tt.plan(selfTasks)
		n = len(tt.tasks)
	}
	if len(tt.slots) < n {
		tt.slots = append(tt.slots, make([]pairSlot, n-len(tt.slots))...)
	}
	sc.numTasks = n
	sc.nextTask.Store(0)
	sc.b.pool.runWork(n, n*minChunk, minChunk, run)
	for i := range tt.slots[:n] {
		sc.vt = append(sc.vt, tt.slots[i].vt...)
		sc.ee = append(sc.ee, tt.slots[i].ee...)
	}
	np := len(sc.vt) + len(sc.ee)
	sc.pv = slices.Grow(sc.pv[:0], np)[:np]
	sc.b.pool.run(np, sc.fnPairVerts)
}

// pairVertsRange fills sc.pv for pairs [lo, hi) from the pairs' vertex
// and triangle, or edges.
func (sc *selfCollision) pairVertsRange(lo, hi int) {
	tris, nvt := sc.m.Topo.Tris, len(sc.vt)
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
func (sc *selfCollision) nextSlot() (int, *pairSlot) {
	i := int(sc.nextTask.Add(1) - 1)
	if i >= sc.numTasks {
		return -1, nil
	}
	sl := &sc.tree.slots[i]
	sl.vt, sl.ee = sl.vt[:0], sl.ee[:0]
	return i, sl
}

// runQueries runs the tasks of a partial rebuild: task i queries the tree
// with selfPartChunk triangles of sc.part, and the tasks after those
// search what the dropped culls skipped (see uncut).
func (sc *selfCollision) runQueries(_, _ int) {
	for {
		i, sl := sc.nextSlot()
		if i < 0 {
			return
		}
		if i >= sc.numQueries {
			sc.uncut(sl, i-sc.numQueries)
			continue
		}
		for _, a := range sc.part[i*selfPartChunk : min((i+1)*selfPartChunk, len(sc.part))] {
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
func (sc *selfCollision) uncut(sl *pairSlot, k int) {
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
	tris := sc.m.Topo.Tris
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
func (sc *selfCollision) runTasks(_, _ int) {
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
func (sc *selfCollision) rebuildPart() bool {
	sc.Partial++
	n := len(sc.vt) + len(sc.ee)
	sc.carried = len(sc.keep) == n && len(sc.budget) == n
	if len(sc.part) == 0 {
		// only culls were dropped: every listed pair stays
		sc.vtOld, sc.eeOld = sc.vtOld[:0], sc.eeOld[:0]
		sc.indexOld()
	} else {
		// the new boxes of sc.part's triangles, and the pairs set aside,
		// side by side (two items, each worth minChunk: one chunk apiece)
		sc.b.pool.runWork(2, 2*minChunk, minChunk, sc.fnPrepPart)
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
func (sc *selfCollision) prepPart(lo, hi int) {
	for i := lo; i < hi; i++ {
		if i == 0 {
			sc.tree.refitBoxes(sc.ref, sc.m.Topo.Tris, sc.skin, (1+selfMargin)*sc.h/2, sc.part)
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
func (sc *selfCollision) setAside() {
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
func (sc *selfCollision) leafPair(sl *pairSlot, a, b int32) {
	tt, tris := sc.tree, sc.m.Topo.Tris
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
func (sc *selfCollision) vertexTriangle(sl *pairSlot, v, ti int32) {
	x, rest, w, sk := sc.ref, sc.m.Rest, sc.m.InvMass, sc.skin
	t := sc.m.Topo.Tris[ti]
	if w[v] == 0 && w[t[0]] == 0 && w[t[1]] == 0 && w[t[2]] == 0 {
		return
	}
	p, a, b, c := x[v], x[t[0]], x[t[1]], x[t[2]]
	r := (1+selfMargin)*sc.h + sk[v] + max(sk[t[0]], sk[t[1]], sk[t[2]])
	uu, vv, ww := closestOnTriangle(p, a, b, c)
	d := p.Sub(a.Scale(uu).Add(b.Scale(vv)).Add(c.Scale(ww)))
	if d.LenSq() >= r*r {
		return
	}
	if sc.m.seamAdj != nil && sc.m.sewnToAny(v, t[0], t[1], t[2]) {
		return // a seam draws them together (sewing.go)
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
		h = math.Min(h, pointTriangleDist(rest[v], rest[t[0]], rest[t[1]], rest[t[2]]))
	}
	sl.vt = append(sl.vt, vtPair{v: v, t: ti, h: h, side: side})
}

// edgeEdge lists edges ei and fi if they share no vertex and are closer
// than h + margin + their allowances at their references (their boxes,
// which leafPair tested, overlap).
func (sc *selfCollision) edgeEdge(sl *pairSlot, ei, fi int32) {
	x, rest, w, sk := sc.ref, sc.m.Rest, sc.m.InvMass, sc.skin
	e0, e1 := sc.edges[ei], sc.edges[fi]
	if e0[0] == e1[0] || e0[0] == e1[1] || e0[1] == e1[0] || e0[1] == e1[1] {
		return
	}
	if w[e0[0]] == 0 && w[e0[1]] == 0 && w[e1[0]] == 0 && w[e1[1]] == 0 {
		return
	}
	a, b, c, d := x[e0[0]], x[e0[1]], x[e1[0]], x[e1[1]]
	r := (1+selfMargin)*sc.h + max(sk[e0[0]], sk[e0[1]]) + max(sk[e1[0]], sk[e1[1]])
	s, t := closestSegments(a, b, c, d)
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	l := diff.Len()
	if l >= r {
		return
	}
	if sc.m.seamAdj != nil && (sc.m.sewnToAny(e0[0], e1[0], e1[1]) || sc.m.sewnToAny(e0[1], e1[0], e1[1])) {
		return // a seam joins them (sewing.go)
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
		h = math.Min(h, segmentDist(rest[e0[0]], rest[e0[1]], rest[e1[0]], rest[e1[1]]))
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
func (sc *selfCollision) newSide(v int32, t [3]int32, sdRef float64) float64 {
	ref := 1.0
	if sdRef < 0 {
		ref = -1
	}
	x := sc.b.s.Prev
	return planeSide([4]vec.Vec3{x[v], x[t[0]], x[t[1]], x[t[2]]}, ref)
}

// newDir returns the unit direction from edge f to edge e at the
// substep's start, for a pair listed for the first time (see newSide);
// diffRef, from f's closest point to e's at the references, is the
// fallback when the edges touch there.
func (sc *selfCollision) newDir(e, f [2]int32, diffRef vec.Vec3) vec.Vec3 {
	x := sc.b.s.Prev
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

// gather4 returns the positions at the substep's start and the inverse
// masses of vertices vs.
func gather4(prev []vec.Vec3, w []float64, vs [4]int32) (p4 [4]vec.Vec3, w4 [4]float64) {
	for i, v := range vs {
		p4[i], w4[i] = prev[v], w[v]
	}
	return
}
