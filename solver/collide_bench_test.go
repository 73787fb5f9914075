package solver

import (
	"fmt"
	"testing"
)

// BenchmarkHeap measures one frame of the heap scene (an n x n cloth of
// side 1 m collapsing onto the ground, verticalDrop) with self-collision on
// and off, after warm frames that bring it into contact with the ground
// and itself. Each iteration steps the next frame; the largest number of
// intersecting triangle pairs after a measured frame is reported as well.
func BenchmarkHeap(b *testing.B) {
	for _, n := range []int{64, 128} {
		for _, self := range []bool{false, true} {
			benchHeap(b, n, self, 12)
		}
	}
}

// BenchmarkHeapRest is BenchmarkHeap for the 64 x 64 heap once it lies on
// the ground (from frame 48 on), where its layers rest on each other: the
// contacts of a resting heap rather than of its collapse.
func BenchmarkHeapRest(b *testing.B) {
	for _, self := range []bool{false, true} {
		benchHeap(b, 64, self, 48)
	}
}

// benchHeap runs the sub-benchmark of the n x n heap with self-collision
// on or off, measuring the frames after the first warm.
func benchHeap(b *testing.B, n int, self bool, warm int) {
	onOff := map[bool]string{false: "off", true: "on"}[self]
	b.Run(fmt.Sprintf("%d/self=%s", n, onOff), func(b *testing.B) {
		sc := verticalDrop(n)
		p := DefaultParams()
		p.SelfCollision = self
		m := newModel(b, sc.pos, sc.tris, nil, p)
		s := NewState(m)
		in, err := NewIntegrator(m)
		if err != nil {
			b.Fatal(err)
		}
		step := frameStepper(b, m, s, in, sc.cs)
		for range warm {
			step()
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		worst := 0
		for i := 0; i < b.N; i++ {
			step()
			b.StopTimer()
			cpu1 := cpuTime()
			worst = max(worst, SelfIntersections(s.Pos, m.Topo.Tris))
			cpu0 += cpuTime() - cpu1
			b.StartTimer()
		}
		reportCPU(b, cpu0)
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/frame")
		// leaks show next to the speed (not timed)
		b.ReportMetric(float64(worst), "intersections")
	})
}
