package contact

import (
	"github.com/drape-sim/drape/internal/vec"
)

// closestOnTriangle returns the barycentric coordinates (u, v, w) of the
// point of triangle abc closest to p (u·a + v·b + w·c), after C. Ericson,
// "Real-Time Collision Detection", 2005, §5.1.5. The point lies in the
// triangle's interior when all three are positive.
func closestOnTriangle(p, a, b, c vec.Vec3) (u, v, w float64) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return 1, 0, 0
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return 0, 1, 0
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		t := d1 / (d1 - d3)
		return 1 - t, t, 0
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return 0, 0, 1
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		t := d2 / (d2 - d6)
		return 1 - t, 0, t
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		t := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return 0, 1 - t, t
	}
	den := va + vb + vc
	if !(den > 0) {
		return 1, 0, 0 // degenerate triangle
	}
	v, w = vb/den, vc/den
	return 1 - v - w, v, w
}

// closestSegments returns the parameters s, t in [0, 1] of the closest
// points p1 + s(q1-p1) and p2 + t(q2-p2) of two segments (Ericson 2005,
// §5.1.9). Parallel segments return s = 0.
func closestSegments(p1, q1, p2, q2 vec.Vec3) (s, t float64) {
	const eps = 1e-24
	d1, d2, r := q1.Sub(p1), q2.Sub(p2), p1.Sub(p2)
	a, e, f := d1.LenSq(), d2.LenSq(), d2.Dot(r)
	switch {
	case a <= eps && e <= eps:
		return 0, 0
	case a <= eps:
		return 0, clamp01(f / e)
	}
	c := d1.Dot(r)
	if e <= eps {
		return clamp01(-c / a), 0
	}
	b := d1.Dot(d2)
	den := a*e - b*b
	if den > 1e-12*a*e {
		s = clamp01((b*f - c*e) / den)
	}
	t = (b*s + f) / e
	switch {
	case t < 0:
		t, s = 0, clamp01(-c/a)
	case t > 1:
		t, s = 1, clamp01((b-c)/a)
	}
	return s, t
}

// clamp01 clamps x to [0, 1]; NaN stays NaN, as with math.Max(0,
// math.Min(1, x)).
func clamp01(x float64) float64 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// PointTriangleDist returns the distance [m] from point p to triangle abc.
func PointTriangleDist(p, a, b, c vec.Vec3) float64 {
	u, v, w := closestOnTriangle(p, a, b, c)
	return p.Sub(a.Scale(u).Add(b.Scale(v)).Add(c.Scale(w))).Len()
}

// SegmentDist returns the distance [m] between segments p1-q1 and p2-q2.
func SegmentDist(p1, q1, p2, q2 vec.Vec3) float64 {
	s, t := closestSegments(p1, q1, p2, q2)
	return p1.Lerp(q1, s).Sub(p2.Lerp(q2, t)).Len()
}

// projectVertexTriangle projects the proximity constraint between vertex x
// and triangle (a, b, c) (Müller et al. 2007, §4.4, "cloth self collision";
// Bridson, Fedkiw, Anderson 2002), q4 = {x, a, b, c} now and p4 at the
// substep start. With q the closest point of the triangle (barycentrics
// u, v, w) the constraint is C = s - h >= 0, where s is
//
//   - the signed distance (x - q)·n along n = side·(triangle normal) when
//     q is inside the triangle, or when the vertex went through the
//     triangle's plane inside the triangle during the substep (so a vertex
//     that crossed is pushed back to the side it came from);
//   - |x - q| along n = (x - q)/|x - q| otherwise (near the boundary, where
//     a vertex may legitimately pass round the edge).
//
// Gradients are n for x and -u·n, -v·n, -w·n for the triangle, and the
// correction is dx_i = -C·w_i·grad_i / Σ w_j|grad_j|² (PBD). With friction
// coefficient mu the tangential part of the substep's displacement of x
// relative to q is removed up to mu times the normal correction (Coulomb,
// as collideVertex). It returns the corrections of x, a, b, c and whether
// the constraint was active. The sweeps run the cheap separation test
// vertexTriangleApart first and call this only where it did not decide.
func projectVertexTriangle(q4, p4 [4]vec.Vec3, w4 [4]float64, h, mu, side float64) (dx [4]vec.Vec3, active bool) {
	x, a, b, c := q4[0], q4[1], q4[2], q4[3]
	nf := b.Sub(a).Cross(c.Sub(a))
	area2 := nf.Len()
	if area2 < 1e-20 {
		return dx, false
	}
	nf = nf.Scale(side / area2)
	u, v, w := closestOnTriangle(x, a, b, c)
	d := x.Sub(a.Scale(u).Add(b.Scale(v)).Add(c.Scale(w)))
	var s float64
	var n vec.Vec3
	if (u > 0 && v > 0 && w > 0) || crossedTriangle(q4, p4, side) {
		n = nf
		s = x.Sub(a).Dot(nf)
	} else {
		s = d.Len()
		if s > 1e-12 {
			n = d.Scale(1 / s)
		} else {
			n = nf
		}
	}
	C := s - h
	if C >= 0 {
		return dx, false
	}
	C = max(C, -maxPush*h) // a deep crossing is undone over several substeps
	g := [4]float64{1, -u, -v, -w}
	W := 0.0
	for i := range g {
		W += w4[i] * g[i] * g[i]
	}
	if W == 0 {
		return dx, false
	}
	lam := -C / W
	for i := range g {
		dx[i] = n.Scale(w4[i] * g[i] * lam)
	}
	if mu > 0 {
		rel := x.Sub(p4[0])
		for i := 1; i < 4; i++ {
			rel = rel.AddScaled(q4[i].Sub(p4[i]), g[i])
		}
		addFriction(&dx, rel, n, g, w4, W, mu*(-C))
	}
	return dx, true
}

// vertexTriangleApart reports whether vertex q4[0] lies h or more off
// triangle q4[1:]'s plane on its side side (then no closer to the
// triangle), and if so a gap: while the four vertices move less than gap
// in all, it still does. With u = b - a and v = c - a, moves summing to M
// change the plane distance sd by at most M plus |x - a| times the turn of
// the unit normal, at most 2·|Δ(u×v)|/|u×v| <= 2·M·(|u| + |v| + M)/|u×v|.
func vertexTriangleApart(q4 [4]vec.Vec3, h, side float64) (gap float64, apart bool) {
	x, a, b, c := q4[0], q4[1], q4[2], q4[3]
	nf := b.Sub(a).Cross(c.Sub(a))
	area2 := nf.Len()
	if area2 < 1e-20 {
		return 0, false
	}
	sd := x.Sub(a).Dot(nf.Scale(side / area2))
	if sd < h*apartMargin {
		return 0, false
	}
	ex := sd - h*apartMargin
	f := 1 + 2*x.Sub(a).Len()*(b.Sub(a).Len()+c.Sub(a).Len()+ex)/area2
	return ex / f * (1 - 1e-9), true
}

// crossedTriangle reports whether vertex q4[0] went from the side side of
// triangle q4[1:] at the substep start (p4) to the other side now, through
// the triangle: the signed plane distance, linear in time, vanishes at τ,
// and the vertex's projection at τ lies inside the interpolated triangle.
func crossedTriangle(q4, p4 [4]vec.Vec3, side float64) bool {
	n1 := q4[2].Sub(q4[1]).Cross(q4[3].Sub(q4[1]))
	s1 := q4[0].Sub(q4[1]).Dot(n1) * side
	if s1 >= 0 {
		return false
	}
	n0 := p4[2].Sub(p4[1]).Cross(p4[3].Sub(p4[1]))
	s0 := p4[0].Sub(p4[1]).Dot(n0) * side
	if s0 <= 0 {
		return false
	}
	tau := s0 / (s0 - s1)
	var m [4]vec.Vec3
	for i := range m {
		m[i] = p4[i].Lerp(q4[i], tau)
	}
	return insideProjection(m[0], m[1], m[2], m[3])
}

// insideProjection reports whether p projects into triangle abc along its
// normal.
func insideProjection(p, a, b, c vec.Vec3) bool {
	n := b.Sub(a).Cross(c.Sub(a))
	if n.LenSq() == 0 {
		return false
	}
	return b.Sub(a).Cross(p.Sub(a)).Dot(n) >= 0 && c.Sub(b).Cross(p.Sub(b)).Dot(n) >= 0 && a.Sub(c).Cross(p.Sub(c)).Dot(n) >= 0
}

// vertexTriangleSide returns the side memory of a vertex-triangle pair at
// positions q4 given the old memory: unchanged while the closest point is
// inside the triangle (only passing round the boundary may change it),
// else the side of the triangle's plane the vertex is on.
func vertexTriangleSide(q4 [4]vec.Vec3, side float64) float64 {
	s := planeSide(q4, side)
	if s == side {
		return side // on the remembered side (or in the plane): kept either way
	}
	x, a, b, c := q4[0], q4[1], q4[2], q4[3]
	if u, v, w := closestOnTriangle(x, a, b, c); u > 0 && v > 0 && w > 0 {
		return side
	}
	return s
}

// planeSide returns the side of triangle q4[1:]'s plane vertex q4[0] is
// on: +1 along the triangle's normal, -1 against it, or side when it lies
// in the plane.
func planeSide(q4 [4]vec.Vec3, side float64) float64 {
	x, a, b, c := q4[0], q4[1], q4[2], q4[3]
	sd := x.Sub(a).Dot(b.Sub(a).Cross(c.Sub(a)))
	switch {
	case sd > 0:
		return 1
	case sd < 0:
		return -1
	}
	return side
}

// projectEdgeEdge projects the proximity constraint between edges (a, b) and
// (c, d) (Bridson et al. 2002): with closest points p = a + s(b-a) and
// q = c + t(d-c), both strictly inside their edges, C = |p - q| - h >= 0
// along n = (p-q)/|p-q|; if p - q points against the remembered direction
// n0 the edges have crossed and C = (p-q)·n0 - h pushes them back.
// Gradients are (1-s)n, s·n, -(1-t)n, -t·n. Friction as in
// projectVertexTriangle, and so is the separation test run first
// (edgeEdgeApart).
func projectEdgeEdge(q4, p4 [4]vec.Vec3, w4 [4]float64, h, mu float64, n0 vec.Vec3) (dx [4]vec.Vec3, active bool) {
	a, b, c, d := q4[0], q4[1], q4[2], q4[3]
	s, t := closestSegments(a, b, c, d)
	const eps = 1e-6
	if s <= eps || s >= 1-eps || t <= eps || t >= 1-eps {
		return dx, false
	}
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	var dist float64
	var n vec.Vec3
	l := diff.Len()
	if sd := diff.Dot(n0); sd < 0 || l < 1e-12 {
		n, dist = n0, sd
	} else {
		n, dist = diff.Scale(1/l), l
	}
	C := dist - h
	if C >= 0 {
		return dx, false
	}
	C = max(C, -maxPush*h)
	g := [4]float64{1 - s, s, -(1 - t), -t}
	W := 0.0
	for i := range g {
		W += w4[i] * g[i] * g[i]
	}
	if W == 0 {
		return dx, false
	}
	lam := -C / W
	for i := range g {
		dx[i] = n.Scale(w4[i] * g[i] * lam)
	}
	if mu > 0 {
		var rel vec.Vec3
		for i := 0; i < 4; i++ {
			rel = rel.AddScaled(q4[i].Sub(p4[i]), g[i])
		}
		addFriction(&dx, rel, n, g, w4, W, mu*(-C))
	}
	return dx, true
}

// edgeEdgeApart reports whether edge q4[0]-q4[1] lies h or more beyond
// edge q4[2]-q4[3] along n0, and if so a gap: along the fixed n0, moves of
// the four vertices summing to M change the separation by at most M.
func edgeEdgeApart(q4 [4]vec.Vec3, h float64, n0 vec.Vec3) (gap float64, apart bool) {
	if sep := apartBy(q4[0], q4[1], q4[2], q4[3], n0); sep >= h*apartMargin {
		return (sep - h*apartMargin) * (1 - 1e-9), true
	}
	return 0, false
}

// apartBy returns how far every point of segment ab lies beyond every
// point of segment cd along the unit direction n (negative where they
// overlap along n).
func apartBy(a, b, c, d, n vec.Vec3) float64 {
	return min(a.Dot(n), b.Dot(n)) - max(c.Dot(n), d.Dot(n))
}

// edgeEdgeDir returns the direction memory of an edge pair at positions q4
// given the old one: the direction between the closest points, except
// that it may not flip while both closest points are inside their edges
// (edges pass each other only round an end).
func edgeEdgeDir(q4 [4]vec.Vec3, n0 vec.Vec3) vec.Vec3 {
	a, b, c, d := q4[0], q4[1], q4[2], q4[3]
	s, t := closestSegments(a, b, c, d)
	diff := a.Lerp(b, s).Sub(c.Lerp(d, t))
	l := diff.Len()
	if l < 1e-12 {
		return n0
	}
	const eps = 1e-6
	interior := s > eps && s < 1-eps && t > eps && t < 1-eps
	if interior && diff.Dot(n0) < 0 {
		return n0
	}
	return diff.Scale(1 / l)
}

// addFriction removes the tangential part of the relative displacement rel
// (Σ g_i·Δx_i) up to limit (Coulomb: stick when |rel_t| <= limit), spread
// over the four vertices like a constraint with gradients g_i·t.
func addFriction(dx *[4]vec.Vec3, rel, n vec.Vec3, g [4]float64, w4 [4]float64, W, limit float64) {
	tan := rel.AddScaled(n, -rel.Dot(n))
	lt := tan.Len()
	if lt == 0 {
		return
	}
	k := 1.0
	if lt > limit {
		k = limit / lt
	}
	// relative change -k·tan: Δx_i = -k·w_i·g_i·tan/W
	for i := range g {
		dx[i] = dx[i].AddScaled(tan, -k*w4[i]*g[i]/W)
	}
}
