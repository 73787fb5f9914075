package contact

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/drape-sim/drape/internal/vec"
)

// Intersections counts the pairs of triangles that share no vertex and
// intersect: an edge of one passes through the other. Coplanar touching
// (measure zero) is not counted. Candidate pairs come from a uniform grid over
// the triangles' bounding boxes, so the cost is near linear for cloth. It is
// the measure behind the self-collision tests and the bake report.
func Intersections(pos []vec.Vec3, tris [][3]int32) int {
	return len(IntersectingPairs(pos, tris))
}

// IntersectingPairs returns the pairs of triangles Intersections
// counts, each as (lower index, higher index), in increasing order.
func IntersectingPairs(pos []vec.Vec3, tris [][3]int32) [][2]int32 {
	n := len(tris)
	if n < 2 {
		return nil
	}
	// cell size: the mean triangle bounding-box extent
	lo := make([]vec.Vec3, n)
	hi := make([]vec.Vec3, n)
	ext := 0.0
	for i, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		lo[i], hi[i] = a.Min(b).Min(c), a.Max(b).Max(c)
		d := hi[i].Sub(lo[i])
		ext += math.Max(d.X, math.Max(d.Y, d.Z))
	}
	cell := ext / float64(n)
	if !(cell > 0) || math.IsInf(cell, 0) {
		return nil
	}
	type entry struct {
		key uint64
		tri int32
	}
	cellOf := func(x float64) int64 { return int64(math.Floor(x / cell)) }
	hash := func(x, y, z int64) uint64 {
		return uint64(x*73856093) ^ uint64(y*19349663) ^ uint64(z*83492791)
	}
	var entries []entry
	var big []int32
	for i := range tris {
		x0, y0, z0 := cellOf(lo[i].X), cellOf(lo[i].Y), cellOf(lo[i].Z)
		x1, y1, z1 := cellOf(hi[i].X), cellOf(hi[i].Y), cellOf(hi[i].Z)
		if (x1-x0+1)*(y1-y0+1)*(z1-z0+1) > 512 {
			big = append(big, int32(i)) // tested against every triangle below
			continue
		}
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				for z := z0; z <= z1; z++ {
					entries = append(entries, entry{hash(x, y, z), int32(i)})
				}
			}
		}
	}
	sort.Slice(entries, func(a, b int) bool {
		if entries[a].key != entries[b].key {
			return entries[a].key < entries[b].key
		}
		return entries[a].tri < entries[b].tri
	})
	seen := map[[2]int32]bool{}
	var pairs [][2]int32
	test := func(i, j int32) {
		if i == j {
			return
		}
		if i > j {
			i, j = j, i
		}
		if !boxesOverlap(lo[i], hi[i], lo[j], hi[j]) || shareVertex(tris[i], tris[j]) {
			return
		}
		k := [2]int32{i, j}
		if seen[k] {
			return
		}
		seen[k] = true
		if trianglesIntersect(pos, tris[i], tris[j]) {
			pairs = append(pairs, k)
		}
	}
	for _, i := range big {
		for j := range tris {
			test(i, int32(j))
		}
	}
	for s := 0; s < len(entries); {
		e := s
		for e < len(entries) && entries[e].key == entries[s].key {
			e++
		}
		for a := s; a < e; a++ {
			for b := a + 1; b < e; b++ {
				test(entries[a].tri, entries[b].tri)
			}
		}
		s = e
	}
	slices.SortFunc(pairs, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	return pairs
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
