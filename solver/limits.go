package solver

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// This file builds the hierarchical stretch limits: unilateral rope
// constraints along chains of nearly straight edges, each spanning 4, 8,
// 16, ... edges of its chain: the length of the path through every
// (span/4)-th chain vertex between its ends may not exceed d_ij, the rest
// length of the edge path between them (projectRope).
//
// Why: XPBD projects each constraint once per substep (Macklin et al. 2019),
// and one Gauss-Seidel sweep moves a correction only a few edges, so a
// hanging or draped cloth n edges long keeps a stretch that grows as n² (a
// 40-row cloth at 15 substeps without tethers stretched 80 %, a 64x64
// cloth draped over a sphere 82 %). Tethers (Kim, Chentanez, Müller 2012)
// fix that only for vertices hanging from pins. The limits do it for any
// cloth, pinned or not, in the spirit of a multigrid hierarchy: each level
// is a coarser sampling of the mesh whose constraints carry a correction
// 2^k edges in one projection.
//
// They do not stop the cloth folding or buckling: a path of edges cannot
// get longer than its rest length without stretching an edge, so a limit
// binds only where the fabric itself is stretched, and it never pushes two
// vertices apart (the multiplier is kept <= 0, like a tether's). The
// chains turn at most 15 degrees at each vertex (grid lines and their
// analogues), which is where a limit adds information: along a nearly
// straight path the rope is taut as soon as the fabric stretches. Its
// compliance is the series compliance of the edges it spans, so a level of
// limits is mechanically a set of extra fibres; in the fully stretched
// limit the smooth tensile response is at most about twice
// StretchStiffness, and at the default 1e4 N/m the physical strain of
// hanging cloth stays far below 0.1 % either way.

// A chain that holds a hard-pinned vertex (a line of the cloth hanging
// from its pins) is also solved as a whole after its limits: its edges'
// constraints together, exactly, in one projection (projectChain), so the
// weight of the line below reaches the pins in the same substep. On the
// hanging curtain of TestHangingCurtainStrain this takes the largest
// strain from 0.23 / 0.49 % to 0.05 / 0.15 % at 64 / 128 rows, and on the
// one swinging down from flat (TestSwingingCurtainStrain) from 9.3 / 43.5 %
// to 0.9 / 3.5 %. Chains without a pin are not solved so: in a cloth
// crumpled over a collider the solved lines of the three grid directions
// undo each other, each substep, and the cloth never comes to rest
// (docs/benchmarks.md, "Edge strain").

// limitBlock holds the stretch limits grouped by chain (each chain's limits
// coarse level first, then along the chain) and the chains sorted by
// colour (struct of slices). Two chains of one colour share no vertex, so
// the chains of a colour are projected in parallel, each chain's limits in
// order by one goroutine: a handful of phases per substep however many
// levels and limits there are.
type limitBlock struct {
	path     []int32   // limit i spans the vertices path[off[i]:off[i+1]]
	off      []int32   // len = limits+1
	maxLen   []float64 // rest length of the edge path [m]
	alpha    []float64 // compliance [m/N]
	chainOff []int32   // chain k holds limits chainOff[k]:chainOff[k+1]
	colours  []int     // colour c is chains colours[c]:colours[c+1]

	// chain k's vertices in order are cv[cvOff[k]:cvOff[k+1]]; solve[k]
	// says whether its edges are solved together (projectChain: a chain
	// that holds a pinned vertex), and its edge j's rest length and
	// stretch and compression compliances are at index cvOff[k]-k+j of
	// rest, alphaS and alphaC; work[c] is the work of colour c's chains
	// (chainWork)
	cv     []int32
	cvOff  []int32
	solve  []bool
	rest   []float64
	alphaS []float64
	alphaC []float64
	work   []int
}

// num returns the number of limits and of the colour groups of their
// chains.
func (b *limitBlock) num() (limits, colours int) {
	return len(b.maxLen), len(b.colours) - 1
}

// chainTouches returns the vertices the projection of chain k touches
// (projectLimitRange): a solved chain's, else those of its limits' paths.
func (b *limitBlock) chainTouches(k int) []int32 {
	if b.solve[k] {
		return b.chainVerts(k)
	}
	return b.path[b.off[b.chainOff[k]]:b.off[b.chainOff[k+1]]]
}

// chainVerts returns chain k's vertices in order.
func (b *limitBlock) chainVerts(k int) []int32 {
	return b.cv[b.cvOff[k]:b.cvOff[k+1]]
}

// chainEdges returns the index of chain k's first edge in rest, alphaS
// and alphaC.
func (b *limitBlock) chainEdges(k int) int {
	return int(b.cvOff[k]) - k
}

// vertexAdjacency returns the CSR vertex adjacency of the topology's edges.
func (m *Model) vertexAdjacency() (start, adj []int32) {
	n := len(m.Rest)
	start = make([]int32, n+1)
	for _, e := range m.Topo.Edges {
		start[e.V[0]+1]++
		start[e.V[1]+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	adj = make([]int32, start[n])
	fill := append([]int32(nil), start[:n]...)
	for _, e := range m.Topo.Edges {
		adj[fill[e.V[0]]] = e.V[1]
		fill[e.V[0]]++
		adj[fill[e.V[1]]] = e.V[0]
		fill[e.V[1]]++
	}
	return start, adj
}

// limitRopeSegments is the number of segments a rope limit follows along
// its chain: a rope over s edges goes through every max(1, s/4)-th chain
// vertex, so each limit costs O(1) and a bent path (cloth wrapped over a
// collider) loses only 1/16 of the slack a straight chord would have.
const limitRopeSegments = 4

// limitScanDegree is the most edges a vertex may have for a chain to run
// through it: no cloth vertex has more (a UV sphere's pole has one per
// segment), and scanning a hub's edges for each of its edges (a polygon of
// 40,000 corners fan-split) would take quadratic time.
const limitScanDegree = 256

// limitMinSpan is the shortest limit, in edges.
const limitMinSpan = 4

// limitMinCos is the cosine of the largest turn (15 degrees) a chain of
// edges may take at a vertex and still count as straight.
const limitMinCos = 0.966

// newLimits builds the hierarchy of stretch limits. It splits the edges
// into chains of nearly straight edges (grid lines, and their analogues in
// any mesh): edge (u, v) continues at v with the edge (v, w) that turns
// least, if the turn is below 15 degrees and (v, w) also picks (u, v) back.
// Along each chain c_0 .. c_L it adds limits between c_{j·s} and
// c_{min((j+1)·s, L)} for s = 4, 8, 16, ... <= L, with maxLen the rest path
// length between them: about one limit per edge in all. Each chain keeps
// its limits together, coarse levels first, and the chains are coloured so
// that no two of one colour share a vertex. The limits are XPBD's: the
// XPBD integrator builds them for itself (NewXPBD) and m is only read.
func newLimits(m *Model) limitBlock {
	var lb limitBlock
	b := &lb
	b.colours = []int{0}
	b.chainOff = []int32{0}
	b.off = []int32{0}
	b.cvOff = []int32{0}
	if !m.anyFabric(func(f *Fabric) bool { return f.StretchStiffness > 0 }) || len(m.stretch.v) == 0 {
		return lb
	}
	// mean stretch compliance per unit length
	aPerLen := 0.0
	for i, l := range m.stretch.rest {
		if a := m.stretch.alpha[i]; !math.IsInf(a, 1) {
			aPerLen += a / l
		}
	}
	aPerLen /= float64(len(m.stretch.v))

	start, adj := m.vertexAdjacency()
	rest := m.Rest
	// slot k in v's list (start[v] <= k < start[v+1]) is the directed edge
	// v -> adj[k]; from[k] = v, rev[k] is the slot of adj[k] -> v
	from := make([]int32, len(adj))
	rev := make([]int32, len(adj))
	for v := int32(0); int(v) < len(rest); v++ {
		for k := start[v]; k < start[v+1]; k++ {
			from[k] = v
		}
	}
	hub := map[int32]map[int32]int32{} // neighbour -> slot, of vertices above limitScanDegree
	for k := range adj {
		w := adj[k]
		if start[w+1]-start[w] > limitScanDegree {
			idx := hub[w]
			if idx == nil {
				idx = make(map[int32]int32, start[w+1]-start[w])
				for r := start[w]; r < start[w+1]; r++ {
					idx[adj[r]] = r
				}
				hub[w] = idx
			}
			rev[k] = idx[from[k]]
			continue
		}
		for r := start[w]; r < start[w+1]; r++ {
			if adj[r] == from[k] {
				rev[k] = r
				break
			}
		}
	}
	// pick returns the slot of the straightest continuation w -> x of the
	// directed edge k = v -> w, or -1 if every turn exceeds 15 degrees
	pick := func(k int32) int32 {
		v, w := from[k], adj[k]
		if start[w+1]-start[w] > limitScanDegree {
			return -1
		}
		d := rest[w].Sub(rest[v])
		dl := d.Len()
		best, bestCos := int32(-1), limitMinCos
		for r := start[w]; r < start[w+1]; r++ {
			x := adj[r]
			if x == v {
				continue
			}
			e := rest[x].Sub(rest[w])
			if c := d.Dot(e) / (dl * e.Len()); c > bestCos {
				best, bestCos = r, c
			}
		}
		return best
	}
	// cont[k]: continuation of k if mutual (x -> w continues to w -> v)
	cont := make([]int32, len(adj))
	for k := range adj {
		cont[k] = -1
		if r := pick(int32(k)); r >= 0 {
			if b := pick(rev[r]); b >= 0 && b == rev[k] {
				cont[k] = r
			}
		}
	}
	type limit struct {
		a, b  int32 // path is verts[a:b]
		d     float64
		alpha float64 // series compliance of its edges (several fabrics)
	}
	var lims []limit
	var chainOff []int32  // chain k holds lims[chainOff[k]:chainOff[k+1]]
	var cv, cvOff []int32 // chain k's vertices cv[cvOff[k]:cvOff[k+1]]
	var solves []bool     // whether chain k is solved as a whole
	cvOff = append(cvOff, 0)
	var spans []int
	var verts []int32
	var chain []int32
	var plen, pcomp []float64
	used := make([]bool, len(adj))
	for k0 := range adj {
		if used[k0] {
			continue
		}
		// walk back to the chain's first edge (or once around a cycle)
		k := int32(k0)
		for {
			c := cont[rev[k]]
			if c < 0 || rev[c] == int32(k0) || used[rev[c]] {
				break
			}
			k = rev[c]
		}
		// walk forward
		chain = append(chain[:0], from[k], adj[k])
		used[k], used[rev[k]] = true, true
		for cont[k] >= 0 && !used[cont[k]] {
			k = cont[k]
			used[k], used[rev[k]] = true, true
			chain = append(chain, adj[k])
		}
		plen, pcomp = plen[:0], pcomp[:0]
		acc, comp := 0.0, 0.0
		for i, c := range chain {
			if i > 0 {
				acc += rest[c].Sub(rest[chain[i-1]]).Len()
				if m.triFab != nil {
					_, a, _ := m.edgeCompliance(m.Topo.Edges[m.Topo.EdgeID(chain[i-1], c)])
					comp += a
				}
			}
			plen = append(plen, acc)
			pcomp = append(pcomp, comp)
		}
		L := len(chain) - 1
		if L < 2 {
			continue
		}
		// coarse levels first
		spans = spans[:0]
		for sp := limitMinSpan; sp <= L; sp *= 2 {
			spans = append(spans, sp)
		}
		first := len(lims)
		for k := len(spans) - 1; k >= 0; k-- {
			sp := spans[k]
			step := max(1, sp/limitRopeSegments)
			for j := 0; j*sp < L; j++ {
				i0, i1 := j*sp, min((j+1)*sp, L)
				u, v := chain[i0], chain[i1]
				if i1-i0 < 2 || u == v || (m.InvMass[u] == 0 && m.InvMass[v] == 0) {
					continue
				}
				a := int32(len(verts))
				for i := i0; i < i1; i += step {
					verts = append(verts, chain[i])
				}
				verts = append(verts, v)
				lims = append(lims, limit{a, int32(len(verts)), plen[i1] - plen[i0], min(pcomp[i1]-pcomp[i0], 1e30)})
			}
		}
		// a chain that holds a pinned vertex and a free one is solved as
		// a whole (projectChain); one with limits keeps them
		free, pinned := false, false
		for _, c := range chain {
			free = free || m.InvMass[c] != 0
			pinned = pinned || m.InvMass[c] == 0
		}
		if solve := free && pinned; solve || len(lims) > first {
			chainOff = append(chainOff, int32(first))
			cv = append(cv, chain...)
			cvOff = append(cvOff, int32(len(cv)))
			solves = append(solves, solve)
		}
	}
	chainOff = append(chainOff, int32(len(lims)))
	nch := len(chainOff) - 1
	chainVerts := func(k int) []int32 { return cv[cvOff[k]:cvOff[k+1]] }
	// the vertices a chain's projection touches: all of a solved chain's,
	// else those of its limits' paths (its first limit starts them in
	// verts, its last ends them)
	touches := func(k int) []int32 {
		if solves[k] {
			return chainVerts(k)
		}
		return verts[lims[chainOff[k]].a:lims[chainOff[k+1]-1].b]
	}
	pos, starts := colourConstraints(len(rest), nch, touches)
	order := make([]int, nch)
	for k, c := range pos {
		order[c] = k
	}
	b.colours = starts
	b.maxLen = make([]float64, 0, len(lims))
	b.alpha = make([]float64, 0, len(lims))
	for _, k := range order {
		for _, l := range lims[chainOff[k]:chainOff[k+1]] {
			b.path = append(b.path, verts[l.a:l.b]...)
			b.off = append(b.off, int32(len(b.path)))
			b.maxLen = append(b.maxLen, l.d)
			if m.triFab == nil {
				b.alpha = append(b.alpha, aPerLen*l.d)
			} else {
				// the fabrics' mean compliance per length would be too
				// soft in one and too stiff in another
				b.alpha = append(b.alpha, l.alpha)
			}
		}
		b.chainOff = append(b.chainOff, int32(len(b.maxLen)))
		b.solve = append(b.solve, solves[k])
		c := chainVerts(k)
		b.cv = append(b.cv, c...)
		b.cvOff = append(b.cvOff, int32(len(b.cv)))
		for j := 0; j+1 < len(c); j++ {
			l, a, ac := m.edgeCompliance(m.Topo.Edges[m.Topo.EdgeID(c[j], c[j+1])])
			b.rest = append(b.rest, l)
			b.alphaS = append(b.alphaS, a)
			b.alphaC = append(b.alphaC, ac)
		}
	}
	b.work = make([]int, len(b.colours)-1)
	for c := range b.work {
		for k := b.colours[c]; k < b.colours[c+1]; k++ {
			b.work[c] += b.chainWork(k)
		}
	}
	return lb
}

// projectRope projects the unilateral rope constraint
// C = sum_i |x_{i+1} - x_i| - maxLen <= 0 over the vertices path of pos
// (inverse masses w) in place, with compliance alphaT (already divided by
// dt²), keeping the accumulated multiplier lambda <= 0 so that it only
// ever shortens the path. The gradient at vertex i is u_{i-1} - u_i, with
// u_i the unit vector from x_i to x_{i+1} (zero beyond the ends): the ends
// are pulled along the path and the inner vertices towards the inside of
// its bends, as a taut rope would. It returns dlambda.
func projectRope(pos []vec.Vec3, w []float64, path []int32, maxLen, alphaT, lambda float64) float64 {
	// segment vectors and the path length; a slack rope that has not
	// pulled in this substep (the common case) stops here
	var u [limitRopeSegments][3]float64
	var sl [limitRopeSegments]float64
	n := len(path) - 1
	l := 0.0
	for i := 0; i < n; i++ {
		p0, p1 := &pos[path[i]], &pos[path[i+1]]
		dx, dy, dz := p1.X-p0.X, p1.Y-p0.Y, p1.Z-p0.Z
		d := math.Sqrt(dx*dx + dy*dy + dz*dz)
		u[i] = [3]float64{dx, dy, dz}
		sl[i] = d
		l += d
	}
	if lambda == 0 && l <= maxLen {
		return 0
	}
	// unit segment vectors and generalised inverse mass
	// sum_i w_i |grad_i C|²
	var den float64
	var px, py, pz float64 // previous unit vector
	for i, v := range path {
		var nx, ny, nz float64
		if i < n {
			if d := sl[i]; d > 1e-12 {
				inv := 1 / d
				nx, ny, nz = u[i][0]*inv, u[i][1]*inv, u[i][2]*inv
			}
			u[i] = [3]float64{nx, ny, nz}
		}
		gx, gy, gz := px-nx, py-ny, pz-nz
		den += w[v] * (gx*gx + gy*gy + gz*gz)
		px, py, pz = nx, ny, nz
	}
	if den+alphaT < 1e-30 {
		return 0
	}
	dl := (maxLen - l - alphaT*lambda) / (den + alphaT)
	if lambda+dl > 0 {
		dl = -lambda
	}
	// apply the gradient taken before any vertex moved
	px, py, pz = 0, 0, 0
	for i, v := range path {
		var nx, ny, nz float64
		if i < n {
			nx, ny, nz = u[i][0], u[i][1], u[i][2]
		}
		if s := w[v] * dl; s != 0 {
			p := &pos[v]
			p.X += s * (px - nx)
			p.Y += s * (py - ny)
			p.Z += s * (pz - nz)
		}
		px, py, pz = nx, ny, nz
	}
	return dl
}

// chainWork is the work of chain k in constraint units: its limits and,
// if it is solved as a whole, twice its edges (projectChain).
func (b *limitBlock) chainWork(k int) int {
	w := int(b.chainOff[k+1] - b.chainOff[k])
	if b.solve[k] {
		w += 2 * int(b.cvOff[k+1]-b.cvOff[k]-1)
	}
	return w
}

// projectChain projects the stretch constraints C_j = |x_{j+1} - x_j| -
// rest_j of the chain of vertices path (inverse masses w) together: one
// Newton step of the chain's XPBD system, solved exactly (Goldenthal et
// al. 2007, "Efficient Simulation of Inextensible Cloth", restricted to a
// chain; Deul, Kugelstadt, Weiler, Bender 2018, "Direct Position-Based
// Solver for Stiff Rods"). With n_j the unit vector of edge j, the
// system (J·W·Jᵀ + α̃)·Δλ = -C - α̃·λ is tridiagonal:
//
//	A_jj     = w_j + w_{j+1} + α̃_j
//	A_j,j+1  = -w_{j+1}·(n_j·n_{j+1})
//
// and the Thomas algorithm solves it in O(len(path)). Each vertex then
// moves by w_i·(n_{i-1}·Δλ_{i-1} - n_i·Δλ_i). Projected edge by edge, a
// correction travels one edge per Gauss-Seidel sweep, so a hanging cloth
// n edges long keeps a stretch growing with n; solved together, a whole
// line of the cloth (a chain, see newLimits) reaches its rest length in
// one projection. al and alc are the edges' stretch and compression
// compliances, inv = 1/dt²; lam (may be nil) holds the edges' multipliers
// and gets Δλ added. nrm, cp and dp are scratch of len(rest).
func projectChain(pos []vec.Vec3, w []float64, path []int32, rest, al, alc []float64, inv float64, lam []float64, nrm []vec.Vec3, cp, dp []float64) {
	n := len(rest)
	if n == 0 {
		return
	}
	// edge returns edge j's unit vector, diagonal A_jj and right-hand side;
	// an edge that is degenerate, has no stiffness or no free vertex gets
	// a zero unit vector and the row Δλ_j = 0, which uncouples it
	edge := func(j int) (vec.Vec3, float64, float64) {
		v0, v1 := path[j], path[j+1]
		d := pos[v1].Sub(pos[v0])
		l := math.Sqrt(d.LenSq())
		c := l - rest[j]
		a := al[j]
		if c < 0 {
			a = alc[j]
		}
		a *= inv
		ws := w[v0] + w[v1]
		if l < 1e-12 || math.IsInf(a, 1) || ws == 0 {
			return vec.Vec3{}, 1, 0
		}
		r := -c
		if lam != nil {
			r -= a * lam[j]
		}
		return d.Scale(1 / l), ws + a, r
	}
	// Thomas algorithm, forward: cp[j] = c'_j = A_j,j+1/m_j, dp[j] = d'_j
	nj, diag, r := edge(0)
	prevB, prevC, prevD := 0.0, 0.0, 0.0
	for j := 0; j < n; j++ {
		var nn vec.Vec3
		var ndiag, nr, b float64
		if j+1 < n {
			nn, ndiag, nr = edge(j + 1)
			b = -w[path[j+1]] * nj.Dot(nn)
		}
		m := diag - prevB*prevC
		cj, dj := b/m, (r-prevB*prevD)/m
		nrm[j], cp[j], dp[j] = nj, cj, dj
		prevB, prevC, prevD = b, cj, dj
		nj, diag, r = nn, ndiag, nr
	}
	// back substitution (dp becomes Δλ) and the moves: vertex j+1 moves
	// by w·(n_j·Δλ_j - n_{j+1}·Δλ_{j+1}), from the normals taken before
	// any vertex moved
	next := vec.Vec3{} // n_{j+1}·Δλ_{j+1}
	for j := n - 1; j >= 0; j-- {
		if j < n-1 {
			dp[j] -= cp[j] * dp[j+1]
		}
		g := nrm[j].Scale(dp[j])
		if v := path[j+1]; w[v] != 0 {
			pos[v] = pos[v].Add(g.Sub(next).Scale(w[v]))
		}
		next = g
	}
	if v := path[0]; w[v] != 0 {
		pos[v] = pos[v].Sub(next.Scale(w[v]))
	}
	if lam != nil {
		for j := range n {
			lam[j] += dp[j]
		}
	}
}
