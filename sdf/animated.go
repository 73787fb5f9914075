package sdf

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/drape-sim/drape/internal/vec"
)

// Key is one keyframe of a collider's motion: at Time [s] the shape is
// scaled by Scale, rotated by Rotation and translated by Translation [m]
// (glTF's T R S order).
type Key struct {
	Time        float64
	Translation vec.Vec3
	Rotation    vec.Quat
	Scale       vec.Vec3
}

// Animated is Shape moved by keyframes. Between keys the translation and
// scale are interpolated linearly and the rotation by slerp (constant
// angular velocity along the shorter arc); before the first key and after
// the last the pose is held. With no keys the shape is static and
// untransformed.
type Animated struct {
	Shape SDF
	Keys  []Key // sorted by strictly increasing Time
}

// Validate reports the first problem that would make the motion undefined:
// a nil shape, unsorted or non-finite times, a zero or non-finite rotation,
// a zero or non-finite scale component.
func (a *Animated) Validate() error {
	if a.Shape == nil {
		return errors.New("animated shape is nil")
	}
	for i, k := range a.Keys {
		if math.IsNaN(k.Time) || math.IsInf(k.Time, 0) {
			return fmt.Errorf("key %d: time = %v: must be finite", i, k.Time)
		}
		if i > 0 && !(k.Time > a.Keys[i-1].Time) {
			return fmt.Errorf("key %d: time = %v after %v: key times must increase strictly", i, k.Time, a.Keys[i-1].Time)
		}
		if !k.Translation.IsFinite() {
			return fmt.Errorf("key %d: translation = %v: must be finite", i, k.Translation)
		}
		q := k.Rotation
		if n := q.Dot(q); !(n > 1e-12) || math.IsInf(n, 0) {
			return fmt.Errorf("key %d: rotation = %v: must be a non-zero finite quaternion (0,0,0,1 for none)", i, q)
		}
		s := k.Scale
		if !s.IsFinite() || s.X == 0 || s.Y == 0 || s.Z == 0 {
			return fmt.Errorf("key %d: scale = %v: every component must be finite and non-zero (1,1,1 for none)", i, s)
		}
	}
	return nil
}

// Pose is an Animated shape evaluated at one time: the world-space shape
// (the embedded Transformed, so *Pose is an SDF) and the velocity field of
// its motion. Fill one per collider with PoseAt and reuse it.
type Pose struct {
	Transformed
	// Time is the time [s] the pose was evaluated at.
	Time float64

	moving    bool
	origin    vec.Vec3     // translation at Time [m]
	linVel    vec.Vec3     // d translation / dt [m/s]
	omega     vec.Vec3     // world angular velocity [rad/s]
	rot       vec.Quat     // rotation at Time
	scaleRate vec.Vec3     // (d scale / dt) / scale [1/s]
	scaling   bool         // scaleRate != 0
	mover     surfaceMover // a TimeVarying shape's surface at Time, or nil
}

// At returns the pose at time t [s]. It allocates; the solver's hot path
// uses PoseAt.
func (a *Animated) At(t float64) (*Pose, error) {
	p := new(Pose)
	if err := a.PoseAt(t, p); err != nil {
		return nil, err
	}
	return p, nil
}

// PoseAt fills dst with the pose at time t [s] without allocating. It fails
// only for keys that Validate rejects.
func (a *Animated) PoseAt(t float64, dst *Pose) error {
	dst.Time = t
	dst.moving, dst.scaling = false, false
	dst.origin, dst.linVel, dst.omega, dst.scaleRate = vec.Vec3{}, vec.Vec3{}, vec.Vec3{}, vec.Vec3{}
	dst.rot = vec.QuatIdentity()
	dst.mover = nil
	shape := a.Shape
	if tv, ok := shape.(TimeVarying); ok {
		s, err := tv.ShapeAt(t)
		if err != nil {
			return err
		}
		shape = s
		dst.mover, _ = s.(surfaceMover)
	}
	n := len(a.Keys)
	if n == 0 {
		return dst.Set(shape, vec.Identity())
	}
	// i: the last key at or before t (-1 before the first key).
	i := sort.Search(n, func(j int) bool { return a.Keys[j].Time > t }) - 1
	if i < 0 || i == n-1 {
		k := a.Keys[0]
		if i == n-1 {
			k = a.Keys[n-1]
		}
		q := k.Rotation.Normalize()
		dst.origin, dst.rot = k.Translation, q
		return dst.Set(shape, vec.TRS(k.Translation, q, k.Scale))
	}
	k0, k1 := a.Keys[i], a.Keys[i+1]
	dt := k1.Time - k0.Time
	u := (t - k0.Time) / dt
	q0, q1 := k0.Rotation.Normalize(), k1.Rotation.Normalize()
	if q0.Dot(q1) < 0 {
		q1 = vec.Quat{X: -q1.X, Y: -q1.Y, Z: -q1.Z, W: -q1.W}
	}
	// slerp: q(u) = q0 r^u with r = q0⁻¹ q1 = (sin(θ/2) axis, cos(θ/2)).
	r := vec.Quat{X: -q0.X, Y: -q0.Y, Z: -q0.Z, W: q0.W}.Mul(q1)
	sinHalf := math.Sqrt(r.X*r.X + r.Y*r.Y + r.Z*r.Z)
	q := q0
	if sinHalf > 1e-15 {
		theta := 2 * math.Atan2(sinHalf, r.W)
		axis := vec.Vec3{X: r.X / sinHalf, Y: r.Y / sinHalf, Z: r.Z / sinHalf}
		s, c := math.Sincos(u * theta / 2)
		q = q0.Mul(vec.Quat{X: axis.X * s, Y: axis.Y * s, Z: axis.Z * s, W: c}).Normalize()
		dst.omega = q0.Rotate(axis).Scale(theta / dt)
	}
	tr := k0.Translation.Lerp(k1.Translation, u)
	sc := k0.Scale.Lerp(k1.Scale, u)
	dst.origin, dst.rot = tr, q
	dst.linVel = k1.Translation.Sub(k0.Translation).Scale(1 / dt)
	ds := k1.Scale.Sub(k0.Scale).Scale(1 / dt)
	dst.scaleRate = vec.Vec3{X: ds.X / sc.X, Y: ds.Y / sc.Y, Z: ds.Z / sc.Z}
	dst.scaling = ds != vec.Vec3{}
	dst.moving = true
	return dst.Set(shape, vec.TRS(tr, q, sc))
}

// Velocity returns the velocity [m/s] at time t [s] of the point of the
// moving shape that is at p [m] (the shape's motion extended rigidly, with
// scaling, to all of space). See Pose.Velocity.
func (a *Animated) Velocity(p vec.Vec3, t float64) vec.Vec3 {
	var ps Pose
	if err := a.PoseAt(t, &ps); err != nil {
		return vec.Vec3{}
	}
	return ps.Velocity(p)
}

// Velocity returns the velocity [m/s] of the point of the shape at p [m]:
// the exact time derivative of the keyframed motion, v = T' + ω × (p - T) +
// R((S'/S) ∘ R⁻¹(p - T)), plus the normal velocity of the surface near p
// of a shape that changes on its own (TimeVarying). At a key it is the
// derivative of the following segment; it is zero outside the key range
// and for a static shape. For friction, evaluate it at the cloth vertex
// (or its projection onto the surface).
func (ps *Pose) Velocity(p vec.Vec3) vec.Vec3 {
	var own vec.Vec3
	if ps.mover != nil {
		// the shape's own surface motion, carried by the keyed transform
		own = ps.Matrix().MulDir(ps.mover.SurfaceVelocity(ps.inv.MulPoint(p)))
	}
	if !ps.moving {
		return own
	}
	r := p.Sub(ps.origin)
	v := ps.linVel.Add(ps.omega.Cross(r))
	if ps.scaling {
		q := ps.rot
		inv := vec.Quat{X: -q.X, Y: -q.Y, Z: -q.Z, W: q.W}
		v = v.Add(q.Rotate(inv.Rotate(r).Mul(ps.scaleRate)))
	}
	return v.Add(own)
}

// Transform returns the pose matrix at time t [s] (identity with no keys).
func (a *Animated) Transform(t float64) vec.Mat4 {
	var ps Pose
	if err := a.PoseAt(t, &ps); err != nil {
		return vec.Identity()
	}
	return ps.Matrix()
}
