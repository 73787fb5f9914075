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
// x1-x0. It uses hingeAngle, so it is robust through 180 degrees, and
// the same arithmetic as projectDihedral, so a hinge at its rest angle
// has C = 0 exactly.
func dihedralAngle(x0, x1, x2, x3 vec.Vec3) float64 {
	e := x1.Sub(x0)
	n1 := e.Cross(x2.Sub(x0))
	n2 := x3.Sub(x0).Cross(e)
	e2 := e.LenSq()
	if e2 == 0 {
		return 0
	}
	el := math.Sqrt(e2)
	return hingeAngle(n1.Cross(n2).Dot(e), n1.Dot(n2)*el, el*math.Sqrt(n1.LenSq()*n2.LenSq()))
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
	theta = hingeAngle(n1.Cross(n2).Dot(e), n1.Dot(n2)*el, el*math.Sqrt(l1*l2))
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
// 2007, §4.2 and appendix) with compliance alphaT (already divided by dt²)
// for the hinge x[0]-x[1] with opposite vertices x[2], x[3].
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

// projectDistance is solveDistance applied in place to the vertices v of
// pos (inverse masses w); it returns dlambda. It is the hot loop's form of
// solveDistance, written in scalars, and gives the same result.
func projectDistance(pos []vec.Vec3, w []float64, v [2]int32, rest, alphaT, alphaTC, lambda float64) float64 {
	p0, p1 := &pos[v[0]], &pos[v[1]]
	w0, w1 := w[v[0]], w[v[1]]
	dx, dy, dz := p0.X-p1.X, p0.Y-p1.Y, p0.Z-p1.Z
	l := math.Sqrt(dx*dx + dy*dy + dz*dz)
	ws := w0 + w1
	if l < 1e-12 || ws == 0 {
		return 0
	}
	c := l - rest
	a := alphaT
	if c < 0 {
		a = alphaTC
	}
	if math.IsInf(a, 1) {
		return 0
	}
	dl := (-c - a*lambda) / (ws + a)
	s := dl / l
	s0, s1 := s*w0, -s*w1
	p0.X += dx * s0
	p0.Y += dy * s0
	p0.Z += dz * s0
	p1.X += dx * s1
	p1.Y += dy * s1
	p1.Z += dz * s1
	return dl
}

// projectDihedral is solveDihedral applied in place to the hinge v of pos
// (inverse masses w); it returns dlambda. It is projectDihedrals for one
// hinge.
func projectDihedral(pos []vec.Vec3, w []float64, v [4]int32, rest, alphaT, lambda float64) float64 {
	lam, dl := [1]float64{lambda}, [1]float64{}
	projectDihedrals(pos, w, [][4]int32{v}, []float64{rest}, []float64{alphaT}, 1, lam[:], dl[:])
	return dl[0]
}

// hingeAngle returns the angle θ in (-π, π] with y = r·sin θ and
// x = r·cos θ, where r = sqrt(x² + y²) > 0 is given (the dihedral
// kernels get it for one square root from |n1|²|n2|²). It uses the
// half-angle identity tan(θ/2) = y/(r + x), so for |θ| <= 90 degrees (x >= 0,
// nearly every hinge of a cloth) it needs one division and one polynomial,
// with no octant reduction and no data-dependent branch; beyond 90 degrees
// it uses cot(θ/2) = (r + x)/y. θ matches math.Atan2(y, x) within 2e-9 rad
// (twice atanPoly's error). hingeAngle(0, 0, 0) = 0 and
// hingeAngle(±0, x<0, -x) = π. Rest angles use it too, so a mesh at rest
// has C = 0 exactly.
func hingeAngle(y, x, r float64) float64 {
	if x >= 0 {
		d := r + x
		if d == 0 {
			return 0
		}
		return 2 * atanPoly(y/d)
	}
	if y == 0 {
		return math.Pi
	}
	return math.Copysign(math.Pi, y) - 2*atanPoly((r+x)/y)
}

// atanPoly is atan(t) for |t| <= 1 within 9e-10 rad: an odd degree-19
// polynomial fitted (minimax, Lawson's iteration) to atan on [0, 1],
// evaluated with Estrin's scheme so its dependency chain is short.
func atanPoly(t float64) float64 {
	const (
		c0 = 0.9999999805603087
		c1 = -0.3333318037667758
		c2 = 0.199964368070624
		c3 = -0.14247222619423164
		c4 = 0.10878009636203566
		c5 = -0.08213760864659597
		c6 = 0.05502808695310252
		c7 = -0.0284907620831049
		c8 = 0.00956733272019264
		c9 = -0.0015093014719949616
	)
	s := t * t
	s2 := s * s
	s4 := s2 * s2
	lo := (c0 + c1*s) + s2*(c2+c3*s)
	mid := (c4 + c5*s) + s2*(c6+c7*s)
	hi := c8 + c9*s
	return t * (lo + s4*(mid+s4*hi))
}

// dihedralBatch is how many hinges projectDihedrals takes at a time.
const dihedralBatch = 16

// projectDihedrals projects the bending constraints C = θ - rest
// (Müller et al. 2007, §4.2 and appendix) of the hinges vs in
// place (rest angles rest, compliances al·inv, inv = 1/dt²): it is
// solveDihedral (same angle, Bridson gradient and degeneracy test) written
// in scalars, with the gradient norms taken in closed form:
// |g2|² = |e|²/|n1|², |g3|² = |e|²/|n2|², g2·g3 = |e|²·n1·n2/(|n1|²|n2|²).
// Hinge i starts from multiplier lam[i] and adds its dlambda to it when lam
// is not nil (from 0 otherwise), and writes its dlambda to dls[i] when dls
// is not nil.
//
// The hinges must share no vertex (one colour): then each one's result
// does not depend on the others, and the positions come out bit for bit
// as if they were projected one at a time. It takes them in batches, in
// three passes per batch (the hinges' geometry, their angles and
// multipliers, the moves): one hinge's projection is a single chain of
// dependent square roots, divisions and the arctangent's polynomial, too
// long for the processor to overlap with the next hinge's, while the
// passes' short chains over independent hinges do overlap. On the 64 x 64
// bench cloth this takes 31 % less time per hinge (BenchmarkBendPass).
func projectDihedrals(pos []vec.Vec3, w []float64, vs [][4]int32, rest, al []float64, inv float64, lam, dls []float64) {
	// per hinge of the batch: the normals n1, n2, the hinge's length el,
	// 1/|n1|², 1/|n2|², |e|², n1·n2, t2, t3, and the angle's y, x, r
	var (
		n1, n2              [dihedralBatch][3]float64
		el, inv1, inv2, e2s [dihedralBatch]float64
		dots, t2s, t3s      [dihedralBatch]float64
		ys, xs, rs          [dihedralBatch]float64
		ok                  [dihedralBatch]bool
		s2s, s3s            [dihedralBatch]float64
	)
	for lo := 0; lo < len(vs); lo += dihedralBatch {
		batch := vs[lo:min(lo+dihedralBatch, len(vs))]
		for i, v := range batch {
			p0, p1, p2, p3 := &pos[v[0]], &pos[v[1]], &pos[v[2]], &pos[v[3]]
			ex, ey, ez := p1.X-p0.X, p1.Y-p0.Y, p1.Z-p0.Z
			e2 := ex*ex + ey*ey + ez*ez
			ok[i] = false
			if e2 < 1e-24 {
				continue
			}
			ax, ay, az := p2.X-p0.X, p2.Y-p0.Y, p2.Z-p0.Z
			bx, by, bz := p3.X-p0.X, p3.Y-p0.Y, p3.Z-p0.Z
			n1x, n1y, n1z := ey*az-ez*ay, ez*ax-ex*az, ex*ay-ey*ax
			n2x, n2y, n2z := by*ez-bz*ey, bz*ex-bx*ez, bx*ey-by*ex
			l1 := n1x*n1x + n1y*n1y + n1z*n1z
			l2 := n2x*n2x + n2y*n2y + n2z*n2z
			if l1 < 1e-12*e2*e2 || l2 < 1e-12*e2*e2 {
				continue
			}
			ok[i] = true
			e := math.Sqrt(e2)
			cx, cy, cz := n1y*n2z-n1z*n2y, n1z*n2x-n1x*n2z, n1x*n2y-n1y*n2x
			dot := n1x*n2x + n1y*n2y + n1z*n2z
			ys[i], xs[i], rs[i] = cx*ex+cy*ey+cz*ez, dot*e, e*math.Sqrt(l1*l2)
			n1[i], n2[i] = [3]float64{n1x, n1y, n1z}, [3]float64{n2x, n2y, n2z}
			ie2 := 1 / e2
			el[i], inv1[i], inv2[i], e2s[i], dots[i] = e, 1/l1, 1/l2, e2, dot
			t2s[i] = (ax*ex + ay*ey + az*ez) * ie2
			t3s[i] = (bx*ex + by*ey + bz*ez) * ie2
		}
		for i, v := range batch {
			k := lo + i
			if dls != nil {
				dls[k] = 0 // a degenerate hinge moves nothing
			}
			if !ok[i] {
				continue
			}
			var theta float64
			if x := xs[i]; x >= 0 {
				theta = 2 * atanPoly(ys[i]/(rs[i]+x))
			} else {
				theta = hingeAngle(ys[i], x, rs[i])
			}
			c := wrapAngle(theta - rest[k])
			t2, t3, e2, dot := t2s[i], t3s[i], e2s[i], dots[i]
			q22, q33, q23 := e2*inv1[i], e2*inv2[i], e2*dot*inv1[i]*inv2[i]
			u2, u3 := t2-1, t3-1
			g0 := u2*u2*q22 + u3*u3*q33 + 2*u2*u3*q23
			g1 := t2*t2*q22 + t3*t3*q33 + 2*t2*t3*q23
			alphaT := al[k] * inv
			den := w[v[0]]*g0 + w[v[1]]*g1 + w[v[2]]*q22 + w[v[3]]*q33 + alphaT
			if den < 1e-30 {
				ok[i] = false
				continue
			}
			lambda := 0.0
			if lam != nil {
				lambda = lam[k]
			}
			dl := (-c - alphaT*lambda) / den
			if lam != nil {
				lam[k] += dl
			}
			if dls != nil {
				dls[k] = dl
			}
			s2s[i], s3s[i] = -el[i]*inv1[i]*dl, -el[i]*inv2[i]*dl
		}
		for i, v := range batch {
			if !ok[i] {
				continue
			}
			s2, s3 := s2s[i], s3s[i]
			t2, t3 := t2s[i], t3s[i]
			u2, u3 := t2-1, t3-1
			g2x, g2y, g2z := n1[i][0]*s2, n1[i][1]*s2, n1[i][2]*s2
			g3x, g3y, g3z := n2[i][0]*s3, n2[i][1]*s3, n2[i][2]*s3
			w0, w1, w2, w3 := w[v[0]], w[v[1]], w[v[2]], w[v[3]]
			p0, p1, p2, p3 := &pos[v[0]], &pos[v[1]], &pos[v[2]], &pos[v[3]]
			if w0 != 0 {
				p0.X += w0 * (u2*g2x + u3*g3x)
				p0.Y += w0 * (u2*g2y + u3*g3y)
				p0.Z += w0 * (u2*g2z + u3*g3z)
			}
			if w1 != 0 {
				p1.X -= w1 * (t2*g2x + t3*g3x)
				p1.Y -= w1 * (t2*g2y + t3*g3y)
				p1.Z -= w1 * (t2*g2z + t3*g3z)
			}
			p2.X += w2 * g2x
			p2.Y += w2 * g2y
			p2.Z += w2 * g2z
			p3.X += w3 * g3x
			p3.Y += w3 * g3y
			p3.Z += w3 * g3z
		}
	}
}
