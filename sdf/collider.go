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
