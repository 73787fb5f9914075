package contact

import (
	"math"

	"github.com/drape-sim/drape/solver/internal/pool"

	"github.com/drape-sim/drape/internal/vec"
)

// The projections of many near pairs (a heap) run in parallel, in an
// order that does not depend on the thread count. classify cuts the near
// pairs' region into numSlabs slabs across its longest axis, with about
// as many pairs in each, and orders sc.all.near by class: first the pairs
// within one slab (classes 0 to numSlabs-1), then those across the
// boundary between slabs 2i and 2i+1, then across 2i+1 and 2i+2, then the
// rest; each class keeps the pairs' order. The classes of each of these
// four groups share no vertex, so a sweep projects a group's classes in
// parallel, and the groups one after the other (backwards in the backward
// sweeps), which is a Gauss-Seidel sweep in that order. Listing the near
// pairs and ordering them by class run in parallel too, in chunks whose
// results are joined in a fixed order, and the colliders between the
// iterations find the near pairs' vertices by the marks the first sweep
// leaves (collideNear) rather than from a list.

// numClasses counts the classes: numSlabs slabs, the boundaries after
// even and after odd slabs, and the rest.
const numClasses = numSlabs + numSlabs/2 + (numSlabs-1)/2 + 1

// classGroups are the class ranges of the groups a sweep runs in turn.
var classGroups = [4][2]int{
	{0, numSlabs},
	{numSlabs, numSlabs + numSlabs/2},
	{numSlabs + numSlabs/2, numClasses - 1},
	{numClasses - 1, numClasses},
}

// boundaryClass is the class of the pairs across the boundary between
// slabs a and a+1.
func boundaryClass(a int) int {
	if a%2 == 0 {
		return numSlabs + a/2
	}
	return numSlabs + numSlabs/2 + a/2
}

// parSweeps is the state of the parallel sweeps.
type parSweeps struct {
	// per vertex its slab, and the substep whose first classify cut the
	// slabs (-1: none); a vertex's slab is slabOf[its bin], its bin
	// (coord(x) - slabLo)·slabScale along axis slabAxis
	slab      []uint8
	slabAt    int
	slabAxis  int
	slabLo    float64
	slabScale float64
	slabOf    [slabBins]uint8

	// min is the fewest near pairs classified (parMin, or
	// Options.ParallelMin)
	min int
	// sc.all.near is ordered by class (classed), class c's pairs at
	// sc.all.near[classAt[c]:classAt[c+1]]; classOf and nearBuf are scratch
	classed bool
	cut     bool // classify ran since the last pick
	classAt [numClasses + 1]int32
	classOf []uint8
	nearBuf []int32

	// per scan chunk: near flags or pairs per class, then the offsets of
	// its output
	chunkN     []int32
	chunkClass [][numClasses]int32

	// per class the largest squared push and the pairs skipped in the
	// current sweep
	classMax  [numClasses]float64
	classSkip [numClasses]int
	// the current parallel sweep: its first class, friction, direction,
	// tick base, and whether it marks the near pairs' vertices
	sweepLo   int
	sweepMu   float64
	sweepBack bool
	sweepBase int32
	sweepMark bool
}

func (sp *parSweeps) init(sc *Contact) {
	sp.slab = make([]uint8, len(sc.ref))
	sp.slabAt = -1
	sp.min = parMin
	if sc.o.ParallelMin > 0 {
		sp.min = sc.o.ParallelMin
	}
}

// scanChunks returns the number of scanChunk chunks of n items.
func scanChunks(n int) int {
	return (n + scanChunk - 1) / scanChunk
}

// chunkRange returns the items [lo, hi) of chunk j of n items.
func chunkRange(j, n int) (lo, hi int) {
	return j * scanChunk, min((j+1)*scanChunk, n)
}

// listNear lists the pairs flagged near in sc.all.near, in pair order: chunks
// of flags are counted, then written at their offsets, in parallel.
func (sc *Contact) listNear() {
	sp := &sc.par
	n := len(sc.nearFlag)
	nch := scanChunks(n)
	if cap(sp.chunkN) < nch {
		sp.chunkN = make([]int32, nch, nch+nch/2)
	}
	sp.chunkN = sp.chunkN[:nch]
	sc.run(phaseCountNear, nch, n, pool.MinChunk)
	total := int32(0)
	for j, c := range sp.chunkN {
		sp.chunkN[j] = total
		total += c
	}
	if cap(sc.all.near) < int(total) {
		sc.all.near = make([]int32, total, total+total/2)
	}
	sc.all.near = sc.all.near[:total]
	sc.run(phaseWriteNear, nch, n, pool.MinChunk)
}

// countNear counts the near flags of chunks [lo, hi).
func (sc *Contact) countNear(lo, hi int) {
	for j := lo; j < hi; j++ {
		a, b := chunkRange(j, len(sc.nearFlag))
		c := int32(0)
		for _, on := range sc.nearFlag[a:b] {
			if on {
				c++
			}
		}
		sc.par.chunkN[j] = c
	}
}

// writeNear lists the near pairs of chunks [lo, hi) at their offsets.
func (sc *Contact) writeNear(lo, hi int) {
	for j := lo; j < hi; j++ {
		a, b := chunkRange(j, len(sc.nearFlag))
		o := sc.par.chunkN[j]
		for i, on := range sc.nearFlag[a:b] {
			if on {
				sc.all.near[o] = int32(a + i)
				o++
			}
		}
	}
}

// classify orders sc.all.near by class (see numSlabs), cutting the slabs at
// the substep's first call: chunks of pairs are classed and counted per
// class, then written at their offsets (class by class, chunk by chunk),
// in parallel.
func (sc *Contact) classify() {
	sp := &sc.par
	if sp.slabAt != sc.substep {
		sp.slabAt = sc.substep
		sc.cutSlabs()
	}
	n := len(sc.all.near)
	if cap(sp.classOf) < n {
		sp.classOf = make([]uint8, n, n+n/2)
	}
	if cap(sp.nearBuf) < n {
		sp.nearBuf = make([]int32, n, n+n/2)
	}
	sp.classOf, sp.nearBuf = sp.classOf[:n], sp.nearBuf[:n]
	nch := scanChunks(n)
	if cap(sp.chunkClass) < nch {
		sp.chunkClass = make([][numClasses]int32, nch, nch+nch/2)
	}
	sp.chunkClass = sp.chunkClass[:nch]
	sc.run(phaseClassOf, nch, n, pool.MinChunk)
	at := int32(0)
	for c := range numClasses {
		sp.classAt[c] = at
		for j := range sp.chunkClass {
			k := sp.chunkClass[j][c]
			sp.chunkClass[j][c] = at
			at += k
		}
	}
	sp.classAt[numClasses] = at
	sc.run(phaseScatter, nch, n, pool.MinChunk)
	sc.all.near, sp.nearBuf = sp.nearBuf, sc.all.near
}

// classOfChunks sets the classes of the near pairs of chunks [lo, hi) and
// counts each chunk's pairs per class.
func (sc *Contact) classOfChunks(lo, hi int) {
	sp := &sc.par
	for j := lo; j < hi; j++ {
		a, b := chunkRange(j, len(sc.all.near))
		var count [numClasses]int32
		for i, k := range sc.all.near[a:b] {
			vs := sc.pv[k]
			s0, s1, s2, s3 := sp.slab[vs[0]], sp.slab[vs[1]], sp.slab[vs[2]], sp.slab[vs[3]]
			l, h := int(min(s0, s1, s2, s3)), int(max(s0, s1, s2, s3))
			c := numClasses - 1
			switch {
			case l == h:
				c = l
			case h == l+1:
				c = boundaryClass(l)
			}
			sp.classOf[a+i] = uint8(c)
			count[c]++
		}
		sp.chunkClass[j] = count
	}
}

// scatterChunks writes the near pairs of chunks [lo, hi) at their
// classes' offsets.
func (sc *Contact) scatterChunks(lo, hi int) {
	sp := &sc.par
	for j := lo; j < hi; j++ {
		a, b := chunkRange(j, len(sc.all.near))
		at := sp.chunkClass[j]
		for i, k := range sc.all.near[a:b] {
			c := sp.classOf[a+i]
			sp.nearBuf[at[c]] = k
			at[c]++
		}
	}
}

// cutSlabs assigns every vertex its slab: across the longest axis of the
// box around the near pairs' first vertices at the current positions, cut
// so that each slab holds about as many of those vertices (a histogram of
// slabBins bins over a sample of at most about slabSample pairs).
func (sc *Contact) cutSlabs() {
	sp := &sc.par
	pos := sc.pos
	n := len(sc.all.near)
	stride := max(1, n/slabSample)
	lo, hi := vec.V(math.Inf(1), math.Inf(1), math.Inf(1)), vec.V(math.Inf(-1), math.Inf(-1), math.Inf(-1))
	for i := 0; i < n; i += stride {
		p := pos[sc.pv[sc.all.near[i]][0]]
		lo, hi = lo.Min(p), hi.Max(p)
	}
	d := hi.Sub(lo)
	sp.slabAxis, sp.slabLo = 0, lo.X
	ext := d.X
	if d.Y > ext {
		sp.slabAxis, sp.slabLo, ext = 1, lo.Y, d.Y
	}
	if d.Z > ext {
		sp.slabAxis, sp.slabLo, ext = 2, lo.Z, d.Z
	}
	sp.slabScale = 0
	if ext > 0 {
		sp.slabScale = slabBins / ext
	}
	var hist [slabBins]int
	m := 0
	for i := 0; i < n; i += stride {
		hist[sp.bin(pos[sc.pv[sc.all.near[i]][0]])]++
		m++
	}
	// the slab of a bin: the share of the sample below it
	sum := 0
	for b, h := range hist {
		sp.slabOf[b] = uint8(min(sum*numSlabs/max(m, 1), numSlabs-1))
		sum += h
	}
	sc.run(phaseSlabVerts, len(pos), len(pos), pool.MinChunk)
}

// bin returns the histogram bin of position p (see cutSlabs).
func (sp *parSweeps) bin(p vec.Vec3) int {
	x := p.X
	switch sp.slabAxis {
	case 1:
		x = p.Y
	case 2:
		x = p.Z
	}
	return min(max(int((x-sp.slabLo)*sp.slabScale), 0), slabBins-1)
}

// slabVerts sets the slabs of vertices [lo, hi).
func (sc *Contact) slabVerts(lo, hi int) {
	sp := &sc.par
	for v, p := range sc.pos[lo:hi] {
		sp.slab[lo+v] = sp.slabOf[sp.bin(p)]
	}
}

// sweepParallel runs one sweep over the classified near pairs, group by
// group (see classify), and returns the largest squared push.
func (sc *Contact) sweepParallel(mu float64, back, mark bool) float64 {
	sp := &sc.par
	sc.stats.Classed++
	sp.sweepMu, sp.sweepBack, sp.sweepBase, sp.sweepMark = mu, back, sc.all.tick, mark
	for g := range classGroups {
		if back {
			g = len(classGroups) - 1 - g
		}
		lo, hi := classGroups[g][0], classGroups[g][1]
		sp.sweepLo = lo
		sc.run(phaseClasses, hi-lo, int(sp.classAt[hi]-sp.classAt[lo]), parGrain)
	}
	maxSq := 0.0
	for c := range numClasses {
		maxSq = max(maxSq, sp.classMax[c])
		sc.all.skipped += sp.classSkip[c]
	}
	return maxSq
}

// sweepClasses projects the pairs of classes [lo, hi) of the current
// parallel sweep's group.
func (sc *Contact) sweepClasses(lo, hi int) {
	sp := &sc.par
	for c := sp.sweepLo + lo; c < sp.sweepLo+hi; c++ {
		sp.classMax[c], sp.classSkip[c] = sc.sweepRange(sc.all.near, sp.classAt[c], sp.classAt[c+1], sp.sweepMu, sp.sweepBack, sp.sweepBase, sp.sweepMark)
	}
}
