package chol

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// gridMatrix returns d·I plus the weighted Laplacian of an n x n grid
// with diagonals (a cloth mesh's graph), weights in [1, 2), and, with
// islands, a second grid not connected to the first.
func gridMatrix(n int, d float64, islands bool, r *rand.Rand) *Matrix {
	nv := n * n
	if islands {
		nv *= 2
	}
	m := NewMatrix(nv)
	edge := func(a, b int32) {
		w := 1 + r.Float64()
		m.Add(a, a, w)
		m.Add(b, b, w)
		m.Add(a, b, -w)
	}
	for off := 0; off < nv; off += n * n {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				v := int32(off + j*n + i)
				if i+1 < n {
					edge(v, v+1)
				}
				if j+1 < n {
					edge(v, v+int32(n))
				}
				if i+1 < n && j+1 < n {
					edge(v, v+int32(n)+1)
				}
			}
		}
	}
	for i := range m.Diag {
		m.Diag[i] += d
	}
	return m
}

// mul returns A·x for the triplet matrix.
func mul(a *Matrix, x []vec.Vec3) []vec.Vec3 {
	y := make([]vec.Vec3, a.N)
	for i, d := range a.Diag {
		y[i] = x[i].Scale(d)
	}
	for k := range a.Row {
		i, j := a.Row[k], a.Col[k]
		y[i] = y[i].Add(x[j].Scale(a.Val[k]))
		y[j] = y[j].Add(x[i].Scale(a.Val[k]))
	}
	return y
}

func TestSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n       int
		d       float64
		islands bool
	}{{1, 1, false}, {5, 0.5, false}, {40, 1e-3, false}, {23, 10, true}} {
		a := gridMatrix(c.n, c.d, c.islands, r)
		f, err := Factorize(a)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]vec.Vec3, a.N)
		for i := range want {
			want[i] = vec.V(r.Float64()-0.5, r.Float64(), 3*r.Float64())
		}
		b := mul(a, want)
		x := make([]vec.Vec3, a.N)
		f.Solve(x, b)
		worst := 0.0
		for i := range x {
			worst = math.Max(worst, x[i].Sub(want[i]).Len())
		}
		// the condition number grows as the diagonal shift d shrinks
		if worst > 1e-8 {
			t.Errorf("n = %d, d = %g: solution off by %g", c.n, c.d, worst)
		}
		t.Logf("n = %d (%d unknowns): L holds %d entries, %.1f per row; error %.2g", c.n, a.N, f.NNZ(), float64(f.NNZ())/float64(a.N), worst)
	}
}

// TestFill checks that the ordering keeps the factor sparse: on a 64 x 64
// grid with diagonals a banded order fills about 64 entries per row.
func TestFill(t *testing.T) {
	a := gridMatrix(64, 1, false, rand.New(rand.NewPCG(3, 4)))
	f, err := Factorize(a)
	if err != nil {
		t.Fatal(err)
	}
	if per := float64(f.NNZ()) / float64(a.N); per > 40 {
		t.Errorf("64 x 64 grid: L holds %.1f entries per row, want <= 40", per)
	}
}

func TestNotPositive(t *testing.T) {
	a := gridMatrix(4, 0, false, rand.New(rand.NewPCG(5, 6)))
	a.Diag[3] -= 100
	if _, err := Factorize(a); err != ErrNotPositive {
		t.Errorf("indefinite matrix: got %v, want ErrNotPositive", err)
	}
}

func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{64, 128, 256} {
		a := gridMatrix(n, 1, false, rand.New(rand.NewPCG(7, 8)))
		f, err := Factorize(a)
		if err != nil {
			b.Fatal(err)
		}
		x := make([]vec.Vec3, a.N)
		for i := range x {
			x[i] = vec.V(1, 2, 3)
		}
		b.Run(itoa(n), func(b *testing.B) {
			for range b.N {
				f.Solve(x, x)
			}
		})
	}
}

func itoa(n int) string {
	return string(rune('0'+n/100%10)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10))
}

func BenchmarkFactorize(b *testing.B) {
	for _, n := range []int{64, 128} {
		a := gridMatrix(n, 1, false, rand.New(rand.NewPCG(7, 8)))
		b.Run(itoa(n), func(b *testing.B) {
			for range b.N {
				if _, err := Factorize(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
