package sdf

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/drape-sim/drape/internal/vec"
)

var sinkD float64
var sinkG vec.Vec3

// benchPoints returns n seeded points within dist [m] of the surface of s
// (projected from random points in a padded box along the gradient).
func benchPoints(s SDF, lo, hi vec.Vec3, n int, dist float64) []vec.Vec3 {
	r := newRand(9)
	pts := make([]vec.Vec3, n)
	for i := range pts {
		p := randIn(r, lo, hi)
		d, g := s.DistGrad(p)
		pts[i] = p.AddScaled(g, -d+(2*r.Float64()-1)*dist)
	}
	return pts
}

// cpuTimer reports "cpu-ns/op", the CPU time of the benchmark's thread
// per operation, which stays meaningful when other processes load the
// machine (wall-clock ns/op does not). With process set it counts every
// thread of the process (for parallel work).
type cpuTimer struct {
	b       *testing.B
	process bool
	start   time.Duration
	ok      bool
}

func startCPU(b *testing.B, process bool) *cpuTimer {
	runtime.LockOSThread()
	c, ok := cpuTime(process)
	return &cpuTimer{b, process, c, ok}
}

func (c *cpuTimer) stop() {
	defer runtime.UnlockOSThread()
	if end, ok := cpuTime(c.process); ok && c.ok && c.b.N > 0 {
		c.b.ReportMetric(float64((end-c.start).Nanoseconds())/float64(c.b.N), "cpu-ns/op")
	}
}

func benchDistGrad(b *testing.B, s SDF, pts []vec.Vec3) {
	b.ReportAllocs()
	c := startCPU(b, false)
	for i := 0; b.Loop(); i++ {
		d, g := s.DistGrad(pts[i%len(pts)])
		sinkD += d
		sinkG = g
	}
	c.stop()
}

// BenchmarkDist measures one DistGrad per shape at points within 1 cm of
// the surface.
func BenchmarkDist(b *testing.B) {
	for _, c := range shapeCases(b) {
		pts := benchPoints(c.s, c.lo, c.hi, 1024, 0.01)
		b.Run(c.name, func(b *testing.B) { benchDistGrad(b, c.s, pts) })
	}
	// an animated capsule as the solver sees it: a Pose (transform) and the
	// surface velocity at each query.
	col := NewCollider(Capsule{A: vec.V(-0.3, 0, 0), B: vec.V(0.3, 0, 0), Radius: 0.1})
	col.Keys = testKeys()
	var pose Pose
	if err := col.PoseAt(1.2, &pose); err != nil {
		b.Fatal(err)
	}
	lo, hi := pose.Bounds()
	ppts := benchPoints(&pose, lo.Sub(vec.V(0.2, 0.2, 0.2)), hi.Add(vec.V(0.2, 0.2, 0.2)), 1024, 0.01)
	b.Run("posed capsule within and velocity", func(b *testing.B) {
		b.ReportAllocs()
		c := startCPU(b, false)
		for i := 0; b.Loop(); i++ {
			p := ppts[i%len(ppts)]
			d, g, _ := pose.DistGradWithin(p, 0.005)
			sinkD += d
			sinkG = g.Add(pose.Velocity(p))
		}
		c.stop()
	})
	pos, tris := loadOBJ(b, "testdata/table2.obj", 1)
	tab := mustMesh(b, pos, tris)
	pts := benchPoints(tab, vec.V(-0.6, -0.1, -0.6), vec.V(0.6, 0.1, 0.6), 1024, 0.01)
	b.Run("table mesh", func(b *testing.B) { benchDistGrad(b, tab, pts) })
}

// BenchmarkMeshDist measures the body mesh (27k triangles): points within
// 1 cm of the surface (cloth on a body) and points 5-30 cm away, with
// DistGrad and with DistGradWithin(p, 5 mm) as the solver calls it.
func BenchmarkMeshDist(b *testing.B) {
	_, _, m := bodyMesh(b)
	lo, hi := m.Bounds()
	pad := vec.V(0.3, 0.3, 0.3)
	near := benchPoints(m, lo.Sub(pad), hi.Add(pad), 4096, 0.01)
	r := newRand(10)
	var far []vec.Vec3
	for len(far) < 4096 {
		p := randIn(r, lo.Sub(pad), hi.Add(pad))
		if d := m.Dist(p); d > 0.05 {
			far = append(far, p)
		}
	}
	// coherent: the near points in the order of 5 cm cells, as a cloth's
	// vertices arrive from the solver (neighbours share cache lines).
	coherent := slices.Clone(near)
	cellOf := func(p vec.Vec3) [3]int {
		return [3]int{int(math.Floor(p.X / 0.05)), int(math.Floor(p.Y / 0.05)), int(math.Floor(p.Z / 0.05))}
	}
	slices.SortStableFunc(coherent, func(a, b vec.Vec3) int {
		ca, cb := cellOf(a), cellOf(b)
		for k := 0; k < 3; k++ {
			if c := cmp.Compare(ca[k], cb[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	for _, set := range []struct {
		name string
		pts  []vec.Vec3
	}{{"near", near}, {"coherent", coherent}, {"far", far}} {
		b.Run(set.name, func(b *testing.B) { benchDistGrad(b, m, set.pts) })
		b.Run(set.name+"/within5mm", func(b *testing.B) {
			pts := set.pts
			b.ReportAllocs()
			c := startCPU(b, false)
			for i := 0; b.Loop(); i++ {
				d, g, _ := m.DistGradWithin(pts[i%len(pts)], 0.005)
				sinkD += d
				sinkG = g
			}
			c.stop()
		})
	}
}

// BenchmarkMeshBuild measures NewMesh on the body (topology checks,
// pseudo-normals, BVH and bound grid).
func BenchmarkMeshBuild(b *testing.B) {
	pos, tris := loadOBJ(b, "testdata/male_generic.obj", 0.1)
	b.ReportAllocs()
	c := startCPU(b, true)
	for b.Loop() {
		if _, err := NewMesh(pos, tris); err != nil {
			b.Fatal(err)
		}
	}
	c.stop()
}
