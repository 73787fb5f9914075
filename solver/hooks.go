package solver

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
