package solver

import (
	"math"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// ballMesh returns a closed latitude-longitude sphere of radius r centred
// at c, wound outwards.
func ballMesh(nLat, nLon int, r float64, c vec.Vec3) ([]vec.Vec3, [][3]int32) {
	pos := []vec.Vec3{c.Add(vec.V(0, r, 0))}
	for i := 1; i < nLat; i++ {
		th := math.Pi * float64(i) / float64(nLat)
		for j := range nLon {
			ph := 2 * math.Pi * float64(j) / float64(nLon)
			pos = append(pos, c.Add(vec.V(r*math.Sin(th)*math.Cos(ph), r*math.Cos(th), r*math.Sin(th)*math.Sin(ph))))
		}
	}
	pos = append(pos, c.Add(vec.V(0, -r, 0)))
	south := int32(len(pos) - 1)
	ring := func(i, j int) int32 { return int32(1 + (i-1)*nLon + (j+nLon)%nLon) }
	var tris [][3]int32
	for j := range nLon {
		tris = append(tris, [3]int32{0, ring(1, j+1), ring(1, j)})
		tris = append(tris, [3]int32{south, ring(nLat-1, j), ring(nLat-1, j+1)})
	}
	for i := 1; i+1 < nLat; i++ {
		for j := range nLon {
			a, b, c, d := ring(i, j), ring(i, j+1), ring(i+1, j), ring(i+1, j+1)
			tris = append(tris, [3]int32{a, b, d}, [3]int32{a, d, c})
		}
	}
	all := make([]int32, len(tris))
	for i := range all {
		all[i] = int32(i)
	}
	if signedVolume(pos, tris, all) < 0 {
		for i := range tris {
			tris[i][1], tris[i][2] = tris[i][2], tris[i][1]
		}
	}
	return pos, tris
}

// TestVolumeInflatesClosedPiece floats a closed 0.2 m ball of cloth
// without gravity with Volume 1.5: it must swell to 1.5 times its rest
// volume (within 1 %), half way after 0.25 s (volumeRamp), wound outwards
// or inwards alike; an open cloth beside it is not affected.
func TestVolumeInflatesClosedPiece(t *testing.T) {
	for _, inward := range []bool{false, true} {
		pos, tris := ballMesh(12, 16, 0.2, vec.V(0, 1, 0))
		if inward {
			for i := range tris {
				tris[i][1], tris[i][2] = tris[i][2], tris[i][1]
			}
		}
		// a flat square beside it (open: no volume)
		sq, st := gridMesh(4, 4, 0.3, 0.3)
		base := int32(len(pos))
		for _, x := range sq {
			pos = append(pos, x.Add(vec.V(1, 0, 0)))
		}
		for _, tr := range st {
			tris = append(tris, [3]int32{tr[0] + base, tr[1] + base, tr[2] + base})
		}
		p := DefaultParams()
		p.Gravity = vec.V(0, 0, 0)
		p.Volume = 1.5
		m := newModel(t, pos, tris, nil, p)
		s := NewState(m)
		var half []float64
		simulate(t, m, s, 48, 24, func(k int) {
			if k == 5 { // t = 0.25 s, half of volumeRamp
				half = m.ClosedVolumes(s.Pos)
			}
		})
		r := m.ClosedVolumes(s.Pos)
		if len(half) != 1 || math.Abs(half[0]-1.25) > 0.02 {
			t.Errorf("inward %v: volume ratio %v after 0.25 s, want 1.25 ± 0.02 (half way up the ramp)", inward, half)
		}
		t.Logf("inward %v: closed volumes relative to rest after 2 s: %v", inward, r)
		if len(r) != 1 || math.Abs(r[0]-1.5) > 0.015 {
			t.Errorf("inward %v: closed volume ratio %v, want one piece at 1.5 ± 0.015", inward, r)
		}
		for i := base; int(i) < len(pos); i++ {
			if d := s.Pos[i].Sub(pos[i]).Len(); d > 1e-9 {
				t.Fatalf("the open square moved %.3g m without gravity", d)
			}
		}
	}
}

// TestPillowKeepsItsLoft drops a closed ball of cotton onto the floor: with
// Volume 1 it keeps its volume (within 3 %) and stands 0.3 m tall or more,
// where without it the same ball sags to under 70 % of its volume.
func TestPillowKeepsItsLoft(t *testing.T) {
	floor := []sdf.Collider{sdf.NewCollider(sdf.Plane{Normal: vec.V(0, 1, 0)})}
	run := func(volume float64) (ratio, top float64) {
		pos, tris := ballMesh(12, 16, 0.2, vec.V(0, 0.25, 0))
		p := DefaultParams()
		p.Volume = volume
		m := newModel(t, pos, tris, nil, p)
		s := NewState(m)
		in, err := NewIntegrator(m)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 72 {
			f := m.FrameAt(k, 24)
			f.Colliders = floor
			if err := in.Step(s, &f); err != nil {
				t.Fatal(err)
			}
		}
		all := make([]int32, len(tris))
		for i := range all {
			all[i] = int32(i)
		}
		top = math.Inf(-1)
		for _, x := range s.Pos {
			top = math.Max(top, x.Y)
		}
		return signedVolume(s.Pos, tris, all) / signedVolume(pos, tris, all), top
	}
	held, heldTop := run(1)
	free, freeTop := run(0)
	t.Logf("after 3 s on the floor: volume 1 keeps %.3f of the volume (top %.3f m), without %.3f (top %.3f m)", held, heldTop, free, freeTop)
	if math.Abs(held-1) > 0.03 || heldTop < 0.3 {
		t.Errorf("with volume 1: %.3f of the rest volume, top %.3f m; want 1 ± 0.03 and >= 0.3 m", held, heldTop)
	}
	if free > 0.7 {
		t.Errorf("without volume the ball keeps %.3f of its volume: the test cannot tell (want < 0.7)", free)
	}
}

// TestVolumeErrors checks the settings a cloth cannot hold a volume with.
func TestVolumeErrors(t *testing.T) {
	ball, bt := ballMesh(6, 8, 0.2, vec.V(0, 0, 0))
	flipped := append([][3]int32(nil), bt...)
	flipped[0][1], flipped[0][2] = flipped[0][2], flipped[0][1]
	sq, st := gridMesh(4, 4, 1, 1)
	for _, tc := range []struct {
		name   string
		pos    []vec.Vec3
		tris   [][3]int32
		volume float64
		solver SolverKind
		want   string
	}{
		{"open", sq, st, 1, SolverXPBD, "no closed piece"},
		{"winding", ball, flipped, 1, SolverXPBD, "not wound consistently"},
		{"range", ball, bt, 11, SolverXPBD, "volume = 11: must be in (0, 10]"},
		{"solver", ball, bt, 1, SolverImplicit, "xpbd solver only"},
	} {
		p := DefaultParams()
		p.Volume, p.Solver = tc.volume, tc.solver
		_, err := NewModel(tc.pos, tc.tris, nil, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
