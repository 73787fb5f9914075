package meshio

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// WeldOptions controls Weld.
type WeldOptions struct {
	// Tolerance is the weld distance relative to the diagonal of the mesh's
	// bounding box: render vertices closer than Tolerance * diagonal become
	// one simulation vertex. 0 welds exactly equal positions only. Default
	// 1e-6; must be in [0, 0.01].
	Tolerance float64
}

// DefaultWeldOptions returns a relative tolerance of 1e-6.
func DefaultWeldOptions() WeldOptions { return WeldOptions{Tolerance: 1e-6} }

// Validate reports a tolerance out of range.
func (o WeldOptions) Validate() error {
	if !(o.Tolerance >= 0 && o.Tolerance <= 0.01) {
		return fmt.Errorf("weld tolerance = %g: must be in [0, 0.01] (relative to the bounding-box diagonal)", o.Tolerance)
	}
	return nil
}

// minCellRel bounds the grid cell size relative to the diagonal so that cell
// coordinates fit in int32.
const minCellRel = 1e-9

// Weld merges the render vertices of m that lie within the tolerance of
// each other into simulation vertices and maps the triangles onto them.
//
// The rule: render vertices are visited in order (primitive 0 first); each
// joins the lowest-numbered simulation vertex whose position (that of its
// first render vertex) lies within the absolute tolerance, or starts a new
// one. Simulation vertices are therefore numbered in order of first
// appearance, and the result does not depend on anything but the input.
// Welding is purely positional: two pieces that touch at a point (or along
// an edge) share those vertices and become one connected piece; pieces stay
// separate only where their positions differ by more than the tolerance.
//
// Triangles whose corners weld together, or whose area is zero, are
// dropped and counted in Degenerate. A mesh with no triangle left is an
// error wrapping ErrNoGeometry.
func Weld(m *Mesh, opt WeldOptions) (*Welded, error) {
	if err := opt.Validate(); err != nil {
		return nil, &ParseError{Path: m.Path, Place: "weld options", Msg: err.Error()}
	}
	nv := m.NumVertices()
	w := &Welded{
		RenderToSim:    make([]int32, nv),
		PrimitiveStart: make([]int32, 0, len(m.Primitives)+1),
	}
	lo, hi := m.Bounds()
	diag := hi.Sub(lo).Len()
	if !(diag < math.Inf(1)) {
		return nil, &ParseError{Path: m.Path, Msg: "mesh has non-finite coordinates"}
	}
	tol := opt.Tolerance * diag
	w.Tolerance = tol
	// Cells are 8 tolerances wide, so a point needs to look into a
	// neighbouring cell only along an axis where it lies within tol of the
	// cell's side: usually it looks into its own cell alone.
	cell := math.Max(8*tol, minCellRel*diag)
	if cell == 0 {
		cell = 1
	}
	inv := 1 / cell
	tolSq := tol * tol
	exact := tol == 0
	edge := tol * inv // tolerance as a fraction of a cell
	// shift the grid off the bounding box so that flat sheets and boxes do
	// not lie exactly on cell sides
	lo = lo.Sub(vec.Vec3{X: 0.318309886 * cell, Y: 0.367879441 * cell, Z: 0.2718281828 * cell})

	g := newWeldGrid(nv)
	w.Positions = make([]vec.Vec3, 0, nv)
	next := make([]int32, 0, nv) // next sim vertex in the same cell, -1 at the end
	// find returns q's cell and the lowest simulation vertex within the
	// tolerance of q (-1: none)
	find := func(q vec.Vec3) (weldCell, int32) {
		fx, fy, fz := (q.X-lo.X)*inv, (q.Y-lo.Y)*inv, (q.Z-lo.Z)*inv
		c := weldCell{int32(fx), int32(fy), int32(fz)}
		best := int32(-1)
		if exact {
			for s := g.get(c); s >= 0; s = next[s] {
				if w.Positions[s] == q {
					return c, s
				}
			}
			return c, -1
		}
		dx, dy, dz := nearSide(fx, edge), nearSide(fy, edge), nearSide(fz, edge)
		for k := 0; k < 8; k++ {
			n := c
			if k&1 != 0 {
				if dx == 0 {
					continue
				}
				n.x += dx
			}
			if k&2 != 0 {
				if dy == 0 {
					continue
				}
				n.y += dy
			}
			if k&4 != 0 {
				if dz == 0 {
					continue
				}
				n.z += dz
			}
			for s := g.get(n); s >= 0; s = next[s] {
				if (best < 0 || s < best) && w.Positions[s].Sub(q).LenSq() <= tolSq {
					best = s
				}
			}
		}
		return c, best
	}
	r := 0
	for pi := range m.Primitives {
		w.PrimitiveStart = append(w.PrimitiveStart, int32(r))
		for _, q := range m.Primitives[pi].Positions {
			c, best := find(q)
			if best < 0 {
				best = int32(len(w.Positions))
				w.Positions = append(w.Positions, q)
				next = append(next, g.insert(c, best))
			}
			w.RenderToSim[r] = best
			r++
		}
	}
	// the ends of loose edges given by position land on the vertex there
	if len(m.LineSegments) > 0 {
		w.LineEnds = make([][2]int32, len(m.LineSegments))
		for i, l := range m.LineSegments {
			_, a := find(l[0])
			_, b := find(l[1])
			w.LineEnds[i] = [2]int32{a, b}
		}
	}
	w.PrimitiveStart = append(w.PrimitiveStart, int32(r))

	// triangles
	nt := m.NumTriangles()
	w.Triangles = make([][3]int32, 0, nt)
	w.TriangleSource = make([]int32, 0, nt)
	areaEps := 1e-12 * diag * diag
	ti := int32(0)
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		base := w.PrimitiveStart[pi]
		nv := int32(len(p.Positions))
		for t := 0; t+2 < len(p.Indices); t += 3 {
			i0, i1, i2 := p.Indices[t], p.Indices[t+1], p.Indices[t+2]
			if i0 < 0 || i1 < 0 || i2 < 0 || i0 >= nv || i1 >= nv || i2 >= nv {
				return nil, &ParseError{Path: m.Path, Place: p.Name, Msg: fmt.Sprintf("triangle %d has an index out of range (%d vertices)", t/3, nv)}
			}
			a, b, c := w.RenderToSim[base+i0], w.RenderToSim[base+i1], w.RenderToSim[base+i2]
			if a == b || b == c || a == c {
				w.Degenerate++
			} else {
				pa := w.Positions[a]
				if w.Positions[b].Sub(pa).Cross(w.Positions[c].Sub(pa)).Len() <= areaEps {
					w.Degenerate++
				} else {
					w.Triangles = append(w.Triangles, [3]int32{a, b, c})
					w.TriangleSource = append(w.TriangleSource, ti)
				}
			}
			ti++
		}
	}
	if len(w.Triangles) == 0 {
		return nil, &ParseError{Path: m.Path, Msg: fmt.Sprintf("no usable triangles: all %d are degenerate (zero area or corners welded together)", w.Degenerate), Err: ErrNoGeometry}
	}
	return w, nil
}

// nearSide returns -1 or +1 when the point with grid coordinate f lies within
// edge (a fraction of a cell) of its cell's lower or upper side, else 0.
func nearSide(f, edge float64) int32 {
	frac := f - math.Floor(f)
	switch {
	case frac <= edge:
		return -1
	case 1-frac <= edge:
		return 1
	}
	return 0
}

// weldCell is a grid cell's integer coordinates.
type weldCell struct{ x, y, z int32 }

// weldGrid maps occupied cells to the last simulation vertex inserted in
// them: an open-addressing hash table with linear probing, much faster than
// a Go map for this.
type weldGrid struct {
	keys  []weldCell
	heads []int32 // -1 = empty slot
	mask  uint64
}

func newWeldGrid(n int) *weldGrid {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	g := &weldGrid{keys: make([]weldCell, size), heads: make([]int32, size), mask: uint64(size - 1)}
	for i := range g.heads {
		g.heads[i] = -1
	}
	return g
}

func (g *weldGrid) slot(c weldCell) uint64 {
	h := uint64(uint32(c.x))*0x9E3779B185EBCA87 + uint64(uint32(c.y))*0xC2B2AE3D27D4EB4F + uint64(uint32(c.z))*0x165667B19E3779F9
	h ^= h >> 32
	h *= 0xD6E8FEB86659FD93
	h ^= h >> 32
	return h & g.mask
}

// get returns the head of cell c's list, or -1.
func (g *weldGrid) get(c weldCell) int32 {
	for i := g.slot(c); ; i = (i + 1) & g.mask {
		if g.heads[i] < 0 {
			return -1
		}
		if g.keys[i] == c {
			return g.heads[i]
		}
	}
}

// insert makes s the head of cell c's list and returns the previous head
// (-1 if none). The table never fills: it has twice as many slots as there
// are render vertices.
func (g *weldGrid) insert(c weldCell, s int32) int32 {
	for i := g.slot(c); ; i = (i + 1) & g.mask {
		if g.heads[i] < 0 {
			g.keys[i], g.heads[i] = c, s
			return -1
		}
		if g.keys[i] == c {
			old := g.heads[i]
			g.heads[i] = s
			return old
		}
	}
}
