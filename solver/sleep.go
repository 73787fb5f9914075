package solver

import (
	"reflect"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// This file lets resting cloth sleep (Params.Sleep, XPBD only).
//
// At the end of every frame each vertex's displacement over the frame is
// compared with SleepSpeed·dt and its speed with SleepSpeed: a vertex below
// both counts one more still frame, any other is "moving" and its count
// drops to 0. At the start of the next frame a vertex with at least
// SleepFrames still frames and no moving edge neighbour sleeps, provided
// it slept in the last frame or no vertex of the cloth moved in it (the
// cloth is calm). A sleeping vertex's velocity is zeroed and, for the
// whole frame, its inverse mass is 0 in the integrator's own copy of the
// inverse masses, so prediction, every constraint, the colliders and
// self-collision treat it exactly like a pinned vertex that does not move
// (the shared Model is never changed). A vertex next to a moving one is
// woken instead and must stay still for SleepFrames frames again.
//
// Why the calm condition: a cloth settling onto a collider is chaotic
// (moving one vertex of a 64 x 64 drape by 1e-7 m at the start changes
// the rest shape 10 s later by 9 cm), so freezing the part already at
// rest while the rest still swings changes the folds by centimetres.
// With it, a cloth that is still moving anywhere bakes bit for bit as
// without sleeping, and sleep changes only a cloth already at rest.
//
// A constraint whose vertices all have zero inverse mass changes nothing,
// so skipping it is exact. The constraints of each colour are cut into
// blocks of sleepBlock; once per frame the blocks that hold a constraint
// with a vertex awake are listed (trimmed to their first and last such
// constraint), and only those are projected; colours with no awake block
// cost no phase at all. The stretch limits are listed by chain. When every
// free vertex sleeps, the frame does nothing, and Step returns at once.
//
// Sleeping is conservative about what it cannot see: wind, a pin with a
// Motion or a Track, a keyframed collider, a change of gravity, frame time or the
// colliders, another State, or positions edited between Steps wake every
// vertex for that frame and reset every count. With SelfCollision the
// cloth sleeps only as a whole (a cloth falling onto a sleeping part would
// otherwise meet vertices that cannot give way).

// sleepBlock is the number of consecutive constraints of one colour that
// are listed together as awake or asleep.
const sleepBlock = 64

// sleeper is the sleeping state of an XPBD integrator.
type sleeper struct {
	w      []float64   // effective inverse masses (the XPBD integrator's own copy)
	lim    *limitBlock // the XPBD integrator's stretch limits
	w0     []float64   // the shared model's inverse masses
	count  []int32     // consecutive still frames
	moving []bool      // moved faster than SleepSpeed in the last frame
	calm   bool        // no vertex moved faster than SleepSpeed in the last frame
	ref    []vec.Vec3
	start  []int32 // vertex adjacency (CSR)
	adj    []int32

	pinsMove bool // a pin has a Motion or a Track
	self     bool // SelfCollision: sleep only as a whole
	asleep   int  // vertices asleep in the current frame

	// context of the last frame; valid is false before the first frame and
	// after a failed one
	valid     bool
	state     *State
	gravity   vec.Vec3
	dt        float64
	colliders []sdf.Collider

	// constraint blocks per colour: blocks col[c]:col[c+1] of colour c,
	// each an absolute index range [lo, hi)
	strBlk, bendBlk       [][2]int32
	strBlkCol, bendBlkCol []int
	// awake blocks and chains of the current frame, in the same layout
	strAct, bendAct       [][2]int32
	strActCol, bendActCol []int
	limAct                []int32 // chain ids
	limActCol             []int
	limActWork            []int // limits in each colour's awake chains
}

func newSleeper(m *Model, lim *limitBlock, w []float64) *sleeper {
	n := len(m.Rest)
	sl := &sleeper{
		w:      w,
		w0:     m.InvMass,
		count:  make([]int32, n),
		moving: make([]bool, n),
		ref:    make([]vec.Vec3, n),
		self:   m.Params.SelfCollision,
	}
	sl.start, sl.adj = m.vertexAdjacency()
	for _, pn := range m.Pins {
		if pn.Motion != nil || pn.Track != nil {
			sl.pinsMove = true
		}
	}
	sl.strBlk, sl.strBlkCol = sleepBlocks(m.stretch.colours)
	sl.bendBlk, sl.bendBlkCol = sleepBlocks(m.bend.colours)
	sl.strAct = make([][2]int32, 0, len(sl.strBlk))
	sl.bendAct = make([][2]int32, 0, len(sl.bendBlk))
	sl.strActCol = make([]int, 0, len(sl.strBlkCol))
	sl.bendActCol = make([]int, 0, len(sl.bendBlkCol))
	sl.lim = lim
	nc := len(lim.colours)
	sl.limAct = make([]int32, 0, max(len(lim.chainOff)-1, 0))
	sl.limActCol = make([]int, 0, nc)
	sl.limActWork = make([]int, 0, nc)
	return sl
}

// sleepBlocks cuts each colour [colours[c], colours[c+1]) into blocks of at
// most sleepBlock constraints.
func sleepBlocks(colours []int) (blk [][2]int32, col []int) {
	col = []int{0}
	for c := 0; c+1 < len(colours); c++ {
		for lo := colours[c]; lo < colours[c+1]; lo += sleepBlock {
			blk = append(blk, [2]int32{int32(lo), int32(min(lo+sleepBlock, colours[c+1]))})
		}
		col = append(col, len(blk))
	}
	return blk, col
}

// begin decides which vertices sleep in frame f of s, holds them (zero
// velocity) and lists the awake constraints. It reports whether every
// free vertex sleeps, so the frame can be skipped.
func (sl *sleeper) begin(m *Model, s *State, f *Frame) (all bool) {
	wakeAll := !sl.valid || s != sl.state || f.Wind.active() || sl.pinsMove ||
		f.Gravity != sl.gravity || f.Dt != sl.dt || !sl.sameColliders(f.Colliders)
	if !wakeAll {
		for v, x := range s.Pos {
			if x != sl.ref[v] {
				wakeAll = true // edited between Steps
				break
			}
		}
	}
	sl.valid, sl.state, sl.gravity, sl.dt = true, s, f.Gravity, f.Dt
	sl.colliders = append(sl.colliders[:0], f.Colliders...)
	sl.asleep = 0
	if wakeAll {
		copy(sl.w, sl.w0)
		clear(sl.count)
		clear(sl.moving)
		sl.calm = false
		copy(sl.ref, s.Pos)
		return false
	}
	n, free := 0, 0
	need := int32(m.Params.SleepFrames)
	for v, w := range sl.w0 {
		was := sl.w[v] == 0 // asleep in the last frame
		sl.w[v] = w
		if w == 0 {
			continue
		}
		free++
		if sl.count[v] < need || (!was && !sl.calm) {
			continue
		}
		woken := false
		for _, u := range sl.adj[sl.start[v]:sl.start[v+1]] {
			if sl.moving[u] {
				woken = true
				break
			}
		}
		if woken {
			sl.count[v] = 0
			continue
		}
		sl.w[v] = 0
		n++
	}
	if n == 0 || (sl.self && n < free) {
		copy(sl.w, sl.w0)
		return false
	}
	sl.asleep = n
	// hold the sleepers
	for v, w := range sl.w {
		if w == 0 && sl.w0[v] != 0 {
			s.Vel[v] = vec.Vec3{}
			s.Prev[v] = s.Pos[v]
		}
	}
	if n == free {
		// nothing moves: the frame would only set Prev = Pos (static pins
		// are at their targets)
		copy(s.Prev, s.Pos)
		return true
	}
	sl.listAwake(m)
	return false
}

// sameColliders reports whether cs are the colliders of the last frame,
// none of them keyframed or changing on its own (sdf.TimeVarying).
func (sl *sleeper) sameColliders(cs []sdf.Collider) bool {
	if len(cs) != len(sl.colliders) {
		return false
	}
	for i := range cs {
		a, b := &cs[i], &sl.colliders[i]
		if len(a.Keys) > 0 || len(b.Keys) > 0 || a.StaticFriction != b.StaticFriction ||
			a.KineticFriction != b.KineticFriction || a.Thickness != b.Thickness {
			return false
		}
		// shapes of an incomparable type cannot be told apart: assume
		// they changed
		if a.Shape == nil || b.Shape == nil || !reflect.TypeOf(a.Shape).Comparable() || a.Shape != b.Shape {
			return false
		}
		if _, ok := a.Shape.(sdf.TimeVarying); ok {
			return false
		}
	}
	return true
}

// end counts still frames after a successful frame f of s.
func (sl *sleeper) end(s *State, f *Frame, speed float64) {
	thr := speed * f.Dt
	thr2 := thr * thr
	v2max := speed * speed
	sl.calm = true
	for v, x := range s.Pos {
		still := x.Sub(sl.ref[v]).LenSq() <= thr2 && s.Vel[v].LenSq() <= v2max
		sl.moving[v] = !still
		sl.calm = sl.calm && still
		switch {
		case !still:
			sl.count[v] = 0
		case sl.count[v] < 1<<30:
			sl.count[v]++
		}
		sl.ref[v] = x
	}
}

// listAwake lists the constraint blocks and limit chains of each colour
// that hold a vertex with non-zero inverse mass.
func (sl *sleeper) listAwake(m *Model) {
	w := sl.w
	st, bd := &m.stretch, &m.bend
	sl.strAct, sl.strActCol = awakeBlocks(sl.strBlk, sl.strBlkCol, sl.strAct, sl.strActCol, func(i int32) bool {
		e := st.v[i]
		return w[e[0]] != 0 || w[e[1]] != 0
	})
	sl.bendAct, sl.bendActCol = awakeBlocks(sl.bendBlk, sl.bendBlkCol, sl.bendAct, sl.bendActCol, func(i int32) bool {
		q := bd.v[i]
		return w[q[0]] != 0 || w[q[1]] != 0 || w[q[2]] != 0 || w[q[3]] != 0
	})
	lb := sl.lim
	sl.limAct, sl.limActCol, sl.limActWork = sl.limAct[:0], append(sl.limActCol[:0], 0), sl.limActWork[:0]
	for c := 0; c+1 < len(lb.colours); c++ {
		work := 0
		for k := lb.colours[c]; k < lb.colours[c+1]; k++ {
			if sl.chainAwake(lb, k) {
				sl.limAct = append(sl.limAct, int32(k))
				work += lb.chainWork(k)
			}
		}
		sl.limActCol = append(sl.limActCol, len(sl.limAct))
		sl.limActWork = append(sl.limActWork, work)
	}
}

// chainAwake reports whether chain k touches a vertex with non-zero
// inverse mass.
func (sl *sleeper) chainAwake(lb *limitBlock, k int) bool {
	for _, v := range lb.chainTouches(k) {
		if sl.w[v] != 0 {
			return true
		}
	}
	return false
}

// Asleep returns the number of vertices asleep in the last frame Step ran
// (0 without Params.Sleep or for the mass-spring integrators).
func (x *XPBD) Asleep() int {
	if x.sl == nil {
		return 0
	}
	return x.sl.asleep
}

// awakeBlocks lists, colour by colour, the part of each block of blk
// (colour c is blk[col[c]:col[c+1]]) from its first to its last
// constraint with awake(i), reusing act and actCol.
func awakeBlocks(blk [][2]int32, col []int, act [][2]int32, actCol []int, awake func(i int32) bool) ([][2]int32, []int) {
	act, actCol = act[:0], append(actCol[:0], 0)
	for c := 0; c+1 < len(col); c++ {
		for _, bk := range blk[col[c]:col[c+1]] {
			lo, hi := int32(-1), int32(-1)
			for i := bk[0]; i < bk[1]; i++ {
				if awake(i) {
					if lo < 0 {
						lo = i
					}
					hi = i + 1
				}
			}
			if lo >= 0 {
				act = append(act, [2]int32{lo, hi})
			}
		}
		actCol = append(actCol, len(act))
	}
	return act, actCol
}
