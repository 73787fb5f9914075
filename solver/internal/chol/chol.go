// Package chol factors a sparse symmetric positive definite matrix once
// (A = L·Lᵀ after a fill-reducing permutation) and then solves A·x = b
// for as many right-hand sides as needed, three at a time (one per
// coordinate of a vec.Vec3).
//
// It serves the solver's global steps, whose matrix (mass over dt² plus
// a weighted graph Laplacian of the mesh) is the same in every substep
// while the right-hand side changes: the factorisation is paid once per
// bake, and each solve costs two triangular sweeps over L.
//
// The factorisation is the up-looking one of Davis, "Direct Methods for
// Sparse Linear Systems" (SIAM 2006, ch. 4): the elimination tree gives
// the pattern of each row of L, the row is one sparse triangular solve.
// The ordering is nested dissection on the matrix graph (order.go), which
// keeps L's fill near n·log n on a cloth mesh.
package chol

import (
	"errors"
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Matrix is a symmetric matrix given by its diagonal and its strictly
// lower off-diagonal entries as (row, column, value) triplets with
// row > column; repeated entries add up.
type Matrix struct {
	N    int
	Diag []float64
	Row  []int32
	Col  []int32
	Val  []float64
}

// Add adds v at (i, j) and (j, i); i == j adds v to the diagonal once.
func (m *Matrix) Add(i, j int32, v float64) {
	switch {
	case i == j:
		m.Diag[i] += v
	case i > j:
		m.Row, m.Col, m.Val = append(m.Row, i), append(m.Col, j), append(m.Val, v)
	default:
		m.Row, m.Col, m.Val = append(m.Row, j), append(m.Col, i), append(m.Val, v)
	}
}

// NewMatrix returns an n x n zero matrix.
func NewMatrix(n int) *Matrix {
	return &Matrix{N: n, Diag: make([]float64, n)}
}

// ErrNotPositive is returned when the matrix is not positive definite.
var ErrNotPositive = errors.New("chol: matrix is not positive definite")

// Factor is L of P·A·Pᵀ = L·Lᵀ in compressed columns, each column's
// diagonal entry first, with the permutation P.
type Factor struct {
	n    int
	perm []int32 // perm[k] is the original index of pivot k
	lp   []int32 // column j of L is li/lx[lp[j]:lp[j+1]]
	li   []int32
	lx   []float64
	work []vec.Vec3
}

// NNZ returns the number of entries of L.
func (f *Factor) NNZ() int { return len(f.li) }

// Factorize orders and factors a.
func Factorize(a *Matrix) (*Factor, error) {
	n := a.N
	if len(a.Row) != len(a.Col) || len(a.Row) != len(a.Val) || len(a.Diag) != n {
		return nil, fmt.Errorf("chol: malformed matrix")
	}
	for k := range a.Row {
		if a.Row[k] <= a.Col[k] || int(a.Row[k]) >= n || a.Col[k] < 0 {
			return nil, fmt.Errorf("chol: entry %d at (%d, %d) is not strictly lower", k, a.Row[k], a.Col[k])
		}
	}
	perm := order(n, a.Row, a.Col)
	inv := make([]int32, n)
	for k, i := range perm {
		inv[i] = int32(k)
	}
	// the upper triangle of P·A·Pᵀ by columns: column k holds rows i < k
	cp := make([]int32, n+1)
	for k := range a.Row {
		i, j := inv[a.Row[k]], inv[a.Col[k]]
		cp[max(i, j)+1]++
	}
	for k := 0; k < n; k++ {
		cp[k+1] += cp[k]
	}
	ci := make([]int32, cp[n])
	cx := make([]float64, cp[n])
	fill := append([]int32(nil), cp[:n]...)
	for k := range a.Row {
		i, j := inv[a.Row[k]], inv[a.Col[k]]
		c := max(i, j)
		ci[fill[c]], cx[fill[c]] = min(i, j), a.Val[k]
		fill[c]++
	}
	diag := make([]float64, n)
	for i, d := range a.Diag {
		diag[inv[i]] = d
	}

	parent := etree(n, cp, ci)
	// column counts: the pattern of row k of L is the set ereach visits
	cnt := make([]int32, n)
	s := make([]int32, n)
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	for k := 0; k < n; k++ {
		top := ereach(k, cp, ci, parent, s, mark)
		for _, j := range s[top:] {
			cnt[j]++
		}
		cnt[k]++
	}
	f := &Factor{n: n, perm: perm, lp: make([]int32, n+1), work: make([]vec.Vec3, n)}
	for k := 0; k < n; k++ {
		f.lp[k+1] = f.lp[k] + cnt[k]
	}
	f.li = make([]int32, f.lp[n])
	f.lx = make([]float64, f.lp[n])
	next := append([]int32(nil), f.lp[:n]...) // next free slot of each column
	x := make([]float64, n)
	for i := range mark {
		mark[i] = -1
	}
	for k := 0; k < n; k++ {
		top := ereach(k, cp, ci, parent, s, mark)
		for p := cp[k]; p < cp[k+1]; p++ {
			x[ci[p]] += cx[p]
		}
		d := diag[k]
		for _, i := range s[top:] {
			// L(k, i) = x[i] / L(i, i); the rest of column i updates x
			lki := x[i] / f.lx[f.lp[i]]
			x[i] = 0
			for p := f.lp[i] + 1; p < next[i]; p++ {
				x[f.li[p]] -= f.lx[p] * lki
			}
			d -= lki * lki
			f.li[next[i]], f.lx[next[i]] = int32(k), lki
			next[i]++
		}
		if !(d > 0) || math.IsInf(d, 1) {
			return nil, ErrNotPositive
		}
		f.li[next[k]], f.lx[next[k]] = int32(k), math.Sqrt(d)
		next[k]++
	}
	return f, nil
}

// etree returns the elimination tree of the matrix whose upper triangle
// is given by columns (Davis, cs_etree): parent[k] = -1 at a root.
func etree(n int, cp, ci []int32) []int32 {
	parent := make([]int32, n)
	anc := make([]int32, n)
	for k := 0; k < n; k++ {
		parent[k], anc[k] = -1, -1
		for p := cp[k]; p < cp[k+1]; p++ {
			for i := ci[p]; i != -1 && i < int32(k); {
				next := anc[i]
				anc[i] = int32(k)
				if next == -1 {
					parent[i] = int32(k)
				}
				i = next
			}
		}
	}
	return parent
}

// ereach puts the pattern of row k of L (without the diagonal) in
// s[top:] in topological order and returns top (Davis, cs_ereach). mark
// must hold no k on entry; it is left so.
func ereach(k int, cp, ci, parent, s, mark []int32) int {
	n := len(parent)
	top := n
	mark[k] = int32(k)
	for p := cp[k]; p < cp[k+1]; p++ {
		i := ci[p]
		ln := 0
		for ; mark[i] != int32(k); i = parent[i] {
			s[ln] = i
			ln++
			mark[i] = int32(k)
		}
		for ln > 0 {
			top--
			ln--
			s[top] = s[ln]
		}
	}
	return top
}

// Solve solves A·x = b for the three coordinates at once; x and b may be
// the same slice. It is not safe for concurrent use (it shares a scratch
// slice).
func (f *Factor) Solve(x, b []vec.Vec3) {
	y := f.work
	for k, i := range f.perm {
		y[k] = b[i]
	}
	lp, li, lx := f.lp, f.li, f.lx
	for j := 0; j < f.n; j++ {
		yj := y[j].Scale(1 / lx[lp[j]])
		y[j] = yj
		for p := lp[j] + 1; p < lp[j+1]; p++ {
			r := li[p]
			v := lx[p]
			y[r].X -= v * yj.X
			y[r].Y -= v * yj.Y
			y[r].Z -= v * yj.Z
		}
	}
	for j := f.n - 1; j >= 0; j-- {
		yj := y[j]
		for p := lp[j] + 1; p < lp[j+1]; p++ {
			r := y[li[p]]
			v := lx[p]
			yj.X -= v * r.X
			yj.Y -= v * r.Y
			yj.Z -= v * r.Z
		}
		y[j] = yj.Scale(1 / lx[lp[j]])
	}
	for k, i := range f.perm {
		x[i] = y[k]
	}
}
