package solver

import (
	"fmt"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// Edge is one unique edge of a triangle mesh.
type Edge struct {
	// V is the vertex pair, sorted so that V[0] < V[1].
	V [2]int32
	// Tri are the adjacent triangles in ascending order; Tri[1] is -1 on a
	// boundary edge and on a non-manifold edge (which has no bending pair).
	Tri [2]int32
	// Opp are the vertices of Tri[0] and Tri[1] opposite this edge, -1 where
	// Tri is -1.
	Opp [2]int32
}

// Interior reports whether the edge has two adjacent triangles, that is, a
// bending pair.
func (e Edge) Interior() bool { return e.Tri[1] >= 0 }

// Topology is the simulation topology of a welded triangle mesh: its unique
// edges with their adjacent triangles, boundary and non-manifold counts and
// connected pieces.
type Topology struct {
	// NumVerts is the number of vertices the triangles index.
	NumVerts int
	// Tris are the triangles, as given to NewTopology (not copied).
	Tris [][3]int32
	// Edges are the unique edges, sorted by V and unique.
	Edges []Edge
	// BoundaryEdges counts edges with exactly one adjacent triangle.
	BoundaryEdges int
	// NonManifoldEdges counts edges with more than two adjacent triangles.
	NonManifoldEdges int
	// NonManifold lists the ids (into Edges) of the non-manifold edges in
	// ascending order. Their stretch is kept, but they have no bending pair:
	// Tri[0] is the lowest adjacent triangle and Tri[1] is -1.
	NonManifold []int32
	// Pieces is the number of connected pieces (sets of triangles joined
	// through shared vertices).
	Pieces int
	// Piece gives each vertex its piece id in 0..Pieces-1, numbered in order
	// of each piece's lowest vertex; -1 for vertices no triangle uses.
	Piece []int32
}

// TopologyError reports triangles that cannot form a simulation mesh:
// vertex ids out of range or repeated within one triangle.
type TopologyError struct {
	// Tri is the first offending triangle id.
	Tri int32
	// Verts are the vertex ids of triangle Tri.
	Verts [3]int32
	// Count is the number of offending triangles.
	Count int
	// Msg says what is wrong with triangle Tri.
	Msg string
}

// Error implements error.
func (e *TopologyError) Error() string {
	s := fmt.Sprintf("triangle %d (vertices %d, %d, %d): %s", e.Tri, e.Verts[0], e.Verts[1], e.Verts[2], e.Msg)
	if e.Count > 1 {
		s += fmt.Sprintf(" (and %d more bad triangles)", e.Count-1)
	}
	return s
}

// halfEdge is one triangle side during edge construction.
type halfEdge struct {
	a, b int32 // sorted vertex pair
	tri  int32
	opp  int32
}

// NewTopology builds the topology of numVerts vertices joined by tris. The
// unique edges are found by sorting the 3·len(tris) half-edges by vertex
// pair (Müller, Ten Minute Physics). It returns a *TopologyError
// for a vertex id outside 0..numVerts-1 or a triangle that repeats a vertex.
func NewTopology(numVerts int, tris [][3]int32) (*Topology, error) {
	if numVerts < 0 || numVerts > math.MaxInt32 {
		return nil, fmt.Errorf("vertex count %d: must be in 0..%d", numVerts, math.MaxInt32)
	}
	if len(tris) > math.MaxInt32/3 {
		return nil, fmt.Errorf("triangle count %d: must be at most %d", len(tris), math.MaxInt32/3)
	}
	var bad *TopologyError
	for i, t := range tris {
		msg := ""
		for _, v := range t {
			if v < 0 || int(v) >= numVerts {
				msg = fmt.Sprintf("vertex %d out of range (%d vertices)", v, numVerts)
				break
			}
		}
		if msg == "" && (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
			msg = "repeated vertex"
		}
		if msg == "" {
			continue
		}
		if bad == nil {
			bad = &TopologyError{Tri: int32(i), Verts: t, Msg: msg}
		}
		bad.Count++
	}
	if bad != nil {
		return nil, bad
	}

	// collect and sort half-edges
	he := make([]halfEdge, 0, 3*len(tris))
	for i, t := range tris {
		for k := 0; k < 3; k++ {
			a, b, c := t[k], t[(k+1)%3], t[(k+2)%3]
			if a > b {
				a, b = b, a
			}
			he = append(he, halfEdge{a, b, int32(i), c})
		}
	}
	slices.SortFunc(he, func(x, y halfEdge) int {
		if x.a != y.a {
			return int(x.a) - int(y.a)
		}
		if x.b != y.b {
			return int(x.b) - int(y.b)
		}
		return int(x.tri) - int(y.tri)
	})

	// group runs of equal pairs into edges
	tp := &Topology{NumVerts: numVerts, Tris: tris}
	tp.Edges = make([]Edge, 0, len(he)/2+1)
	for i := 0; i < len(he); {
		j := i + 1
		for j < len(he) && he[j].a == he[i].a && he[j].b == he[i].b {
			j++
		}
		e := Edge{V: [2]int32{he[i].a, he[i].b}, Tri: [2]int32{he[i].tri, -1}, Opp: [2]int32{he[i].opp, -1}}
		switch n := j - i; {
		case n == 1:
			tp.BoundaryEdges++
		case n == 2:
			e.Tri[1], e.Opp[1] = he[i+1].tri, he[i+1].opp
		default:
			tp.NonManifoldEdges++
			tp.NonManifold = append(tp.NonManifold, int32(len(tp.Edges)))
		}
		tp.Edges = append(tp.Edges, e)
		i = j
	}

	// connected pieces by union-find over triangle corners
	pieces := newLowUnion(numVerts)
	used := make([]bool, numVerts)
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			used[t[k]] = true
		}
		pieces.union(t[0], t[1])
		pieces.union(t[0], t[2])
	}
	tp.Piece = make([]int32, numVerts)
	for v := range tp.Piece {
		tp.Piece[v] = -1
	}
	for v := 0; v < numVerts; v++ {
		if !used[v] {
			continue
		}
		r := pieces.find(int32(v))
		if int(r) == v {
			tp.Piece[v] = int32(tp.Pieces)
			tp.Pieces++
		} else {
			tp.Piece[v] = tp.Piece[r]
		}
	}
	return tp, nil
}

// EdgeID returns the id of the edge joining vertices a and b, or -1 if there
// is none. It searches the sorted edge list in O(log E).
func (tp *Topology) EdgeID(a, b int32) int32 {
	if a > b {
		a, b = b, a
	}
	i, ok := slices.BinarySearchFunc(tp.Edges, [2]int32{a, b}, func(e Edge, k [2]int32) int {
		if e.V[0] != k[0] {
			return int(e.V[0]) - int(k[0])
		}
		return int(e.V[1]) - int(k[1])
	})
	if !ok {
		return -1
	}
	return int32(i)
}

// TriangleArea returns the area of triangle t over pos [m²].
func TriangleArea(pos []vec.Vec3, t [3]int32) float64 {
	return 0.5 * pos[t[1]].Sub(pos[t[0]]).Cross(pos[t[2]].Sub(pos[t[0]])).Len()
}

// VertexMasses returns each vertex's lumped mass [kg]: a third of the area of
// every triangle it belongs to times the areal density [kg/m²]. tris must
// index pos (NewTopology checks this). Vertices in no triangle get mass 0.
func VertexMasses(pos []vec.Vec3, tris [][3]int32, density float64) []float64 {
	m := make([]float64, len(pos))
	for _, t := range tris {
		a := TriangleArea(pos, t) * density / 3
		m[t[0]] += a
		m[t[1]] += a
		m[t[2]] += a
	}
	return m
}

// lowUnion is a union-find over 0..n-1 whose roots are each set's lowest
// member, so that numbering sets by their roots follows the members'
// order.
type lowUnion []int32

func newLowUnion(n int) lowUnion {
	u := make(lowUnion, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

// find returns v's root, halving the path on the way.
func (u lowUnion) find(v int32) int32 {
	for u[v] != v {
		u[v] = u[u[v]]
		v = u[v]
	}
	return v
}

// union joins the sets of a and b under the lower of their roots.
func (u lowUnion) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	if ra > rb {
		ra, rb = rb, ra
	}
	u[rb] = ra
}
