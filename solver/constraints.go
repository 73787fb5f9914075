package solver

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// This file holds the constraint maths as small pure functions, separate
// from the bookkeeping (the solve_* split of Bender's PBD library). Each
// returns position corrections for XPBD (Macklin, Müller, Chentanez 2016,
// "XPBD: Position-Based Simulation of Compliant Constrained Dynamics"):
//
//	dlambda = (-C - alphaT·lambda) / (sum_i w_i |grad_i C|² + alphaT)
//	dx_i    = w_i · grad_i C · dlambda
//
// where alphaT = compliance/dt² (eq. 18 of the paper) and lambda is the
// constraint's accumulated multiplier in this substep.

// solveDistance projects the distance constraint C = |x0-x1| - rest
// (Müller et al. 2007, eq. 9; Macklin et al. 2016) with compliance alphaT
// (already divided by dt²) when stretched and alphaTC when compressed.
func solveDistance(x0, x1 vec.Vec3, w0, w1, rest, alphaT, alphaTC, lambda float64) (d0, d1 vec.Vec3, dlambda float64) {
	d := x0.Sub(x1)
	l := d.Len()
	w := w0 + w1
	if l < 1e-12 || w == 0 {
		return vec.Vec3{}, vec.Vec3{}, 0
	}
	c := l - rest
	a := alphaT
	if c < 0 {
		a = alphaTC
	}
	if math.IsInf(a, 1) {
		return vec.Vec3{}, vec.Vec3{}, 0
	}
	dlambda = (-c - a*lambda) / (w + a)
	n := d.Scale(dlambda / l)
	return n.Scale(w0), n.Scale(-w1), dlambda
}

// dihedralAngle returns the signed dihedral angle [rad] in (-pi, pi] at the
// hinge x0-x1 between triangles (x0, x1, x2) and (x1, x0, x3): 0 when the
// two triangles are flat (x2 and x3 on opposite sides), ±pi when folded
// onto each other. The sign is positive when the hinge turns from
// n1 = (x1-x0)×(x2-x0) toward n2 = (x3-x0)×(x1-x0) anticlockwise about
// x1-x0. It uses atan2, so it is robust through 180 degrees.
func dihedralAngle(x0, x1, x2, x3 vec.Vec3) float64 {
	e := x1.Sub(x0)
	n1 := e.Cross(x2.Sub(x0))
	n2 := x3.Sub(x0).Cross(e)
	el := e.Len()
	if el == 0 {
		return 0
	}
	return math.Atan2(n1.Cross(n2).Dot(e)/el, n1.Dot(n2))
}

// dihedralGrad returns the dihedral angle θ of dihedralAngle and its
// gradient with respect to the four vertices, using the closed form of
// Bridson, Marino, Fedkiw 2003 ("Simulation of clothing with folds and
// wrinkles", §4): the opposite vertices move along their triangle's
// normal by 1/height, the hinge vertices by the lever rule, so the
// gradients sum to zero. Unlike the arccos form of Müller et al. 2007
// (appendix) it has no singularity at 0 or 180 degrees. ok is false for a
// (nearly) degenerate triangle or hinge.
func dihedralGrad(x0, x1, x2, x3 vec.Vec3) (theta float64, g [4]vec.Vec3, ok bool) {
	e := x1.Sub(x0)
	e2 := e.LenSq()
	if e2 < 1e-24 {
		return 0, g, false
	}
	d2 := x2.Sub(x0)
	d3 := x3.Sub(x0)
	n1 := e.Cross(d2)
	n2 := d3.Cross(e)
	l1, l2 := n1.LenSq(), n2.LenSq()
	// heights below 1e-6 of the hinge length: degenerate
	if l1 < 1e-12*e2*e2 || l2 < 1e-12*e2*e2 {
		return 0, g, false
	}
	el := math.Sqrt(e2)
	theta = math.Atan2(n1.Cross(n2).Dot(e)/el, n1.Dot(n2))
	g2 := n1.Scale(-el / l1)
	g3 := n2.Scale(-el / l2)
	t2 := d2.Dot(e) / e2
	t3 := d3.Dot(e) / e2
	g[0] = g2.Scale(t2 - 1).Add(g3.Scale(t3 - 1))
	g[1] = g2.Scale(-t2).Add(g3.Scale(-t3))
	g[2], g[3] = g2, g3
	return theta, g, true
}

// wrapAngle maps an angle difference into (-pi, pi].
func wrapAngle(a float64) float64 {
	if a > math.Pi {
		a -= 2 * math.Pi
	} else if a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// solveDihedral projects the bending constraint C = θ - rest (Müller et al.
// 2007, §4.2 and appendix; seed 004) with compliance alphaT (already divided
// by dt²) for the hinge x[0]-x[1] with opposite vertices x[2], x[3].
func solveDihedral(x [4]vec.Vec3, w [4]float64, rest, alphaT, lambda float64) (dx [4]vec.Vec3, dlambda float64) {
	theta, g, ok := dihedralGrad(x[0], x[1], x[2], x[3])
	if !ok {
		return dx, 0
	}
	c := wrapAngle(theta - rest)
	den := w[0]*g[0].LenSq() + w[1]*g[1].LenSq() + w[2]*g[2].LenSq() + w[3]*g[3].LenSq() + alphaT
	if den < 1e-30 {
		return dx, 0
	}
	dlambda = (-c - alphaT*lambda) / den
	for i := range dx {
		dx[i] = g[i].Scale(w[i] * dlambda)
	}
	return dx, dlambda
}

// solveAttach projects a zero-rest-length compliant attachment of a vertex
// with inverse mass w to target (a soft pin): C = |x - target|, done as a
// vector constraint so it has no direction singularity at C = 0.
func solveAttach(x, target vec.Vec3, w, alphaT float64) vec.Vec3 {
	if w == 0 {
		return vec.Vec3{}
	}
	return target.Sub(x).Scale(w / (w + alphaT))
}

// solveTether projects the unilateral long-range attachment
// |x - anchor| <= maxLen (Kim, Chentanez, Müller 2012, "Long range
// attachments"), moving only x (the anchor is pinned).
func solveTether(x, anchor vec.Vec3, maxLen float64) vec.Vec3 {
	d := x.Sub(anchor)
	l := d.Len()
	if l <= maxLen || l == 0 {
		return vec.Vec3{}
	}
	return d.Scale((maxLen - l) / l)
}
