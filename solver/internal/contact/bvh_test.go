package contact

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/solver/internal/pool"

	"github.com/drape-sim/drape/internal/vec"
)

// treePairs builds the self-collision tree of tris at rest positions rest,
// refits it at pos (start and current positions both pos, no allowances)
// and returns the leaf pairs its traversal visits.
func treePairs(t *testing.T, rest, pos []vec.Vec3, tris [][3]int32, pad float64) (*triTree, map[[2]int32]bool) {
	t.Helper()
	m := testMesh(rest, tris)
	tt := newTriTree(rest, &m)
	p := pool.New(1)
	defer p.Close()
	tt.refit(pos, pos, make([]float64, len(pos)), pad, p)
	seen := map[[2]int32]bool{}
	tt.self(0, func(a, b int32) { seen[[2]int32{min(a, b), max(a, b)}] = true })
	return tt, seen
}

// TestTriTreeCullsFlatCloth: a flat or gently curved cloth cannot touch
// itself, and the traversal must visit no leaf pair at all.
func TestTriTreeCullsFlatCloth(t *testing.T) {
	rest, tris := flatCloth(32, 1, 0, 0, 0)
	bent := make([]vec.Vec3, len(rest))
	for i, p := range rest {
		// a cylinder of radius 1 m: normals within 30 degrees of up
		a := p.X
		bent[i] = vec.V(math.Sin(a), math.Cos(a)-1, p.Z)
	}
	for name, pos := range map[string][]vec.Vec3{"flat": rest, "bent": bent} {
		if _, seen := treePairs(t, rest, pos, tris, 0.003); len(seen) != 0 {
			t.Errorf("%s cloth: %d leaf pairs visited, want 0 (culled)", name, len(seen))
		}
	}
}

// TestTriTreeFindsFoldedPairs folds a cloth in two, 2 mm between the
// layers: every vertex-triangle pair closer than the search distance
// (found by brute force) must be visited as the leaf pair of the vertex's
// owning triangle and the triangle, so self-collision sees it.
func TestTriTreeFindsFoldedPairs(t *testing.T) {
	rest, tris := flatCloth(24, 1, 0, 0, 0)
	const gap, pad = 0.002, 0.003
	fold := make([]vec.Vec3, len(rest))
	for i, p := range rest {
		if p.X <= 0 {
			fold[i] = p
			continue
		}
		// the half with x > 0 turns over a half-cylinder of radius gap/2
		// onto the other half
		r := gap / 2
		if s := p.X; s < math.Pi*r {
			a := s / r
			fold[i] = vec.V(r*math.Sin(a), r-r*math.Cos(a), p.Z)
		} else {
			fold[i] = vec.V(-(s - math.Pi*r), gap, p.Z)
		}
	}
	tt, seen := treePairs(t, rest, fold, tris, pad)
	if len(seen) == 0 {
		t.Fatal("folded cloth: no leaf pair visited")
	}
	missed, close := 0, 0
	for v := range fold {
		for ti, tri := range tris {
			if tri[0] == int32(v) || tri[1] == int32(v) || tri[2] == int32(v) {
				continue
			}
			if PointTriangleDist(fold[v], fold[tri[0]], fold[tri[1]], fold[tri[2]]) >= gap*1.01 {
				continue
			}
			// across the layers only: the pair is at least 4 cm apart
			// in the rest mesh
			if PointTriangleDist(rest[v], rest[tri[0]], rest[tri[1]], rest[tri[2]]) < 0.04 {
				continue
			}
			close++
			own := tt.vOwn[v]
			if own != int32(ti) && !seen[[2]int32{min(own, int32(ti)), max(own, int32(ti))}] {
				missed++
			}
		}
	}
	if close == 0 {
		t.Fatal("no close pairs across the fold: the scene does not test the tree")
	}
	if missed > 0 {
		t.Errorf("%d of %d vertex-triangle pairs across the fold not visited", missed, close)
	}
	t.Logf("%d leaf pairs visited, %d close pairs across the fold, all found", len(seen), close)
}

// TestFlatFan checks the fan cull on one closed fan around vertex 0: flat
// and gently domed fans are flat; a fan folded up past the cull cone, and
// a pleated fan whose projection winds twice around the vertex (every
// triangle facing up, but two layers over each other), are not; nor is
// the fan of a vertex on the cloth's border.
func TestFlatFan(t *testing.T) {
	// a fan of k triangles whose ring vertex i is at angle step·i, radius
	// 1, height z(i)
	fan := func(k int, step float64, z func(i int) float64) ([]vec.Vec3, [][3]int32) {
		pos := []vec.Vec3{{}}
		var tris [][3]int32
		for i := range k {
			a := step * float64(i)
			pos = append(pos, vec.V(math.Cos(a), z(i), -math.Sin(a)))
			tris = append(tris, [3]int32{0, int32(1 + i), int32(1 + (i+1)%k)})
		}
		return pos, tris
	}
	flat := func(int) float64 { return 0 }
	cases := []struct {
		name string
		k    int
		step float64
		z    func(i int) float64
		want bool
	}{
		{"flat", 6, math.Pi / 3, flat, true},
		{"domed", 8, math.Pi / 4, func(int) float64 { return -0.2 }, true},
		{"folded", 6, math.Pi / 3, func(i int) float64 {
			if i == 2 || i == 3 {
				return 2 // two ring vertices lifted far above the rest
			}
			return 0
		}, false},
		{"pleated twice round", 12, math.Pi / 3, func(i int) float64 { return 0.01 * float64(i) }, false},
	}
	for _, c := range cases {
		pos, tris := fan(c.k, c.step, c.z)
		tt, _ := treePairs(t, pos, pos, tris, 0.003)
		if !tt.fan[0] {
			t.Fatalf("%s: vertex 0's triangles are not a closed fan", c.name)
		}
		// (refit skips fans a flat node holds, as the flat ones here)
		if got := tt.flatFan(0, pos, tris); got != c.want {
			t.Errorf("%s: flatFan = %v, want %v", c.name, got, c.want)
		}
	}
	// a border vertex has no closed fan
	pos, tris := flatCloth(4, 1, 0, 0, 0)
	tt, _ := treePairs(t, pos, pos, tris, 0.003)
	if tt.fan[0] || tt.ringFlat[0] {
		t.Errorf("corner vertex: fan %v, ringFlat %v, want neither", tt.fan[0], tt.ringFlat[0])
	}
}
