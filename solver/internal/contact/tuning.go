package contact

import "math"

// The tuning constants of self-contact, each with what it trades. Lengths
// are in units of the thickness h. How each value was chosen, with the
// runs behind it, is in docs/benchmarks.md ("Self-contact tuning
// history").

// Accuracy and safety: what keeps the cloth apart.
const (
	// margin·h is added to the contact distance when pairs are listed and
	// picked: more lists and picks more pairs, less lets pairs cross
	// between picks (left to untangle).
	margin = 0.25
	// maxRel·h is the largest displacement per substep relative to the
	// cloth's mean motion: more lets cloth move more freely, less keeps
	// the side memories and crossing tests, which assume steps of about
	// h, trustworthy.
	maxRel = 1.0
	// numRounds rounds of a pick, sweeps and the colliders run each
	// substep: more keep a heap's layers nearer the full thickness, each
	// costs a pick and its sweeps.
	numRounds = 6
	// numSweeps Gauss-Seidel sweeps (alternating direction) run per
	// round: more converge a round further, but another round's re-pick
	// gains more for its cost.
	numSweeps = 3
	// convergedPush·h is the largest push of a converged sweep, and the
	// drift that marks a vertex hot (narrow): less keeps resting layers
	// nearer h, more ends rounds sooner.
	convergedPush = 3e-2
	// maxPush·h bounds one projection of a pair: more undoes a deep
	// crossing in fewer substeps, less undoes it more gently.
	maxPush = 2.0
	// maxSeparation [m/s] caps the separating speed the pushes give a
	// vertex (separate): more frees squeezed pairs faster, but feeds
	// energy into a resting heap.
	maxSeparation = 0.1
	// crossReach·h is how far apart two edges may be after crossing in
	// one substep: it must exceed the clamped relative motion 2·maxRel·h;
	// more tests more edge pairs for crossing.
	crossReach = 3.0
	// failSafeRounds bounds the rounds of failSafe and untangle: more
	// undo longer chains of crossings, each round costs a re-pick.
	failSafeRounds = 8
	// escLate·h is how far beyond its allowance the rounds may push a
	// vertex before its pairs are searched again (rescue): less rescues
	// more often; a pair the list lacks stays (1 + margin - 2·escLate)·h
	// apart, so it must stay below (1 + margin)/2.
	escLate = 0.5
	// cullMaxAngle [rad] is the widest normal cone whose patch is culled:
	// wider culls more pairs, but brings a culled patch's features to
	// cos(cullMaxAngle) of their distance within the cloth (0.57, above
	// the 0.5·h the tests demand).
	cullMaxAngle = 55 * math.Pi / 180
	// cullMinArea is the smallest area, relative to rest, of a culled
	// triangle (compressed cloth brings neighbours close without
	// folding): more searches more compressed patches.
	cullMinArea = 0.5
	// turnMaxAngle [rad] widens every leaf cone, how far a normal may
	// turn before the culls relying on it drop: wider keeps culls longer,
	// but culls fewer patches.
	turnMaxAngle = 10 * math.Pi / 180
	// apartMargin is the relative margin of the cheap separation tests,
	// so that they rule a pair out only where the exact distance,
	// rounded, is surely no smaller.
	apartMargin = 1 + 1e-9
)

// The neighbour list: how long it lasts against how many pairs it holds.
const (
	// skinMin·h is the smallest allowance: more lets a resting cloth
	// jitter without rebuilds, but lists more pairs.
	skinMin = 0.25
	// skinFactor times a vertex's relative displacement in the rebuild's
	// substep is added to its allowance: more makes a list last more
	// substeps of steady motion, but hold more pairs.
	skinFactor = 2.0
	// skinTight replaces skinFactor in a full rebuild right after another
	// (a crumpling heap): its lists last about one more substep and hold
	// far fewer pairs.
	skinTight = 1.0
	// skinOwn replaces skinTight when at least escMost of the vertices
	// left their allowances: the list covers its own substep only, the
	// least a list needs.
	skinOwn = 0.5
	// escMost is the share of vertices leaving their allowances that
	// turns to skinOwn: less turns to one-substep lists sooner.
	escMost = 0.25
	// skinOwnMin replaces skinMin with skinOwn: less lists fewer pairs in
	// a crumpling heap, but more vertices need a rescue and pairs keep
	// less of the thickness.
	skinOwnMin = 0.1
	// keepDrift·h is how far a vertex may move before the first pick
	// looks again at the pairs it kept: more skips more refreshes at
	// rest, but fewer pairs qualify (their margin grows by
	// 4·keepDrift·h).
	keepDrift = 0.02
	// partMax: a partial rebuild of more than 1/partMax of the triangles
	// is a full one instead, as cheap and restoring every allowance and
	// cull.
	partMax = 4
	// uncutMax is the share of triangles whose culls partial rebuilds may
	// drop before a full rebuild restores them: more rebuilds less often,
	// but searches visit more pairs.
	uncutMax = 0.05
	// narrowMax: the rounds narrow to the pairs still pushed while they
	// are at most 1/narrowMax of a group's: more narrows less often, less
	// sweeps larger parts.
	narrowMax = 4
	// scansMax is the most scans of the whole list narrow makes in a
	// substep that changed it before it indexes each vertex's pairs (as
	// costly as about five).
	scansMax = 3
	// pairIndexHashed: fewer old pairs than pairIndexHashed times the ids
	// go to a hash table, more to a CSR, whose clearing costs per id but
	// whose lookups are cache-friendly.
	pairIndexHashed = 1.0 / 8
)

// Parallel work: how it is cut. None changes a result.
const (
	// searchTasks is about how many parts a full rebuild's traversal is
	// cut into: more balance the threads better, each costs a task's
	// setup.
	searchTasks = 256
	// partChunk is how many triangles of a partial rebuild one search
	// task queries: more, fewer tasks to claim; fewer, better balance.
	partChunk = 16
	// refitSubtree: subtrees of fewer triangles refit as one parallel
	// task: more, fewer tasks; fewer, more serial merging above them.
	refitSubtree = 512
	// refreshGrain is the fewest pairs a pick hands to another worker:
	// less shares small lists (a resting fold's), more saves the
	// hand-over.
	refreshGrain = 256
	// blockSize vertices make one block of update's per-vertex passes,
	// fixed so that the mean, summed block by block, does not depend on
	// the thread count.
	blockSize = 512
	// splitMax is the most listed pairs split into components (comp.go):
	// more splits larger lists, whose near pairs would otherwise run slab
	// by slab.
	splitMax = 4 * 4096
	// parMin is the fewest near pairs swept slab by slab in parallel
	// (Options.ParallelMin in tests): less shares shorter sweeps, which
	// cost more in hand-overs than they save.
	parMin = 4096
	// numSlabs is the number of slabs, whatever the thread count: more
	// shares a sweep better, but puts more pairs at boundaries, an order
	// that resolves a landing heap worse.
	numSlabs = 4
	// parGrain is the fewest pairs worth a chunk of their own in a
	// parallel sweep.
	parGrain = 512
	// scanChunk is how many pairs (or flags) one task of a parallel
	// listing scans.
	scanChunk = 4096
	// slabSample bounds the near pairs whose first vertices place the
	// slabs' cuts: more places them better, at a longer serial scan.
	slabSample = 4096
	// slabBins is the resolution of the cuts across the region.
	slabBins = 256
)

// keepFar and keepNear say how the first pick keeps a pair (see
// Contact.keep).
const (
	keepFar  = 1
	keepNear = 2
)
