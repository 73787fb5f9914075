package solver

import (
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// sewnPanels returns two 0.3 m panels of 7 x 7 vertices in the XY plane,
// 10 cm apart along X, and the seams joining the first one's right column
// to the second one's left column, row by row.
func sewnPanels() ([]vec.Vec3, [][3]int32, [][2]int32) {
	const n = 7
	p0, t0 := gridMesh(n, n, 0.3, 0.3)
	var pos []vec.Vec3
	var tris [][3]int32
	for k, off := range []float64{0, 0.4} {
		base := int32(k * n * n)
		for _, x := range p0 {
			pos = append(pos, x.Add(vec.V(off, 0, 0)))
		}
		for _, t := range t0 {
			tris = append(tris, [3]int32{t[0] + base, t[1] + base, t[2] + base})
		}
	}
	var seams [][2]int32
	for j := range n {
		seams = append(seams, [2]int32{int32(j*n + n - 1), int32(n*n + j*n)})
	}
	return pos, tris, seams
}

// TestSeamsSewPanels floats two panels 10 cm apart without gravity, sewn
// at 0.2 m/s: the gap follows the seam's schedule (no wider than
// 0.1 - 0.2·t m; the panels keep the speed the seam gave them, so it
// closes a little faster) without snapping shut (still over 8 cm after the
// first frame), and is shut (under 0.1 mm) after 1 s, with self-collision
// off and on (which must let the seam close, and leave no triangles
// crossing).
func TestSeamsSewPanels(t *testing.T) {
	for _, self := range []bool{false, true} {
		pos, tris, seams := sewnPanels()
		p := DefaultParams()
		p.Gravity = vec.V(0, 0, 0)
		p.Seams, p.SewSpeed = seams, 0.2
		p.SelfCollision = self
		m := newModel(t, pos, tris, nil, p)
		s := NewState(m)
		var first, early float64
		simulate(t, m, s, 24, 24, func(k int) {
			switch k {
			case 0: // t = 1/24 s
				first = m.SeamGap(s.Pos)
			case 5: // t = 0.25 s
				early = m.SeamGap(s.Pos)
			}
		})
		gap := m.SeamGap(s.Pos)
		crossing := SelfIntersections(s.Pos, m.SewnTriangles())
		t.Logf("self-collision %v: seam gap %.4f m after 1/24 s, %.4f m after 0.25 s, %.2g m after 1 s; %d crossing pairs",
			self, first, early, gap, crossing)
		if want := 0.1 - 0.2/24; first > want+1e-6 || first < 0.08 {
			t.Errorf("self-collision %v: gap %.4f m after 1/24 s, want 0.08..%.4f m (closing at 0.2 m/s)", self, first, want)
		}
		if early > 0.05+1e-6 {
			t.Errorf("self-collision %v: gap %.4f m after 0.25 s, want <= 0.05 m (closing at 0.2 m/s)", self, early)
		}
		if gap > 1e-4 {
			t.Errorf("self-collision %v: seam gap %.3g m after 1 s, want <= 1e-4 m", self, gap)
		}
		if crossing != 0 {
			t.Errorf("self-collision %v: %d pairs of triangles cross after sewing", self, crossing)
		}
	}
}

// TestSeamErrors checks seams a model cannot sew.
func TestSeamErrors(t *testing.T) {
	pos, tris, seams := sewnPanels()
	for _, tc := range []struct {
		name   string
		seams  [][2]int32
		speed  float64
		solver SolverKind
		want   string
	}{
		{"same vertex", [][2]int32{{3, 3}}, 0.2, SolverXPBD, "seam 0 joins vertices 3 and 3"},
		{"range", [][2]int32{{3, 400}}, 0.2, SolverXPBD, "want two different vertices in 0..97"},
		{"speed", seams, 0, SolverXPBD, "sew speed = 0"},
		{"solver", seams, 0.2, SolverVerlet, "xpbd solver only"},
	} {
		p := DefaultParams()
		p.Seams, p.SewSpeed, p.Solver = tc.seams, tc.speed, tc.solver
		_, err := NewModel(pos, tris, nil, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
