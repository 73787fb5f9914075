package solver

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func TestSolveDistance(t *testing.T) {
	tests := []struct {
		name   string
		x0, x1 vec.Vec3
		w0, w1 float64
		rest   float64
	}{
		{"stretched", vec.V(0, 0, 0), vec.V(2, 0, 0), 1, 1, 1},
		{"compressed", vec.V(0, 0, 0), vec.V(0.3, 0.4, 0), 1, 3, 1},
		{"onePinned", vec.V(0, 0, 0), vec.V(0, 0, 3), 0, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d0, d1, _ := solveDistance(tc.x0, tc.x1, tc.w0, tc.w1, tc.rest, 0, 0, 0)
			a, b := tc.x0.Add(d0), tc.x1.Add(d1)
			if l := a.Sub(b).Len(); math.Abs(l-tc.rest) > 1e-12 {
				t.Errorf("solveDistance(%s) length after = %g, want %g", tc.name, l, tc.rest)
			}
			// momentum: w-weighted corrections balance (m0·d0 + m1·d1 = 0)
			if tc.w0 > 0 && tc.w1 > 0 {
				if p := d0.Scale(1 / tc.w0).Add(d1.Scale(1 / tc.w1)); p.Len() > 1e-12 {
					t.Errorf("solveDistance(%s) moves the centre of mass by %v", tc.name, p)
				}
			}
		})
	}
	// compliance: alpha = 1/k, one step solves k·C = w-weighted force balance
	d0, _, dl := solveDistance(vec.V(0, 0, 0), vec.V(2, 0, 0), 1, 1, 1, 2, 2, 0)
	if want := -1.0 / 4; math.Abs(dl-want) > 1e-12 || math.Abs(d0.X-0.25) > 1e-12 {
		t.Errorf("compliant solveDistance dlambda, dx0 = %g, %v, want %g, (0.25, 0, 0)", dl, d0, want)
	}
}

func TestDihedralAngle(t *testing.T) {
	x0, x1 := vec.V(0, 0, 0), vec.V(1, 0, 0)
	x2 := vec.V(0.5, 1, 0)
	for _, deg := range []float64{0, 30, 90, 150, 179, -179, -45} {
		th := deg * math.Pi / 180
		// x3 starts opposite x2 (flat) and rotates about the hinge x0-x1
		x3 := vec.V(0.3, -math.Cos(th), -math.Sin(th))
		got := dihedralAngle(x0, x1, x2, x3)
		if math.Abs(math.Abs(got)-math.Abs(th)) > 1e-12 {
			t.Errorf("dihedralAngle at %g deg = %g deg", deg, got*180/math.Pi)
		}
	}
}

func TestDihedralGradFiniteDifference(t *testing.T) {
	cases := [][4]vec.Vec3{
		{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0.5, 1, 0), vec.V(0.3, -1, 0)},
		{vec.V(0, 0, 0), vec.V(1, 0.1, 0), vec.V(0.2, 1, 0.3), vec.V(0.7, -0.5, 0.6)},
		{vec.V(0.1, 0, 0), vec.V(1, 0, 0.2), vec.V(0.5, 0.3, 1), vec.V(0.4, 0.2, 1.1)}, // nearly folded (~180 deg)
		{vec.V(0, 0, 0), vec.V(2, 0, 0), vec.V(3, 0.5, 0.1), vec.V(-1, -0.2, 0.4)},     // obtuse triangles
	}
	const h = 1e-6
	for ci, x := range cases {
		theta, g, ok := dihedralGrad(x[0], x[1], x[2], x[3])
		if !ok {
			t.Fatalf("case %d: dihedralGrad not ok", ci)
		}
		if want := dihedralAngle(x[0], x[1], x[2], x[3]); math.Abs(theta-want) > 1e-12 {
			t.Errorf("case %d: theta = %g, dihedralAngle = %g", ci, theta, want)
		}
		var sum vec.Vec3
		for i := 0; i < 4; i++ {
			sum = sum.Add(g[i])
			for c := 0; c < 3; c++ {
				xp, xm := x, x
				d := [3]vec.Vec3{vec.V(h, 0, 0), vec.V(0, h, 0), vec.V(0, 0, h)}[c]
				xp[i], xm[i] = x[i].Add(d), x[i].Sub(d)
				fd := wrapAngle(dihedralAngle(xp[0], xp[1], xp[2], xp[3])-dihedralAngle(xm[0], xm[1], xm[2], xm[3])) / (2 * h)
				if math.Abs(fd-g[i].Get(c)) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("case %d: dθ/dx%d[%d] = %g, finite difference %g", ci, i, c, g[i].Get(c), fd)
				}
			}
		}
		if sum.Len() > 1e-9 {
			t.Errorf("case %d: gradients sum to %v, want 0 (translation invariance)", ci, sum)
		}
	}
}

func TestSolveDihedral(t *testing.T) {
	x := [4]vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0.5, 1, 0), vec.V(0.5, -0.8, 0.6)}
	w := [4]float64{1, 1, 1, 1}
	for _, rest := range []float64{0, 1, -2.5, 3.1} {
		y := x
		for it := 0; it < 50; it++ {
			dx, _ := solveDihedral(y, w, rest, 0, 0)
			for i := range y {
				y[i] = y[i].Add(dx[i])
			}
		}
		if got := dihedralAngle(y[0], y[1], y[2], y[3]); math.Abs(wrapAngle(got-rest)) > 1e-6 {
			t.Errorf("solveDihedral(rest %g) converged to %g", rest, got)
		}
	}
	// degenerate: opposite vertex on the hinge line gives no correction
	deg := [4]vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0.5, 0, 0), vec.V(0.5, -1, 0)}
	dx, dl := solveDihedral(deg, w, 1, 0, 0)
	if dl != 0 || dx != ([4]vec.Vec3{}) {
		t.Errorf("solveDihedral(degenerate) = %v, %g, want no correction", dx, dl)
	}
}

func TestSolveTetherAndAttach(t *testing.T) {
	d := solveTether(vec.V(0, -2, 0), vec.V(0, 0, 0), 1.5)
	if d != vec.V(0, 0.5, 0) {
		t.Errorf("solveTether over length = %v, want (0, 0.5, 0)", d)
	}
	if d := solveTether(vec.V(0, -1, 0), vec.V(0, 0, 0), 1.5); d != (vec.Vec3{}) {
		t.Errorf("solveTether slack = %v, want zero", d)
	}
	if d := solveAttach(vec.V(1, 0, 0), vec.V(0, 0, 0), 1, 1); d != vec.V(-0.5, 0, 0) {
		t.Errorf("solveAttach(w 1, alpha 1) = %v, want (-0.5, 0, 0)", d)
	}
}
