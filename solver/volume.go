package solver

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Closed pieces of cloth can hold a volume: a pillow that keeps its loft, a
// balloon. With Params.Volume > 0 each closed piece gets one XPBD
// constraint (Müller et al. 2007, "Position Based Dynamics", §4.4:
// closed meshes with overpressure)
//
//	C(x) = V(x) - Volume·V0,  V(x) = 1/6 Σ x_a · (x_b × x_c)
//
// over the piece's triangles (a, b, c) in their winding order (the
// divergence theorem), with V0 the rest volume and gradient
// ∇_a V = 1/6 Σ x_b × x_c over the triangles at a. It is hard (no
// compliance): the fabric stretches as far as the volume needs, so a
// Volume above 1 inflates the piece against its stretch stiffness, as air
// pumped into it would, and Volume 1 keeps a pillow from going flat. The
// target moves from V0 to Volume·V0 over the first volumeRamp seconds. A
// piece wound inwards has a negative signed volume; its sign is kept.

// volumePiece is one closed piece's volume constraint.
type volumePiece struct {
	tris  []int32 // its triangles
	verts []int32 // its vertices
	sign  float64 // +1 if wound outwards, -1 if inwards
	rest  float64 // |V0|, the rest volume [m³]
}

// buildVolumes finds the closed pieces and their rest volumes when
// Params.Volume is set. A closed piece must be wound consistently (each
// interior edge traversed in opposite directions by its two triangles)
// and enclose a volume; a cloth without a closed piece cannot hold one.
func (m *Model) buildVolumes() error {
	p := &m.Params
	if p.Volume == 0 {
		return nil
	}
	tp := m.Topo
	closed := make([]bool, tp.Pieces)
	for i := range closed {
		closed[i] = true
	}
	for _, e := range tp.Edges {
		if !e.Interior() {
			closed[tp.Piece[e.V[0]]] = false
		}
	}
	for _, e := range tp.Edges {
		if pc := tp.Piece[e.V[0]]; closed[pc] && forward(tp.Tris[e.Tri[0]], e.V) == forward(tp.Tris[e.Tri[1]], e.V) {
			return fmt.Errorf("volume = %g: piece %d is closed but not wound consistently (triangles %d and %d run the same way along edge %d-%d): recalculate its normals outside in the modeller",
				p.Volume, pc, e.Tri[0], e.Tri[1], e.V[0], e.V[1])
		}
	}
	m.volumes = nil
	byPiece := make([]int, tp.Pieces)
	for i := range byPiece {
		byPiece[i] = -1
	}
	for t, tr := range tp.Tris {
		pc := tp.Piece[tr[0]]
		if !closed[pc] {
			continue
		}
		if byPiece[pc] < 0 {
			byPiece[pc] = len(m.volumes)
			m.volumes = append(m.volumes, volumePiece{})
		}
		vp := &m.volumes[byPiece[pc]]
		vp.tris = append(vp.tris, int32(t))
	}
	if len(m.volumes) == 0 {
		return fmt.Errorf("volume = %g: the cloth has no closed piece to hold a volume (every piece has a boundary; drape inspect lists them)", p.Volume)
	}
	for v, pc := range tp.Piece {
		if pc >= 0 && closed[pc] {
			vp := &m.volumes[byPiece[pc]]
			vp.verts = append(vp.verts, int32(v))
		}
	}
	for i := range m.volumes {
		vp := &m.volumes[i]
		v0 := signedVolume(m.Rest, tp.Tris, vp.tris)
		// a volume below a millionth of the piece's bounding cube is flat
		lo, hi := m.Rest[vp.verts[0]], m.Rest[vp.verts[0]]
		for _, v := range vp.verts {
			lo, hi = lo.Min(m.Rest[v]), hi.Max(m.Rest[v])
		}
		d := hi.Sub(lo)
		if s := max(d.X, d.Y, d.Z); math.Abs(v0) <= 1e-6*s*s*s {
			return fmt.Errorf("volume = %g: piece %d (from vertex %d) encloses no volume at rest (%.3g m³): it is flat", p.Volume, tp.Piece[vp.verts[0]], vp.verts[0], v0)
		}
		vp.sign = 1
		if v0 < 0 {
			vp.sign = -1
		}
		vp.rest = math.Abs(v0)
	}
	return nil
}

// forward reports whether triangle t runs from e[0] to e[1] (they are two
// of its corners).
func forward(t [3]int32, e [2]int32) bool {
	for i := range 3 {
		if t[i] == e[0] {
			return t[(i+1)%3] == e[1]
		}
	}
	return false
}

// signedVolume returns the signed volume [m³] the triangles tris of a
// closed surface enclose at positions x (positive when wound outwards).
func signedVolume(x []vec.Vec3, all [][3]int32, tris []int32) float64 {
	v := 0.0
	for _, t := range tris {
		tr := all[t]
		v += x[tr[0]].Dot(x[tr[1]].Cross(x[tr[2]]))
	}
	return v / 6
}

// ClosedVolumes returns, for every closed piece the model holds a volume
// for (Params.Volume), its volume at positions x relative to its rest
// volume, in piece order; nil without Volume.
func (m *Model) ClosedVolumes(x []vec.Vec3) []float64 {
	var r []float64
	for i := range m.volumes {
		vp := &m.volumes[i]
		r = append(r, vp.sign*signedVolume(x, m.Topo.Tris, vp.tris)/vp.rest)
	}
	return r
}

// volumeRamp is how long [s] a piece takes to reach its target volume
// from its rest volume: a balloon is blown up over the first half second
// rather than thrown open in the first substep. (An inflated piece of
// lightly damped cloth keeps wobbling about its target shape for a while
// either way: a 0.2 m cotton ball at volume 1.2 still has edges between
// -12 % and +31 % strain after 2 s without gravity, around the 6 % a
// uniform inflation gives.)
const volumeRamp = 0.5

// projectVolumes projects every closed piece's volume constraint once at
// time t [s] since the first frame, on the calling goroutine (sums in
// triangle order: deterministic) with the inverse masses w. grad is
// per-vertex scratch.
func (m *Model) projectVolumes(pos []vec.Vec3, w []float64, grad []vec.Vec3, t float64) {
	tris := m.Topo.Tris
	ramp := min(1, t/volumeRamp)
	for i := range m.volumes {
		vp := &m.volumes[i]
		target := vp.rest * (1 + (m.Params.Volume-1)*ramp)
		// C and ∇C (6·∇V, scaled below)
		for _, v := range vp.verts {
			grad[v] = vec.Vec3{}
		}
		vol := 0.0
		for _, t := range vp.tris {
			tr := tris[t]
			a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
			vol += a.Dot(b.Cross(c))
			grad[tr[0]] = grad[tr[0]].Add(b.Cross(c))
			grad[tr[1]] = grad[tr[1]].Add(c.Cross(a))
			grad[tr[2]] = grad[tr[2]].Add(a.Cross(b))
		}
		s := vp.sign / 6
		cv := s*vol - target
		den := 0.0
		for _, v := range vp.verts {
			den += w[v] * grad[v].LenSq()
		}
		den *= s * s
		if !(den > 1e-300) {
			continue
		}
		// Δλ = -C / Σ w|∇C|², x += w·Δλ·∇C
		dl := -cv / den * s
		for _, v := range vp.verts {
			if w[v] != 0 {
				pos[v] = pos[v].AddScaled(grad[v], w[v]*dl)
			}
		}
	}
}
