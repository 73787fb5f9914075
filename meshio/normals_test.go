package meshio

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func TestRenderNormals(t *testing.T) {
	m := gridMesh(4, 4, 1)
	w, err := Weld(m, DefaultWeldOptions())
	if err != nil {
		t.Fatal(err)
	}
	nr := len(w.RenderToSim)

	// flat sheet: +Y everywhere
	dst := make([]vec.Vec3, nr)
	RenderNormals(w, w.Positions, dst)
	for r, n := range dst {
		if n.Sub(vec.V(0, 1, 0)).Len() > 1e-12 {
			t.Fatalf("flat grid: normal of render vertex %d = %v, want (0, 1, 0)", r, n)
		}
	}

	// a tent folded along x = 0 (the seam between the primitives): the
	// seam's split render vertices share one normal, straight up away from
	// the border (where the triangulation is lopsided)
	sim := make([]vec.Vec3, len(w.Positions))
	for i, p := range w.Positions {
		sim[i] = vec.V(p.X, p.Y-math.Abs(p.X), p.Z)
	}
	RenderNormals(w, sim, dst)
	for r, s := range w.RenderToSim {
		x := sim[s].X
		var want vec.Vec3
		switch {
		case math.Abs(x) < 1e-9 && math.Abs(sim[s].Z) > 0.49:
			continue
		case math.Abs(x) < 1e-9:
			want = vec.V(0, 1, 0)
		case x > 0:
			want = vec.V(1, 1, 0).Normalize()
		default:
			want = vec.V(-1, 1, 0).Normalize()
		}
		if dst[r].Sub(want).Len() > 1e-9 {
			t.Errorf("tent: normal of render vertex %d (x = %g) = %v, want %v", r, x, dst[r], want)
		}
	}

	// the allocating path (simulation vertices not in first-appearance
	// order) gives the same normals
	perm := &Welded{Triangles: make([][3]int32, len(w.Triangles)), RenderToSim: make([]int32, nr)}
	ns := int32(len(sim))
	permSim := make([]vec.Vec3, ns)
	for i := range sim {
		permSim[ns-1-int32(i)] = sim[i]
	}
	for i, tr := range w.Triangles {
		perm.Triangles[i] = [3]int32{ns - 1 - tr[0], ns - 1 - tr[1], ns - 1 - tr[2]}
	}
	for r, s := range w.RenderToSim {
		perm.RenderToSim[r] = ns - 1 - s
	}
	dst2 := make([]vec.Vec3, nr)
	RenderNormals(perm, permSim, dst2)
	for r := range dst {
		if dst[r].Sub(dst2[r]).Len() > 1e-12 {
			t.Fatalf("permuted simulation vertices: normal %d = %v, want %v", r, dst2[r], dst[r])
		}
	}

	if allocs := testing.AllocsPerRun(10, func() { RenderNormals(w, sim, dst) }); allocs != 0 {
		t.Errorf("RenderNormals allocates %v times per call, want 0", allocs)
	}
}

func BenchmarkRenderNormals(b *testing.B) {
	m := gridMesh(100, 100, 2)
	w, err := Weld(m, DefaultWeldOptions())
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]vec.Vec3, len(w.RenderToSim))
	b.ReportAllocs()
	for b.Loop() {
		RenderNormals(w, w.Positions, dst)
	}
}
