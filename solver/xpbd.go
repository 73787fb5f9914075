package solver

import (
	"github.com/drape-sim/drape/solver/internal/pool"
	"math"
	"runtime"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// XPBD advances cloth with extended position-based dynamics (Macklin,
// Müller, Chentanez 2016) in substeps with one projection of every
// constraint per substep (Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke,
// Müller 2019, "Small Steps in Physics Simulation"). It owns its scratch
// memory and worker goroutines; a warm Step allocates nothing.
//
// Per substep of length dt, with external acceleration a (gravity, drag,
// wind):
//
//	predict:  v ← v·exp(-Damping·dt) + a·dt;  prev ← x;  x ← x + v·dt
//	          (+ the held bending moves of soft cloth, see bendClasses)
//	project:  hard pins, soft pins, stretch limits (limits.go, coarse
//	          levels first), stretch, bending (each by colour; on several
//	          threads by tasks that wait only for their neighbours,
//	          graph.go), tethers, colliders
//	velocity: v ← (x - prev)/dt
//
// This is symplectic Euler, that is leapfrog with the velocity half a
// substep behind the positions. State.Vel is kept synchronous with
// State.Pos at frame boundaries: the last substep of a frame adds half of
// its total acceleration (external plus constraint, measured as the
// velocity change the projection made): v ← v + ½·(a·dt + (x - prev)/dt -
// v_predicted). The next frame continues from that substep's half-step
// velocity, so a frame boundary changes nothing (24 fps x 30 substeps and
// 48 fps x 15 give the same positions); only a velocity that is new (the
// first frame) or was set from outside starts leapfrog with a half kick
// ½·a·dt. A free fall is then exact (x0 + ½gt²) at any substep count, and
// a rigidly held configuration stays exactly at rest with zero velocity.
type XPBD struct {
	base
	limit   limitBlock // hierarchical stretch limits (limits.go)
	invDt2  float64
	cBase   int
	first   bool
	last    bool
	half    []vec.Vec3 // per vertex: the last frame's last half-step velocity
	out     []vec.Vec3 // per vertex: the synchronised velocity it ended with
	lamS    []float64
	lamB    []float64
	lamL    []float64
	lamC    []float64  // per chain edge (limits.go)
	chNrm   []vec.Vec3 // projectChain's scratch, per chain edge
	chC     []float64
	chD     []float64
	volGrad []vec.Vec3 // per vertex: volume gradients (volume.go)
	fnLim   func(lo, hi int)
	fnPred  func(lo, hi int)
	fnVel   func(lo, hi int)
	fnStr   func(lo, hi int)
	fnBend  func(lo, hi int)
	fnTeth  func(lo, hi int)
	substep func(k, n int, t, dt float64)

	// bending spans (bendClasses): hinge i's moves are found once every
	// bendCls[i] substeps, picked for substeps of bendDt seconds, bendN per
	// frame; bit c of bendMask is set when some hinge spans c substeps;
	// bendSub is the substep of the frame
	bendCls  []uint8
	bendDt   float64
	bendN    int
	bendMask uint32
	bendSub  int
	// for longer spans (nil without): per vertex, the span of its piece
	// (vSpan, 1 without bending) and the moves its span's hinges make
	// (bendHold), found on a copy of the positions (bendCopy) at the
	// span's start and repeated in each of its substeps (predict);
	// projectBendRange projects on bendCopy while bendHeld is set
	vSpan    []uint8
	bendHold []vec.Vec3
	bendCopy []vec.Vec3
	bendHeld bool
	fnHoldA  func(lo, hi int)
	fnHoldB  func(lo, hi int)

	// the projection by tasks (graph.go): nil on one thread or a small
	// cloth
	graph    *projGraph
	fnOwners func(lo, hi int)

	// sleeping (sleep.go): nil without Params.Sleep
	sl          *sleeper
	blk         [][2]int32 // awake blocks of the current colour
	chains      []int32    // awake limit chains of the current colour
	fnStrBlk    func(lo, hi int)
	fnBendBlk   func(lo, hi int)
	fnLimChains func(lo, hi int)
}

// NewXPBD returns an XPBD integrator for m, which it only reads: it builds
// its own stretch limits (newLimits) and, with Params.Sleep, moves the
// vertices with its own copy of the inverse masses (0 for the vertices
// asleep in the current frame).
func NewXPBD(m *Model) *XPBD {
	x := &XPBD{base: newBase(m), limit: newLimits(m)}
	if m.Params.Sleep {
		x.w = slices.Clone(m.InvMass)
		x.sl = newSleeper(m, &x.limit, x.w)
	}
	x.fnStrBlk, x.fnBendBlk, x.fnLimChains = x.projectStretchBlocks, x.projectBendBlocks, x.projectLimitChains
	// the multipliers carry over between iterations of one substep; with
	// one iteration they always start at 0 and are never read again
	if m.Params.Iterations > 1 {
		x.lamS = make([]float64, len(m.stretch.v))
		x.lamB = make([]float64, len(m.bend.v))
		x.lamL = make([]float64, len(x.limit.maxLen))
		x.lamC = make([]float64, len(x.limit.rest))
	}
	x.chNrm = make([]vec.Vec3, len(x.limit.rest))
	x.chC = make([]float64, len(x.limit.rest))
	x.chD = make([]float64, len(x.limit.rest))
	if len(m.volumes) > 0 {
		x.volGrad = make([]vec.Vec3, len(m.Rest))
	}
	x.fnLim = x.projectLimits
	x.fnPred, x.fnVel = x.predict, x.updateVel
	x.fnStr, x.fnBend, x.fnTeth = x.projectStretch, x.projectBend, x.projectTethers
	x.substep = x.step
	x.fnHoldA, x.fnHoldB = x.holdCopy, x.holdMoves
	if n := graphOwners(m, x.pool.Threads()); n > 1 {
		x.graph = newProjGraph(m, &x.limit, n)
		x.fnOwners = x.runOwners
	}
	runtime.AddCleanup(x, func(p *pool.Pool) { p.Close() }, x.pool)
	return x
}

// NumLimits returns the number of hierarchical stretch limits and of the
// colour groups of their chains.
func (x *XPBD) NumLimits() (limits, colours int) {
	return x.limit.num()
}

// Step advances s by frame f.
func (x *XPBD) Step(s *State, f *Frame) error {
	if err := x.checkState(s, f); err != nil {
		return err
	}
	x.resume(len(s.Pos))
	// vertices whose velocity is still the synchronised one the last frame
	// ended with continue from its last half-step velocity (see predict);
	// the first substep's drag and wind then see that velocity too
	for i, v := range s.Vel {
		if v == x.out[i] {
			s.Vel[i], x.out[i] = x.half[i], x.half[i]
		}
	}
	if x.sl == nil {
		return x.runFrame(s, f, x.m.Params.Substeps, x.substep)
	}
	if x.sl.begin(x.m, s, f) {
		x.sl.end(s, f, x.m.Params.SleepSpeed)
		return nil
	}
	err := x.runFrame(s, f, x.m.Params.Substeps, x.substep)
	if err != nil {
		x.sl.valid = false
		return err
	}
	x.sl.end(s, f, x.m.Params.SleepSpeed)
	return nil
}

func (x *XPBD) step(k, n int, t, dt float64) {
	m := x.m
	p := &m.Params
	x.dt = dt
	x.invDt2 = 1 / (dt * dt)
	x.setDamping(dt)
	x.first, x.last = k == 0, k == n-1
	if dt != x.bendDt || n != x.bendN {
		x.bendClasses(dt, n)
	}
	x.bendSub = k
	for c := 2; c <= bendIntervalMax; c++ {
		if x.bendMask&(1<<c) != 0 && k%c == 0 {
			x.holdBending()
			break
		}
	}

	// external forces and predict (one phase per vertex after the
	// per-triangle aerodynamic forces)
	x.triPhase(t)
	x.pool.Run(len(m.Rest), x.fnPred)

	// project
	x.setHardPins(x.s.Pos, t+dt)
	clear(x.lamS)
	clear(x.lamB)
	clear(x.lamL)
	clear(x.lamC)
	sleeping := x.sl != nil && x.sl.asleep > 0
	for it := 0; it < p.Iterations; it++ {
		x.projectSoftPins(t + dt)
		if sleeping {
			x.runAwakeLimits()
			x.runBlocks(x.sl.strActCol, x.sl.strAct, x.fnStrBlk)
			if x.bendEach() {
				x.runBlocks(x.sl.bendActCol, x.sl.bendAct, x.fnBendBlk)
			}
		} else if x.graph == nil || x.pool.Coarse() || !x.runGraph() {
			x.runLimits()
			x.runColours(m.stretch.colours, x.fnStr)
			if x.bendEach() {
				x.runColours(m.bend.colours, x.fnBend)
			}
		}
		x.projectWhole(t + dt)
	}
	x.pool.Run(len(m.tetherV), x.fnTeth)
	x.collide(t, dt)

	// update velocities
	x.pool.Run(len(m.Rest), x.fnVel)
}

// bendIntervalMax is the longest span bendClasses gives a hinge.
const bendIntervalMax = 5

// bendSwingMax bounds the span c of a piece whose stiffest hinge has the
// ratio r = W·dt²/α (hingeRatio): c²·r <= bendSwingMax. A hinge swings at
// ω·dt = √r, and its moves, found once per span, act like a force held
// for c·dt, which stays stable while ω·c·dt is well below about 1.4. The
// 21-column cantilever strip of TestCantileverDeflection (144 frames,
// 1e-6 to 1e-4 N·m, every hinge given span 2 to 5 regardless of this
// bound) sagged as with span 1 to 0.01 % while c²·r <= 1.9, and flipped
// or bent up, unstable, from c²·r = 2.65 on (one case off by 3 % there).
const bendSwingMax = 1

// bendClasses gives each hinge its span (x.bendCls) for substeps of dt
// seconds, n per frame: the number of substeps its bending moves are found
// for at once. Bending is the cloth's softest force and most of an XPBD
// substep's cost (45 % of the CPU time of the 64 x 64 sphere drape
// without self-collision), while stretch needs every substep: a 3 cm
// cotton hinge swings at ω·dt = 0.25 in the bench's 1/360 s substeps. So
// at the start of a span, holdBending projects the span's hinges on a
// copy of the positions, each vertex moved ahead at its velocity to where
// it will be on average at the ends of the span's substeps, and every
// substep of the span adds the moves that made to its predicted positions
// (predict), like an external force held over the span (a multiple time
// step; Tuckerman, Berne and Martyna 1992). Seen without moving ahead,
// the force lags by half a span, which pumps energy into the cloth: the
// 32 x 32 drape of TestDrapeComesToRest at span 3 kept vertices at 2 cm/s
// after 10 s (1.1 mm/s with it; 0.9 mm/s at span 1). As an impulse
// instead (projected once per span with the compliance of c substeps),
// the stiff stretch rang at the span's period: 9 cm/s at rest.
//
// A piece of cloth (connected component of the mesh) takes the span of
// its stiffest hinge, so separate pieces do not affect each other: the
// longest divisor of n up to bendIntervalMax (and Params.BendingInterval
// when set) within bendSwingMax. Spans are whole within a frame. Hinges
// of one piece with different spans swing together faster than each one
// alone: a span per hinge bent the 1e-4 N·m strip of TestBendingSpans up
// (-4.5 cm against a 1.2 cm sag), and the span of a piece's 99th
// percentile hinge, with the stiffer ones at span 1, made the 1e-5 N·m
// strip sag 15.5 cm against 8.5.
func (x *XPBD) bendClasses(dt float64, n int) {
	b := &x.m.bend
	x.bendDt, x.bendN, x.bendMask = dt, n, 0
	if len(x.bendCls) != len(b.v) {
		x.bendCls = make([]uint8, len(b.v))
	}
	span, _ := x.m.pieceSpans(dt, n)
	for i, q := range b.v {
		c := span[x.m.Topo.Piece[q[0]]]
		x.bendCls[i] = c
		x.bendMask |= 1 << c
	}
	x.vSpan, x.bendHold, x.bendCopy = nil, nil, nil
	if x.bendMask&^(1<<1) != 0 {
		x.vSpan = make([]uint8, len(x.m.Rest))
		for v := range x.vSpan {
			x.vSpan[v] = 1
		}
		for i, q := range b.v {
			for _, v := range q {
				x.vSpan[v] = x.bendCls[i]
			}
		}
		x.bendHold = make([]vec.Vec3, len(x.m.Rest))
		x.bendCopy = make([]vec.Vec3, len(x.m.Rest))
	}
}

// bendEach reports whether some hinge spans one substep: then the
// bending phases run in every substep, projecting those hinges.
func (x *XPBD) bendEach() bool {
	return x.bendMask&(1<<1) != 0
}

// pieceSpans returns each piece's bending span for substeps of dt
// seconds, n per frame (see bendClasses), and whether the piece has a
// hinge.
func (m *Model) pieceSpans(dt float64, n int) ([]uint8, []bool) {
	b := &m.bend
	top := bendIntervalMax
	if p := m.Params.BendingInterval; p > 0 {
		top = min(top, p)
	}
	// each piece's stiffest hinge sets its span
	worst := make([]float64, m.Topo.Pieces)
	has := make([]bool, m.Topo.Pieces)
	for i, r := range b.ratio {
		k := m.Topo.Piece[b.v[i][0]]
		worst[k], has[k] = max(worst[k], r), true
	}
	span := make([]uint8, m.Topo.Pieces)
	for k, r1 := range worst {
		r := r1 * dt * dt
		c := 1
		for d := 2; d <= top; d++ {
			if n%d == 0 && float64(d*d)*r <= bendSwingMax {
				c = d
			}
		}
		span[k] = uint8(c)
	}
	return span, has
}

// BendingSpans returns, for each piece of cloth (connected component of
// the mesh) with bending, in the order of their lowest vertices, how many
// substeps one projection of its bending constraints spans at fps frames
// per second and Params.Substeps (XPBD; see Params.BendingInterval), or
// nil if no piece has bending.
func (m *Model) BendingSpans(fps float64) []int {
	n := m.Params.Substeps
	span, has := m.pieceSpans(1/(fps*float64(n)), n)
	var out []int
	for k, c := range span {
		if has[k] {
			out = append(out, int(c))
		}
	}
	return out
}

// runColours projects each colour group in parallel chunks.
func (x *XPBD) runColours(starts []int, fn func(lo, hi int)) {
	for c := 0; c+1 < len(starts); c++ {
		x.cBase = starts[c]
		n := starts[c+1] - starts[c]
		x.pool.RunGrain(n, n, fn)
	}
}

// runLimits projects the stretch limits, one phase per chain colour.
func (x *XPBD) runLimits() {
	b := &x.limit
	for c := 0; c+1 < len(b.colours); c++ {
		x.cBase = b.colours[c]
		lo, hi := b.colours[c], b.colours[c+1]
		x.pool.RunGrain(hi-lo, b.work[c], x.fnLim)
	}
}

// runBlocks projects the awake constraint blocks act[col[c]:col[c+1]] of
// each colour c in parallel chunks; colours with none cost nothing.
func (x *XPBD) runBlocks(col []int, act [][2]int32, fn func(lo, hi int)) {
	for c := 0; c+1 < len(col); c++ {
		if n := col[c+1] - col[c]; n > 0 {
			x.blk = act[col[c]:col[c+1]]
			x.pool.RunGrain(n, n*sleepBlock, fn)
		}
	}
}

// runAwakeLimits projects the awake limit chains, one phase per colour.
func (x *XPBD) runAwakeLimits() {
	sl := x.sl
	for c := 0; c+1 < len(sl.limActCol); c++ {
		if n := sl.limActCol[c+1] - sl.limActCol[c]; n > 0 {
			x.chains = sl.limAct[sl.limActCol[c]:sl.limActCol[c+1]]
			x.pool.RunGrain(n, sl.limActWork[c], x.fnLimChains)
		}
	}
}

func (x *XPBD) projectStretchBlocks(lo, hi int) {
	for _, bk := range x.blk[lo:hi] {
		x.projectStretchRange(int(bk[0]), int(bk[1]))
	}
}

func (x *XPBD) projectBendBlocks(lo, hi int) {
	for _, bk := range x.blk[lo:hi] {
		x.projectBendRange(int(bk[0]), int(bk[1]))
	}
}

func (x *XPBD) projectLimitChains(lo, hi int) {
	for _, k := range x.chains[lo:hi] {
		x.projectLimitRange(int(k), int(k)+1)
	}
}

func (x *XPBD) predict(lo, hi int) {
	x.gatherAccel(lo, hi)
	predict(x.s.Pos[lo:hi], x.s.Prev[lo:hi], x.s.Vel[lo:hi], x.acc[lo:hi], x.w[lo:hi], x.dt, x.damp, x.dampSlice(lo, hi), x.first,
		x.half[lo:hi], x.out[lo:hi])
	if x.bendHold == nil {
		return
	}
	// every substep of a span repeats the moves found at its start
	pos, w, hold := x.s.Pos, x.w, x.bendHold
	for v := lo; v < hi; v++ {
		if x.vSpan[v] > 1 && w[v] != 0 {
			pos[v] = pos[v].Add(hold[v])
		}
	}
}

// holdBending finds the moves of the hinges whose span starts at this
// substep (see bendClasses), from the positions at its start: it projects
// them on a copy of the positions, colour by colour, and keeps how far
// that moved each of their vertices in bendHold.
func (x *XPBD) holdBending() {
	n := len(x.s.Pos)
	x.pool.Run(n, x.fnHoldA)
	x.bendHeld = true
	x.runColours(x.m.bend.colours, x.fnBend)
	x.bendHeld = false
	x.pool.Run(n, x.fnHoldB)
}

// holdCopy copies vertices [lo, hi) for holdBending, each moved on at its
// velocity to where it will be on average at the ends of its span's
// substeps ((c+1)/2 substeps ahead), as a substep's projection sees the
// positions it predicted.
func (x *XPBD) holdCopy(lo, hi int) {
	for v := lo; v < hi; v++ {
		x.bendCopy[v] = x.s.Pos[v].Add(x.s.Vel[v].Scale(float64(x.vSpan[v]+1) / 2 * x.dt))
	}
}

// holdMoves keeps the moves of vertices [lo, hi) whose span starts now.
func (x *XPBD) holdMoves(lo, hi int) {
	for v := lo; v < hi; v++ {
		if c := int(x.vSpan[v]); c > 1 && x.bendSub%c == 0 {
			x.bendHold[v] = x.bendCopy[v].Sub(x.s.Pos[v].Add(x.s.Vel[v].Scale(float64(c+1) / 2 * x.dt)))
		}
	}
}

func (x *XPBD) updateVel(lo, hi int) {
	updateVelocity(x.s.Pos[lo:hi], x.s.Prev[lo:hi], x.s.Vel[lo:hi], x.acc[lo:hi], x.w[lo:hi], x.dt, x.last,
		x.half[lo:hi], x.out[lo:hi])
}

// resume sizes the frame-boundary velocity memories (see predict) for n
// vertices. NaN in out matches no velocity, so a fresh integrator starts
// every vertex with the half kick.
func (x *XPBD) resume(n int) {
	if len(x.half) == n {
		return
	}
	x.half, x.out = make([]vec.Vec3, n), make([]vec.Vec3, n)
	nan := vec.V(math.NaN(), math.NaN(), math.NaN())
	for i := range x.out {
		x.out[i] = nan
	}
}

// predict is the XPBD/implicit prediction over one chunk of vertices:
// v ← v·damp + a·dt, prev ← x, x ← x + v·dt, with damp per vertex from
// dampV where it is not nil. Vertices with zero inverse mass do not move.
//
// On a frame's first substep, a vertex whose velocity is still the
// synchronised one the last frame ended with (vel = out) continues from
// that frame's last half-step velocity half with a full kick, exactly as
// if there were no frame boundary; any other vertex (the first frame, a
// velocity set from outside) starts leapfrog with a half kick ½·a·dt.
// (Half-kicking every frame made resting cloth jolt at the frame rate:
// under gravity, with one projection per substep, the sag a substep leaves
// is proportional to its gravity step, and the first substep's was half.)
// half and out may be nil (always the half kick).
func predict(pos, prev, vel, acc []vec.Vec3, w []float64, dt, damp float64, dampV []float64, first bool, half, out []vec.Vec3) {
	for i := range pos {
		prev[i] = pos[i]
		if w[i] == 0 {
			continue
		}
		v0, kick := vel[i], dt
		if first {
			if half != nil && vel[i] == out[i] {
				v0 = half[i]
			} else {
				kick = 0.5 * dt
			}
		}
		d := damp
		if dampV != nil {
			d = dampV[i]
		}
		v := v0.Scale(d).Add(acc[i].Scale(kick))
		vel[i] = v
		pos[i] = pos[i].Add(v.Scale(dt))
	}
}

// updateVelocity sets v ← (x - prev)/dt; on a frame's last substep it
// keeps that half-step velocity in half and adds the half kick
// ½·(a·dt + Δv_constraints) that synchronises the velocity with the
// positions, and keeps the result in out (see predict). vel holds the
// predicted velocities on entry. half and out may be nil.
func updateVelocity(pos, prev, vel, acc []vec.Vec3, w []float64, dt float64, last bool, half, out []vec.Vec3) {
	inv := 1 / dt
	for i := range pos {
		v := pos[i].Sub(prev[i]).Scale(inv)
		if last && half != nil {
			half[i] = v
		}
		if last && w[i] != 0 {
			v = v.Add(acc[i].Scale(dt).Add(v.Sub(vel[i])).Scale(0.5))
		}
		if last && out != nil {
			out[i] = v
		}
		vel[i] = v
	}
}

// projectWhole projects the constraints that span whole pieces at time t,
// serially after the fabric's own: each closed piece's volume
// (volume.go), then the seams (sewing.go).
func (x *XPBD) projectWhole(t float64) {
	m := x.m
	if len(m.volumes) > 0 {
		m.projectVolumes(x.s.Pos, x.w, x.volGrad, t)
	}
	if len(m.Params.Seams) > 0 {
		m.projectSeams(x.s.Pos, x.w, t)
	}
}

func (x *XPBD) projectSoftPins(t float64) {
	m := x.m
	pos := x.s.Pos
	for k, i := range m.softPins {
		v := m.Pins[i].Vertex
		pos[v] = pos[v].Add(solveAttach(pos[v], x.pinTarget(i, t), x.w[v], m.softA[k]*x.invDt2))
	}
}

func (x *XPBD) projectStretch(lo, hi int) {
	x.projectStretchRange(lo+x.cBase, hi+x.cBase)
}

// projectStretchRange projects stretch constraints [lo, hi) of one colour.
func (x *XPBD) projectStretchRange(lo, hi int) {
	b := &x.m.stretch
	pos, w, inv := x.s.Pos, x.w, x.invDt2
	vs, rest, al, alc := b.v[lo:hi], b.rest[lo:hi], b.alpha[lo:hi], b.alphaC[lo:hi]
	if x.lamS == nil {
		for i, v := range vs {
			projectDistance(pos, w, v, rest[i], al[i]*inv, alc[i]*inv, 0)
		}
		return
	}
	lam := x.lamS[lo:hi]
	for i, v := range vs {
		lam[i] += projectDistance(pos, w, v, rest[i], al[i]*inv, alc[i]*inv, lam[i])
	}
}

// projectLimits projects the limits of chains [lo, hi) of the current
// colour, each chain's in order.
func (x *XPBD) projectLimits(lo, hi int) {
	x.projectLimitRange(lo+x.cBase, hi+x.cBase)
}

// projectLimitRange projects chains [lo, hi) of one colour: each chain's
// limits, coarse level first, then, on a chain that holds a pinned vertex,
// its edges together (projectChain).
func (x *XPBD) projectLimitRange(lo, hi int) {
	b := &x.limit
	pos, w, inv := x.s.Pos, x.w, x.invDt2
	for k := lo; k < hi; k++ {
		for i := b.chainOff[k]; i < b.chainOff[k+1]; i++ {
			var lam float64
			if x.lamL != nil {
				lam = x.lamL[i]
			}
			dl := projectRope(pos, w, b.path[b.off[i]:b.off[i+1]], b.maxLen[i], b.alpha[i]*inv, lam)
			if x.lamL != nil {
				x.lamL[i] += dl
			}
		}
		if !b.solve[k] {
			continue
		}
		e0 := b.chainEdges(k)
		e1 := e0 + int(b.cvOff[k+1]-b.cvOff[k]) - 1
		var lam []float64
		if x.lamC != nil {
			lam = x.lamC[e0:e1]
		}
		projectChain(pos, w, b.chainVerts(k), b.rest[e0:e1], b.alphaS[e0:e1], b.alphaC[e0:e1], inv, lam,
			x.chNrm[e0:e1], x.chC[e0:e1], x.chD[e0:e1])
	}
}

func (x *XPBD) projectBend(lo, hi int) {
	x.projectBendRange(lo+x.cBase, hi+x.cBase)
}

// projectBendRange projects bending constraints [lo, hi) of one colour.
func (x *XPBD) projectBendRange(lo, hi int) {
	b := &x.m.bend
	var lam []float64
	if x.lamB != nil {
		lam = x.lamB[lo:hi]
	}
	pos := x.s.Pos
	if x.bendHeld {
		pos = x.bendCopy
	}
	if x.bendMask&(x.bendMask-1) == 0 {
		// one span for every hinge: all are due
		projectDihedrals(pos, x.w, b.v[lo:hi], b.rest[lo:hi], b.alpha[lo:hi], x.invDt2, lam, nil)
		return
	}
	// runs of one span: with bendHeld those whose span starts now, else
	// those of span 1
	cls := x.bendCls
	for i := lo; i < hi; {
		j := i + 1
		for j < hi && cls[j] == cls[i] {
			j++
		}
		if c := int(cls[i]); x.bendHeld && c > 1 && x.bendSub%c == 0 || !x.bendHeld && c == 1 {
			var l []float64
			if lam != nil {
				l = lam[i-lo : j-lo]
			}
			projectDihedrals(pos, x.w, b.v[i:j], b.rest[i:j], b.alpha[i:j], x.invDt2, l, nil)
		}
		i = j
	}
}

func (x *XPBD) projectTethers(lo, hi int) {
	m := x.m
	pos := x.s.Pos
	for i := lo; i < hi; i++ {
		v := m.tetherV[i]
		if x.w[v] == 0 {
			continue // asleep (sleep.go); tethered vertices are free otherwise
		}
		pos[v] = pos[v].Add(solveTether(pos[v], pos[m.tetherAnchor[i]], m.tetherLen[i]))
	}
}
