package solver

import (
	"math"
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// No stretch limit runs through a vertex with more than limitScanDegree
// edges (a hub: a huge polygon fan-split), so building the limits stays
// linear in the edges; on a grid, limits run straight through ordinary
// vertices as before.
func TestLimitsSkipHubVertices(t *testing.T) {
	const n = 31
	var pos []vec.Vec3
	var tris [][3]int32
	for i := range n {
		for j := range n {
			pos = append(pos, vec.V(float64(j)/(n-1), 0, float64(i)/(n-1)))
		}
	}
	for i := 0; i+1 < n; i++ {
		for j := 0; j+1 < n; j++ {
			a := int32(i*n + j)
			tris = append(tris, [3]int32{a, a + n, a + n + 1}, [3]int32{a, a + n + 1, a + 1})
		}
	}
	center := int32(n/2*n + n/2)
	// through: inside a limit's path, not at its ends
	hasCenter := func(m *Model) bool {
		lb := newLimits(m)
		b := &lb
		for i := 0; i+1 < len(b.off); i++ {
			if p := b.path[b.off[i]:b.off[i+1]]; len(p) > 2 && slices.Contains(p[1:len(p)-1], center) {
				return true
			}
		}
		return false
	}
	m, err := NewModel(pos, tris, nil, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if !hasCenter(m) {
		t.Fatalf("no limit runs through the grid's centre vertex")
	}
	// a fan of 300 triangles above the centre makes it a hub
	c := pos[center]
	first := int32(len(pos))
	for k := range 301 {
		a := 2 * math.Pi * float64(k) / 300
		pos = append(pos, c.Add(vec.V(0.01*math.Cos(a), 0.01, 0.01*math.Sin(a))))
	}
	for k := range int32(300) {
		tris = append(tris, [3]int32{center, first + k, first + k + 1})
	}
	m, err = NewModel(pos, tris, nil, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if hasCenter(m) {
		t.Errorf("a limit runs through the hub vertex of degree %d", 4+301)
	}
}
