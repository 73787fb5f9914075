package solver

import (
	"fmt"
	"testing"
	"time"
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

// BenchmarkSelfRebuild measures one full rebuild of the self-collision
// neighbour list (refit and traversal) on one thread, in two states:
//   - sphere: the 64 x 64 sphere drape at frame 20, while the cloth wraps
//     the sphere in folds, the rebuild that dominates that phase's frames;
//   - heap: the 64 x 64 heap of BenchmarkHeap at frame 14, crumpling,
//     where half the vertices move more than 0.3 x thickness a substep
//     relative to the others and the list is rebuilt every substep (see
//     selfSkinOwn). Its substep-s metric is how many substeps of that
//     heap without self-collision (one thread) one such rebuild costs.
func BenchmarkSelfRebuild(b *testing.B) {
	b.Run("sphere", func(b *testing.B) {
		m, s, x, cs := sphereDrape(b, 64, 1)
		benchRebuild(b, frameStepper(b, m, s, x, cs), x, 20)
	})
	b.Run("heap", func(b *testing.B) {
		sc := verticalDrop(64)
		p := DefaultParams()
		p.Threads = 1
		// the same heap without self-collision, timed over the same frames
		m := newModel(b, sc.pos, sc.tris, nil, p)
		s := NewState(m)
		off := frameStepper(b, m, s, NewXPBD(m), sc.cs)
		for range 14 {
			off()
		}
		t0 := time.Now()
		for range 8 {
			off()
		}
		perSubstep := time.Since(t0).Seconds() / float64(8*p.Substeps)
		p.SelfCollision = true
		m = newModel(b, sc.pos, sc.tris, nil, p)
		s = NewState(m)
		x := NewXPBD(m)
		benchRebuild(b, frameStepper(b, m, s, x, sc.cs), x, 14)
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/perSubstep, "substep-s")
	})
}

// benchRebuild steps warm frames, then times full rebuilds of x's
// neighbour list, which must list the same pairs each time.
func benchRebuild(b *testing.B, step func(), x *XPBD, warm int) {
	for range warm {
		step()
	}
	sc := x.col.self
	n := sc.Rebuild()
	b.ResetTimer()
	for range b.N {
		if m := sc.Rebuild(); m != n {
			b.Fatalf("the list changed between rebuilds: %d pairs, then %d", n, m)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n), "pairs")
}
