package sdf

import (
	"math"
	"runtime"
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

// BenchmarkMeshDist measures the body mesh (27k triangles): random points
// within 1 cm of the surface, a cloth-like grid 2 mm off the torso in row
// order, and random points 5-30 cm away, with
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
	// cloth: a 1 cm grid wrapped around the torso, projected to 2 mm
	// outside the skin, in row order, as a garment's vertices reach the
	// solver (neighbours share cells and cache lines).
	var cloth []vec.Vec3
	ctr := lo.Add(hi).Scale(0.5)
	height := hi.Y - lo.Y
	for y := lo.Y + 0.45*height; y < lo.Y+0.75*height; y += 0.01 {
		for a := 0.0; a < 2*math.Pi; a += 0.01 / 0.3 {
			p := vec.V(ctr.X+0.3*math.Cos(a), y, ctr.Z+0.3*math.Sin(a))
			d, g := m.DistGrad(p)
			cloth = append(cloth, p.AddScaled(g, 0.002-d))
		}
	}
	// the same mesh without the near-surface lists: the tree walk alone,
	// the measurement behind the lists.
	treeOnly := *m
	treeOnly.band = bandGrid{}
	for _, set := range []struct {
		name string
		pts  []vec.Vec3
	}{{"near", near}, {"cloth", cloth}, {"far", far}} {
		b.Run(set.name, func(b *testing.B) { benchDistGrad(b, m, set.pts) })
		if set.name != "far" {
			b.Run(set.name+"/tree-only", func(b *testing.B) { benchDistGrad(b, &treeOnly, set.pts) })
		}
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
