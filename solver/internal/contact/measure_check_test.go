package contact

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// bruteIntersectingPairs compares every pair: the reference the grid must
// match.
func bruteIntersectingPairs(pos []vec.Vec3, tris [][3]int32) [][2]int32 {
	var out [][2]int32
	for i := range tris {
		for j := i + 1; j < len(tris); j++ {
			if !shareVertex(tris[i], tris[j]) && trianglesIntersect(pos, tris[i], tris[j]) {
				out = append(out, [2]int32{int32(i), int32(j)})
			}
		}
	}
	return out
}

// randomSoup returns n triangles of random size and place in the unit
// cube, a fifth of them sharing a vertex with an earlier one.
func randomSoup(r *rand.Rand, n int) ([]vec.Vec3, [][3]int32) {
	pos := make([]vec.Vec3, 3*n)
	tris := make([][3]int32, n)
	for i := range tris {
		c := vec.V(r.Float64(), r.Float64(), r.Float64())
		sz := 0.05 + 0.5*r.Float64()*r.Float64()*r.Float64()
		for k := range 3 {
			pos[3*i+k] = c.Add(vec.V(r.Float64()-0.5, r.Float64()-0.5, r.Float64()-0.5).Scale(sz))
		}
		tris[i] = [3]int32{int32(3 * i), int32(3*i + 1), int32(3*i + 2)}
		if i > 0 && r.Intn(5) == 0 {
			tris[i][0] = tris[r.Intn(i)][1]
		}
	}
	return pos, tris
}

func TestCheckIntersectionsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for trial := range 100 {
		pos, tris := randomSoup(r, 2+r.Intn(300))
		got, want := CheckIntersections(pos, tris), bruteIntersectingPairs(pos, tris)
		if !got.Complete || got.Duplicates != 0 || !slices.Equal(got.Pairs, want) {
			t.Fatalf("trial %d (%d triangles): %d pairs (complete %v, %d duplicates), brute force %d",
				trial, len(tris), len(got.Pairs), got.Complete, got.Duplicates, len(want))
		}
	}
}

// copies returns n triangles; the ith's corners are at(i, k).
func copies(n int, at func(i, k int) vec.Vec3) ([]vec.Vec3, [][3]int32) {
	pos := make([]vec.Vec3, 3*n)
	tris := make([][3]int32, n)
	for i := range tris {
		for k := range 3 {
			pos[3*i+k] = at(i, k)
		}
		tris[i] = [3]int32{int32(3 * i), int32(3*i + 1), int32(3*i + 2)}
	}
	return pos, tris
}

// Duplicate and crowded triangles are reported as such; the check's work
// is bounded by its budget (costPerTri), not by the number of pairs, so
// these finish in a fraction of a second where comparing every pair would
// take minutes.
func TestCheckIntersectionsDuplicatesAndCrowds(t *testing.T) {
	const n = 100000
	corner := [3]vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 0, 1)}
	pos, tris := copies(n, func(i, k int) vec.Vec3 { return corner[k] })
	c := CheckIntersections(pos, tris)
	if c.Duplicates != n-1 || c.FirstDuplicate != [2]int32{0, 1} || !c.Complete || len(c.Pairs) != 0 {
		t.Errorf("%d copies of one triangle: %d duplicates (first %v), complete %v, %d pairs; want %d, [0 1], true, 0",
			n, c.Duplicates, c.FirstDuplicate, c.Complete, len(c.Pairs), n-1)
	}
	// one triangle crossing the stack crosses it once, not n times
	pos = append(pos, vec.V(0.2, -1, 0.2), vec.V(0.3, 1, 0.2), vec.V(0.2, 1, 0.3))
	tris = append(tris, [3]int32{3 * n, 3*n + 1, 3*n + 2})
	if c := CheckIntersections(pos, tris); len(c.Pairs) != 1 || c.Pairs[0] != [2]int32{0, n} {
		t.Errorf("a triangle through the stack: pairs %v, want [[0 %d]]", c.Pairs, n)
	}
	// copies shifted a little, so that they truly cross: reported crowded
	pos, tris = copies(n, func(i, k int) vec.Vec3 {
		d := float64(i) * 1e-6
		return [3]vec.Vec3{vec.V(d, 0, 0), vec.V(1+d, 0, 0), vec.V(d, 1e-3*float64(i%7), 1)}[k]
	})
	c = CheckIntersections(pos, tris)
	if c.Complete || c.Crowded < 2 || len(c.Pairs) == 0 || len(c.Pairs) > 2*n+1000 {
		t.Errorf("%d crossing copies: complete %v, crowded %d, %d pairs; want incomplete, crowded, some pairs", n, c.Complete, c.Crowded, len(c.Pairs))
	}
}

// A sheet folded into layers (the densest cloth a heap makes: layers 2 mm
// apart, 8 to a grid cell) is checked completely, far within the budget.
func TestCheckIntersectionsLayeredClothComplete(t *testing.T) {
	const n, layers = 48, 12
	var pos []vec.Vec3
	var tris [][3]int32
	for l := range layers {
		base := int32(len(pos))
		for i := range n {
			for j := range n {
				pos = append(pos, vec.V(float64(j)/(n-1)+0.003*float64(l), 0.002*float64(l), float64(i)/(n-1)))
			}
		}
		for i := 0; i+1 < n; i++ {
			for j := 0; j+1 < n; j++ {
				a := base + int32(i*n+j)
				tris = append(tris, [3]int32{a, a + n, a + n + 1}, [3]int32{a, a + n + 1, a + 1})
			}
		}
	}
	c := CheckIntersections(pos, tris)
	perTri := c.work / len(tris)
	t.Logf("%d layers of %d triangles: %d box tests per triangle (budget %d)", layers, len(tris)/layers, perTri, costPerTri)
	if !c.Complete || len(c.Pairs) != 0 || perTri > costPerTri/4 {
		t.Errorf("layered cloth: complete %v, %d pairs, %d units per triangle; want complete, 0, within a quarter of the budget", c.Complete, len(c.Pairs), perTri)
	}
}
