package solver

import (
	"math"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// denimLike differs from DefaultParams' fabric in every field, by factors
// that show: heavier, softer in stretch, much stiffer in bending, more
// damped, less dragged.
var denimLike = Fabric{
	Density:              0.4,
	StretchStiffness:     2e3,
	CompressionStiffness: 2e2,
	ShearStiffness:       300,
	BendingStiffness:     1e-4,
	Damping:              2,
	AirDrag:              0.1,
}

// hangingPair returns two 0.3 m squares (9 x 9 vertices) hanging in the XY
// plane from their top rows, the second 0.5 m to the right of the first,
// with each square's triangles.
func hangingPair() (pos []vec.Vec3, tris [][3]int32, pins []Pin, trisA, trisB []int32) {
	const n = 9
	p0, t0 := gridMesh(n, n, 0.3, 0.3)
	for k, off := range []float64{0, 0.5} {
		base := int32(len(pos))
		for _, x := range p0 {
			pos = append(pos, x.Add(vec.V(off, 0, 0)))
		}
		for _, t := range t0 {
			id := int32(len(tris))
			tris = append(tris, [3]int32{t[0] + base, t[1] + base, t[2] + base})
			if k == 0 {
				trisA = append(trisA, id)
			} else {
				trisB = append(trisB, id)
			}
		}
		for i := range n {
			pins = append(pins, Pin{Vertex: base + int32(i), Stiffness: 1})
		}
	}
	return pos, tris, pins, trisA, trisB
}

// swing simulates a model for 24 frames from a sideways push of 1 m/s
// and returns the positions.
func swing(t *testing.T, m *Model) []vec.Vec3 {
	s := NewState(m)
	for i := range s.Vel {
		if m.InvMass[i] > 0 {
			s.Vel[i] = vec.V(0, 0, 1)
		}
	}
	simulate(t, m, s, 24, 24, nil)
	return s.Pos
}

// TestRegionsActAsSeparateCloths bakes two squares of different fabrics
// in one model (the second a Region) and each square alone with its
// fabric: each square of the pair must move as it does alone, and the two
// fabrics must move visibly differently (so the regions are felt).
func TestRegionsActAsSeparateCloths(t *testing.T) {
	for _, k := range []SolverKind{SolverXPBD, SolverVerlet, SolverEuler, SolverImplicit} {
		t.Run(k.String(), func(t *testing.T) { regionsAlone(t, k) })
	}
}

func regionsAlone(t *testing.T, kind SolverKind) {
	pos, tris, pins, trisA, trisB := hangingPair()
	p := DefaultParams()
	p.Solver = kind
	if kind == SolverVerlet || kind == SolverEuler {
		// above the stable step count of both fabrics, so that the pair
		// (which takes the stiffer one's) and each square alone step alike
		p.Substeps = 800
	}
	base := p.Fabric()
	p.Regions = []Region{{Name: "denim", Fabric: denimLike, Tris: trisB}}
	pair := swing(t, newModel(t, pos, tris, pins, p))

	// each square alone; a region over all its triangles, so that it uses
	// the same code paths as the pair (a limit's compliance is its
	// edges' series compliance when a model has regions)
	half := len(pos) / 2
	alone := func(f Fabric, off int, ts []int32) []vec.Vec3 {
		sub := make([][3]int32, len(ts))
		all := make([]int32, len(ts))
		for i, k := range ts {
			tr := tris[k]
			sub[i] = [3]int32{tr[0] - int32(off), tr[1] - int32(off), tr[2] - int32(off)}
			all[i] = int32(i)
		}
		q := DefaultParams()
		q.Solver, q.Substeps = kind, p.Substeps
		q.Regions = []Region{{Name: "all", Fabric: f, Tris: all}}
		var pn []Pin
		for _, x := range pins {
			if v := int(x.Vertex) - off; v >= 0 && v < half {
				pn = append(pn, Pin{Vertex: int32(v), Stiffness: 1})
			}
		}
		return swing(t, newModel(t, pos[off:off+half], sub, pn, q))
	}
	a, b := alone(base, 0, trisA), alone(denimLike, half, trisB)
	worstA, worstB, apart := 0.0, 0.0, 0.0
	for i := range half {
		worstA = math.Max(worstA, pair[i].Sub(a[i]).Len())
		worstB = math.Max(worstB, pair[half+i].Sub(b[i]).Len())
		apart = math.Max(apart, a[i].Add(vec.V(0.5, 0, 0)).Sub(b[i]).Len())
	}
	t.Logf("pair vs alone: cotton square %.3g m, denim square %.3g m apart at most; cotton vs denim alone: %.3f m", worstA, worstB, apart)
	if worstA > 1e-9 || worstB > 1e-9 {
		t.Errorf("a square in the pair moves unlike itself alone: %.3g m (cotton), %.3g m (denim), want <= 1e-9", worstA, worstB)
	}
	if apart < 0.01 {
		t.Errorf("cotton and denim squares end %.4f m apart at most: the fabrics are not felt (want >= 0.01 m)", apart)
	}
}

// TestRegionBoundary checks the constants where two fabrics meet, on two
// triangles sharing an edge: each vertex's mass is a third of its
// triangles' masses, the shared edge's compliance is that of the two
// triangles' stretch stiffnesses weighted by their areas, and the hinge's
// that of their area-weighted bending stiffness.
func TestRegionBoundary(t *testing.T) {
	// triangle 0 (area 0.5) and triangle 1 (area 1) share edge 0-1
	pos := []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0), vec.V(1, -2, 0)}
	tris := [][3]int32{{0, 1, 2}, {1, 0, 3}}
	p := DefaultParams()
	p.Tethers = false
	f := denimLike
	p.Regions = []Region{{Name: "b", Fabric: f, Tris: []int32{1}}}
	m := newModel(t, pos, tris, nil, p)
	a0, a1 := 0.5, 1.0
	want := []float64{
		(p.Density*a0 + f.Density*a1) / 3, (p.Density*a0 + f.Density*a1) / 3,
		p.Density * a0 / 3, f.Density * a1 / 3,
	}
	for v, w := range want {
		if math.Abs(m.Mass[v]-w) > 1e-15 {
			t.Errorf("vertex %d mass %.6g kg, want %.6g", v, m.Mass[v], w)
		}
	}
	// the shared edge: 1/α = (kA·A0 + kB·A1)/3/l² with l = 1
	wantK := (p.StretchStiffness*a0 + f.StretchStiffness*a1) / 3
	wantKC := (p.CompressionStiffness*a0 + f.CompressionStiffness*a1) / 3
	found := false
	for i, e := range m.stretch.v {
		if e == [2]int32{0, 1} || e == [2]int32{1, 0} {
			found = true
			if k := 1 / m.stretch.alpha[i]; math.Abs(k-wantK) > 1e-9*wantK {
				t.Errorf("shared edge stretch stiffness %.6g, want %.6g", k, wantK)
			}
			if k := 1 / m.stretch.alphaC[i]; math.Abs(k-wantKC) > 1e-9*wantKC {
				t.Errorf("shared edge compression stiffness %.6g, want %.6g", k, wantKC)
			}
		}
	}
	if !found {
		t.Fatal("no stretch constraint on the shared edge")
	}
	// the hinge: 1/α = B·3l²/(A0+A1) with B the area-weighted mean
	if len(m.bend.v) != 1 {
		t.Fatalf("%d hinges, want 1", len(m.bend.v))
	}
	b := (p.BendingStiffness*a0 + f.BendingStiffness*a1) / (a0 + a1)
	if k, w := 1/m.bend.alpha[0], b*3/(a0+a1); math.Abs(k-w) > 1e-9*w {
		t.Errorf("hinge stiffness %.6g N·m/rad², want %.6g", k, w)
	}
	// damping per vertex: the area-weighted mean of its triangles'
	if d, w := m.vDamping[0], (p.Damping*a0+f.Damping*a1)/(a0+a1); math.Abs(d-w) > 1e-12 {
		t.Errorf("vertex 0 damping %.6g 1/s, want %.6g", d, w)
	}
	if m.vDamping[2] != p.Damping || m.vDamping[3] != f.Damping {
		t.Errorf("damping of vertices 2, 3 = %g, %g, want %g, %g", m.vDamping[2], m.vDamping[3], p.Damping, f.Damping)
	}
	if m.triDrag[0] != p.AirDrag || m.triDrag[1] != f.AirDrag {
		t.Errorf("triangle drag %g, %g, want %g, %g", m.triDrag[0], m.triDrag[1], p.AirDrag, f.AirDrag)
	}
}

// TestParamsFabricRoundTrip checks that SetFabric sets exactly the
// fields Fabric returns.
func TestParamsFabricRoundTrip(t *testing.T) {
	p := DefaultParams()
	p.SetFabric(denimLike)
	if got := p.Fabric(); got != denimLike {
		t.Errorf("Fabric() after SetFabric(%+v) = %+v", denimLike, got)
	}
}

// TestRegionErrors checks that a region's bad fabric or triangle is named.
func TestRegionErrors(t *testing.T) {
	pos, tris := gridMesh(3, 3, 1, 1)
	bad := denimLike
	bad.Density = 0
	for _, tc := range []struct {
		r    Region
		want string
	}{
		{Region{Name: "jeans", Fabric: bad, Tris: []int32{0}}, "region 0 (jeans): density = 0"},
		{Region{Name: "collar", Fabric: denimLike, Tris: []int32{8}}, "region 0 (collar): triangle 8 out of range (8 triangles)"},
	} {
		p := DefaultParams()
		p.Regions = []Region{tc.r}
		_, err := NewModel(pos, tris, nil, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("region %s: error %v, want one containing %q", tc.r.Name, err, tc.want)
		}
	}
}
