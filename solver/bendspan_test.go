package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// spans returns the spans the integrator of m gives its hinges at fps
// frames per second, and how many hinges take each.
func spans(m *Model, fps float64) map[int]int {
	x := NewXPBD(m)
	n := m.Params.Substeps
	x.bendClasses(1/(fps*float64(n)), n)
	h := map[int]int{}
	for _, c := range x.bendCls {
		h[int(c)]++
	}
	return h
}

// TestBendingSpans checks the multiple time step of soft bending (see
// bendClasses) against projecting every hinge in every substep
// (Params.BendingInterval = 1): a swinging cloth follows the same path
// while its motion is still smooth, a cantilever strip sags as far, and a
// stiff hinge keeps span 1.
func TestBendingSpans(t *testing.T) {
	// a 24 x 24 cloth 1 m wide, pinned along its top edge and tilted, that
	// swings down for 0.5 s: at the default 15 substeps its cotton hinges
	// take span 5
	pos, tris := gridMesh(24, 24, 1, 1)
	for i := range pos {
		pos[i].Z = -0.5 * pos[i].Y
		pos[i].Y *= 0.8
	}
	run := func(interval int) ([]vec.Vec3, map[int]int) {
		p := DefaultParams()
		p.BendingInterval = interval
		m := newModel(t, pos, tris, topPins(24), p)
		s := NewState(m)
		simulate(t, m, s, 12, 24, nil)
		return s.Pos, spans(m, 24)
	}
	one, h1 := run(1)
	auto, h := run(0)
	if h1[1] == 0 || len(h1) != 1 || h[5] == 0 {
		t.Fatalf("spans: %v with BendingInterval 1 (want all 1), %v by default (want 5)", h1, h)
	}
	moved, apart := 0.0, 0.0
	for i := range one {
		moved = math.Max(moved, one[i].Sub(pos[i]).Len())
		apart = math.Max(apart, one[i].Sub(auto[i]).Len())
	}
	t.Logf("swinging cloth after 0.5 s: moved up to %.3f m, spans %v apart from span 1 by up to %.2g m", moved, h, apart)
	if moved < 0.2 || apart > 2e-4*moved {
		t.Errorf("swinging cloth after 0.5 s: moved %.3f m, spans %v %.3g m from span 1: want over 0.2 m and under 0.02 %% of it", moved, h, apart)
	}

	// the cantilever strip of TestCantileverDeflection: at 180 substeps
	// per frame its stiffest hinge at 1e-5 N·m spans 4 substeps, at 1e-4
	// N·m (W·dt²/α = 0.47) span 1
	for _, tc := range []struct {
		bend float64
		span int
	}{{1e-5, 4}, {1e-4, 1}} {
		nx := 21
		ny := (nx-1)/5 + 1
		pos, tris := gridMesh(nx, ny, 0.2, 0.04)
		var pins []Pin
		for i := range pos {
			pos[i] = vec.V(pos[i].X, 0, pos[i].Y)
			if pos[i].X <= 0.01+1e-9 {
				pins = append(pins, Pin{Vertex: int32(i), Stiffness: 1})
			}
		}
		tip := func(interval int) (float64, map[int]int) {
			p := DefaultParams()
			p.BendingStiffness = tc.bend
			p.Gravity = vec.V(0, -0.0981, 0)
			p.AirDrag, p.Damping, p.Substeps = 0, 1, 180
			p.BendingInterval = interval
			m := newModel(t, pos, tris, pins, p)
			s := NewState(m)
			simulate(t, m, s, 144, 24, nil)
			y := 0.0
			for j := 0; j < ny; j++ {
				y += s.Pos[j*nx+nx-1].Y
			}
			return -y / float64(ny), spans(m, 24)
		}
		d1, _ := tip(1)
		d, h := tip(0)
		name := fmt.Sprintf("cantilever at %g N·m", tc.bend)
		t.Logf("%s: tip sags %.5f m with spans %v, %.5f m with span 1", name, d, h, d1)
		if len(h) != 1 || h[tc.span] == 0 {
			t.Errorf("%s: spans %v, want all %d", name, h, tc.span)
		}
		if math.Abs(d-d1) > 1e-3*d1 {
			t.Errorf("%s: tip sags %.5f m with spans %v, %.5f m with span 1: more than 0.1 %% apart", name, d, h, d1)
		}
	}
}
