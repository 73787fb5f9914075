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
		if math.Abs(math.Abs(got)-math.Abs(th)) > 1e-8 {
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

func TestHingeAngle(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 36000; i++ {
		a := -math.Pi + 2*math.Pi*float64(i)/36000
		for _, r := range []float64{1e-9, 1, 1e6} {
			y, x := r*math.Sin(a), r*math.Cos(a)
			d := math.Abs(hingeAngle(y, x, math.Hypot(x, y)) - math.Atan2(y, x))
			if d > math.Pi { // -π and π are the same angle
				d = 2*math.Pi - d
			}
			worst = math.Max(worst, d)
		}
	}
	if worst > 1e-8 {
		t.Errorf("hingeAngle max error vs math.Atan2 = %.3g rad, want <= 1e-8", worst)
	}
	for _, c := range []struct{ y, x, want float64 }{
		{0, 0, 0}, {0, 1, 0}, {0, -1, math.Pi}, {1, 0, math.Pi / 2}, {-1, 0, -math.Pi / 2}, {1, 1, math.Pi / 4},
		{1e-300, -1, math.Pi}, {-1e-300, -1, -math.Pi}, {-1, -1, -3 * math.Pi / 4},
	} {
		if got := hingeAngle(c.y, c.x, math.Hypot(c.x, c.y)); math.Abs(got-c.want) > 1e-8 {
			t.Errorf("hingeAngle(%g, %g) = %g, want %g", c.y, c.x, got, c.want)
		}
	}
}

// TestProjectMatchesSolve checks the in-place scalar kernels against the
// reference solve* functions on random hinges and edges.
func TestProjectMatchesSolve(t *testing.T) {
	rnd := uint64(12345)
	next := func() float64 {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return float64(rnd>>11)/float64(1<<53)*2 - 1
	}
	for k := 0; k < 200; k++ {
		pos := make([]vec.Vec3, 4)
		for i := range pos {
			pos[i] = vec.V(next(), next(), next())
		}
		w := []float64{1 + next(), 1 + next(), 1 + next(), 1 + next()}
		if k%5 == 0 {
			w[k%4] = 0
		}
		rest, alpha, lambda := 3*next(), math.Abs(next()), 0.1*next()
		v := [4]int32{0, 1, 2, 3}
		// dihedral
		q := [4]vec.Vec3{pos[0], pos[1], pos[2], pos[3]}
		dx, want := solveDihedral(q, [4]float64{w[0], w[1], w[2], w[3]}, rest, alpha, lambda)
		got := append([]vec.Vec3(nil), pos...)
		dl := projectDihedral(got, w, v, rest, alpha, lambda)
		if math.Abs(dl-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("case %d: projectDihedral dlambda = %g, solveDihedral %g", k, dl, want)
		}
		for i := range got {
			if d := got[i].Sub(pos[i].Add(dx[i])).Len(); d > 1e-9*(1+dx[i].Len()) {
				t.Fatalf("case %d: projectDihedral moves vertex %d to %v, solveDihedral to %v", k, i, got[i], pos[i].Add(dx[i]))
			}
		}
		// distance
		d0, d1, wantS := solveDistance(pos[0], pos[1], w[0], w[1], rest, alpha, 2*alpha, lambda)
		got = append(got[:0], pos...)
		if dl := projectDistance(got, w, [2]int32{0, 1}, rest, alpha, 2*alpha, lambda); math.Abs(dl-wantS) > 1e-12*(1+math.Abs(wantS)) ||
			got[0].Sub(pos[0].Add(d0)).Len() > 1e-12 || got[1].Sub(pos[1].Add(d1)).Len() > 1e-12 {
			t.Fatalf("case %d: projectDistance = %g, %v, %v; solveDistance %g, %v, %v", k, dl, got[0], got[1], wantS, pos[0].Add(d0), pos[1].Add(d1))
		}
	}
}

func TestProjectRope(t *testing.T) {
	pathLen := func(pos []vec.Vec3) float64 {
		l := 0.0
		for i := 1; i < len(pos); i++ {
			l += pos[i].Sub(pos[i-1]).Len()
		}
		return l
	}
	path := []int32{0, 1, 2, 3, 4}
	w := []float64{0, 1, 1, 1, 1}
	t.Run("stretched", func(t *testing.T) {
		// a bent chain of 4 segments, 10 % too long: a few hard
		// projections bring its length to maxLen, lambda stays <= 0
		pos := []vec.Vec3{vec.V(0, 0, 0), vec.V(1.1, 0, 0), vec.V(2.2, 0.3, 0), vec.V(3.3, 0, 0), vec.V(4.4, -0.2, 0.1)}
		maxLen := pathLen(pos) / 1.1
		lambda := 0.0
		for it := 0; it < 20; it++ {
			lambda += projectRope(pos, w, path, maxLen, 0, lambda)
			if lambda > 0 {
				t.Fatalf("iteration %d: lambda = %g, want <= 0 (a rope only pulls)", it, lambda)
			}
		}
		if l := pathLen(pos); math.Abs(l-maxLen) > 1e-9 {
			t.Errorf("rope length after 20 projections = %.12f, want %.12f", l, maxLen)
		}
		if pos[0] != (vec.Vec3{}) {
			t.Errorf("pinned end moved to %v", pos[0])
		}
	})
	t.Run("slack", func(t *testing.T) {
		// shorter than maxLen (folded): no correction
		pos := []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(1, 1, 0), vec.V(0, 1, 0), vec.V(0, 0.5, 0)}
		before := append([]vec.Vec3(nil), pos...)
		if dl := projectRope(pos, w, path, pathLen(pos)+0.01, 0, 0); dl != 0 {
			t.Errorf("slack rope: dlambda = %g, want 0", dl)
		}
		for i := range pos {
			if pos[i] != before[i] {
				t.Errorf("slack rope moved vertex %d", i)
			}
		}
	})
	t.Run("released", func(t *testing.T) {
		// a rope that pulled earlier in the substep (lambda < 0) and is now
		// slack gives its multiplier back, pushing at most to lambda = 0
		pos := []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(2, 0, 0), vec.V(3, 0, 0), vec.V(4, 0, 0)}
		dl := projectRope(pos, w, path, 10, 0, -0.01)
		if dl != 0.01 {
			t.Errorf("released rope: dlambda = %g, want 0.01 (back to lambda = 0)", dl)
		}
	})
}

// TestLimitsAllowFolding builds the stretch limits of a grid and folds
// the grid isometrically in half and into a cylinder: no limit may be
// violated, so the limits never resist folding or bending.
func TestLimitsAllowFolding(t *testing.T) {
	pos, tris := gridMesh(33, 33, 1, 1)
	m := newModel(t, pos, tris, nil, DefaultParams())
	lb := newLimits(m)
	nl, nc := lb.num()
	ns, _, _ := m.NumConstraints()
	if nl < ns/3 {
		t.Fatalf("33x33 grid: %d stretch limits for %d edges, want at least a third as many", nl, ns)
	}
	t.Logf("33x33 grid: %d limits in %d colours for %d edges", nl, nc, ns)
	folds := map[string]func(p vec.Vec3) vec.Vec3{
		"half": func(p vec.Vec3) vec.Vec3 { // right half rotated 175 degrees about x = 0.5
			if p.X > 0.5 {
				a := 175 * math.Pi / 180
				return vec.V(0.5+(p.X-0.5)*math.Cos(a), p.Y, (p.X-0.5)*math.Sin(a))
			}
			return p
		},
		"cylinder": func(p vec.Vec3) vec.Vec3 {
			r := 0.2
			return vec.V(r*math.Sin(p.X/r), p.Y, r*(1-math.Cos(p.X/r)))
		},
		"crumple": func(p vec.Vec3) vec.Vec3 { // shrunk and wrinkled: every path gets shorter
			return vec.V(0.7*p.X, 0.9*p.Y, 0.01*math.Sin(20*p.X))
		},
	}
	for _, name := range []string{"half", "cylinder", "crumple"} {
		f := folds[name]
		fp := make([]vec.Vec3, len(pos))
		for i, p := range pos {
			fp[i] = f(p)
		}
		b := &lb
		for i := range b.maxLen {
			if dl := projectRope(fp, m.InvMass, b.path[b.off[i]:b.off[i+1]], b.maxLen[i]*(1+1e-9), 0, 0); dl != 0 {
				t.Errorf("%s fold: limit %d (vertices %v) pulls with dlambda %g, want 0", name, i, b.path[b.off[i]:b.off[i+1]], dl)
				break
			}
		}
	}
}

// TestProjectDihedralsBatched checks that the batched hinge pass moves
// every vertex and multiplier bit for bit as projectDihedral does hinge by
// hinge, over each colour of a crumpled grid with pinned vertices, a
// collapsed hinge and a flat-folded triangle, with and without
// multipliers, and with hinges past 90 degrees.
func TestProjectDihedralsBatched(t *testing.T) {
	pos, tris := gridMesh(12, 12, 1, 1)
	m := newModel(t, pos, tris, nil, DefaultParams())
	rnd := uint64(7)
	next := func() float64 {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return float64(rnd>>11)/float64(1<<53)*2 - 1
	}
	for i := range pos {
		pos[i] = pos[i].Add(vec.V(0.02*next(), 0.05*next(), 0.02*next()))
	}
	// a hinge whose edge collapses, and one whose triangle is a sliver
	b := &m.bend
	h0, h1 := b.v[3], b.v[40]
	pos[h0[1]] = pos[h0[0]]
	pos[h1[2]] = pos[h1[0]].Lerp(pos[h1[1]], 0.5)
	// hinges folded nearly flat onto themselves (past 90 degrees)
	folded := 0
	for _, k := range []int{10, 60, 100, 150} {
		h := b.v[k]
		pos[h[3]] = pos[h[2]].Add(vec.V(0.001, 0.002, -0.001))
	}
	for _, h := range b.v {
		e := pos[h[1]].Sub(pos[h[0]])
		n1 := e.Cross(pos[h[2]].Sub(pos[h[0]]))
		n2 := pos[h[3]].Sub(pos[h[0]]).Cross(e)
		if n1.Dot(n2) < 0 {
			folded++
		}
	}
	if folded == 0 {
		t.Fatal("no hinge is past 90 degrees")
	}
	w := make([]float64, len(pos))
	for i := range w {
		w[i] = 1 + next()
	}
	w[5], w[77] = 0, 0
	const inv = 1e5
	for _, withLam := range []bool{false, true} {
		got := append([]vec.Vec3(nil), pos...)
		want := append([]vec.Vec3(nil), pos...)
		var lamGot, lamWant []float64
		if withLam {
			lamGot, lamWant = make([]float64, len(b.v)), make([]float64, len(b.v))
			for i := range lamGot {
				lamGot[i] = 0.01 * next()
				lamWant[i] = lamGot[i]
			}
		}
		for c := 0; c+1 < len(b.colours); c++ {
			lo, hi := b.colours[c], b.colours[c+1]
			var lam []float64
			if withLam {
				lam = lamGot[lo:hi]
			}
			projectDihedrals(got, w, b.v[lo:hi], b.rest[lo:hi], b.alpha[lo:hi], inv, lam, nil)
			for k := lo; k < hi; k++ {
				l := 0.0
				if withLam {
					l = lamWant[k]
				}
				dl := projectDihedral(want, w, b.v[k], b.rest[k], b.alpha[k]*inv, l)
				if withLam {
					lamWant[k] += dl
				}
			}
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("lam %v: vertex %d at %v, hinge by hinge %v", withLam, i, got[i], want[i])
			}
		}
		for k := range lamGot {
			if math.Float64bits(lamGot[k]) != math.Float64bits(lamWant[k]) {
				t.Fatalf("multiplier %d = %g, hinge by hinge %g", k, lamGot[k], lamWant[k])
			}
		}
	}
}
