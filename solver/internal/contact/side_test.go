package contact

import (
	"math"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// TestNewPairSideFromStart checks that a pair listed for the first time
// remembers the side its vertex (or edge) is on at the substep's start,
// not at the references the search measures from, which a partial rebuild
// leaves several substeps old for vertices that did not move much. Here
// triangle A lies on the ground one thickness up, and triangle B's edge
// lies 1 mm above it, crossing A's edge 0-1; A's references are 2 mm
// higher (within its allowance), so at the references B's vertex 3 and
// edge 3-4 are below A. Remembered so, the pushes would drive B through A
// into the ground, where the ground pushes it back: B must instead stay at
// least 0.5 x thickness above A while it settles onto it.
func TestNewPairSideFromStart(t *testing.T) {
	const h = 0.003
	pos := []vec.Vec3{
		vec.V(-0.1, h, 0.1), vec.V(0.1, h, 0.1), vec.V(0, h, -0.1), // A, normal +Y
		vec.V(0, h+0.001, 0.05), vec.V(0, h+0.001, 0.15), vec.V(0.02, h+0.04, 0.1), // B
	}
	tris := [][3]int32{{0, 1, 2}, {3, 4, 5}}
	// B's rest shape lies well above A, so the pairs keep the thickness
	// (not a closer rest distance)
	rest := slices.Clone(pos)
	for v := 3; v < 6; v++ {
		rest[v].Y += 0.1
	}
	tc := newTestCloth(t, rest, tris, 1)
	tc.ground = true
	copy(tc.pos, pos)
	copy(tc.prev, pos)
	sc := tc.c
	sc.pos, sc.prev = tc.pos, tc.prev
	var mean vec.Vec3
	for _, q := range pos {
		mean = mean.Add(q.Scale(1.0 / float64(len(pos))))
	}
	for v, q := range pos {
		sc.ref[v] = q.Sub(mean)
		sc.skin[v] = skinMin*h + 0.002
		if v < 3 {
			sc.ref[v].Y += 0.002
		}
	}
	sc.rebuild()
	var vt *vtPair
	for i := range sc.vt {
		if q := &sc.vt[i]; q.v == 3 && q.t == 0 {
			vt = q
		}
	}
	var ee *eePair
	a01, b34 := int32(-1), int32(-1)
	for i, e := range sc.edges {
		switch e {
		case [2]int32{0, 1}, [2]int32{1, 0}:
			a01 = int32(i)
		case [2]int32{3, 4}, [2]int32{4, 3}:
			b34 = int32(i)
		}
	}
	for i := range sc.ee {
		if q := &sc.ee[i]; q.e0 == min(a01, b34) && q.e1 == max(a01, b34) {
			ee = q
		}
	}
	if vt == nil || ee == nil {
		t.Fatalf("vertex 3 and triangle 0 listed: %v, edges 3-4 and 0-1 listed: %v; want both", vt != nil, ee != nil)
	}
	if vt.side != 1 {
		t.Errorf("vertex 3 remembers side %g of triangle 0, want +1 (above, where it starts)", vt.side)
	}
	// n points from edge e1 to edge e0: up if e0 is B's edge
	up := 1.0
	if ee.e0 == a01 {
		up = -1
	}
	if ee.n.Y*up < 0.99 {
		t.Errorf("edges 3-4 and 0-1 remember direction %v from edge %d to edge %d, want B's edge above A's", ee.n, ee.e1, ee.e0)
	}
	// B settles onto A, which lies on the ground
	minD := math.Inf(1)
	s := tc
	for k := range 12 {
		tc.frame(true)
		if k == 0 {
			continue // B starts 1 mm above A
		}
		for _, v := range tris[1] {
			minD = math.Min(minD, PointTriangleDist(s.pos[v], s.pos[0], s.pos[1], s.pos[2]))
		}
		minD = math.Min(minD, SegmentDist(s.pos[3], s.pos[4], s.pos[0], s.pos[1]))
		if below := s.pos[3].Y < (s.pos[0].Y+s.pos[1].Y+s.pos[2].Y)/3; below {
			t.Fatalf("frame %d: vertex 3 at y = %.2f mm, below triangle A (%.2f mm)", k, 1e3*s.pos[3].Y, 1e3*s.pos[0].Y)
		}
	}
	if minD < 0.5*h {
		t.Errorf("B came %.3f mm close to A, want >= %.2f mm (0.5 x thickness)", 1e3*minD, 0.5e3*h)
	}
	t.Logf("B's closest approach to A while settling: %.3f mm (thickness %.1f mm)", 1e3*minD, 1e3*h)
}
