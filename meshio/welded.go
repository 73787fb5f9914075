package meshio

import "github.com/drape-sim/drape/internal/vec"

// Welded is the simulation topology of a Mesh: one vertex per physical point,
// triangles over those vertices, and the maps between render and simulation
// vertices. Render vertices are numbered over all primitives in order
// (primitive 0's vertices first).
type Welded struct {
	// Positions are the simulation vertices [m], in order of first
	// appearance among the render vertices.
	Positions []vec.Vec3
	// Triangles index Positions; degenerate triangles are dropped.
	Triangles [][3]int32
	// TriangleSource gives, for each of Triangles, its render triangle number
	// over all primitives in order.
	TriangleSource []int32
	// RenderToSim maps every render vertex to its simulation vertex.
	RenderToSim []int32
	// PrimitiveStart[i] is the first render vertex number of primitive i;
	// the last entry is the total number of render vertices.
	PrimitiveStart []int32
	// LineEnds gives, for each of the mesh's LineSegments, the simulation
	// vertices at its two ends: the lowest within the weld tolerance, -1
	// where there is none.
	LineEnds [][2]int32
	// Degenerate counts triangles dropped because two of their corners welded
	// together or their area is zero.
	Degenerate int
	// Tolerance is the absolute weld distance used [m].
	Tolerance float64
}

// Scatter writes the simulation positions sim onto every render vertex:
// dst[r] = sim[RenderToSim[r]]. dst must have len(RenderToSim) entries.
func (w *Welded) Scatter(dst, sim []vec.Vec3) {
	for r, s := range w.RenderToSim {
		dst[r] = sim[s]
	}
}

// Gather writes each simulation vertex's position from render positions:
// dst[s] = render[r] for the first render vertex r of s (the one whose
// position Weld kept). dst must have len(Positions) entries.
func (w *Welded) Gather(dst, render []vec.Vec3) {
	for r := len(w.RenderToSim) - 1; r >= 0; r-- {
		dst[w.RenderToSim[r]] = render[r]
	}
}
