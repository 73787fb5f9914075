package solver

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
)

// Motion moves a pin target over time.
type Motion interface {
	// At returns the transform at time t [s] relative to the rest pose: the
	// pin's target is At(t).MulPoint(rest position).
	At(t float64) vec.Mat4
}

// KeyedTranslation is a Motion that translates by Offsets[i] at Times[i]
// [s], linearly interpolated between keys and held constant outside them.
// Times must be ascending.
type KeyedTranslation struct {
	Times   []float64
	Offsets []vec.Vec3
}

// At implements Motion.
func (k KeyedTranslation) At(t float64) vec.Mat4 {
	n := min(len(k.Times), len(k.Offsets))
	switch {
	case n == 0:
		return vec.Identity()
	case t <= k.Times[0]:
		return vec.Translate(k.Offsets[0])
	case t >= k.Times[n-1]:
		return vec.Translate(k.Offsets[n-1])
	}
	i := 1
	for i < n-1 && k.Times[i] < t {
		i++
	}
	t0, t1 := k.Times[i-1], k.Times[i]
	s := 0.0
	if t1 > t0 {
		s = (t - t0) / (t1 - t0)
	}
	return vec.Translate(k.Offsets[i-1].Lerp(k.Offsets[i], s))
}

// Track moves each pinned vertex along a path of its own: a mesh deformed
// by a skeleton or by shape keys, to which the cloth is held.
type Track interface {
	// Position returns vertex v's target [m] at time t [s].
	Position(v int32, t float64) vec.Vec3
}

// SampledTrack is a Track sampled at times k·Step: Samples[k][i] is the
// target of vertex Vertices[i] (ascending) at time k·Step, linearly
// interpolated between samples and held after the last.
type SampledTrack struct {
	Step     float64
	Vertices []int32
	Samples  [][]vec.Vec3
}

// Position implements Track. A vertex the track does not hold keeps the
// origin; NewModel refuses pins on such vertices.
func (s *SampledTrack) Position(v int32, t float64) vec.Vec3 {
	i, ok := slices.BinarySearch(s.Vertices, v)
	n := len(s.Samples)
	if !ok || n == 0 {
		return vec.Vec3{}
	}
	u := 0.0
	if s.Step > 0 {
		u = t / s.Step
	}
	switch {
	case !(u > 0):
		return s.Samples[0][i]
	case u >= float64(n-1):
		return s.Samples[n-1][i]
	}
	k := int(u)
	return s.Samples[k][i].Lerp(s.Samples[k+1][i], u-float64(k))
}

// holds reports whether the track gives vertex v a path.
func (s *SampledTrack) holds(v int32) bool {
	_, ok := slices.BinarySearch(s.Vertices, v)
	return ok && len(s.Samples) > 0
}

// Pin holds a vertex at its rest position or at a moving target.
type Pin struct {
	// Vertex is the pinned vertex id.
	Vertex int32
	// Stiffness is 1 for a hard pin (the vertex follows its target exactly
	// and gets infinite mass) or in (0, 1) for a soft pin: a zero-length
	// spring to the target whose natural frequency is
	// 10 Hz·Stiffness/(1-Stiffness), whatever the vertex mass.
	Stiffness float64
	// Motion moves the target; nil keeps it at the rest position.
	Motion Motion
	// Track, if set, gives the target instead of Motion and the rest
	// position.
	Track Track
}

// softPinHz is the natural frequency of a soft pin of stiffness 1/2 [Hz].
const softPinHz = 10

// Model is the immutable description of a cloth: topology, masses, pins,
// rest data, compliances and constraint colour groups. Build it with
// NewModel; it may be shared by several integrators and states.
type Model struct {
	// Params are the validated settings the model was built with.
	Params Params
	// Topo is the mesh topology.
	Topo *Topology
	// Rest are the rest positions [m].
	Rest []vec.Vec3
	// Mass is each vertex's lumped mass [kg].
	Mass []float64
	// InvMass is 1/Mass [1/kg], 0 for hard-pinned and massless vertices.
	InvMass []float64
	// Pins are the pins, sorted by vertex.
	Pins []Pin

	hardPins []int32 // indices into Pins
	softPins []int32 // indices into Pins
	softA    []float64

	stretch distBlock // one per unique edge
	bend    bendBlock // one per interior manifold edge

	tetherV      []int32
	tetherAnchor []int32
	tetherLen    []float64

	// vertex -> triangles (CSR) for gathering per-triangle forces
	vtStart []int32
	vtTri   []int32
	triArea []float64

	// fabrics (fabric.go): fabrics[0] is Params', fabrics[i+1] that of
	// Params.Regions[i]; triFab is each triangle's (nil: all fabrics[0]);
	// vDamping and triDrag are per-vertex damping and per-triangle drag
	// where the fabrics differ in them (else nil)
	fabrics  []Fabric
	triFab   []int32
	vDamping []float64
	triDrag  []float64

	volumes []volumePiece // closed pieces holding a volume (volume.go)

	// seams (sewing.go): rest length per seam, and each vertex's seam
	// partners (CSR; nil without seams)
	seamRest  []float64
	seamStart []int32
	seamAdj   []int32
}

// distBlock holds distance constraints sorted by colour (struct of slices).
type distBlock struct {
	v       [][2]int32
	rest    []float64
	alpha   []float64 // stretch compliance [m/N]
	alphaC  []float64 // compression compliance [m/N]
	colours []int     // colour c is v[colours[c]:colours[c+1]]
}

// bendBlock holds dihedral constraints sorted by colour: v[i] = {edge vertex
// 0, edge vertex 1, opposite vertex of triangle 0, of triangle 1}.
type bendBlock struct {
	v       [][4]int32
	rest    []float64 // rest dihedral angle [rad]
	alpha   []float64 // compliance [rad/(N·m)]
	colours []int
	// ratio is each hinge's ratio W·dt²/α for dt = 1 s (hingeRatio),
	// which scales as dt²
	ratio []float64
}

// NumColours returns the number of colour groups of the stretch and bending
// constraints.
func (m *Model) NumColours() (stretch, bend int) {
	return len(m.stretch.colours) - 1, len(m.bend.colours) - 1
}

// NumConstraints returns the number of stretch, bending and tether
// constraints.
func (m *Model) NumConstraints() (stretch, bend, tether int) {
	return len(m.stretch.v), len(m.bend.v), len(m.tetherV)
}

// NewModel builds a Model from rest positions [m], triangles, pins and
// validated parameters. Rest dihedral angles are taken from rest, so a
// pre-shaped garment keeps its shape.
func NewModel(rest []vec.Vec3, tris [][3]int32, pins []Pin, p Params) (*Model, error) {
	m, err := newModelCore(rest, tris, pins, p)
	if err != nil {
		return nil, err
	}
	m.buildFabricFields()
	if err := m.buildVolumes(); err != nil {
		return nil, err
	}
	if err := m.buildSeams(); err != nil {
		return nil, err
	}

	m.buildStretch()
	m.buildBend()
	if p.Tethers {
		m.buildTethers()
	}
	return m, nil
}

// newModelCore builds what every constraint of NewModel reads: the
// validated settings, topology, fabrics, masses, pins and the
// vertex-triangle adjacency.
func newModelCore(rest []vec.Vec3, tris [][3]int32, pins []Pin, p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for i, x := range rest {
		if !x.IsFinite() {
			return nil, fmt.Errorf("vertex %d position %v: not finite", i, x)
		}
	}
	tp, err := NewTopology(len(rest), tris)
	if err != nil {
		return nil, err
	}
	m := &Model{Params: p, Topo: tp, Rest: rest}
	if err := m.assignFabrics(); err != nil {
		return nil, err
	}
	m.Mass = m.fabricMasses(tris)
	m.InvMass = make([]float64, len(rest))
	for i, ms := range m.Mass {
		if ms > 0 {
			m.InvMass[i] = 1 / ms
		}
	}

	// pins
	m.Pins = append([]Pin(nil), pins...)
	sortPins(m.Pins)
	for i, pn := range m.Pins {
		if pn.Vertex < 0 || int(pn.Vertex) >= len(rest) {
			return nil, fmt.Errorf("pin %d: vertex %d out of range (%d vertices)", i, pn.Vertex, len(rest))
		}
		if i > 0 && m.Pins[i-1].Vertex == pn.Vertex {
			return nil, fmt.Errorf("pin %d: vertex %d pinned twice", i, pn.Vertex)
		}
		if !(pn.Stiffness > 0 && pn.Stiffness <= 1) {
			return nil, fmt.Errorf("pin %d (vertex %d): stiffness = %g: must be in (0, 1]", i, pn.Vertex, pn.Stiffness)
		}
		if st, ok := pn.Track.(*SampledTrack); ok && !st.holds(pn.Vertex) {
			return nil, fmt.Errorf("pin %d: vertex %d has no path in its track", i, pn.Vertex)
		}
		if pn.Stiffness == 1 {
			m.hardPins = append(m.hardPins, int32(i))
			m.InvMass[pn.Vertex] = 0
		} else if m.Mass[pn.Vertex] > 0 {
			w := 2 * math.Pi * softPinHz * pn.Stiffness / (1 - pn.Stiffness)
			m.softPins = append(m.softPins, int32(i))
			m.softA = append(m.softA, 1/(m.Mass[pn.Vertex]*w*w))
		}
	}

	// per-triangle areas and vertex -> triangle adjacency
	m.triArea = make([]float64, len(tris))
	m.vtStart = make([]int32, len(rest)+1)
	for i, t := range tris {
		m.triArea[i] = TriangleArea(rest, t)
		for _, v := range t {
			m.vtStart[v+1]++
		}
	}
	for v := range rest {
		m.vtStart[v+1] += m.vtStart[v]
	}
	m.vtTri = make([]int32, 3*len(tris))
	fill := append([]int32(nil), m.vtStart[:len(rest)]...)
	for i, t := range tris {
		for _, v := range t {
			m.vtTri[fill[v]] = int32(i)
			fill[v]++
		}
	}

	return m, nil
}

func sortPins(p []Pin) {
	slices.SortStableFunc(p, func(a, b Pin) int { return int(a.Vertex) - int(b.Vertex) })
}

// edgeArea returns a third of the summed area of the triangles next to edge
// e (both for a manifold edge, the first for a non-manifold one).
func (m *Model) edgeArea(e Edge) float64 {
	a := m.triArea[e.Tri[0]]
	if e.Tri[1] >= 0 {
		a += m.triArea[e.Tri[1]]
	}
	return a / 3
}

// stiffnessToCompliance returns 1/k, or +Inf for k = 0.
func stiffnessToCompliance(k float64) float64 {
	if k <= 0 {
		return math.Inf(1)
	}
	return 1 / k
}

func (m *Model) buildStretch() {
	var v [][2]int32
	for _, e := range m.Topo.Edges {
		if m.InvMass[e.V[0]] == 0 && m.InvMass[e.V[1]] == 0 {
			continue
		}
		v = append(v, e.V)
	}
	colour, starts := colourConstraints(len(m.Rest), len(v), func(i int) []int32 { return v[i][:] })
	b := &m.stretch
	b.colours = starts
	b.v = make([][2]int32, len(v))
	b.rest = make([]float64, len(v))
	b.alpha = make([]float64, len(v))
	b.alphaC = make([]float64, len(v))
	for i, c := range colour {
		e := m.Topo.Edges[m.Topo.EdgeID(v[i][0], v[i][1])]
		b.v[c] = v[i]
		b.rest[c], b.alpha[c], b.alphaC[c] = m.edgeCompliance(e)
	}
}

// edgeCompliance returns edge e's rest length and its stretch and
// compression compliances: the fabric's stiffness times the dimensionless
// geometry factor (a third of the adjacent area over the squared length).
func (m *Model) edgeCompliance(e Edge) (l, alpha, alphaC float64) {
	l = m.Rest[e.V[0]].Sub(m.Rest[e.V[1]]).Len()
	g := m.edgeArea(e) / (l * l)
	return l, stiffnessToCompliance(m.edgeValue(e, stretchOf) * g), stiffnessToCompliance(m.edgeValue(e, compressionOf) * g)
}

func (m *Model) buildBend() {
	p := m.Params
	b := &m.bend
	if !m.anyFabric(func(f *Fabric) bool { return f.BendingStiffness > 0 }) || p.Solver != SolverXPBD {
		b.colours = []int{0}
		return
	}
	var v [][4]int32
	var eid []int32
	for i, e := range m.Topo.Edges {
		if !e.Interior() {
			continue
		}
		q := [4]int32{e.V[0], e.V[1], e.Opp[0], e.Opp[1]}
		if m.InvMass[q[0]] == 0 && m.InvMass[q[1]] == 0 && m.InvMass[q[2]] == 0 && m.InvMass[q[3]] == 0 {
			continue
		}
		if m.triFab != nil && m.edgeValue(e, bendingOf) <= 0 {
			continue // between two fabrics without bending stiffness
		}
		v = append(v, q)
		eid = append(eid, int32(i))
	}
	colour, starts := colourConstraints(len(m.Rest), len(v), func(i int) []int32 { return v[i][:] })
	b.colours = starts
	b.v = make([][4]int32, len(v))
	b.rest = make([]float64, len(v))
	b.alpha = make([]float64, len(v))
	for i, c := range colour {
		e := m.Topo.Edges[eid[i]]
		q := v[i]
		l2 := m.Rest[q[0]].Sub(m.Rest[q[1]]).LenSq()
		a := m.triArea[e.Tri[0]] + m.triArea[e.Tri[1]]
		b.v[c] = q
		b.rest[c] = dihedralAngle(m.Rest[q[0]], m.Rest[q[1]], m.Rest[q[2]], m.Rest[q[3]])
		if a > 0 {
			b.alpha[c] = stiffnessToCompliance(m.edgeValue(e, bendingOf) * 3 * l2 / a)
		} else {
			b.alpha[c] = math.Inf(1)
		}
	}
	b.ratio = make([]float64, len(b.v))
	for i := range b.ratio {
		b.ratio[i] = m.hingeRatio(i)
	}
}

// bendingRatio returns the largest ratio W·dt²/α over the model's hinges
// for substeps of dt = 1/(fps·n) seconds with n = 1, where W = Σ w_j|∇_j C|²
// at rest and α the hinge's compliance. One projection per substep
// resolves a hinge while its ratio is at most about bendingRatioMax: the
// compliance then dominates the correction, and the Gauss-Seidel sweep
// does not have to carry a stiff correction along many hinges.
func (m *Model) bendingRatio(fps float64) float64 {
	worst := 0.0
	for _, r := range m.bend.ratio {
		worst = math.Max(worst, r)
	}
	return worst / (fps * fps)
}

// hingeRatio returns hinge i's ratio W·dt²/α for dt = 1 s (see
// bendingRatio), or 0 if it has no stiffness or is degenerate at rest.
func (m *Model) hingeRatio(i int) float64 {
	b := &m.bend
	if math.IsInf(b.alpha[i], 1) {
		return 0
	}
	var q [4]vec.Vec3
	var w [4]float64
	for k, j := range b.v[i] {
		q[k], w[k] = m.Rest[j], m.InvMass[j]
	}
	// a unit constraint error with no compliance moves the hinge by
	// dλ = 1/W
	dl := projectDihedral(q[:], w[:], [4]int32{0, 1, 2, 3}, b.rest[i]+1, 0, 0)
	if !(dl > 0) {
		return 0
	}
	return 1 / (dl * b.alpha[i])
}

// bendingRatioMax is the largest ratio W·dt²/α at which one projection per
// substep still resolves a hinge's bending stiffness (TestCantileverDeflection:
// a strip within 10 % of its finer version and of beam theory).
const bendingRatioMax = 2

// BendingSubsteps returns the number of substeps per frame at fps frames
// per second that resolves the stiffest hinge of the model: with fewer,
// stiff bending on a fine mesh acts softer than its stiffness says (the
// strip sags as if made of a softer fabric). It is 1 when bending is off.
func (m *Model) BendingSubsteps(fps float64) int {
	r := m.bendingRatio(fps)
	if !(r > 0) {
		return 1
	}
	return max(1, int(math.Ceil(math.Sqrt(r/bendingRatioMax))))
}

// buildTethers attaches every free vertex to its nearest hard-pinned vertex
// by rest geodesic distance along edges (multi-source Dijkstra), with
// maximum length geodesic·(1+TetherSlack).
func (m *Model) buildTethers() {
	n := len(m.Rest)
	if len(m.hardPins) == 0 {
		return
	}
	start, adj := m.vertexAdjacency()
	dist := make([]float64, n)
	anchor := make([]int32, n)
	for i := range dist {
		dist[i] = math.Inf(1)
		anchor[i] = -1
	}
	h := &distHeap{}
	for _, pi := range m.hardPins {
		v := m.Pins[pi].Vertex
		dist[v] = 0
		anchor[v] = v
		heap.Push(h, distItem{0, v})
	}
	for h.Len() > 0 {
		it := heap.Pop(h).(distItem)
		if it.d > dist[it.v] {
			continue
		}
		for _, u := range adj[start[it.v]:start[it.v+1]] {
			d := it.d + m.Rest[u].Sub(m.Rest[it.v]).Len()
			if d < dist[u] || (d == dist[u] && anchor[it.v] < anchor[u]) {
				dist[u] = d
				anchor[u] = anchor[it.v]
				heap.Push(h, distItem{d, u})
			}
		}
	}
	for v := 0; v < n; v++ {
		if m.InvMass[v] == 0 || anchor[v] < 0 {
			continue
		}
		m.tetherV = append(m.tetherV, int32(v))
		m.tetherAnchor = append(m.tetherAnchor, anchor[v])
		m.tetherLen = append(m.tetherLen, dist[v]*(1+m.Params.TetherSlack))
	}
}

type distItem struct {
	d float64
	v int32
}

type distHeap []distItem

func (h distHeap) Len() int { return len(h) }
func (h distHeap) Less(i, j int) bool {
	if h[i].d != h[j].d {
		return h[i].d < h[j].d
	}
	return h[i].v < h[j].v
}
func (h distHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)   { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// colourConstraints greedily colours n constraints over numVerts vertices
// so that no two constraints of one colour share a vertex (Bender's PBD
// initConstraintGroups): each constraint takes the lowest colour none of
// its vertices uses. It returns, for each constraint in input order, its
// position in the colour-sorted order, and the colour start offsets
// (len = colours+1). Order within a colour follows the input order.
func colourConstraints(numVerts, n int, verts func(i int) []int32) (pos []int, starts []int) {
	colour := make([]int, n)
	mask := make([]uint64, numVerts)
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	base := 0
	for len(pending) > 0 {
		// colours base..base+63 in this round; overflow goes to the next
		for i := range mask {
			mask[i] = 0
		}
		var next []int
		for _, i := range pending {
			var used uint64
			for _, v := range verts(i) {
				used |= mask[v]
			}
			if used == math.MaxUint64 {
				next = append(next, i)
				continue
			}
			c := trailingOnes(used)
			bit := uint64(1) << c
			for _, v := range verts(i) {
				mask[v] |= bit
			}
			colour[i] = base + c
		}
		pending = next
		base += 64
	}
	nc := 0
	for _, c := range colour {
		nc = max(nc, c+1)
	}
	count := make([]int, nc+1)
	for _, c := range colour {
		count[c+1]++
	}
	// drop empty colours (only possible across overflow rounds)
	starts = []int{0}
	remap := make([]int, nc)
	for c := 0; c < nc; c++ {
		remap[c] = len(starts) - 1
		if count[c+1] > 0 {
			starts = append(starts, starts[len(starts)-1]+count[c+1])
		}
	}
	fill := append([]int(nil), starts...)
	pos = make([]int, n)
	for i, c := range colour {
		k := remap[c]
		pos[i] = fill[k]
		fill[k]++
	}
	return pos, starts
}

func trailingOnes(x uint64) int {
	n := 0
	for x&1 == 1 {
		x >>= 1
		n++
	}
	return n
}

// State is the part of a simulation that changes each step: one contiguous
// slice per attribute, indexed by vertex.
type State struct {
	// Pos are the positions [m].
	Pos []vec.Vec3
	// Prev are the positions at the start of the last substep [m].
	Prev []vec.Vec3
	// Vel are the velocities [m/s].
	Vel []vec.Vec3
}

// NewState returns the rest state of m: positions at rest, zero velocity.
func NewState(m *Model) *State {
	s := &State{
		Pos:  append([]vec.Vec3(nil), m.Rest...),
		Prev: append([]vec.Vec3(nil), m.Rest...),
		Vel:  make([]vec.Vec3, len(m.Rest)),
	}
	return s
}

// copyFrom copies o into s (same sizes).
func (s *State) copyFrom(o *State) {
	copy(s.Pos, o.Pos)
	copy(s.Prev, o.Prev)
	copy(s.Vel, o.Vel)
}

// errStateSize reports a State built for another model.
var errStateSize = errors.New("state size does not match the model")
