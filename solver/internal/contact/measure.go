package contact

import (
	"cmp"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// IntersectionCheck is what CheckIntersections finds in a triangle soup.
type IntersectionCheck struct {
	// Pairs are the intersecting pairs of triangles that share no vertex,
	// each as (lower index, higher index), in increasing order. When
	// Complete is false they are the pairs found before the check stopped.
	Pairs [][2]int32
	// Duplicates counts triangles whose three corners are at the positions
	// of an earlier triangle's: each is checked once, as that earlier
	// triangle, instead of against every copy. FirstDuplicate is the first
	// (earlier, copy).
	Duplicates     int
	FirstDuplicate [2]int32
	// Complete is false when the triangles crowd one region so densely
	// (stacked copies shifted a little, a huge polygon fan-split) that
	// comparing them pairwise would cost more than maxPairTests. Crowded
	// then counts the triangles of the most crowded grid cell and
	// FirstCrowded names two of them.
	Complete     bool
	Crowded      int
	FirstCrowded [2]int32
	// work is the budget spent, in box tests (tests read it).
	work int
}

// Budget of the check, in units of one box test: at most costPerTri units
// per triangle plus costBase, with a plane-side test costing costPlane and
// an exact triangle test costExact. Cloth stays well within it (a sheet
// folded into 12 layers 2 mm apart spends about 180 units per triangle,
// TestCheckIntersectionsLayeredClothComplete); it bounds the check's time
// on any input. The check also stops after
// maxPairsPerTri intersecting pairs per triangle: beyond that the surface
// is not cloth but a pile of crossing copies. A triangle spanning more than
// maxCellsPerTri grid cells is compared by its box against every other
// triangle instead, within the same budget.
const (
	costPerTri     = 1024
	costBase       = 1 << 22
	costPlane      = 1
	costExact      = 8
	maxPairsPerTri = 2
	maxCellsPerTri = 64
)

// Intersections counts the pairs of triangles that share no vertex and
// intersect: an edge of one passes through the other. Coplanar touching
// (measure zero) is not counted. It is the measure behind the
// self-collision tests and the bake report; see CheckIntersections for
// duplicates and crowded input.
func Intersections(pos []vec.Vec3, tris [][3]int32) int {
	return len(IntersectingPairs(pos, tris))
}

// IntersectingPairs returns the pairs of triangles Intersections counts,
// each as (lower index, higher index), in increasing order.
func IntersectingPairs(pos []vec.Vec3, tris [][3]int32) [][2]int32 {
	return CheckIntersections(pos, tris).Pairs
}

// CheckIntersections finds the intersecting pairs of triangles in
// O(n log n) time for any input: exact duplicates are grouped first (by
// sorting the triangles' corner positions) and checked once, candidate
// pairs come from a uniform grid over the bounding boxes (cell size: the
// mean box extent), each pair is tested only in the cell holding the low
// corner of the two boxes' overlap (no pair twice, no set of pairs seen),
// and the box tests stop at a budget linear in n (see pairTestsPerTri),
// reporting the crowded region instead of comparing it pairwise.
func CheckIntersections(pos []vec.Vec3, tris [][3]int32) IntersectionCheck {
	res := IntersectionCheck{Complete: true}
	n := len(tris)
	if n < 2 {
		return res
	}
	reps := uniqueTriangles(pos, tris, &res)
	lo := make([]vec.Vec3, n)
	hi := make([]vec.Vec3, n)
	ext := 0.0
	for _, i := range reps {
		t := tris[i]
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		lo[i], hi[i] = a.Min(b).Min(c), a.Max(b).Max(c)
		d := hi[i].Sub(lo[i])
		ext += math.Max(d.X, math.Max(d.Y, d.Z))
	}
	cell := ext / float64(len(reps))
	if !(cell > 0) || math.IsInf(cell, 0) || len(reps) < 2 {
		return res
	}
	type cellKey struct{ x, y, z int64 }
	cellOf := func(p vec.Vec3) cellKey {
		return cellKey{int64(math.Floor(p.X / cell)), int64(math.Floor(p.Y / cell)), int64(math.Floor(p.Z / cell))}
	}
	type entry struct {
		c   cellKey
		tri int32
	}
	var entries []entry
	var big []int32
	isBig := make([]bool, n)
	for _, i := range reps {
		c0, c1 := cellOf(lo[i]), cellOf(hi[i])
		if cells := (c1.x - c0.x + 1) * (c1.y - c0.y + 1) * (c1.z - c0.z + 1); cells > maxCellsPerTri || cells <= 0 {
			big = append(big, i)
			isBig[i] = true
			continue
		}
		for x := c0.x; x <= c1.x; x++ {
			for y := c0.y; y <= c1.y; y++ {
				for z := c0.z; z <= c1.z; z++ {
					entries = append(entries, entry{cellKey{x, y, z}, i})
				}
			}
		}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.c.x, b.c.x), cmp.Compare(a.c.y, b.c.y), cmp.Compare(a.c.z, b.c.z), cmp.Compare(a.tri, b.tri))
	})
	budget := costPerTri*n + costBase
	maxPairs := int(maxPairsPerTri*float64(n)) + 1000
	test := func(i, j int32) {
		if i > j {
			i, j = j, i
		}
		if shareVertex(tris[i], tris[j]) {
			return
		}
		budget -= costPlane
		if !planesCross(pos, tris[i], tris[j]) {
			return
		}
		budget -= costExact
		if trianglesIntersect(pos, tris[i], tris[j]) {
			res.Pairs = append(res.Pairs, [2]int32{i, j})
			if len(res.Pairs) >= maxPairs {
				budget = -1
			}
		}
	}
	most, mostAt := 0, 0
	for s := 0; s < len(entries) && res.Complete; {
		e := s
		for e < len(entries) && entries[e].c == entries[s].c {
			e++
		}
		if e-s > most {
			most, mostAt = e-s, s
		}
		for a := s; a < e && res.Complete; a++ {
			i := entries[a].tri
			for b := a + 1; b < e; b++ {
				if budget--; budget < 0 {
					res.Complete = false
					break
				}
				j := entries[b].tri
				if !boxesOverlap(lo[i], hi[i], lo[j], hi[j]) || cellOf(lo[i].Max(lo[j])) != entries[s].c {
					continue
				}
				test(i, j)
			}
		}
		s = e
	}
	for _, i := range big {
		if !res.Complete {
			break
		}
		for _, j := range reps {
			if j == i || (isBig[j] && j < i) {
				continue
			}
			if budget--; budget < 0 {
				res.Complete = false
				break
			}
			if boxesOverlap(lo[i], hi[i], lo[j], hi[j]) {
				test(i, j)
			}
		}
	}
	res.work = costPerTri*n + costBase - budget
	if budget < 0 {
		res.Complete = false
	}
	if !res.Complete {
		// the densest cell, counted over every entry
		most = 0
		for s := 0; s < len(entries); {
			e := s
			for e < len(entries) && entries[e].c == entries[s].c {
				e++
			}
			if e-s > most {
				most, mostAt = e-s, s
			}
			s = e
		}
		switch {
		case most >= 2 && most >= len(big):
			res.Crowded, res.FirstCrowded = most, [2]int32{entries[mostAt].tri, entries[mostAt+1].tri}
		case len(big) >= 2:
			res.Crowded, res.FirstCrowded = len(big), [2]int32{big[0], big[1]}
		}
	}
	slices.SortFunc(res.Pairs, func(a, b [2]int32) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	return res
}

// planesCross reports whether each triangle has corners on both sides of
// the other's plane, or on it: a pair that fails cannot intersect, and the
// test is a fraction of trianglesIntersect's cost. A degenerate triangle
// (no plane) passes.
func planesCross(pos []vec.Vec3, t, u [3]int32) bool {
	return straddles(pos, t, u) && straddles(pos, u, t)
}

// straddles reports whether u's corners are not all strictly on one side
// of t's plane.
func straddles(pos []vec.Vec3, t, u [3]int32) bool {
	a := pos[t[0]]
	nrm := pos[t[1]].Sub(a).Cross(pos[t[2]].Sub(a))
	if nrm.LenSq() == 0 {
		return true
	}
	d0, d1, d2 := pos[u[0]].Sub(a).Dot(nrm), pos[u[1]].Sub(a).Dot(nrm), pos[u[2]].Sub(a).Dot(nrm)
	return !(d0 > 0 && d1 > 0 && d2 > 0) && !(d0 < 0 && d1 < 0 && d2 < 0)
}

// uniqueTriangles returns the triangles whose set of corner positions no
// earlier triangle has, in increasing order, and counts the others in res.
func uniqueTriangles(pos []vec.Vec3, tris [][3]int32, res *IntersectionCheck) []int32 {
	type key [9]float64
	keys := make([]key, len(tris))
	order := make([]int32, len(tris))
	for i, t := range tris {
		c := [3]vec.Vec3{pos[t[0]], pos[t[1]], pos[t[2]]}
		slices.SortFunc(c[:], func(a, b vec.Vec3) int {
			return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y), cmp.Compare(a.Z, b.Z))
		})
		keys[i] = key{c[0].X, c[0].Y, c[0].Z, c[1].X, c[1].Y, c[1].Z, c[2].X, c[2].Y, c[2].Z}
		order[i] = int32(i)
	}
	cmpKey := func(a, b int32) int {
		for k := range 9 {
			if c := cmp.Compare(keys[a][k], keys[b][k]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Or(cmpKey(a, b), cmp.Compare(a, b)) })
	first := true
	reps := make([]int32, 0, len(tris))
	for s := 0; s < len(order); {
		e := s + 1
		for e < len(order) && cmpKey(order[s], order[e]) == 0 {
			e++
		}
		reps = append(reps, order[s])
		for _, d := range order[s+1 : e] {
			res.Duplicates++
			if first || d < res.FirstDuplicate[1] {
				res.FirstDuplicate, first = [2]int32{order[s], d}, false
			}
		}
		s = e
	}
	slices.Sort(reps)
	return reps
}

func boxesOverlap(alo, ahi, blo, bhi vec.Vec3) bool {
	return alo.X <= bhi.X && blo.X <= ahi.X && alo.Y <= bhi.Y && blo.Y <= ahi.Y && alo.Z <= bhi.Z && blo.Z <= ahi.Z
}

func shareVertex(a, b [3]int32) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// trianglesIntersect reports whether an edge of either triangle crosses the
// other triangle.
func trianglesIntersect(pos []vec.Vec3, t, u [3]int32) bool {
	for k := 0; k < 3; k++ {
		if segmentHitsTriangle(pos[t[k]], pos[t[(k+1)%3]], pos[u[0]], pos[u[1]], pos[u[2]]) {
			return true
		}
		if segmentHitsTriangle(pos[u[k]], pos[u[(k+1)%3]], pos[t[0]], pos[t[1]], pos[t[2]]) {
			return true
		}
	}
	return false
}

// segmentHitsTriangle is the Möller-Trumbore test restricted to the segment
// p-q (parameters strictly inside (0,1) and barycentrics inside [0,1]).
func segmentHitsTriangle(p, q, a, b, c vec.Vec3) bool {
	d := q.Sub(p)
	e1, e2 := b.Sub(a), c.Sub(a)
	h := d.Cross(e2)
	det := e1.Dot(h)
	scale := e1.Len() * e2.Len() * d.Len()
	if math.Abs(det) <= 1e-12*scale {
		return false // parallel or degenerate
	}
	inv := 1 / det
	s := p.Sub(a)
	u := inv * s.Dot(h)
	if u < 0 || u > 1 {
		return false
	}
	qv := s.Cross(e1)
	v := inv * d.Dot(qv)
	if v < 0 || u+v > 1 {
		return false
	}
	t := inv * e2.Dot(qv)
	return t > 0 && t < 1
}
