package solver

import (
	"fmt"

	"github.com/drape-sim/drape/internal/vec"
)

// Sewing joins garment panels: Params.Seams pairs vertices of the panels'
// edges (a modeller's loose edges between them, Blender's sewing springs),
// and each pair's distance is held at most
//
//	L(t) = max(0, L0 - SewSpeed·t)
//
// with L0 the rest distance and t the time since the bake's first frame: a
// hard, pull-only XPBD distance constraint (like a tether; Kim, Chentanez,
// Müller 2012) whose length shrinks at SewSpeed, so the panels are drawn
// together at that speed however far apart they start, and stay joined
// once it reaches 0. The constraints are projected in seam order after the
// fabric's own each substep. Self-collision ignores the pairs a seam would
// otherwise keep a thickness apart: a vertex and the triangles at its seam
// partner, and edges joined by a seam.

// buildSeams checks Params.Seams and indexes each vertex's seam partners.
func (m *Model) buildSeams() error {
	p := &m.Params
	if len(p.Seams) == 0 {
		return nil
	}
	if p.Solver != SolverXPBD {
		return fmt.Errorf("%d seams: sewing works with the xpbd solver only (now %s)", len(p.Seams), p.Solver)
	}
	n := int32(len(m.Rest))
	m.seamRest = make([]float64, len(p.Seams))
	m.seamStart = make([]int32, n+1)
	for i, s := range p.Seams {
		if s[0] < 0 || s[0] >= n || s[1] < 0 || s[1] >= n || s[0] == s[1] {
			return fmt.Errorf("seam %d joins vertices %d and %d: want two different vertices in 0..%d", i, s[0], s[1], n-1)
		}
		m.seamRest[i] = m.Rest[s[0]].Sub(m.Rest[s[1]]).Len()
		m.seamStart[s[0]+1]++
		m.seamStart[s[1]+1]++
	}
	for v := range n {
		m.seamStart[v+1] += m.seamStart[v]
	}
	m.seamAdj = make([]int32, m.seamStart[n])
	fill := append([]int32(nil), m.seamStart[:n]...)
	for _, s := range p.Seams {
		m.seamAdj[fill[s[0]]] = s[1]
		fill[s[0]]++
		m.seamAdj[fill[s[1]]] = s[0]
		fill[s[1]]++
	}
	return nil
}

// sewn reports whether a seam joins vertices a and b.
func (m *Model) sewn(a, b int32) bool {
	for _, u := range m.seamAdj[m.seamStart[a]:m.seamStart[a+1]] {
		if u == b {
			return true
		}
	}
	return false
}

// sewnToAny reports whether a seam joins vertex a to one of vs.
func (m *Model) sewnToAny(a int32, vs ...int32) bool {
	if m.seamAdj == nil || m.seamStart[a] == m.seamStart[a+1] {
		return false
	}
	for _, v := range vs {
		if m.sewn(a, v) {
			return true
		}
	}
	return false
}

// projectSeams projects every seam once at time t [s] (see above) with
// the inverse masses w.
func (m *Model) projectSeams(pos []vec.Vec3, w []float64, t float64) {
	speed := m.Params.SewSpeed
	for i, s := range m.Params.Seams {
		a, b := s[0], s[1]
		wa, wb := w[a], w[b]
		if wa+wb == 0 {
			continue
		}
		l := max(0, m.seamRest[i]-speed*t)
		d := pos[a].Sub(pos[b])
		dl := d.Len()
		if dl <= l || dl < 1e-12 {
			continue // pull only
		}
		// C = |d| - l, ∇_a C = d/|d|: move by -C·w/(wa+wb) along it
		k := (dl - l) / (dl * (wa + wb))
		pos[a] = pos[a].AddScaled(d, -wa*k)
		pos[b] = pos[b].AddScaled(d, wb*k)
	}
}

// SeamGap returns the largest distance [m] between two vertices a seam
// joins, at positions x (0 without seams).
func (m *Model) SeamGap(x []vec.Vec3) float64 {
	g := 0.0
	for _, s := range m.Params.Seams {
		g = max(g, x[s[0]].Sub(x[s[1]]).Len())
	}
	return g
}

// SewnTriangles returns the triangles with each sewn vertex replaced by
// the lowest vertex its seams join it to (through any chain of seams), so
// that triangles meeting at a closed seam count as neighbours, not as
// crossing, where self-intersections are measured. Without seams it
// returns the model's triangles.
func (m *Model) SewnTriangles() [][3]int32 {
	if len(m.Params.Seams) == 0 {
		return m.Topo.Tris
	}
	u := newLowUnion(len(m.Rest))
	for _, s := range m.Params.Seams {
		u.union(s[0], s[1])
	}
	out := make([][3]int32, len(m.Topo.Tris))
	for i, t := range m.Topo.Tris {
		out[i] = [3]int32{u.find(t[0]), u.find(t[1]), u.find(t[2])}
	}
	return out
}
