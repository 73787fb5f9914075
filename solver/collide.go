package solver

import (
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
	"github.com/drape-sim/drape/solver/internal/contact"
	"github.com/drape-sim/drape/solver/internal/pool"
)

// collision is the collision state an integrator holds (base.col): the
// colliders' poses of the current substep, their thickness and friction,
// the settle bookkeeping and the self-collision state.
type collision struct {
	b     *base
	poses []sdf.Pose
	live  []bool    // pose evaluated without error
	h     []float64 // thickness per collider [m]
	mus   []float64 // static friction per collider
	muk   []float64 // kinetic friction per collider

	dt       float64
	friction bool // apply friction in this pass

	settleFrame int  // frame index of the first step (settle runs there)
	settleDone  bool // settle ran in settleFrame's first substep

	self *contact.Contact // self-collision (nil without Params.SelfCollision)

	// cost is a vertex's work in a collider pass, in pool items (see
	// prepare)
	cost int

	fnVerts func(lo, hi int)
}

func newCollision(b *base) *collision {
	c := &collision{b: b, settleFrame: b.f.Index}
	c.fnVerts = c.collideVerts
	if b.m.Params.SelfCollision {
		c.self = newContact(b)
	}
	return c
}

// collide is the collision hook every integrator calls once per substep,
// after the constraint projection and before the velocity update, with
// the substep's start time t and length dt [s]. b.s.Pos holds the
// projected positions (at time t+dt), b.s.Prev the positions at the
// substep start (so x - prev is the substep's displacement, for friction),
// b.f the frame with its colliders.
//
// It runs, in order: the settle phase (once, see Params.Settle), the
// collider response with friction, self-collision (Params.SelfCollision),
// and the collider projection again without friction, so that no
// self-collision correction leaves a vertex inside a collider. The
// collision state is built on the first call and reused, so a warm step
// allocates nothing.
func (b *base) collide(t, dt float64) {
	nc := len(b.f.Colliders)
	if nc == 0 && !b.m.Params.SelfCollision {
		return
	}
	if b.col == nil {
		b.col = newCollision(b)
	}
	b.col.substep(t, dt)
}

// meshCost is a vertex's query of a triangle mesh collider in pool items
// (about a microsecond, against tens of nanoseconds for the analytic
// shapes): the collider passes hand out the vertices by this work, so
// that a garment of under 2048 vertices on a body is still shared among
// the workers.
const meshCost = 32

// prepare evaluates every collider of the frame at time t (the end of the
// substep) and resolves its thickness and friction.
func (c *collision) prepare(t float64) {
	cs := c.b.f.Colliders
	if len(c.poses) < len(cs) {
		c.poses = make([]sdf.Pose, len(cs))
		c.live = make([]bool, len(cs))
		c.h = make([]float64, len(cs))
		c.mus = make([]float64, len(cs))
		c.muk = make([]float64, len(cs))
	}
	p := &c.b.m.Params
	c.cost = 1
	for i := range cs {
		col := &cs[i]
		switch col.Shape.(type) {
		case *sdf.Mesh:
			c.cost += meshCost
		case *sdf.MeshSequence:
			c.cost += 2 * meshCost // two samples' meshes between frames
		}
		c.live[i] = col.PoseAt(t, &c.poses[i]) == nil
		c.h[i] = p.Thickness
		if col.Thickness > 0 {
			c.h[i] = col.Thickness
		}
		c.mus[i], c.muk[i] = col.StaticFriction, col.KineticFriction
		if col.StaticFriction == 0 && col.KineticFriction == 0 {
			c.mus[i], c.muk[i] = p.Friction, p.Friction
		}
	}
}

// substep runs the collision phases of one substep [t, t+dt].
func (c *collision) substep(t, dt float64) {
	b := c.b
	c.dt = dt
	nc := len(b.f.Colliders)
	if nc > 0 {
		c.prepare(t + dt)
	}
	// settle: once, in the first substep of the first frame
	if b.m.Params.Settle && nc > 0 && !c.settleDone && b.f.Index == c.settleFrame && t == b.f.Time {
		c.settleDone = true
		if settle(b.m, b.w, b.s.Pos, b.f.Colliders[:nc], c.poses[:nc], c.h[:nc]).Inside > 0 {
			copy(b.s.Prev, b.s.Pos)
		}
	}
	if nc > 0 {
		c.friction = true
		c.runVerts(len(b.s.Pos), c.fnVerts)
	}
	if c.self != nil {
		c.self.Update(b.s.Pos, b.s.Prev)
		// the colliders between the rounds project without friction
		c.friction = false
		var col contact.Colliders
		if nc > 0 {
			col = c
		}
		c.self.Project(dt, col)
	}
}

// Collide projects vertex v out of every collider (contact.Colliders).
func (c *collision) Collide(v int32) { c.collideOne(v) }

// Cost is a vertex's work in a collider pass in pool items
// (contact.Colliders).
func (c *collision) Cost() int { return c.cost }

// runVerts runs a collider pass fn over n vertices, shared among the
// workers by its work (c.cost a vertex).
func (c *collision) runVerts(n int, fn func(lo, hi int)) {
	c.b.pool.RunWork(n, n*c.cost, pool.MinChunk, fn)
}

// collideVerts projects vertices [lo, hi) out of every collider.
func (c *collision) collideVerts(lo, hi int) {
	for v := lo; v < hi; v++ {
		c.collideOne(int32(v))
	}
}

// collideOne projects vertex v out of every collider.
func (c *collision) collideOne(v int32) {
	b := c.b
	pos, prev, w := b.s.Pos, b.s.Prev, b.w
	if w[v] == 0 {
		return
	}
	x := pos[v]
	for i := range b.f.Colliders {
		if !c.live[i] {
			continue
		}
		mus, muk := c.mus[i], c.muk[i]
		if !c.friction {
			mus, muk = 0, 0
		}
		x = collideVertex(x, prev[v], &c.poses[i], c.h[i], mus, muk, c.dt)
	}
	pos[v] = x
}

// collideVertex keeps x at least h outside the posed collider ps and applies
// Coulomb friction relative to the collider's surface velocity. prev is the
// vertex's position at the substep start and dt the substep length [s].
//
// Projection (Müller et al. 2007, collision constraints: push-out along
// the signed distance's gradient): with
// signed distance d and outward unit gradient n at x, when d < h
//
//	x ← x + (h - d)·n
//
// Friction (Macklin et al. 2014, "Unified Particle Physics", eq. 24): with
// the substep's displacement relative to the surface Δ = (x - prev) -
// v_s·dt, its tangential part Δt = Δ - (Δ·n)n and the normal correction
// δ = h - d, the contact sticks (x ← x - Δt) when |Δt| < μs·δ and slides
// otherwise (x ← x - Δt·min(μk·δ/|Δt|, 1)). It returns the new position.
func collideVertex(x, prev vec.Vec3, ps *sdf.Pose, h, mus, muk, dt float64) vec.Vec3 {
	d, n, ok := ps.DistGradWithin(x, h)
	if !ok || d >= h {
		return x
	}
	delta := h - d
	x = x.AddScaled(n, delta)
	if mus <= 0 && muk <= 0 {
		return x
	}
	rel := x.Sub(prev).Sub(ps.Velocity(x).Scale(dt))
	tan := rel.AddScaled(n, -rel.Dot(n))
	l := tan.Len()
	switch {
	case l <= mus*delta:
		x = x.Sub(tan)
	case l > 0:
		x = x.AddScaled(tan, -min(muk*delta/l, 1))
	}
	return x
}

// SettleReport says what a settle phase found and did.
type SettleReport struct {
	// Inside is the number of vertices that started inside a collider.
	Inside int
	// Deepest is the largest starting depth [m] inside any collider.
	Deepest float64
	// Vertex is the deepest vertex (-1 if none is inside).
	Vertex int32
	// Collider is the index of the collider it is deepest in (-1 if none).
	Collider int
	// Remaining is the number of vertices still inside a collider after
	// settling (0 unless colliders overlap so that no outside position
	// satisfies them all).
	Remaining int
}

// settleIterations is the number of push-out and stretch passes of the
// settle phase.
const settleIterations = 40

// Settle pushes the vertices of s that start inside a collider out to its
// thickness (Params.Thickness unless the collider sets its own) while the
// stretch constraints drag their neighbours along, then zeroes every
// velocity (Prev = Pos). Colliders are posed at time t [s]. It is the
// settle phase a bake runs before frame 1 (Params.Settle does the same
// automatically in an integrator's first substep); cloth that starts
// outside every collider is left untouched.
func Settle(m *Model, s *State, colliders []sdf.Collider, t float64) (SettleReport, error) {
	poses := make([]sdf.Pose, len(colliders))
	h := make([]float64, len(colliders))
	for i := range colliders {
		if err := colliders[i].PoseAt(t, &poses[i]); err != nil {
			return SettleReport{}, err
		}
		h[i] = m.Params.Thickness
		if colliders[i].Thickness > 0 {
			h[i] = colliders[i].Thickness
		}
	}
	r := settle(m, m.InvMass, s.Pos, colliders, poses, h)
	copy(s.Prev, s.Pos)
	clear(s.Vel)
	return r, nil
}

// settle is Settle on positions with the colliders already posed.
func settle(m *Model, w []float64, pos []vec.Vec3, colliders []sdf.Collider, poses []sdf.Pose, h []float64) SettleReport {
	r := SettleReport{Vertex: -1, Collider: -1}
	inside := func(record bool) int {
		n := 0
		for v := range pos {
			if w[v] == 0 {
				continue
			}
			in := false
			for i := range colliders {
				d, _, ok := poses[i].DistGradWithin(pos[v], 0)
				if ok && d < 0 {
					in = true
					if record && -d > r.Deepest {
						r.Deepest, r.Vertex, r.Collider = -d, int32(v), i
					}
				}
			}
			if in {
				n++
			}
		}
		return n
	}
	r.Inside = inside(true)
	if r.Inside == 0 {
		return r
	}
	pushOut := func() {
		for v := range pos {
			if w[v] == 0 {
				continue
			}
			for i := range colliders {
				pos[v] = collideVertex(pos[v], pos[v], &poses[i], h[i], 0, 0, 1)
			}
		}
	}
	st := &m.stretch
	for it := 0; it < settleIterations; it++ {
		pushOut()
		// stretch (PBD, rigid): neighbours follow the pushed vertices
		for k, e := range st.v {
			d0, d1, _ := solveDistance(pos[e[0]], pos[e[1]], w[e[0]], w[e[1]], st.rest[k], 0, 0, 0)
			pos[e[0]] = pos[e[0]].Add(d0)
			pos[e[1]] = pos[e[1]].Add(d1)
		}
	}
	pushOut()
	r.Remaining = inside(false)
	return r
}
