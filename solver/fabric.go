package solver

import (
	"fmt"
	"math"
)

// Fabric is the material of the cloth, or of a region of it: the fields of
// Params of the same names (which are the fabric of every triangle no
// Region claims).
type Fabric struct {
	Density              float64 // [kg/m²]
	StretchStiffness     float64 // [N/m]
	CompressionStiffness float64 // [N/m]
	ShearStiffness       float64 // [N/m] (mass-spring only)
	BendingStiffness     float64 // [N·m]
	Damping              float64 // [1/s]
	AirDrag              float64 // [kg/(m²·s)]
}

// Region gives some triangles a fabric of their own: the denim jeans of a
// suit whose shirt is cotton, a stiff collar. Every triangle no region
// claims keeps the fabric of Params.
//
// Where triangles of two fabrics meet, an edge takes the area-weighted
// mean of its two triangles' stretch stiffness (each triangle contributes
// its own share of the membrane energy), a hinge the area-weighted mean of
// their bending stiffness, and a vertex the area-weighted mean damping of
// its triangles; mass and air drag are per triangle.
type Region struct {
	// Name names the region in messages (a material name, "region 2").
	Name string
	// Fabric is the region's material.
	Fabric Fabric
	// Tris are the triangles (indices into the model's triangles). A
	// triangle in several regions takes the last one's fabric.
	Tris []int32
}

// Fabric returns the settings' own fabric: that of every triangle no Region
// claims.
func (p *Params) Fabric() Fabric {
	return Fabric{
		Density:              p.Density,
		StretchStiffness:     p.StretchStiffness,
		CompressionStiffness: p.CompressionStiffness,
		ShearStiffness:       p.ShearStiffness,
		BendingStiffness:     p.BendingStiffness,
		Damping:              p.Damping,
		AirDrag:              p.AirDrag,
	}
}

// SetFabric sets the settings' own fabric (the fields Fabric returns).
func (p *Params) SetFabric(f Fabric) {
	p.Density, p.StretchStiffness, p.CompressionStiffness = f.Density, f.StretchStiffness, f.CompressionStiffness
	p.ShearStiffness, p.BendingStiffness = f.ShearStiffness, f.BendingStiffness
	p.Damping, p.AirDrag = f.Damping, f.AirDrag
}

// validate checks the fabric's values against the ranges Params.Validate
// allows.
func (f *Fabric) validate() error {
	for _, c := range []struct {
		name   string
		v, max float64
		lo     float64
		unit   string
	}{
		{"density", f.Density, 1e3, 1e-6, "kg/m²"},
		{"stretch stiffness", f.StretchStiffness, 1e9, 0, "N/m"},
		{"compression stiffness", f.CompressionStiffness, 1e9, 0, "N/m"},
		{"shear stiffness", f.ShearStiffness, 1e9, 0, "N/m"},
		{"bending stiffness", f.BendingStiffness, 1e3, 0, "N·m"},
		{"damping", f.Damping, 1e3, 0, "1/s"},
		{"air drag", f.AirDrag, 1e3, 0, "kg/(m²·s)"},
	} {
		if math.IsNaN(c.v) || c.v < c.lo || c.v > c.max {
			return fmt.Errorf("%s = %g: must be in %g..%g %s", c.name, c.v, c.lo, c.max, c.unit)
		}
	}
	return nil
}

// validateRegions checks every region's fabric.
func (p *Params) validateRegions() error {
	for i := range p.Regions {
		r := &p.Regions[i]
		if err := r.Fabric.validate(); err != nil {
			return fmt.Errorf("region %d (%s): %w", i, r.Name, err)
		}
	}
	return nil
}

// assignFabrics sets the model's fabrics and each triangle's fabric from
// Params.Regions: fabrics[0] is Params' own, fabrics[i+1] region i's.
// Without regions triFab stays nil and every triangle has fabrics[0].
func (m *Model) assignFabrics() error {
	p := &m.Params
	m.fabrics = []Fabric{p.Fabric()}
	if len(p.Regions) == 0 {
		return nil
	}
	n := int32(len(m.Topo.Tris))
	m.triFab = make([]int32, n)
	for i, r := range p.Regions {
		m.fabrics = append(m.fabrics, r.Fabric)
		for _, t := range r.Tris {
			if t < 0 || t >= n {
				return fmt.Errorf("region %d (%s): triangle %d out of range (%d triangles)", i, r.Name, t, n)
			}
			m.triFab[t] = int32(i + 1)
		}
	}
	return nil
}

// fabricOf returns the fabric of triangle t.
func (m *Model) fabricOf(t int32) *Fabric {
	if m.triFab == nil {
		return &m.fabrics[0]
	}
	return &m.fabrics[m.triFab[t]]
}

// edgeValue returns f of the fabric along edge e: the area-weighted mean of
// its two triangles' values where they differ, else their (exact) value.
func (m *Model) edgeValue(e Edge, f func(*Fabric) float64) float64 {
	a := f(m.fabricOf(e.Tri[0]))
	if e.Tri[1] < 0 || m.triFab == nil || m.triFab[e.Tri[0]] == m.triFab[e.Tri[1]] {
		return a
	}
	b := f(m.fabricOf(e.Tri[1]))
	wa, wb := m.triArea[e.Tri[0]], m.triArea[e.Tri[1]]
	if wa+wb <= 0 {
		return (a + b) / 2
	}
	return (a*wa + b*wb) / (wa + wb)
}

// The fabric fields edgeValue averages.
func stretchOf(f *Fabric) float64     { return f.StretchStiffness }
func compressionOf(f *Fabric) float64 { return f.CompressionStiffness }
func shearOf(f *Fabric) float64       { return f.ShearStiffness }
func bendingOf(f *Fabric) float64     { return f.BendingStiffness }

// anyFabric reports whether f holds for some fabric of the model.
func (m *Model) anyFabric(f func(*Fabric) bool) bool {
	for i := range m.fabrics {
		if f(&m.fabrics[i]) {
			return true
		}
	}
	return false
}

// fabricMasses returns each vertex's lumped mass from its triangles'
// densities.
func (m *Model) fabricMasses(tris [][3]int32) []float64 {
	if m.triFab == nil {
		return VertexMasses(m.Rest, tris, m.fabrics[0].Density)
	}
	mass := make([]float64, len(m.Rest))
	for i, t := range tris {
		a := TriangleArea(m.Rest, t) * m.fabricOf(int32(i)).Density / 3
		mass[t[0]] += a
		mass[t[1]] += a
		mass[t[2]] += a
	}
	return mass
}

// buildFabricFields sets the per-vertex damping and per-triangle drag
// where the fabrics differ in them (nil where every fabric agrees).
func (m *Model) buildFabricFields() {
	if m.triFab == nil {
		return
	}
	f0 := &m.fabrics[0]
	if m.anyFabric(func(f *Fabric) bool { return f.Damping != f0.Damping }) {
		m.vDamping = make([]float64, len(m.Rest))
		for v := range m.Rest {
			sum, area := 0.0, 0.0
			first, same := -1.0, true
			for _, t := range m.vtTri[m.vtStart[v]:m.vtStart[v+1]] {
				d := m.fabricOf(t).Damping
				if first < 0 {
					first = d
				}
				same = same && d == first
				sum += d * m.triArea[t]
				area += m.triArea[t]
			}
			switch {
			case first < 0:
				m.vDamping[v] = f0.Damping
			case same || area <= 0:
				m.vDamping[v] = first
			default:
				m.vDamping[v] = sum / area
			}
		}
	}
	if m.anyFabric(func(f *Fabric) bool { return f.AirDrag != f0.AirDrag }) {
		m.triDrag = make([]float64, len(m.Topo.Tris))
		for t := range m.triDrag {
			m.triDrag[t] = m.fabricOf(int32(t)).AirDrag
		}
	}
}

// dampFactors fills out (resized to the vertices) with each vertex's
// velocity factor exp(-damping·dt) from Model.vDamping, and returns it.
func (m *Model) dampFactors(out []float64, dt float64) []float64 {
	if len(out) != len(m.vDamping) {
		out = make([]float64, len(m.vDamping))
	}
	for v, d := range m.vDamping {
		out[v] = math.Exp(-d * dt)
	}
	return out
}
