package meshio

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/qmuntal/gltf"

	"github.com/drape-sim/drape/internal/vec"
)

// Compressed morph targets.
//
// A bake of F frames is F displacement fields d_f from the rest pose (3
// numbers per vertex, in the mesh's space). WriteGLTF can store them as K
// shapes instead of F, fitted in an affine subspace:
//
//	d_f ≈ m + sum_{i=1}^{K-1} c_fi u_i
//
// m is the mean displacement, u_i the leading principal components of the
// centred fields (the best affine fit of its size in the least-squares
// sense). The components come from the eigenvectors of the frames' Gram
// matrix G = Dc Dc^T (symEigen: Householder and implicit QL, no random
// start); each u_i is then orthogonalised again against the ones before and
// the coefficients are projections of the residual, so rounding in G costs
// no accuracy in the fit. Every loop either writes its own output element
// or reduces with max, or sums in a fixed order, so the result is the same
// bits at any thread count.
//
// The K stored targets are
//
//	t_0 = m + sum lo_i u_i     weight 1 at every frame
//	t_i = (hi_i - lo_i) u_i    weight (c_fi - lo_i) / (hi_i - lo_i)
//
// with [lo_i, hi_i] the range of c_i over the frames, so every weight lies
// in [0, 1]: Blender's importer keeps a shape key's slider range at 0..1
// unless the first key or the default weight widens it, and clamps what lies
// outside, so weights outside [0, 1] would not play there.
//
// K grows until the largest vertex error at any frame, measured in world
// space from the values as written (float32 or quantized), is within the
// bound, or K reaches the limit.

// Morph target defaults for glTF outputs.
const (
	// DefaultMaxTargets is the most morph targets a glTF output gets by
	// default: well inside Filament's 256 and three.js's 241-uniform limit
	// on many Android devices.
	DefaultMaxTargets = 64
	// DefaultMaxError is the largest vertex error [m] compressed targets may
	// have by default: half a millimetre.
	DefaultMaxError = 0.5e-3
	// AllTargets as MorphOptions.MaxTargets writes one exact target per
	// frame whatever the frame count.
	AllTargets = -1
	// maxGramFrames caps the Gram matrix: a longer bake takes its basis from
	// every s-th frame (the error is still measured at every frame).
	maxGramFrames = 1024
)

// MorphOptions says how WriteGLTF turns the frames into morph targets: one
// exact target per frame while the frames fit in MaxTargets, otherwise (or
// when Compress is set) a basis of at most MaxTargets shapes.
type MorphOptions struct {
	// MaxTargets is the most morph targets per mesh; 0 means
	// DefaultMaxTargets, AllTargets exact targets for any frame count.
	MaxTargets int
	// MaxError is the largest vertex error [m] a compressed bake may have
	// at any frame; 0 means DefaultMaxError. The basis grows until the
	// error is within it or MaxTargets is reached.
	MaxError float64
	// Compress writes a basis even when the frames fit in MaxTargets (the
	// user asked for an error bound).
	Compress bool
}

func (o MorphOptions) limit() int {
	if o.MaxTargets == 0 {
		return DefaultMaxTargets
	}
	return o.MaxTargets
}

func (o MorphOptions) tolerance() float64 {
	if o.MaxError == 0 {
		return DefaultMaxError
	}
	return o.MaxError
}

// compressed reports whether nf frames are written as a basis.
func (o MorphOptions) compressed(nf int) bool {
	if o.MaxTargets == AllTargets {
		return false
	}
	return o.Compress || nf > o.limit()
}

func (o MorphOptions) check() error {
	if o.MaxTargets < AllTargets || o.MaxTargets > 1024 {
		return fmt.Errorf("morph targets = %d: must be in 1..1024 (or all)", o.MaxTargets)
	}
	if o.MaxError < 0 || !finite32(o.MaxError) {
		return fmt.Errorf("max error = %g m: must be a finite number >= 0", o.MaxError)
	}
	if o.MaxTargets == AllTargets && o.Compress {
		return fmt.Errorf("exact targets (all) have no error to bound: drop the max error or give a target count")
	}
	return nil
}

// MorphInfo tells how a glTF bake stored its frames.
type MorphInfo struct {
	// Targets is the number of morph targets of the cloth mesh.
	Targets int `json:"morph_targets"`
	// Compressed is true for a basis, false for one target per frame.
	Compressed bool `json:"compressed"`
	// MaxError and RMSError are the largest and the root-mean-square
	// distance [m] between a vertex as the file plays it and as drape baked
	// it, over every vertex and frame (0 for exact targets).
	MaxError float64 `json:"max_error_m"`
	RMSError float64 `json:"rms_error_m"`
	// Bound is the error bound the basis aimed at [m] and BoundMet whether
	// it holds (a compressed bake that hit the target limit first may miss).
	Bound    float64 `json:"error_bound_m,omitempty"`
	BoundMet bool    `json:"bound_met"`
	// nodes counts the cloth nodes merged into these figures.
	nodes int
}

// stopFunc polls for a cancelled write (GLTFOptions.Cancelled); nil never
// stops. A parallel loop's items return early once it reports an error, and
// the caller checks it again after the loop, before it uses the results.
type stopFunc func() error

func (s stopFunc) err() error {
	if s == nil {
		return nil
	}
	return s()
}

// parallel runs fn(i) for i in 0..n-1 on every core. Each i must write only
// its own outputs, so the result does not depend on the thread count. Once
// stop reports an error the items not begun are skipped: the caller checks
// stop before it uses the outputs.
func parallel(n int, stop stopFunc, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			if stop.err() != nil {
				return
			}
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || stop.err() != nil {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// chunked splits 0..n-1 into fixed blocks (independent of the core count)
// and runs fn on each in parallel, skipping blocks as parallel does.
func chunked(n int, stop stopFunc, fn func(lo, hi int)) {
	const block = 2048
	parallel((n+block-1)/block, stop, func(c int) { fn(c*block, min(n, (c+1)*block)) })
}

// dot sums in four interleaved partial sums (a fixed order, so the same
// bits every run), which the CPU overlaps.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// basisFit is the principal-component fit of one mesh's displacement
// fields.
type basisFit struct {
	mean  []float64
	rows  [][]float64 // per frame, the residual: centred field minus the components so far
	comps [][]float64 // unit, orthonormal components u_i
	coef  [][]float64 // coef[f][i] = c_fi
	// evecs are the Gram eigenvectors over the sample frames, largest
	// eigenvalue first, and next the first one not used yet.
	evals  []float64
	evecs  [][]float64
	sample []int
	next   int
	stop   stopFunc
}

// newBasisFit centres the fields (rows, changed in place) and decomposes
// their Gram matrix; stop's error ends it.
func newBasisFit(rows [][]float64, stop stopFunc) (*basisFit, error) {
	nf, n := len(rows), len(rows[0])
	mean := make([]float64, n)
	chunked(n, stop, func(lo, hi int) {
		for _, r := range rows {
			for j := lo; j < hi; j++ {
				mean[j] += r[j]
			}
		}
		for j := lo; j < hi; j++ {
			mean[j] /= float64(nf)
		}
	})
	parallel(nf, stop, func(f int) {
		for j, m := range mean {
			rows[f][j] -= m
		}
	})
	step := (nf + maxGramFrames - 1) / maxGramFrames
	var sample []int
	for f := 0; f < nf; f += step {
		sample = append(sample, f)
	}
	ns := len(sample)
	g := make([][]float64, ns)
	for a := range g {
		g[a] = make([]float64, ns)
	}
	parallel(ns, stop, func(a int) {
		for b := 0; b <= a; b++ {
			g[a][b] = dot(rows[sample[a]], rows[sample[b]])
		}
	})
	if err := stop.err(); err != nil {
		return nil, err
	}
	for a := range ns {
		for b := 0; b < a; b++ {
			g[b][a] = g[a][b]
		}
	}
	vals, vecs, err := symEigen(g, stop)
	if err != nil {
		return nil, err
	}
	return &basisFit{mean: mean, rows: rows, coef: make([][]float64, nf), evals: vals, evecs: vecs, sample: sample, stop: stop}, nil
}

// grow adds the next principal component and takes it out of the residual;
// false when the fields have no variance left, or when b.stop reports an
// error (the caller checks it).
func (b *basisFit) grow() bool {
	n := len(b.mean)
	for b.next < len(b.evals) {
		if b.stop.err() != nil {
			return false
		}
		k := b.next
		b.next++
		if !(b.evals[k] > 1e-24*math.Max(b.evals[0], 1e-300)) {
			return false
		}
		u := make([]float64, n)
		chunked(n, b.stop, func(lo, hi int) {
			for s, f := range b.sample {
				w := b.evecs[s][k]
				r := b.rows[f]
				for j := lo; j < hi; j++ {
					u[j] += w * r[j]
				}
			}
		})
		// the residual is already orthogonal to earlier components up to
		// rounding; one more pass makes it so to working precision
		for _, c := range b.comps {
			d := dot(u, c)
			for j := range u {
				u[j] -= d * c[j]
			}
		}
		norm := math.Sqrt(dot(u, u))
		if !(norm > 0) {
			continue
		}
		for j := range u {
			u[j] /= norm
		}
		b.comps = append(b.comps, u)
		parallel(len(b.rows), b.stop, func(f int) {
			r := b.rows[f]
			c := dot(r, u)
			for j := range r {
				r[j] -= c * u[j]
			}
			b.coef[f] = append(b.coef[f], c)
		})
		return b.stop.err() == nil // stopped: coef lacks frames
	}
	return false
}

// residualError is the largest world-space vertex error of the fit so far;
// lin maps the mesh's space to world directions.
func (b *basisFit) residualError(lin vec.Mat4) float64 {
	scale, similar := similarity(lin)
	worst := make([]float64, len(b.rows))
	parallel(len(b.rows), b.stop, func(f int) {
		r := b.rows[f]
		w := 0.0
		for j := 0; j < len(r); j += 3 {
			var e float64
			if similar {
				e = r[j]*r[j] + r[j+1]*r[j+1] + r[j+2]*r[j+2]
			} else {
				e = lin.MulDir(vec.V(r[j], r[j+1], r[j+2])).LenSq()
			}
			if e > w {
				w = e
			}
		}
		worst[f] = w
	})
	w := 0.0
	for _, x := range worst {
		w = math.Max(w, x)
	}
	return scale * math.Sqrt(w)
}

// similarity reports whether m's linear part is a rotation times a uniform
// scale, and the scale (1 when it is not: then lengths need m itself).
func similarity(m vec.Mat4) (float64, bool) {
	var g [3][3]float64 // m^T m
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				g[i][j] += m[k][i] * m[k][j]
			}
		}
	}
	s2 := (g[0][0] + g[1][1] + g[2][2]) / 3
	for i := range 3 {
		for j := range 3 {
			want := 0.0
			if i == j {
				want = s2
			}
			if math.Abs(g[i][j]-want) > 1e-12*s2 {
				return 1, false
			}
		}
	}
	return math.Sqrt(s2), true
}

// storedBasis is a basis as written: K targets in the mesh's (quantized)
// space and the F x K weights.
type storedBasis struct {
	pos, nrm [][]float64 // [target][3*vertex], values as the file holds them
	// nrmShort says which normal targets are normalized SHORT (else float).
	nrmShort []bool
	weights  [][]float32 // [frame][target]
	scale    float64     // the mesh's space is local / scale
}

// store builds the targets and weights of the current fit. dn (nil without
// normals) returns frame f's normal displacements in the mesh's space;
// quantize rounds as KHR_mesh_quantization stores them. b.stop's error
// ends it.
func (b *basisFit) store(dn func(f int, out []float64), quantize bool) (*storedBasis, error) {
	nf, n, nc := len(b.rows), len(b.mean), len(b.comps)
	k := nc + 1
	lo, hi := make([]float64, nc), make([]float64, nc)
	for i := range nc {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
		for f := range nf {
			lo[i] = math.Min(lo[i], b.coef[f][i])
			hi[i] = math.Max(hi[i], b.coef[f][i])
		}
	}
	t := make([][]float64, k)
	t[0] = append([]float64(nil), b.mean...)
	for i, u := range b.comps {
		t[i+1] = make([]float64, n)
		for j, x := range u {
			t[0][j] += lo[i] * x
			t[i+1][j] = (hi[i] - lo[i]) * x
		}
	}
	w := make([][]float64, nf)
	for f := range w {
		w[f] = make([]float64, k)
		w[f][0] = 1
		for i := range nc {
			if hi[i] > lo[i] {
				w[f][i+1] = (b.coef[f][i] - lo[i]) / (hi[i] - lo[i])
			}
		}
	}
	var nt [][]float64
	if dn != nil {
		var err error
		if nt, err = fitNormals(w, n, dn, b.stop); err != nil {
			return nil, err
		}
	}

	// per-target scale a_j >= 1 (weights shrink to [0, 1/a_j]) so each
	// quantized target spans the int16 range
	sb := &storedBasis{scale: 1, nrmShort: make([]bool, k)}
	a := make([]float64, k)
	for j := range a {
		a[j] = 1
	}
	if quantize {
		mx := 0.0
		for _, tj := range t {
			mx = math.Max(mx, maxAbs(tj))
		}
		if mx > 1 {
			sb.scale = math.Exp2(math.Ceil(math.Log2(mx)))
		}
		for j := range t {
			if m := maxAbs(t[j]); m > 0 {
				a[j] = sb.scale / m
			}
			if nt != nil {
				if m := maxAbs(nt[j]); m > 0 && m <= 1 {
					a[j] = math.Min(a[j], 1/m)
				}
			}
			a[j] = math.Max(a[j], 1)
			if nt != nil {
				sb.nrmShort[j] = maxAbs(nt[j])*a[j] <= 1
			}
		}
	}
	sb.pos = make([][]float64, k)
	for j := range t {
		p := make([]float64, n)
		for i, x := range t[j] {
			x *= a[j] / sb.scale
			if quantize {
				p[i] = storedShort(x)
			} else {
				p[i] = float64(float32(x))
			}
		}
		sb.pos[j] = p
	}
	if nt != nil {
		sb.nrm = make([][]float64, k)
		for j := range nt {
			q := make([]float64, n)
			for i, x := range nt[j] {
				x *= a[j]
				if sb.nrmShort[j] {
					q[i] = storedShort(x)
				} else {
					q[i] = float64(float32(x))
				}
			}
			sb.nrm[j] = q
		}
	}
	sb.weights = make([][]float32, nf)
	for f := range w {
		sb.weights[f] = make([]float32, k)
		for j := range k {
			sb.weights[f][j] = float32(w[f][j] / a[j])
		}
	}
	return sb, nil
}

// storedShort is x as a normalized SHORT holds it.
func storedShort(x float64) float64 {
	return math.Round(clamp1(x)*math.MaxInt16) / math.MaxInt16
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// fitNormals finds the normal targets that, with the given weights, best
// fit every frame's normal displacements in the least-squares sense: the
// normal equations (W^T W) N = W^T dN, solved by Cholesky. stop is polled
// every frame.
func fitNormals(w [][]float64, n int, dn func(f int, out []float64), stop stopFunc) ([][]float64, error) {
	nf, k := len(w), len(w[0])
	wtw := make([][]float64, k)
	for i := range wtw {
		wtw[i] = make([]float64, k)
		for j := range k {
			for f := range nf {
				wtw[i][j] += w[f][i] * w[f][j]
			}
		}
	}
	rhs := make([][]float64, k)
	for i := range rhs {
		rhs[i] = make([]float64, n)
	}
	d := make([]float64, n)
	for f := range nf {
		if err := stop.err(); err != nil {
			return nil, err
		}
		dn(f, d)
		parallel(k, stop, func(i int) {
			wi := w[f][i]
			if wi == 0 {
				return
			}
			r := rhs[i]
			for j, x := range d {
				r[j] += wi * x
			}
		})
	}
	l := cholesky(wtw)
	chunked(n, stop, func(lo, hi int) {
		y := make([]float64, k)
		for j := lo; j < hi; j++ {
			for i := range k {
				y[i] = rhs[i][j]
			}
			cholSolve(l, y)
			for i := range k {
				rhs[i][j] = y[i]
			}
		}
	})
	if err := stop.err(); err != nil {
		return nil, err
	}
	return rhs, nil
}

// cholesky returns the lower factor of the symmetric positive
// semi-definite a, with a tiny ridge so that a weight column that is
// (nearly) a combination of others still gives a finite solution.
func cholesky(a [][]float64) [][]float64 {
	k := len(a)
	ridge := 0.0
	for i := range k {
		ridge = math.Max(ridge, a[i][i])
	}
	ridge *= 1e-12
	l := make([][]float64, k)
	for i := range l {
		l[i] = make([]float64, k)
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for p := range j {
				s -= l[i][p] * l[j][p]
			}
			if i == j {
				l[i][i] = math.Sqrt(math.Max(s+ridge, 1e-300))
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l
}

// cholSolve solves L L^T x = y in place.
func cholSolve(l [][]float64, y []float64) {
	k := len(y)
	for i := range k {
		for p := range i {
			y[i] -= l[i][p] * y[p]
		}
		y[i] /= l[i][i]
	}
	for i := k - 1; i >= 0; i-- {
		for p := i + 1; p < k; p++ {
			y[i] -= l[p][i] * y[p]
		}
		y[i] /= l[i][i]
	}
}

// basisTargets writes cn's mesh's morph targets as a compressed basis (see
// the top of this file) and keeps the weights on cn for the animation.
func basisTargets(b *binBuilder, cn *clothNode, a *Animation, opt GLTFOptions) (MorphInfo, error) {
	nf := len(a.Frames)
	tol := opt.Morph.tolerance()
	limit := opt.Morph.limit()

	// the simulated vertices of the mesh, primitives concatenated
	var sims []int
	n := 0
	for i, cp := range cn.prims {
		if cp.render >= 0 {
			sims = append(sims, i)
			n += 3 * len(cp.base)
		}
	}
	info := MorphInfo{Compressed: true, Bound: tol}
	toWorld := cn.toLocal.Inverse()
	rows := make([][]float64, nf)
	stop := stopFunc(opt.Cancelled)
	parallel(nf, stop, func(f int) {
		r := make([]float64, 0, n)
		for _, i := range sims {
			cp := &cn.prims[i]
			for j, q := range a.Frames[f][cp.render : cp.render+len(cp.base)] {
				d := cn.toLocal.MulPoint(q).Sub(cp.base[j])
				r = append(r, d.X, d.Y, d.Z)
			}
		}
		rows[f] = r
	})
	if err := stop.err(); err != nil {
		return info, err
	}
	for f, r := range rows {
		for _, x := range r {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return info, fmt.Errorf("frame %d: a displacement is not finite", f)
			}
		}
	}

	var dn func(f int, out []float64)
	if opt.Normals {
		maxN := 0
		for _, cp := range cn.prims {
			maxN = max(maxN, len(cp.base))
		}
		dn = func(f int, out []float64) {
			o := 0
			for _, i := range sims {
				cp := &cn.prims[i]
				nv := len(cp.base)
				var wn []vec.Vec3
				if a.Normals != nil {
					wn = a.Normals[f][cp.render : cp.render+nv]
				} else {
					wn = make([]vec.Vec3, nv)
					primitiveNormals(a.Frames[f][cp.render:cp.render+nv], cp.indices, wn)
				}
				for j, nw := range wn {
					d := unitOrUp(cn.normalM.MulDir(nw)).Sub(cp.baseN[j])
					out[o], out[o+1], out[o+2] = d.X, d.Y, d.Z
					o += 3
				}
			}
		}
	}

	fit, err := newBasisFit(rows, stop)
	if err != nil {
		return info, err
	}
	for len(fit.comps)+1 < limit && fit.residualError(toWorld) > tol {
		if !fit.grow() {
			break
		}
	}
	if err := stop.err(); err != nil {
		return info, err
	}
	var sb *storedBasis
	for {
		if err := stop.err(); err != nil { // grow may have stopped half-way
			return info, err
		}
		if sb, err = fit.store(dn, opt.Quantize); err != nil {
			return info, err
		}
		info.MaxError, info.RMSError = measureBasis(cn, sims, a, sb, toWorld, stop)
		if err := stop.err(); err != nil {
			return info, err
		}
		if info.MaxError <= tol || len(fit.comps)+1 >= limit || !fit.grow() {
			break
		}
	}
	if err := stop.err(); err != nil { // grow stopped
		return info, err
	}
	k := len(sb.pos)
	info.Targets = k
	info.BoundMet = info.MaxError <= tol
	cn.scale = sb.scale
	cn.weights = sb.weights

	if err := writeBase(b, cn, opt); err != nil {
		return info, err
	}
	// not simulated: zero displacements, shared per vertex count
	zero := zeroTargets{}
	for i := range cn.prims {
		cn.prims[i].gp.Targets = make([]gltf.PrimitiveAttributes, 0, k)
	}
	for j := range k {
		if err := stop.err(); err != nil {
			return info, err
		}
		o := 0
		for i := range cn.prims {
			cp := &cn.prims[i]
			nv := len(cp.base)
			t := gltf.PrimitiveAttributes{}
			if cp.render < 0 {
				cp.gp.Targets = append(cp.gp.Targets, zero.target(b, nv, opt.Normals))
				continue
			}
			d := toVec3s(sb.pos[j][o : o+3*nv])
			var idx int
			var err error
			if opt.Quantize {
				idx, err = b.shortDeltas(d)
			} else {
				idx, err = b.vec3s(d, true)
			}
			if err != nil {
				return info, fmt.Errorf("basis shape %d, %s: %w", j, primName(cp), err)
			}
			t[gltf.POSITION] = idx
			if opt.Normals {
				d := toVec3s(sb.nrm[j][o : o+3*nv])
				if opt.Quantize && sb.nrmShort[j] {
					idx, err = b.shortDeltas(d)
				} else {
					idx, err = b.vec3s(d, false)
				}
				if err != nil {
					return info, fmt.Errorf("normals of basis shape %d, %s: %w", j, primName(cp), err)
				}
				t[gltf.NORMAL] = idx
			}
			cp.gp.Targets = append(cp.gp.Targets, t)
			o += 3 * nv
		}
	}

	weights := make([]float64, k)
	for j, x := range sb.weights[0] {
		weights[j] = float64(x)
	}
	cn.setTargets(weights, basisNameFormat)
	return info, nil
}

func toVec3s(x []float64) []vec.Vec3 {
	out := make([]vec.Vec3, len(x)/3)
	for i := range out {
		out[i] = vec.V(x[3*i], x[3*i+1], x[3*i+2])
	}
	return out
}

// measureBasis plays the stored basis as a client does (base + sum of
// weight x target in the mesh's space, times the quantization scale,
// through the node's transform) and returns the largest and the RMS
// distance [m] to the baked frames. Once stop reports an error the
// figures are meaningless (the caller checks it).
func measureBasis(cn *clothNode, sims []int, a *Animation, sb *storedBasis, toWorld vec.Mat4, stop stopFunc) (worst, rms float64) {
	nf := len(a.Frames)
	worstF := make([]float64, nf)
	sumF := make([]float64, nf)
	count := 0
	for _, i := range sims {
		count += len(cn.prims[i].base)
	}
	toWorld = toWorld.Mul(vec.ScaleMat(vec.V(sb.scale, sb.scale, sb.scale)))
	parallel(nf, stop, func(f int) {
		w := sb.weights[f]
		o := 0
		wmax, sum := 0.0, 0.0
		for _, i := range sims {
			cp := &cn.prims[i]
			for j, q := range a.Frames[f][cp.render : cp.render+len(cp.base)] {
				// the file's base is the local base / scale, as float32
				p := vec.FromF32(cp.base[j].Scale(1 / sb.scale).F32())
				for t, wt := range w {
					x := float64(wt)
					p.X += x * sb.pos[t][o]
					p.Y += x * sb.pos[t][o+1]
					p.Z += x * sb.pos[t][o+2]
				}
				e := toWorld.MulPoint(p).Sub(q).LenSq()
				wmax = math.Max(wmax, e)
				sum += e
				o += 3
			}
		}
		worstF[f], sumF[f] = wmax, sum
	})
	total := 0.0
	for f := range nf {
		worst = math.Max(worst, worstF[f])
		total += sumF[f]
	}
	return math.Sqrt(worst), math.Sqrt(total / float64(max(1, nf*count)))
}

// merge combines the figures of two cloth nodes written to one file.
func (m MorphInfo) merge(o MorphInfo) MorphInfo {
	o.nodes = max(o.nodes, 1)
	if m.nodes == 0 {
		return o
	}
	// RMS over all, weighting each node alike (nodes are instances of one
	// cloth, so they have the same vertex count)
	m.RMSError = math.Sqrt((m.RMSError*m.RMSError*float64(m.nodes) + o.RMSError*o.RMSError*float64(o.nodes)) / float64(m.nodes+o.nodes))
	m.nodes += o.nodes
	m.Targets = max(m.Targets, o.Targets)
	m.Compressed = m.Compressed || o.Compressed
	m.MaxError = math.Max(m.MaxError, o.MaxError)
	m.BoundMet = m.BoundMet && o.BoundMet
	return m
}
