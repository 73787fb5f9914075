package solver

import (
	"errors"
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// gridMesh returns an nx x ny vertex grid of size w x h in the XY plane (Y
// up, row 0 at the top, y = 0 .. -h), split into two triangles per quad.
func gridMesh(nx, ny int, w, h float64) ([]vec.Vec3, [][3]int32) {
	pos := make([]vec.Vec3, 0, nx*ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			pos = append(pos, vec.V(w*float64(i)/float64(nx-1), -h*float64(j)/float64(ny-1), 0))
		}
	}
	var tris [][3]int32
	for j := 0; j+1 < ny; j++ {
		for i := 0; i+1 < nx; i++ {
			a := int32(j*nx + i)
			b, c, d := a+1, a+int32(nx), a+int32(nx)+1
			tris = append(tris, [3]int32{a, c, b}, [3]int32{b, c, d})
		}
	}
	return pos, tris
}

func cubeMesh() ([]vec.Vec3, [][3]int32) {
	pos := []vec.Vec3{
		vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(1, 1, 0), vec.V(0, 1, 0),
		vec.V(0, 0, 1), vec.V(1, 0, 1), vec.V(1, 1, 1), vec.V(0, 1, 1),
	}
	tris := [][3]int32{
		{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7},
		{0, 1, 5}, {0, 5, 4}, {2, 3, 7}, {2, 7, 6},
		{1, 2, 6}, {1, 6, 5}, {0, 4, 7}, {0, 7, 3},
	}
	return pos, tris
}

func TestNewTopologyCounts(t *testing.T) {
	tetra := [][3]int32{{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}}
	_, cube := cubeMesh()
	_, grid := gridMesh(4, 3, 1, 1)
	fan := [][3]int32{{0, 1, 2}, {0, 1, 3}, {1, 0, 4}}
	twoPieces := [][3]int32{{0, 1, 2}, {3, 4, 5}, {4, 6, 5}}
	tests := []struct {
		name                              string
		nv                                int
		tris                              [][3]int32
		edges, boundary, nonManifold, pcs int
	}{
		{"quad", 4, [][3]int32{{0, 1, 2}, {0, 2, 3}}, 5, 4, 0, 1},
		{"tetrahedron", 4, tetra, 6, 0, 0, 1},
		{"cube", 8, cube, 18, 0, 0, 1},
		{"grid4x3", 12, grid, 3*3 + 4*2 + 6, 2*3 + 2*2, 0, 1},
		{"fan3", 5, fan, 7, 6, 1, 1},
		{"twoPieces", 8, twoPieces, 8, 7, 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := NewTopology(tc.nv, tc.tris)
			if err != nil {
				t.Fatalf("NewTopology(%s) error: %v", tc.name, err)
			}
			if len(tp.Edges) != tc.edges || tp.BoundaryEdges != tc.boundary || tp.NonManifoldEdges != tc.nonManifold || tp.Pieces != tc.pcs {
				t.Errorf("NewTopology(%s) edges, boundary, non-manifold, pieces = %d, %d, %d, %d, want %d, %d, %d, %d",
					tc.name, len(tp.Edges), tp.BoundaryEdges, tp.NonManifoldEdges, tp.Pieces, tc.edges, tc.boundary, tc.nonManifold, tc.pcs)
			}
			if len(tp.NonManifold) != tp.NonManifoldEdges {
				t.Errorf("NewTopology(%s) len(NonManifold) = %d, want %d", tc.name, len(tp.NonManifold), tp.NonManifoldEdges)
			}
			checkEdges(t, tc.name, tp)
		})
	}
}

// checkEdges verifies sorting, uniqueness and that Tri/Opp are consistent
// with the triangles.
func checkEdges(t *testing.T, name string, tp *Topology) {
	t.Helper()
	for i, e := range tp.Edges {
		if e.V[0] >= e.V[1] {
			t.Errorf("%s edge %d V = %v, want sorted pair", name, i, e.V)
		}
		if i > 0 {
			p := tp.Edges[i-1].V
			if p[0] > e.V[0] || (p[0] == e.V[0] && p[1] >= e.V[1]) {
				t.Errorf("%s edges %d, %d = %v, %v: not sorted and unique", name, i-1, i, p, e.V)
			}
		}
		if got := tp.EdgeID(e.V[1], e.V[0]); got != int32(i) {
			t.Errorf("%s EdgeID(%d, %d) = %d, want %d", name, e.V[1], e.V[0], got, i)
		}
		for k := 0; k < 2; k++ {
			if e.Tri[k] < 0 {
				if e.Opp[k] != -1 {
					t.Errorf("%s edge %d Opp[%d] = %d with no triangle, want -1", name, i, k, e.Opp[k])
				}
				continue
			}
			tri := tp.Tris[e.Tri[k]]
			has := func(v int32) bool { return tri[0] == v || tri[1] == v || tri[2] == v }
			if !has(e.V[0]) || !has(e.V[1]) || !has(e.Opp[k]) || e.Opp[k] == e.V[0] || e.Opp[k] == e.V[1] {
				t.Errorf("%s edge %d (%v) Tri[%d] = %d %v, Opp = %d: inconsistent", name, i, e.V, k, e.Tri[k], tri, e.Opp[k])
			}
		}
	}
}

func TestEulerCharacteristicClosed(t *testing.T) {
	tetra := [][3]int32{{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}}
	_, cube := cubeMesh()
	for _, tc := range []struct {
		name string
		nv   int
		tris [][3]int32
	}{{"tetrahedron", 4, tetra}, {"cube", 8, cube}} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := NewTopology(tc.nv, tc.tris)
			if err != nil {
				t.Fatal(err)
			}
			if chi := tp.NumVerts - len(tp.Edges) + len(tp.Tris); chi != 2 {
				t.Errorf("%s V - E + F = %d, want 2", tc.name, chi)
			}
			if tp.BoundaryEdges != 0 {
				t.Errorf("%s boundary edges = %d, want 0", tc.name, tp.BoundaryEdges)
			}
			for i, e := range tp.Edges {
				if !e.Interior() {
					t.Errorf("%s edge %d %v has no bending pair on a closed mesh", tc.name, i, e.V)
				}
			}
		})
	}
}

func TestNonManifoldFan(t *testing.T) {
	tp, err := NewTopology(5, [][3]int32{{0, 1, 2}, {0, 1, 3}, {1, 0, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.NonManifold) != 1 {
		t.Fatalf("fan NonManifold = %v, want one edge", tp.NonManifold)
	}
	e := tp.Edges[tp.NonManifold[0]]
	if e.V != [2]int32{0, 1} || e.Tri != [2]int32{0, -1} || e.Opp != [2]int32{2, -1} {
		t.Errorf("fan non-manifold edge = %+v, want V [0 1], Tri [0 -1], Opp [2 -1]", e)
	}
}

func TestPieces(t *testing.T) {
	// vertex 3 is unused; pieces are {0,1,2,7} joined via triangle 2 and {4,5,6}
	tp, err := NewTopology(8, [][3]int32{{4, 5, 6}, {0, 1, 2}, {2, 7, 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{0, 0, 0, -1, 1, 1, 1, 0}
	if tp.Pieces != 2 || !equalInt32(tp.Piece, want) {
		t.Errorf("Pieces, Piece = %d, %v, want 2, %v", tp.Pieces, tp.Piece, want)
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestNewTopologyErrors(t *testing.T) {
	tests := []struct {
		name  string
		nv    int
		tris  [][3]int32
		tri   int32
		count int
	}{
		{"outOfRange", 3, [][3]int32{{0, 1, 2}, {0, 1, 3}}, 1, 1},
		{"negative", 3, [][3]int32{{0, -1, 2}}, 0, 1},
		{"repeated", 4, [][3]int32{{0, 1, 2}, {1, 2, 3}, {3, 3, 1}, {0, 0, 0}}, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTopology(tc.nv, tc.tris)
			var te *TopologyError
			if !errors.As(err, &te) {
				t.Fatalf("NewTopology(%s) error = %v, want *TopologyError", tc.name, err)
			}
			if te.Tri != tc.tri || te.Count != tc.count {
				t.Errorf("NewTopology(%s) error tri, count = %d, %d, want %d, %d (%v)", tc.name, te.Tri, te.Count, tc.tri, tc.count, err)
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
	if _, err := NewTopology(-1, nil); err == nil {
		t.Errorf("NewTopology(-1, nil) error = nil, want an error")
	}
}

func TestVertexMasses(t *testing.T) {
	pos, tris := gridMesh(5, 4, 2, 1.5)
	const density = 0.2
	m := VertexMasses(pos, tris, density)
	sum := 0.0
	for _, x := range m {
		sum += x
	}
	if want := density * 2 * 1.5; math.Abs(sum-want) > 1e-12 {
		t.Errorf("sum of VertexMasses(grid 2 x 1.5 m, 0.2 kg/m²) = %g, want %g", sum, want)
	}
	// a corner vertex of a grid touches one triangle (0,c,b): area/3
	cell := (2.0 / 4) * (1.5 / 3) / 2
	if want := density * cell / 3; math.Abs(m[0]-want) > 1e-15 {
		t.Errorf("corner mass = %g, want %g", m[0], want)
	}
}
