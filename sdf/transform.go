package sdf

import (
	"errors"
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Transformed is Shape moved by the affine transform M: its surface is
// M applied to Shape's surface. It holds M, its inverse and the singular
// values of M's linear part (fogleman/pt's transform wrapper). Build it
// with NewTransformed or Set; the zero value is not usable.
//
// Rotation, translation and uniform scale are exact. Under non-uniform
// scale Dist returns sigmaMin * Shape.Dist(M⁻¹ p): the sign and the surface
// are exact and |Dist| lies in [sigmaMin/sigmaMax, 1] times the true
// distance.
type Transformed struct {
	// Shape is the untransformed shape.
	Shape SDF

	m, inv   vec.Mat4
	kind     xformKind
	sMin     float64  // smallest singular value of M's linear part
	sMax     float64  // largest singular value of M's linear part
	gradMat  vec.Mat4 // maps a local gradient to a world direction
	invScale float64  // 1/sMin
}

// xformKind selects the fast path for a transform.
type xformKind uint8

const (
	xformInvalid  xformKind = iota // zero value: not built
	xformIdentity                  // M = I: pass through
	xformUniform                   // rotation, translation, uniform scale: exact
	xformGeneral                   // non-uniform scale or shear: bounded
)

// NewTransformed returns shape moved by m. It fails for a nil shape and
// for a singular or non-finite matrix.
func NewTransformed(shape SDF, m vec.Mat4) (*Transformed, error) {
	t := new(Transformed)
	if err := t.Set(shape, m); err != nil {
		return nil, err
	}
	return t, nil
}

// Set makes t the transform of shape by m, reusing t's memory (the solver
// calls it once per collider per substep). On error t is left unchanged.
func (t *Transformed) Set(shape SDF, m vec.Mat4) error {
	if shape == nil {
		return errors.New("transformed shape is nil")
	}
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			if math.IsNaN(m[r][c]) || math.IsInf(m[r][c], 0) {
				return fmt.Errorf("transform matrix element [%d][%d] = %v: must be finite", r, c, m[r][c])
			}
		}
	}
	if m[3] != [4]float64{0, 0, 0, 1} {
		return fmt.Errorf("transform matrix bottom row = %v: must be [0 0 0 1] (affine)", m[3])
	}
	sMin, sMax := singularRange(m)
	if !(sMin > 1e-12*math.Max(sMax, 1e-300)) || sMin < 1e-300 {
		return fmt.Errorf("transform matrix is singular (smallest scale %g, largest %g): every scale factor must be non-zero", sMin, sMax)
	}
	t.Shape = shape
	t.m, t.inv = m, m.Inverse()
	t.sMin, t.sMax, t.invScale = sMin, sMax, 1/sMin
	switch {
	case m == vec.Identity():
		t.kind = xformIdentity
		t.gradMat = vec.Identity()
	case sMax-sMin <= 1e-9*sMax:
		t.kind = xformUniform
		// The linear part is s R with R orthogonal, and gradients map by R.
		t.gradMat = m
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				t.gradMat[r][c] = m[r][c] / sMin
			}
			t.gradMat[r][3] = 0
		}
	default:
		t.kind = xformGeneral
		// Gradients map by the inverse transpose of the linear part.
		var g vec.Mat4
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				g[r][c] = t.inv[c][r]
			}
		}
		g[3][3] = 1
		t.gradMat = g
	}
	return nil
}

// Matrix returns M.
func (t *Transformed) Matrix() vec.Mat4 { return t.m }

// Inverse returns M⁻¹.
func (t *Transformed) Inverse() vec.Mat4 { return t.inv }

// ScaleRange returns the smallest and largest scale factors (singular
// values) of M's linear part; they are equal for a uniform scale.
func (t *Transformed) ScaleRange() (min, max float64) { return t.sMin, t.sMax }

// Dist returns the signed distance [m] of p to the transformed surface.
func (t *Transformed) Dist(p vec.Vec3) float64 {
	if t.kind == xformIdentity {
		return t.Shape.Dist(p)
	}
	return t.sMin * t.Shape.Dist(t.inv.MulPoint(p))
}

// Grad returns the outward unit gradient at p.
func (t *Transformed) Grad(p vec.Vec3) vec.Vec3 {
	if t.kind == xformIdentity {
		return t.Shape.Grad(p)
	}
	return t.worldGrad(t.Shape.Grad(t.inv.MulPoint(p)))
}

// DistGrad returns Dist(p) and Grad(p).
func (t *Transformed) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	if t.kind == xformIdentity {
		return t.Shape.DistGrad(p)
	}
	d, g := t.Shape.DistGrad(t.inv.MulPoint(p))
	return t.sMin * d, t.worldGrad(g)
}

// DistGradWithin returns DistGrad(p) and true when Dist(p) <= maxDist, or a
// lower bound above maxDist and false.
func (t *Transformed) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	if t.kind == xformIdentity {
		return t.Shape.DistGradWithin(p, maxDist)
	}
	d, g, ok := t.Shape.DistGradWithin(t.inv.MulPoint(p), maxDist*t.invScale)
	if !ok {
		return t.sMin * d, vec.Vec3{}, false
	}
	return t.sMin * d, t.worldGrad(g), true
}

func (t *Transformed) worldGrad(g vec.Vec3) vec.Vec3 {
	w := t.gradMat.MulDir(g)
	if t.kind == xformUniform {
		return w
	}
	return w.Normalize()
}

// Bounds returns the box around the transformed corners of Shape's bounds;
// infinite if Shape is unbounded.
func (t *Transformed) Bounds() (min, max vec.Vec3) {
	lo, hi := t.Shape.Bounds()
	if t.kind == xformIdentity {
		return lo, hi
	}
	return transformBox(t.m, lo, hi)
}

// transformBox returns the box around m applied to the corners of [lo, hi].
func transformBox(m vec.Mat4, lo, hi vec.Vec3) (vec.Vec3, vec.Vec3) {
	if !lo.IsFinite() || !hi.IsFinite() {
		return infBounds()
	}
	c := m.MulPoint(lo)
	mn, mx := c, c
	for i := 1; i < 8; i++ {
		q := lo
		if i&1 != 0 {
			q.X = hi.X
		}
		if i&2 != 0 {
			q.Y = hi.Y
		}
		if i&4 != 0 {
			q.Z = hi.Z
		}
		c := m.MulPoint(q)
		mn, mx = mn.Min(c), mx.Max(c)
	}
	return mn, mx
}

// singularRange returns the smallest and largest singular values of m's
// linear 3x3 part: square roots of the eigenvalues of AᵀA, from the
// closed-form eigenvalues of a symmetric 3x3 matrix (O. K. Smith, "Eigenvalues
// of a symmetric 3x3 matrix", CACM 4(4), 1961).
func singularRange(m vec.Mat4) (float64, float64) {
	var a [3][3]float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			a[r][c] = m[0][r]*m[0][c] + m[1][r]*m[1][c] + m[2][r]*m[2][c]
		}
	}
	p1 := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
	var e1, e3 float64
	if p1 == 0 {
		e1 = math.Max(a[0][0], math.Max(a[1][1], a[2][2]))
		e3 = math.Min(a[0][0], math.Min(a[1][1], a[2][2]))
	} else {
		q := (a[0][0] + a[1][1] + a[2][2]) / 3
		p2 := (a[0][0]-q)*(a[0][0]-q) + (a[1][1]-q)*(a[1][1]-q) + (a[2][2]-q)*(a[2][2]-q) + 2*p1
		p := math.Sqrt(p2 / 6)
		var b [3][3]float64
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				b[r][c] = a[r][c] / p
			}
			b[r][r] -= q / p
		}
		det := b[0][0]*(b[1][1]*b[2][2]-b[1][2]*b[2][1]) -
			b[0][1]*(b[1][0]*b[2][2]-b[1][2]*b[2][0]) +
			b[0][2]*(b[1][0]*b[2][1]-b[1][1]*b[2][0])
		r := math.Max(-1, math.Min(1, det/2))
		phi := math.Acos(r) / 3
		e1 = q + 2*p*math.Cos(phi)
		e3 = q + 2*p*math.Cos(phi+2*math.Pi/3)
	}
	return math.Sqrt(math.Max(e3, 0)), math.Sqrt(math.Max(e1, 0))
}
