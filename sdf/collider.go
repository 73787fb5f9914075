package sdf

import (
	"fmt"
	"math"
)

// Default friction coefficients of NewCollider (cloth on skin or wood).
const (
	DefaultStaticFriction  = 0.5
	DefaultKineticFriction = 0.4
)

// Collider is what the solver collides cloth against: a shape with its
// optional keyframed motion, Coulomb friction coefficients and an optional
// thickness. It is plain data; evaluate it per substep with PoseAt (from
// the embedded Animated) and query the Pose.
type Collider struct {
	Animated
	// StaticFriction is the Coulomb coefficient below which a contact
	// sticks (tangential impulse <= StaticFriction x normal impulse).
	StaticFriction float64
	// KineticFriction is the Coulomb coefficient of a sliding contact.
	KineticFriction float64
	// Thickness [m] overrides the solver's collision thickness for this
	// collider when > 0.
	Thickness float64
}

// NewCollider returns a static collider for shape with the default
// friction coefficients and the solver's thickness.
func NewCollider(shape SDF) Collider {
	return Collider{
		Animated:        Animated{Shape: shape},
		StaticFriction:  DefaultStaticFriction,
		KineticFriction: DefaultKineticFriction,
	}
}

// Validate names the first field out of range.
func (c *Collider) Validate() error {
	if err := c.Animated.Validate(); err != nil {
		return err
	}
	if err := validShape(c.Shape); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"static friction", c.StaticFriction}, {"kinetic friction", c.KineticFriction}, {"thickness", c.Thickness}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("collider %s = %v: must be finite and >= 0", f.name, f.v)
		}
	}
	return nil
}

// validShape rejects analytic shapes whose parameters make the distance
// meaningless (NaN, a zero normal, a negative size). Other shapes are
// valid by construction.
func validShape(s SDF) error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	switch v := s.(type) {
	case Sphere:
		if !v.Center.IsFinite() || bad(v.Radius) || v.Radius < 0 {
			return fmt.Errorf("sphere center %v radius %v: must be finite with radius >= 0", v.Center, v.Radius)
		}
	case Capsule:
		if !v.A.IsFinite() || !v.B.IsFinite() || bad(v.Radius) || v.Radius < 0 {
			return fmt.Errorf("capsule %v-%v radius %v: must be finite with radius >= 0", v.A, v.B, v.Radius)
		}
	case CappedCone:
		if !v.A.IsFinite() || !v.B.IsFinite() || bad(v.RA) || bad(v.RB) || v.RA < 0 || v.RB < 0 {
			return fmt.Errorf("cone %v-%v radii %v, %v: must be finite with radii >= 0", v.A, v.B, v.RA, v.RB)
		}
	case Plane:
		if !v.Normal.IsFinite() || v.Normal.LenSq() == 0 || bad(v.Offset) {
			return fmt.Errorf("plane normal %v offset %v: the normal must be finite and non-zero", v.Normal, v.Offset)
		}
	case Box:
		h := v.Half
		if !v.Center.IsFinite() || !h.IsFinite() || h.X < 0 || h.Y < 0 || h.Z < 0 || bad(v.Rounding) || v.Rounding < 0 || v.Rounding > math.Min(h.X, math.Min(h.Y, h.Z)) {
			return fmt.Errorf("box center %v half %v rounding %v: half extents must be finite and >= 0, rounding in [0, smallest half extent]", v.Center, h, v.Rounding)
		}
	}
	return nil
}
