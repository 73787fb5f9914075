package solver

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// sleepTolerance is the largest vertex position difference [m] that
// Params.Sleep may make to a bake whose cloth comes to rest.
const sleepTolerance = 1e-3

// sleepScene is a cloth that comes to rest: benchGrid(n) (2 m wide, 1 m
// up) dropped onto colliders.
type sleepScene struct {
	name      string
	n         int
	frames    int
	damping   float64
	colliders []sdf.Collider
}

var sleepScenes = []sleepScene{
	// flat onto the ground 5 cm below
	{"ground", 24, 72, 0.1, []sdf.Collider{sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0), Offset: 0.95})}},
	// onto the ground 5 cm below with one edge 20 cm higher, so the
	// cloth lands and comes to rest row by row
	{"tilted", 24, 96, 0.1, []sdf.Collider{sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0), Offset: 0.95})}},
}

// bakeSleep bakes sc and returns the final state and the number of
// vertices asleep in each frame.
func bakeSleep(t testing.TB, sc sleepScene, sleep bool, threads int) (*State, []int) {
	t.Helper()
	pos, tris := benchGrid(sc.n)
	if sc.name == "tilted" {
		for i := range pos {
			pos[i].Y += 0.1 * (pos[i].Z + 1)
		}
	}
	p := DefaultParams()
	p.Sleep = sleep
	p.Threads = threads
	p.Damping = sc.damping
	m := newModel(t, pos, tris, nil, p)
	s := NewState(m)
	x := NewXPBD(m)
	asleep := make([]int, sc.frames)
	for k := range sc.frames {
		f := m.FrameAt(k, 24)
		f.Colliders = sc.colliders
		if err := x.Step(s, &f); err != nil {
			t.Fatalf("%s sleep=%v: %v", sc.name, sleep, err)
		}
		asleep[k] = x.Asleep()
	}
	return s, asleep
}

// TestSleepTolerance bakes cloth that comes to rest with sleeping on and
// off: the final positions differ by less than sleepTolerance, the cloth
// did fall asleep, nothing is NaN, and sleeping is byte-identical at 1, 2
// and 8 threads.
func TestSleepTolerance(t *testing.T) {
	for _, sc := range sleepScenes {
		t.Run(sc.name, func(t *testing.T) {
			off, _ := bakeSleep(t, sc, false, 1)
			on, asleep := bakeSleep(t, sc, true, 1)
			nv := len(on.Pos)
			first, partial := -1, 0
			for k, a := range asleep {
				if a > 0 && first < 0 {
					first = k
				}
				if a > 0 && a < nv {
					partial++
				}
			}
			if last := asleep[len(asleep)-1]; last < nv/2 {
				t.Errorf("%s: %d of %d vertices asleep in the last frame, want at least half (asleep per frame %v)", sc.name, last, nv, asleep)
			}
			diff := 0.0
			for i := range on.Pos {
				if !on.Pos[i].IsFinite() || !on.Vel[i].IsFinite() {
					t.Fatalf("%s: vertex %d not finite: %v, %v", sc.name, i, on.Pos[i], on.Vel[i])
				}
				diff = math.Max(diff, on.Pos[i].Sub(off.Pos[i]).Len())
			}
			t.Logf("%s: %d frames, first asleep in frame %d, %d frames partly asleep, %d of %d asleep at the end, max difference %.3g m",
				sc.name, sc.frames, first, partial, asleep[len(asleep)-1], nv, diff)
			if diff > sleepTolerance {
				t.Errorf("%s: sleep on vs off max vertex difference %.3g m, want <= %g", sc.name, diff, sleepTolerance)
			}
			for _, th := range []int{2, 8} {
				got, _ := bakeSleep(t, sc, true, th)
				for i := range got.Pos {
					if got.Pos[i] != on.Pos[i] || got.Vel[i] != on.Vel[i] {
						t.Fatalf("%s: threads=%d vertex %d = %v, threads=1 %v", sc.name, th, i, got.Pos[i], on.Pos[i])
					}
				}
			}
		})
	}
}

// TestSleepWakes puts a cloth to sleep on the ground, then checks that
// each change sleeping cannot see wakes every vertex and lets it move.
func TestSleepWakes(t *testing.T) {
	sc := sleepScenes[0]
	tests := []struct {
		name string
		mod  func(s *State, f *Frame)
	}{
		{"wind", func(s *State, f *Frame) { f.Wind.Velocity = vec.V(0, 5, 0) }},
		{"gravity", func(s *State, f *Frame) { f.Gravity = vec.V(0, 9.81, 0) }},
		{"no colliders", func(s *State, f *Frame) { f.Colliders = nil }},
		{"edited", func(s *State, f *Frame) { s.Vel[0] = vec.V(0, 1, 0); s.Pos[0].Y += 0.01 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pos, tris := benchGrid(sc.n)
			p := DefaultParams()
			p.Sleep = true
			m := newModel(t, pos, tris, nil, p)
			s := NewState(m)
			x := NewXPBD(m)
			for k := 0; k <= sc.frames; k++ {
				f := m.FrameAt(k, 24)
				f.Colliders = sc.colliders
				if k == sc.frames {
					if x.Asleep() != len(s.Pos) {
						t.Fatalf("%s: %d of %d asleep before the change, want all", tc.name, x.Asleep(), len(s.Pos))
					}
					tc.mod(s, &f)
				}
				before := append([]vec.Vec3(nil), s.Pos...)
				if err := x.Step(s, &f); err != nil {
					t.Fatal(err)
				}
				if k < sc.frames {
					continue
				}
				if x.Asleep() != 0 {
					t.Errorf("%s: %d vertices asleep after the change, want 0", tc.name, x.Asleep())
				}
				moved := 0.0
				for i := range s.Pos {
					moved = math.Max(moved, s.Pos[i].Sub(before[i]).Len())
				}
				if moved < 1e-4 {
					t.Errorf("%s: cloth moved at most %.3g m in the frame after the change, want >= 1e-4", tc.name, moved)
				}
			}
		})
	}
}
