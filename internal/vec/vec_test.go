package vec

import (
	"math"
	"testing"
)

func near(a, b Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }

func TestMat4InverseAndTRS(t *testing.T) {
	m := TRS(V(1, 2, 3), AxisAngle(V(1, 1, 0), 0.7), V(2, 0.5, 3))
	p := V(0.3, -4, 5)
	q := m.Inverse().MulPoint(m.MulPoint(p))
	if !near(p, q, 1e-12) {
		t.Errorf("inverse(m) m p = %v, want %v", q, p)
	}
	cm := Mat4FromColumnMajor(m.ColumnMajor())
	if cm != m {
		t.Errorf("column-major round trip changed the matrix")
	}
}

func TestQuatRotateMatchesMatrix(t *testing.T) {
	q := AxisAngle(V(0, 0, 1), math.Pi/2)
	got := q.Rotate(V(1, 0, 0))
	if !near(got, V(0, 1, 0), 1e-12) {
		t.Errorf("rotate x by 90 deg about z = %v, want (0,1,0)", got)
	}
	if m := q.Mat4().MulPoint(V(1, 2, 3)); !near(m, q.Rotate(V(1, 2, 3)), 1e-12) {
		t.Errorf("matrix %v and quaternion %v disagree", m, q.Rotate(V(1, 2, 3)))
	}
}

func TestSlerpHalfway(t *testing.T) {
	a := QuatIdentity()
	b := AxisAngle(V(0, 1, 0), math.Pi/2)
	h := a.Slerp(b, 0.5)
	want := AxisAngle(V(0, 1, 0), math.Pi/4)
	if math.Abs(h.Dot(want)) < 1-1e-12 {
		t.Errorf("slerp halfway = %v, want %v", h, want)
	}
}

func TestMulNormalUnderNonUniformScale(t *testing.T) {
	m := ScaleMat(V(2, 1, 1))
	// The plane x + y = 0 has normal (1,1,0)/sqrt2; after scaling x by 2 its
	// normal is (1,2,0) normalised.
	got := m.MulNormal(V(1, 1, 0))
	want := V(1, 2, 0).Normalize()
	if !near(got, want, 1e-12) {
		t.Errorf("normal = %v, want %v", got, want)
	}
}

func TestMaxAxis(t *testing.T) {
	for _, c := range []struct {
		v    Vec3
		want int
	}{
		{V(3, 1, 2), 0}, {V(1, 3, 2), 1}, {V(1, 2, 3), 2},
		{V(2, 2, 1), 0}, {V(1, 2, 2), 1}, {V(2, 1, 2), 0}, {V(0, 0, 0), 0},
	} {
		if got := c.v.MaxAxis(); got != c.want {
			t.Errorf("%v.MaxAxis() = %d, want %d", c.v, got, c.want)
		}
	}
}

// TestMinMax checks Min and Max against math.Min and math.Max, including
// infinities and signed zeros; a NaN component gives NaN, even against an
// infinity (where math.Max(+Inf, NaN) is +Inf).
func TestMinMax(t *testing.T) {
	negZero := math.Copysign(0, -1)
	vals := []float64{1, -2.5, 0, negZero, math.Inf(1), math.Inf(-1), math.NaN()}
	want := func(f func(x, y float64) float64, x, y float64) float64 {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.NaN()
		}
		return f(x, y)
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, x := range vals {
		for _, y := range vals {
			a, b := V(x, y, x), V(y, x, y)
			lo, hi := a.Min(b), a.Max(b)
			if !same(lo.X, want(math.Min, x, y)) || !same(lo.Y, want(math.Min, y, x)) {
				t.Errorf("%v.Min(%v) = %v, want math.Min per component", a, b, lo)
			}
			if !same(hi.X, want(math.Max, x, y)) || !same(hi.Y, want(math.Max, y, x)) {
				t.Errorf("%v.Max(%v) = %v, want math.Max per component", a, b, hi)
			}
		}
	}
}

// TestDecomposeTRS splits TRS products back into their parts, for rotations
// near each branch of QuatFromMat (identity, half turns about each axis),
// mirrors, and refuses a sheared transform.
func TestDecomposeTRS(t *testing.T) {
	rots := []Quat{
		QuatIdentity(),
		AxisAngle(V(1, 1, 0), 0.7),
		AxisAngle(V(1, 0, 0), math.Pi),
		AxisAngle(V(0, 1, 0), math.Pi-1e-9),
		AxisAngle(V(0, 0, 1), math.Pi),
		AxisAngle(V(1, -2, 3), 2.5),
	}
	for _, r := range rots {
		for _, s := range []Vec3{V(1, 1, 1), V(2, 0.5, 3), V(-1, 1, 1)} {
			m := TRS(V(1, -2, 3), r, s)
			tt, rr, ss, ok := m.DecomposeTRS(1e-9)
			if !ok {
				t.Fatalf("TRS(%v, %v): not decomposed", r, s)
			}
			back := TRS(tt, rr, ss)
			for i := range 3 {
				for j := range 4 {
					if math.Abs(back[i][j]-m[i][j]) > 1e-12 {
						t.Fatalf("TRS(%v, %v): rebuilt %v, want %v", r, s, back, m)
					}
				}
			}
			if s.X > 0 && (!near(ss, s, 1e-12) || math.Abs(math.Abs(rr.Dot(r))-1) > 1e-12) {
				t.Errorf("TRS(%v, %v): got rotation %v scale %v", r, s, rr, ss)
			}
		}
	}
	shear := AxisAngle(V(0, 0, 1), 0.5).Mat4().Mul(ScaleMat(V(3, 1, 1))).Mul(AxisAngle(V(0, 0, 1), 0.5).Mat4())
	if _, _, _, ok := shear.DecomposeTRS(1e-9); ok {
		t.Errorf("a non-uniform scale between two rotations (shear) was decomposed")
	}
	if _, _, _, ok := ScaleMat(V(1, 0, 1)).DecomposeTRS(1e-9); ok {
		t.Errorf("a zero scale was decomposed")
	}
}
