package contact

import (
	"testing"
	"time"
)

// BenchmarkRebuild measures one full rebuild of the neighbour list (refit
// and traversal) on one thread, in two states of the test cloth (which
// folds more readily than the solver's, having no bending):
//   - sphere: the 64 x 64 sphere drape at frame 20, while the cloth wraps
//     the sphere in folds;
//   - heap: the 64 x 64 heap at frame 14, crumpling, where the list is
//     rebuilt every substep. Its substep-s metric is how many substeps of
//     that heap without self-contact one such rebuild costs.
func BenchmarkRebuild(b *testing.B) {
	b.Run("sphere", func(b *testing.B) {
		tc := sphereDrape(b, 64, 1)
		benchRebuild(b, tc, 20)
	})
	b.Run("heap", func(b *testing.B) {
		// the same heap without self-contact, timed over the same frames
		off := verticalDrop(b, 64, 1)
		for range 14 {
			off.frame(false)
		}
		t0 := time.Now()
		for range 8 {
			off.frame(false)
		}
		perSubstep := time.Since(t0).Seconds() / (8 * 15)
		benchRebuild(b, verticalDrop(b, 64, 1), 14)
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/perSubstep, "substep-s")
	})
}

// benchRebuild steps warm frames with self-contact, then times full
// rebuilds of the list, which must list the same pairs each time.
func benchRebuild(b *testing.B, tc *testCloth, warm int) {
	for range warm {
		tc.frame(true)
	}
	sc := tc.c
	sc.rebuild()
	n := len(sc.vt) + len(sc.ee)
	b.ResetTimer()
	for range b.N {
		sc.rebuild()
	}
	b.StopTimer()
	if len(sc.vt)+len(sc.ee) != n {
		b.Fatalf("the list changed between rebuilds: %d pairs, then %d", n, len(sc.vt)+len(sc.ee))
	}
	b.ReportMetric(float64(n), "pairs")
}
