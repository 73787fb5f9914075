package solver

// collide is the collision hook every integrator calls once per substep,
// after the constraint projection and before the velocity update, with
// the substep's start time t and length dt [s]. b.s.Pos holds the
// projected positions, b.s.Prev the positions at the substep start (so
// x - prev is the substep's displacement, for friction), b.f the frame
// (colliders, once Frame carries them).
//
// This is the place the collision engineer fills in (sdf colliders with
// friction, self-collision): replace this no-op by the implementation in
// solver/collide.go and delete it here.
func (b *base) collide(t, dt float64) {}
