package sdf

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// Errors NewMesh wraps, so callers can tell the kind of bad input apart.
var (
	// ErrDegenerate: no triangles, an index out of range, a triangle with a
	// repeated vertex or zero area, a non-finite position.
	ErrDegenerate = errors.New("degenerate mesh")
	// ErrNotClosed: an edge used by only one triangle (a hole).
	ErrNotClosed = errors.New("mesh is not closed")
	// ErrNonManifold: an edge used by more than two triangles, or two
	// triangles that disagree on the winding of their shared edge.
	ErrNonManifold = errors.New("mesh is not manifold")
)

// Mesh is the signed distance to a closed triangle mesh (a body, a table):
// exact nearest-triangle distance (candidate lists near the surface, a BVH
// elsewhere), sign from angle-weighted pseudo-normals (Bærentzen & Aanæs
// 2005), and a coarse grid of distance bounds for early outs (see the
// package doc). It is immutable after NewMesh and safe for concurrent
// queries. Building the MakeHuman body (27k triangles) takes about 0.7 s
// of CPU, spread over GOMAXPROCS threads, and holds about 27 MB (21 MB of
// it the near-surface candidate lists).
type Mesh struct {
	geo   []triGeom // triangles in BVH leaf order
	info  []triInfo // normals and vertex ids, parallel to geo
	vnorm []vec.Vec3
	nodes []bvhNode
	lo    vec.Vec3
	hi    vec.Vec3
	grid  boundGrid
	band  bandGrid
	open  int // boundary edges (AllowOpen)
}

// triGeom is what the nearest-triangle search reads: corner a and edges
// ab = b - a and ac = c - a.
type triGeom struct{ a, ab, ac vec.Vec3 }

// triInfo holds a triangle's pseudo-normals: the face normal, the edge
// normals of edges ab, bc, ca, and the vertex ids for vertex normals.
type triInfo struct {
	n  vec.Vec3
	en [3]vec.Vec3
	v  [3]int32
}

// Closest-feature regions of a point-triangle query.
const (
	regionFace uint8 = iota
	regionA
	regionB
	regionC
	regionAB
	regionBC
	regionCA
)

// MeshOptions tunes NewMeshWith.
type MeshOptions struct {
	// AllowOpen accepts edges used by a single triangle (small holes, such
	// as the eye and mouth holes of a low-poly body). The signed distance
	// stays exact in magnitude; its sign is only reliable away from the
	// holes: near a hole the nearest feature may be a boundary edge, whose
	// pseudo-normal is its one face's normal, and a point can be reported
	// outside through the hole. Components are oriented by their (then
	// approximate) signed volume.
	AllowOpen bool

	// noBand skips the near-surface candidate lists (MeshSequence's
	// samples, built every frame: the lists cost about 0.3 s for the
	// 27k-triangle body, the tree walk they save about 0.4 us a query).
	noBand bool
	// cells is the bound grid's target number of cells (0: gridCells).
	cells int
}

// NewMesh builds the signed distance of the closed triangle mesh with
// vertex positions pos [m] and triangles tris (indices into pos). Every
// edge must be shared by exactly two triangles with opposite winding.
// Components wound inside-out (negative volume) are flipped, so either
// winding works. Errors wrap ErrDegenerate, ErrNotClosed or ErrNonManifold
// and name the triangle or vertices to fix.
func NewMesh(pos []vec.Vec3, tris [][3]int32) (*Mesh, error) {
	return NewMeshWith(pos, tris, MeshOptions{})
}

// NewMeshWith is NewMesh with options; see MeshOptions.
func NewMeshWith(pos []vec.Vec3, tris [][3]int32, o MeshOptions) (*Mesh, error) {
	if len(tris) == 0 {
		return nil, fmt.Errorf("%w: no triangles", ErrDegenerate)
	}
	if len(tris) > math.MaxInt32/3 {
		return nil, fmt.Errorf("%w: %d triangles: at most %d supported", ErrDegenerate, len(tris), math.MaxInt32/3)
	}
	for i, p := range pos {
		if !p.IsFinite() {
			return nil, fmt.Errorf("%w: vertex %d = %v is not finite", ErrDegenerate, i, p)
		}
	}
	t := slices.Clone(tris)
	for i, tr := range t {
		for _, v := range tr {
			if v < 0 || int(v) >= len(pos) {
				return nil, fmt.Errorf("%w: triangle %d: vertex index %d out of range (%d vertices)", ErrDegenerate, i, v, len(pos))
			}
		}
		if tr[0] == tr[1] || tr[1] == tr[2] || tr[2] == tr[0] {
			return nil, fmt.Errorf("%w: triangle %d repeats a vertex (%d, %d, %d)", ErrDegenerate, i, tr[0], tr[1], tr[2])
		}
		a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		n := b.Sub(a).Cross(c.Sub(a))
		scale := math.Max(b.Sub(a).LenSq(), math.Max(c.Sub(a).LenSq(), c.Sub(b).LenSq()))
		if n.LenSq() <= 1e-24*scale*scale || scale == 0 {
			return nil, fmt.Errorf("%w: triangle %d (vertices %d, %d, %d) has zero area: remove degenerate triangles (e.g. Blender's Merge by Distance)", ErrDegenerate, i, tr[0], tr[1], tr[2])
		}
	}
	nb, open, err := neighbours(t, o.AllowOpen)
	if err != nil {
		return nil, err
	}
	orient(pos, t, nb)

	m := &Mesh{lo: pos[t[0][0]], hi: pos[t[0][0]], open: open}
	for _, tr := range t {
		for _, v := range tr {
			m.lo, m.hi = m.lo.Min(pos[v]), m.hi.Max(pos[v])
		}
	}

	// pseudo-normals: face, edge (sum of the two faces: each has angle π
	// at the edge), vertex (weighted by the incident angle).
	fn := make([]vec.Vec3, len(t))
	m.vnorm = make([]vec.Vec3, len(pos))
	for i, tr := range t {
		a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		n := b.Sub(a).Cross(c.Sub(a)).Normalize()
		fn[i] = n
		m.vnorm[tr[0]] = m.vnorm[tr[0]].AddScaled(n, angle(b.Sub(a), c.Sub(a)))
		m.vnorm[tr[1]] = m.vnorm[tr[1]].AddScaled(n, angle(c.Sub(b), a.Sub(b)))
		m.vnorm[tr[2]] = m.vnorm[tr[2]].AddScaled(n, angle(a.Sub(c), b.Sub(c)))
	}
	for i := range m.vnorm {
		m.vnorm[i] = m.vnorm[i].Normalize()
	}

	order := buildBVH(pos, t, &m.nodes)
	m.geo = make([]triGeom, len(t))
	m.info = make([]triInfo, len(t))
	for j, i := range order {
		tr := t[i]
		a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		m.geo[j] = triGeom{a: a, ab: b.Sub(a), ac: c.Sub(a)}
		inf := triInfo{n: fn[i], v: tr}
		for k := 0; k < 3; k++ {
			if j := nb[i][k]; j >= 0 {
				inf.en[k] = fn[i].Add(fn[j]).Normalize()
			} else {
				inf.en[k] = fn[i] // boundary edge (AllowOpen)
			}
		}
		m.info[j] = inf
	}
	cells := o.cells
	if cells == 0 {
		cells = gridCells
	}
	m.grid = newBoundGrid(m, cells)
	if !o.noBand {
		m.band = newBandGrid(m)
	}
	return m, nil
}

// angle returns the angle [rad] between u and v.
func angle(u, v vec.Vec3) float64 { return math.Atan2(u.Cross(v).Len(), u.Dot(v)) }

// neighbours returns, for each triangle and each of its edges (01, 12, 20),
// the triangle across that edge (-1 on a boundary), and the number of
// boundary edges, after checking the mesh is closed (unless allowOpen)
// and consistently wound. It sorts half-edges (Ten Minute Physics, PBD).
func neighbours(t [][3]int32, allowOpen bool) ([][3]int32, int, error) {
	type half struct {
		lo, hi int32 // sorted vertex pair
		tri    int32
		k      int8 // edge index in the triangle
		fwd    bool // lo -> hi in the triangle's winding
	}
	hs := make([]half, 0, 3*len(t))
	for i, tr := range t {
		for k := 0; k < 3; k++ {
			a, b := tr[k], tr[(k+1)%3]
			if a < b {
				hs = append(hs, half{a, b, int32(i), int8(k), true})
			} else {
				hs = append(hs, half{b, a, int32(i), int8(k), false})
			}
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		if c := cmp.Compare(x.hi, y.hi); c != 0 {
			return c
		}
		return cmp.Compare(x.tri, y.tri)
	})
	nb := make([][3]int32, len(t))
	open := 0
	for i := 0; i < len(hs); {
		j := i
		for j < len(hs) && hs[j].lo == hs[i].lo && hs[j].hi == hs[i].hi {
			j++
		}
		switch n := j - i; {
		case n == 1 && allowOpen:
			h := hs[i]
			nb[h.tri][h.k] = -1
			open++
			i = j
			continue
		case n == 1:
			h := hs[i]
			return nil, 0, fmt.Errorf("%w: edge (%d, %d) of triangle %d has no neighbour: close the hole (or use a closed collider mesh)", ErrNotClosed, h.lo, h.hi, h.tri)
		case n > 2:
			h := hs[i]
			return nil, 0, fmt.Errorf("%w: edge (%d, %d) is shared by %d triangles (%d, %d, ...): at most 2 allowed", ErrNonManifold, h.lo, h.hi, n, h.tri, hs[i+1].tri)
		}
		x, y := hs[i], hs[i+1]
		if x.fwd == y.fwd {
			return nil, 0, fmt.Errorf("%w: triangles %d and %d wind their shared edge (%d, %d) the same way: make the normals consistent (Blender: Recalculate Outside)", ErrNonManifold, x.tri, y.tri, x.lo, x.hi)
		}
		nb[x.tri][x.k] = y.tri
		nb[y.tri][y.k] = x.tri
		i = j
	}
	return nb, open, nil
}

// orient flips every connected component with negative signed volume, so
// all normals point outward.
func orient(pos []vec.Vec3, t [][3]int32, nb [][3]int32) {
	comp := make([]int32, len(t))
	for i := range comp {
		comp[i] = -1
	}
	var stack []int32
	var vols []float64
	for s := range t {
		if comp[s] >= 0 {
			continue
		}
		c := int32(len(vols))
		vol := 0.0
		comp[s] = c
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			tr := t[i]
			vol += pos[tr[0]].Dot(pos[tr[1]].Cross(pos[tr[2]]))
			for _, j := range nb[i] {
				if j >= 0 && comp[j] < 0 {
					comp[j] = c
					stack = append(stack, j)
				}
			}
		}
		vols = append(vols, vol)
	}
	for i := range t {
		if vols[comp[i]] < 0 {
			t[i][1], t[i][2] = t[i][2], t[i][1]
		}
	}
	// nb[i][k] is the neighbour across edge k; a flip swaps edges 01 and 20.
	for i := range t {
		if vols[comp[i]] < 0 {
			nb[i][0], nb[i][2] = nb[i][2], nb[i][0]
		}
	}
}

// Bounds returns the box of the mesh's vertices.
func (m *Mesh) Bounds() (min, max vec.Vec3) { return m.lo, m.hi }

// OpenEdges returns the number of boundary edges (0 unless built with
// AllowOpen).
func (m *Mesh) OpenEdges() int { return m.open }

// NumTriangles returns the number of triangles.
func (m *Mesh) NumTriangles() int { return len(m.geo) }

// Dist returns the signed distance [m] from p to the mesh surface.
func (m *Mesh) Dist(p vec.Vec3) float64 { d, _ := m.DistGrad(p); return d }

// Grad returns the outward unit gradient at p: the direction from the
// nearest surface point to p (outside) or from p to it (inside), or the
// pseudo-normal of the nearest feature for p on the surface.
func (m *Mesh) Grad(p vec.Vec3) vec.Vec3 { _, g := m.DistGrad(p); return g }

// DistGrad returns Dist(p) and Grad(p) with one nearest-triangle search.
func (m *Mesh) DistGrad(p vec.Vec3) (float64, vec.Vec3) {
	if id, e := m.band.list(p); id >= 0 {
		if i, d2, q, reg := m.nearestIn(p, id, e, math.Inf(1)); i >= 0 {
			d, g, _ := m.sign(p, i, d2, q, reg)
			return d, g
		}
	}
	_, ub, _ := m.grid.bounds(m, p)
	return m.signed(p, ub)
}

// DistGradWithin returns DistGrad(p) and true when Dist(p) <= maxDist. A
// point whose grid bound puts it farther than maxDist outside returns false
// in O(1); a point known to be outside searches only within maxDist.
func (m *Mesh) DistGradWithin(p vec.Vec3, maxDist float64) (float64, vec.Vec3, bool) {
	lb, ub, _ := m.grid.bounds(m, p)
	if lb > maxDist {
		return lb, vec.Vec3{}, false
	}
	r := math.Inf(1)
	if lb > 0 && maxDist < ub {
		r = maxDist // outside for sure: only the band matters
	}
	i := int32(-1)
	var d2 float64
	var q vec.Vec3
	var reg uint8
	inBand := false
	if id, e := m.band.list(p); id >= 0 {
		i, d2, q, reg = m.nearestIn(p, id, e, r)
		inBand = true // complete list: nothing found means nothing within r
	}
	if i < 0 && (!inBand || math.IsInf(r, 1)) {
		i, d2, q, reg = m.nearest(p, math.Min(r, ub))
		if i < 0 && math.IsInf(r, 1) {
			i, d2, q, reg = m.nearest(p, math.Inf(1))
		}
	}
	if i < 0 {
		return math.Max(lb, maxDist), vec.Vec3{}, false
	}
	d, g, _ := m.sign(p, i, d2, q, reg)
	return within(d, g, maxDist)
}

// signed returns the signed distance and gradient at p, searching within
// radius ub [m], which must bound the unsigned distance from above.
func (m *Mesh) signed(p vec.Vec3, ub float64) (float64, vec.Vec3) {
	i, d2, q, reg := m.nearest(p, ub)
	if i < 0 {
		// ub was too small through rounding: search everything.
		i, d2, q, reg = m.nearest(p, math.Inf(1))
	}
	d, g, _ := m.sign(p, i, d2, q, reg)
	return d, g
}

// sign turns the nearest point q on triangle i (squared distance d2,
// region reg) into a signed distance and gradient: the sign of (p - q)·N
// with N the pseudo-normal of the nearest feature.
func (m *Mesh) sign(p vec.Vec3, i int32, d2 float64, q vec.Vec3, reg uint8) (float64, vec.Vec3, bool) {
	inf := &m.info[i]
	var n vec.Vec3
	switch reg {
	case regionFace:
		n = inf.n
	case regionA, regionB, regionC:
		n = m.vnorm[inf.v[reg-regionA]]
	default:
		n = inf.en[reg-regionAB]
	}
	d := math.Sqrt(d2)
	pq := p.Sub(q)
	if d < 1e-12 {
		return 0, n, true
	}
	if pq.Dot(n) < 0 {
		return -d, pq.Scale(-1 / d), true
	}
	return d, pq.Scale(1 / d), true
}

// closestOnTri returns the squared distance from p to triangle g, the
// nearest point and its region (C. Ericson, Real-Time Collision Detection,
// 2005, 5.1.5).
func closestOnTri(p vec.Vec3, g *triGeom) (float64, vec.Vec3, uint8) {
	ab, ac := g.ab, g.ac
	ap := p.Sub(g.a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return ap.LenSq(), g.a, regionA
	}
	bp := ap.Sub(ab)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return bp.LenSq(), g.a.Add(ab), regionB
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		q := g.a.AddScaled(ab, v)
		return p.Sub(q).LenSq(), q, regionAB
	}
	cp := ap.Sub(ac)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return cp.LenSq(), g.a.Add(ac), regionC
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		w := d2 / (d2 - d6)
		q := g.a.AddScaled(ac, w)
		return p.Sub(q).LenSq(), q, regionCA
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		b := g.a.Add(ab)
		q := b.AddScaled(ac.Sub(ab), w)
		return p.Sub(q).LenSq(), q, regionBC
	}
	den := 1 / (va + vb + vc)
	v, w := vb*den, vc*den
	q := g.a.AddScaled(ab, v).AddScaled(ac, w)
	return p.Sub(q).LenSq(), q, regionFace
}
