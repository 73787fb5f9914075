package solver

import (
	"fmt"
	"math"
	"syscall"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// BenchmarkStep measures one frame (Params.Substeps substeps) of a square
// cloth pinned along its top edge, hanging and swinging, at 1 and 2
// threads, with and without bending. It reports the time per substep, the
// constraint projections (stretch, stretch limits, bending, tethers) per
// second per thread, and frames per second.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{64, 128, 256} {
		for _, bend := range []bool{true, false} {
			for _, threads := range []int{1, 2} {
				name := fmt.Sprintf("%dx%d/bend=%v/threads=%d", n, n, bend, threads)
				b.Run(name, func(b *testing.B) {
					benchStep(b, n, bend, threads)
				})
			}
		}
	}
}

// BenchmarkDefaults128 is the speed target: a 128 x 128 cloth at default
// settings (threads = GOMAXPROCS), reported in frames per second.
func BenchmarkDefaults128(b *testing.B) {
	benchStep(b, 128, true, 0)
}

func benchStep(b *testing.B, n int, bend bool, threads int) {
	pos, tris := gridMesh(n, n, 1, 1)
	// tilt the cloth so it swings
	for i := range pos {
		pos[i].Z = -0.5 * pos[i].Y
		pos[i].Y *= 0.8
	}
	p := DefaultParams()
	p.Threads = threads
	if !bend {
		p.BendingStiffness = 0
	}
	m := newModel(b, pos, tris, topPins(n), p)
	s := NewState(m)
	x := NewXPBD(m)
	f := m.FrameAt(0, 24)
	if err := x.Step(s, &f); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		f = m.FrameAt(i+1, 24)
		if err := x.Step(s, &f); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	ns1, _, nt := m.NumConstraints()
	nl, _ := x.NumLimits()
	proj := float64((ns1+nl)*p.Iterations+nt) * float64(p.Substeps)
	// a hinge spanning c substeps is projected once per span (bendClasses)
	for _, c := range x.bendCls {
		if c == 1 {
			proj += float64(p.Iterations * p.Substeps)
		} else {
			proj += float64(p.Substeps / int(c))
		}
	}
	b.ReportMetric(ns/float64(p.Substeps), "ns/substep")
	b.ReportMetric(proj/(ns*1e-9)/float64(x.pool.Threads()), "proj/s/thread")
	b.ReportMetric(1e9/ns, "frames/s")
}

// BenchmarkDrape measures one frame of the bench's unpinned n x n cloth
// (benchGrid, 2 m wide, 1 m up) falling onto a sphere of radius 0.5 m at
// default settings (threads = 1 and 2, self-collision off and on), after
// warm frames that bring it into contact, as bench/main.go's "64 x 64
// sphere" scene bakes it.
func BenchmarkDrape(b *testing.B) {
	const warm = 12
	for _, n := range []int{64, 128} {
		for _, threads := range []int{1, 2} {
			for _, self := range []bool{false, true} {
				b.Run(fmt.Sprintf("%dx%d/threads=%d/self=%v", n, n, threads, self), func(b *testing.B) {
					pos, tris := benchGrid(n)
					p := DefaultParams()
					p.Threads = threads
					p.SelfCollision = self
					m := newModel(b, pos, tris, nil, p)
					s := NewState(m)
					x := NewXPBD(m)
					cs := []sdf.Collider{sdf.NewCollider(sdf.Sphere{Radius: 0.5})}
					timeFrames(b, warm, frameStepper(b, m, s, x, cs))
				})
			}
		}
	}
}

// frameStepper returns a function that advances s by the next frame of m
// (24 fps) with colliders cs on each call, failing b on an error.
func frameStepper(b *testing.B, m *Model, s *State, in Integrator, cs []sdf.Collider) func() {
	k := 0
	return func() {
		f := m.FrameAt(k, 24)
		f.Colliders = cs
		if err := in.Step(s, &f); err != nil {
			b.Fatal(err)
		}
		k++
	}
}

// timeFrames steps warm frames untimed, then b.N timed frames, and reports
// ms/frame and cpu-ms/frame.
func timeFrames(b *testing.B, warm int, step func()) {
	for range warm {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		step()
	}
	reportCPU(b, cpu0)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/frame")
}

// cpuTime returns the process's user plus system CPU time [s].
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) * 1e-9
}

// reportCPU reports the process CPU time per iteration since cpu0
// ("cpu-ms/frame"). On a machine shared with other work it is a steadier
// measure of a 1-thread run than the wall time; with more threads it
// includes the workers' spinning between phases.
func reportCPU(b *testing.B, cpu0 float64) {
	b.ReportMetric((cpuTime()-cpu0)*1e3/float64(b.N), "cpu-ms/frame")
}

// BenchmarkSleep measures one frame of the bench's n x n cloth (benchGrid)
// lying at rest on the ground, with Params.Sleep off and on (1 thread),
// after warm frames in which it settles the 1 mm onto the ground and, with
// sleeping on, falls asleep. It reports the vertices asleep.
func BenchmarkSleep(b *testing.B) {
	const warm = 30
	ground := []sdf.Collider{sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0), Offset: 0.996})}
	for _, n := range []int{64, 128} {
		for _, sleep := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%d/sleep=%v", n, n, sleep), func(b *testing.B) {
				pos, tris := benchGrid(n)
				p := DefaultParams()
				p.Threads = 1
				p.Sleep = sleep
				m := newModel(b, pos, tris, nil, p)
				s := NewState(m)
				x := NewXPBD(m)
				timeFrames(b, warm, frameStepper(b, m, s, x, ground))
				b.ReportMetric(float64(x.Asleep()), "asleep")
			})
		}
	}
}

// BenchmarkBendPass measures one pass of the dihedral bending constraints
// over every colour (one thread) of the bench's 64 x 64 cloth, rippled,
// from the same positions each time (the copy that restores them is
// timed too, about 1 % of the pass), in ns per hinge.
func BenchmarkBendPass(b *testing.B) {
	pos, tris := benchGrid(64)
	for i := range pos {
		pos[i].Y += 0.02 * math.Sin(7*pos[i].X) * math.Cos(5*pos[i].Z)
	}
	p := DefaultParams()
	p.Threads = 1
	m := newModel(b, pos, tris, nil, p)
	x := NewXPBD(m)
	x.s = NewState(m)
	x.invDt2 = 1 / (1.0 / 360 * 1.0 / 360)
	b.ResetTimer()
	for range b.N {
		copy(x.s.Pos, pos)
		st := m.bend.colours
		for c := 0; c+1 < len(st); c++ {
			x.projectBendRange(st[c], st[c+1])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m.bend.v)), "ns/hinge")
}
