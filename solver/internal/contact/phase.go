package contact

// phase names a data-parallel pass of the contact phases. The pool runs
// every pass through one function value (runPhase), made once in New, so
// a pass costs no allocation and the Contact holds one function field
// rather than one per pass. Passes never nest.
type phase uint8

const (
	phaseMean         phase = iota // update: the blocks' mean positions
	phaseClamp                     // update: clamp, allowances, keep anchors
	phaseTurned                    // update: triangles that turned out of their cones
	phaseReset                     // full rebuild: every vertex's reference and allowance
	phaseTasks                     // full rebuild: the traversal's tasks
	phaseQueries                   // partial rebuild: the queries' tasks
	phasePrepPart                  // partial rebuild: refit the boxes, set pairs aside
	phasePairVerts                 // the listed pairs' vertices
	phaseRefresh                   // a pick's refresh of the pairs
	phaseRefreshSplit              // the first pick's refresh, splitting into components
	phaseCountNear                 // listNear: count the near flags per chunk
	phaseWriteNear                 // listNear: write the near pairs
	phaseSlabVerts                 // classify: every vertex's slab
	phaseClassOf                   // classify: the near pairs' classes
	phaseScatter                   // classify: the near pairs in class order
	phaseClasses                   // a parallel sweep's classes of one group
	phaseGroups                    // the components' rounds
	phaseNear                      // the colliders for the near pairs' vertices
	phaseLate                      // rescue: vertices far beyond their allowances
	phaseSeparate                  // the cap of the separating speed
)

// run runs pass ph over count items holding work units, in chunks of at
// least grain/2 work.
func (sc *Contact) run(ph phase, count, work, grain int) {
	sc.phase = ph
	sc.pool.RunWork(count, work, grain, sc.fnPhase)
}

// runPhase runs items [lo, hi) of the current pass.
func (sc *Contact) runPhase(lo, hi int) {
	switch sc.phase {
	case phaseMean:
		sc.mean(lo, hi)
	case phaseClamp:
		sc.clamp(lo, hi)
	case phaseTurned:
		if sc.tree.turned(sc.pos, sc.tris, lo, hi, sc.turn) {
			sc.turnedFlag.Store(true)
		}
	case phaseReset:
		sc.resetAll(lo, hi)
	case phaseTasks:
		sc.runTasks(lo, hi)
	case phaseQueries:
		sc.runQueries(lo, hi)
	case phasePrepPart:
		sc.prepPart(lo, hi)
	case phasePairVerts:
		sc.pairVertsRange(lo, hi)
	case phaseRefresh:
		sc.refresh(lo, hi)
	case phaseRefreshSplit:
		sc.refreshSplit(lo, hi)
	case phaseCountNear:
		sc.countNear(lo, hi)
	case phaseWriteNear:
		sc.writeNear(lo, hi)
	case phaseSlabVerts:
		sc.slabVerts(lo, hi)
	case phaseClassOf:
		sc.classOfChunks(lo, hi)
	case phaseScatter:
		sc.scatterChunks(lo, hi)
	case phaseClasses:
		sc.sweepClasses(lo, hi)
	case phaseGroups:
		sc.runGroups(lo, hi)
	case phaseNear:
		sc.collideNear(lo, hi)
	case phaseLate:
		sc.late(lo, hi)
	case phaseSeparate:
		sc.separate(lo, hi)
	}
}
