package meshio

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// maxEarClip is the largest polygon we ear-clip; larger ones are fan-split
// (ear clipping is quadratic in the corner count).
const maxEarClip = 1024

// triangulate splits the polygon pos (corners in order, planar or nearly
// so) into len(pos)-2 triangles of corner numbers, appended to out. The
// second result is true when the polygon was degenerate or self-crossing and
// had to be fan-split.
//
// Quads are split along the shorter diagonal when both splits are valid;
// other polygons are ear-clipped in their best-fit plane (Newell normal).
// Corners that repeat a position (keyhole polygons that walk out to a hole
// and back along a doubled bridge edge) never block an ear that has the same
// position as a corner, so keyholes triangulate without overlaps.
func triangulate(pos []vec.Vec3, out [][3]int) ([][3]int, bool) {
	n := len(pos)
	if n < 3 {
		return out, false
	}
	if n == 3 {
		return append(out, [3]int{0, 1, 2}), false
	}
	// Newell normal
	var nrm vec.Vec3
	for i := range pos {
		a, b := pos[i], pos[(i+1)%n]
		nrm.X += (a.Y - b.Y) * (a.Z + b.Z)
		nrm.Y += (a.Z - b.Z) * (a.X + b.X)
		nrm.Z += (a.X - b.X) * (a.Y + b.Y)
	}
	if nrm.LenSq() == 0 || !nrm.IsFinite() || n > maxEarClip {
		return fan(n, out), n > maxEarClip || nrm.LenSq() == 0
	}
	if n == 4 {
		if t, ok := splitQuad(pos, nrm); ok {
			return append(out, t[0], t[1]), false
		}
	}
	return earClip(pos, nrm, out)
}

// fan appends the fan split (0, i, i+1).
func fan(n int, out [][3]int) [][3]int {
	for i := 1; i+1 < n; i++ {
		out = append(out, [3]int{0, i, i + 1})
	}
	return out
}

// splitQuad splits a convex quad along its shorter diagonal; ok is false for
// a concave or folded quad.
func splitQuad(p []vec.Vec3, nrm vec.Vec3) (t [2][3]int, ok bool) {
	facing := func(a, b, c int) bool {
		return p[b].Sub(p[a]).Cross(p[c].Sub(p[a])).Dot(nrm) > 0
	}
	ac := facing(0, 1, 2) && facing(0, 2, 3)
	bd := facing(0, 1, 3) && facing(1, 2, 3)
	switch {
	case ac && bd:
		if p[2].Sub(p[0]).LenSq() <= p[3].Sub(p[1]).LenSq() {
			return [2][3]int{{0, 1, 2}, {0, 2, 3}}, true
		}
		return [2][3]int{{0, 1, 3}, {1, 2, 3}}, true
	case ac:
		return [2][3]int{{0, 1, 2}, {0, 2, 3}}, true
	case bd:
		return [2][3]int{{0, 1, 3}, {1, 2, 3}}, true
	}
	return t, false
}

// earClip triangulates a polygon of more than three corners by ear clipping
// in the plane perpendicular to nrm.
func earClip(pos []vec.Vec3, nrm vec.Vec3, out [][3]int) ([][3]int, bool) {
	n := len(pos)
	// project onto the plane: u, v, nrm is right-handed, so a polygon that
	// winds counter-clockwise about nrm has positive area in (u, v)
	nrm = nrm.Normalize()
	ref := vec.Vec3{X: 1}
	if math.Abs(nrm.X) > 0.6 {
		ref = vec.Vec3{Y: 1}
	}
	u := ref.Sub(nrm.Scale(ref.Dot(nrm))).Normalize()
	v := nrm.Cross(u)
	p := make([][2]float64, n)
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i, q := range pos {
		p[i] = [2]float64{q.Dot(u), q.Dot(v)}
		for k := 0; k < 2; k++ {
			lo[k], hi[k] = math.Min(lo[k], p[i][k]), math.Max(hi[k], p[i][k])
		}
	}
	size := math.Max(hi[0]-lo[0], hi[1]-lo[1])
	eps := size * size * 1e-12

	prev := make([]int, n)
	next := make([]int, n)
	for i := range prev {
		prev[i] = (i + n - 1) % n
		next[i] = (i + 1) % n
	}
	same := func(i, j int) bool { return p[i] == p[j] }
	cross := func(a, b, c int) float64 {
		return (p[b][0]-p[a][0])*(p[c][1]-p[a][1]) - (p[b][1]-p[a][1])*(p[c][0]-p[a][0])
	}
	// blocked reports whether a remaining corner other than a, b, c lies in
	// triangle abc (on its edges too when strict is false).
	blocked := func(a, b, c int, strict bool) bool {
		for k := next[c]; k != a; k = next[k] {
			if same(k, a) || same(k, b) || same(k, c) {
				continue
			}
			d0, d1, d2 := cross(a, b, k), cross(b, c, k), cross(c, a, k)
			if strict {
				if d0 > eps && d1 > eps && d2 > eps {
					return true
				}
			} else if d0 >= -eps && d1 >= -eps && d2 >= -eps {
				return true
			}
		}
		return false
	}
	forced := false
	cur, left := 0, n
	for left > 3 {
		ear := -1
		// pass 0: a strictly convex corner with nothing in or on its
		// triangle; pass 1: a flat corner or something on an edge; pass 2:
		// anything (self-crossing input)
		for pass := 0; pass < 3 && ear < 0; pass++ {
			i := cur
			for k := 0; k < left; k, i = k+1, next[i] {
				a, c := prev[i], next[i]
				cr := cross(a, i, c)
				switch pass {
				case 0:
					if cr > eps && !blocked(a, i, c, false) {
						ear = i
					}
				case 1:
					if cr >= -eps && !blocked(a, i, c, true) {
						ear = i
					}
				default:
					ear = i
					forced = true
				}
				if ear >= 0 {
					break
				}
			}
		}
		a, c := prev[ear], next[ear]
		out = append(out, [3]int{a, ear, c})
		next[a], prev[c] = c, a
		left--
		cur = c
	}
	a := cur
	out = append(out, [3]int{prev[a], a, next[a]})
	return out, forced
}
