package meshio

import "math"

// symEigen returns the eigenvalues of the symmetric n x n matrix a in
// descending order and the matching unit eigenvectors as the columns of v
// (v[row][col]). a is not changed.
//
// It is the EISPACK pair tred2 (Householder reduction to tridiagonal form)
// and tql2 (implicit QL with shifts), as published in JAMA's public-domain
// EigenvalueDecomposition: O(n^3) once, no random start and a fixed order
// of every operation, so the same matrix always gives the same bits. stop
// is polled once per row (a millisecond of work at n = 1024); its error
// ends the decomposition.
func symEigen(a [][]float64, stop stopFunc) (vals []float64, v [][]float64, err error) {
	n := len(a)
	v = make([][]float64, n)
	for i := range v {
		v[i] = append([]float64(nil), a[i]...)
	}
	d := make([]float64, n)
	e := make([]float64, n)
	if n == 0 {
		return d, v, nil
	}
	if err := tred2(v, d, e, stop); err != nil {
		return nil, nil, err
	}
	if err := tql2(v, d, e, stop); err != nil {
		return nil, nil, err
	}
	// tql2 sorts ascending; callers want the largest first
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
		for _, row := range v {
			row[i], row[j] = row[j], row[i]
		}
	}
	return d, v, nil
}

// tred2 reduces the symmetric matrix in v to tridiagonal form (diagonal d,
// subdiagonal e) and leaves the orthogonal transformation in v.
func tred2(v [][]float64, d, e []float64, stop stopFunc) error {
	n := len(d)
	for j := range n {
		d[j] = v[n-1][j]
	}
	for i := n - 1; i > 0; i-- {
		if err := stop.err(); err != nil {
			return err
		}
		scale, h := 0.0, 0.0
		for k := range i {
			scale += math.Abs(d[k])
		}
		if scale == 0 {
			e[i] = d[i-1]
			for j := range i {
				d[j] = v[i-1][j]
				v[i][j] = 0
				v[j][i] = 0
			}
		} else {
			for k := range i {
				d[k] /= scale
				h += d[k] * d[k]
			}
			f := d[i-1]
			g := math.Sqrt(h)
			if f > 0 {
				g = -g
			}
			e[i] = scale * g
			h -= f * g
			d[i-1] = f - g
			for j := range i {
				e[j] = 0
			}
			for j := range i {
				f = d[j]
				v[j][i] = f
				g = e[j] + v[j][j]*f
				for k := j + 1; k <= i-1; k++ {
					g += v[k][j] * d[k]
					e[k] += v[k][j] * f
				}
				e[j] = g
			}
			f = 0
			for j := range i {
				e[j] /= h
				f += e[j] * d[j]
			}
			hh := f / (h + h)
			for j := range i {
				e[j] -= hh * d[j]
			}
			for j := range i {
				f = d[j]
				g = e[j]
				for k := j; k <= i-1; k++ {
					v[k][j] -= f*e[k] + g*d[k]
				}
				d[j] = v[i-1][j]
				v[i][j] = 0
			}
		}
		d[i] = h
	}
	// accumulate the transformations
	for i := 0; i < n-1; i++ {
		if err := stop.err(); err != nil {
			return err
		}
		v[n-1][i] = v[i][i]
		v[i][i] = 1
		h := d[i+1]
		if h != 0 {
			for k := 0; k <= i; k++ {
				d[k] = v[k][i+1] / h
			}
			for j := 0; j <= i; j++ {
				g := 0.0
				for k := 0; k <= i; k++ {
					g += v[k][i+1] * v[k][j]
				}
				for k := 0; k <= i; k++ {
					v[k][j] -= g * d[k]
				}
			}
		}
		for k := 0; k <= i; k++ {
			v[k][i+1] = 0
		}
	}
	for j := range n {
		d[j] = v[n-1][j]
		v[n-1][j] = 0
	}
	v[n-1][n-1] = 1
	e[0] = 0
	return nil
}

// tql2 finds the eigenvalues (into d, ascending) and eigenvectors (columns
// of v) of the tridiagonal matrix tred2 left.
func tql2(v [][]float64, d, e []float64, stop stopFunc) error {
	n := len(d)
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	e[n-1] = 0
	f, tst1 := 0.0, 0.0
	const eps = 0x1p-52
	for l := range n {
		tst1 = math.Max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		m := l
		for m < n-1 && math.Abs(e[m]) > eps*tst1 {
			m++
		}
		if m > l {
			for iter := 0; iter < 64; iter++ {
				if err := stop.err(); err != nil {
					return err
				}
				g := d[l]
				p := (d[l+1] - g) / (2 * e[l])
				r := math.Hypot(p, 1)
				if p < 0 {
					r = -r
				}
				d[l] = e[l] / (p + r)
				d[l+1] = e[l] * (p + r)
				dl1 := d[l+1]
				h := g - d[l]
				for i := l + 2; i < n; i++ {
					d[i] -= h
				}
				f += h
				p = d[m]
				c, c2, c3 := 1.0, 1.0, 1.0
				el1 := e[l+1]
				s, s2 := 0.0, 0.0
				for i := m - 1; i >= l; i-- {
					c3 = c2
					c2 = c
					s2 = s
					g = c * e[i]
					h = c * p
					r = math.Hypot(p, e[i])
					e[i+1] = s * r
					s = e[i] / r
					c = p / r
					p = c*d[i] - s*g
					d[i+1] = h + s*(c*g+s*d[i])
					for k := range n {
						h = v[k][i+1]
						v[k][i+1] = s*v[k][i] + c*h
						v[k][i] = c*v[k][i] - s*h
					}
				}
				p = -s * s2 * c3 * el1 * e[l] / dl1
				e[l] = s * p
				d[l] = c * p
				if math.Abs(e[l]) <= eps*tst1 {
					break
				}
			}
		}
		d[l] += f
		e[l] = 0
	}
	// selection sort, ascending
	for i := 0; i < n-1; i++ {
		k, p := i, d[i]
		for j := i + 1; j < n; j++ {
			if d[j] < p {
				k, p = j, d[j]
			}
		}
		if k != i {
			d[k] = d[i]
			d[i] = p
			for _, row := range v {
				row[i], row[k] = row[k], row[i]
			}
		}
	}
	return nil
}
