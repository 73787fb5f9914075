package meshio

import (
	"math"
	"testing"
)

// TestSymEigen checks A v = lambda v, orthonormal v and descending order on
// matrices with known structure: a random-like dense one, a rank-deficient
// Gram matrix and one with repeated eigenvalues.
func TestSymEigen(t *testing.T) {
	dense := func(n int) [][]float64 {
		a := make([][]float64, n)
		for i := range a {
			a[i] = make([]float64, n)
		}
		for i := range n {
			for j := 0; j <= i; j++ {
				x := math.Sin(float64(3*i+7*j+1)) + 0.1*float64(i*j%5)
				a[i][j], a[j][i] = x, x
			}
		}
		return a
	}
	gram := func(n, rank int) [][]float64 {
		rows := make([][]float64, n)
		for f := range rows {
			rows[f] = make([]float64, 50)
			for r := range rank {
				c := math.Cos(float64((r + 1) * (f + 2)))
				for j := range rows[f] {
					rows[f][j] += c * math.Sin(float64((r+3)*(j+1)))
				}
			}
		}
		a := make([][]float64, n)
		for i := range a {
			a[i] = make([]float64, n)
			for j := range a[i] {
				for k := range rows[i] {
					a[i][j] += rows[i][k] * rows[j][k]
				}
			}
		}
		return a
	}
	ident := func(n int) [][]float64 {
		a := make([][]float64, n)
		for i := range a {
			a[i] = make([]float64, n)
			a[i][i] = 2
		}
		return a
	}
	for name, a := range map[string][][]float64{"dense": dense(40), "gram": gram(60, 5), "identity": ident(7), "one": {{3}}} {
		n := len(a)
		vals, v, _ := symEigen(a, nil)
		scale := 0.0
		for _, x := range vals {
			scale = math.Max(scale, math.Abs(x))
		}
		for k := range n {
			if k > 0 && vals[k] > vals[k-1] {
				t.Errorf("%s: eigenvalue %d = %g > %g: not descending", name, k, vals[k], vals[k-1])
			}
			for i := range n {
				av := 0.0
				for j := range n {
					av += a[i][j] * v[j][k]
				}
				if d := math.Abs(av - vals[k]*v[i][k]); d > 1e-10*scale {
					t.Fatalf("%s: (A v - lambda v)[%d] of eigenvector %d = %g", name, i, k, d)
				}
			}
			for l := range n {
				dot := 0.0
				for i := range n {
					dot += v[i][k] * v[i][l]
				}
				want := 0.0
				if k == l {
					want = 1
				}
				if math.Abs(dot-want) > 1e-10 {
					t.Fatalf("%s: v%d . v%d = %g, want %g", name, k, l, dot, want)
				}
			}
		}
	}
}
