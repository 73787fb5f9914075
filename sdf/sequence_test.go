package sdf

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// growingCube is a cube of half size 0.5 at t = 0 growing to 1 at t = 1 s
// (step 1 s), and shrinking back to 0.5 at t = 2 s.
func growingCube(t *testing.T) *MeshSequence {
	t.Helper()
	p0, tris := cubeMesh(vec.V(0.5, 0.5, 0.5))
	p1, _ := cubeMesh(vec.V(1, 1, 1))
	s, err := NewMeshSequence(tris, [][]vec.Vec3{p0, p1, p0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMeshSequenceBlends: between samples the distance is the blend of the
// samples' distances, which for a cube growing uniformly is the distance
// to the cube of the interpolated size; outside the samples it holds; the
// surface velocity is the growth rate along the normal; a collider pose
// carries both.
func TestMeshSequenceBlends(t *testing.T) {
	s := growingCube(t)
	p := vec.V(0, 2, 0)
	for _, c := range []struct{ t, want float64 }{{-1, 1.5}, {0, 1.5}, {0.5, 1.25}, {1, 1}, {1.25, 1.125}, {2, 1.5}, {9, 1.5}} {
		sh, err := s.ShapeAt(c.t)
		if err != nil {
			t.Fatal(err)
		}
		if d := sh.Dist(p); math.Abs(d-c.want) > 1e-12 {
			t.Errorf("t = %g: Dist%v = %g, want %g", c.t, p, d, c.want)
		}
		// within: the same distance when asked within it, false below it
		if d, _, ok := sh.DistGradWithin(p, c.want+0.01); !ok || math.Abs(d-c.want) > 1e-12 {
			t.Errorf("t = %g: DistGradWithin(%g) = %g, %v; want %g, true", c.t, c.want+0.01, d, ok, c.want)
		}
		if _, _, ok := sh.DistGradWithin(p, c.want-0.01); ok {
			t.Errorf("t = %g: DistGradWithin(%g) reports within, the distance is %g", c.t, c.want-0.01, c.want)
		}
		if d, _, ok := sh.DistGradWithin(vec.Vec3{}, 0); !ok || d >= 0 {
			t.Errorf("t = %g: the centre is at %g, within %v: want inside", c.t, d, ok)
		}
	}
	col := NewCollider(s)
	var ps Pose
	for _, c := range []struct {
		t    float64
		want vec.Vec3
	}{{0.5, vec.V(0, 0.5, 0)}, {1.5, vec.V(0, -0.5, 0)}, {3, vec.Vec3{}}} {
		if err := col.PoseAt(c.t, &ps); err != nil {
			t.Fatal(err)
		}
		if v := ps.Velocity(p); v.Sub(c.want).Len() > 1e-9 {
			t.Errorf("t = %g: surface velocity above the top %v, want %v", c.t, v, c.want)
		}
	}
	if d := ps.Dist(p); math.Abs(d-1.5) > 1e-12 {
		t.Errorf("collider pose at 3 s: Dist = %g, want 1.5 (holding the last sample)", d)
	}
	lo, hi := s.Bounds()
	if lo != vec.V(-1, -1, -1) || hi != vec.V(1, 1, 1) {
		t.Errorf("Bounds = %v, %v: want every sample's box, [-1, 1]³", lo, hi)
	}
}

// TestMeshSequenceErrors names the frame and the problem.
func TestMeshSequenceErrors(t *testing.T) {
	p0, tris := cubeMesh(vec.V(0.5, 0.5, 0.5))
	flat := append([]vec.Vec3(nil), p0...)
	for i := range flat {
		flat[i].Y = 0
	}
	cases := []struct {
		name   string
		frames [][]vec.Vec3
		tris   [][3]int32
		want   string
		is     error
	}{
		{"count", [][]vec.Vec3{p0, p0[:7]}, tris, "frame 1 has 7 vertices", nil},
		{"flattened", [][]vec.Vec3{p0, flat}, tris, "frame 1", ErrDegenerate},
		{"open", [][]vec.Vec3{p0, p0}, tris[:11], "frame 0", ErrNotClosed},
		{"none", nil, tris, "no frames", nil},
	}
	for _, c := range cases {
		_, err := NewMeshSequence(c.tris, c.frames, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v, want one naming %q (%v)", c.name, err, c.want, c.is)
		}
	}
}

// TestSequenceSamplesWithoutBand: a sequence's samples skip the
// near-surface lists; their distances and gradients are those of a full
// Mesh, bit for bit (both find the exact nearest triangle).
func TestSequenceSamplesWithoutBand(t *testing.T) {
	pos, tris, full := bodyMesh(t)
	bare, err := NewMeshWith(pos, tris, MeshOptions{noBand: true})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := full.Bounds()
	r := newRand(3)
	for i := range 2000 {
		p := randIn(r, lo.Sub(vec.V(0.1, 0.1, 0.1)), hi.Add(vec.V(0.1, 0.1, 0.1)))
		d0, g0 := full.DistGrad(p)
		d1, g1 := bare.DistGrad(p)
		w0, h0, ok0 := full.DistGradWithin(p, 0.01)
		w1, h1, ok1 := bare.DistGradWithin(p, 0.01)
		if d0 != d1 || g0 != g1 || ok0 != ok1 || ok0 && (w0 != w1 || h0 != h1) {
			t.Fatalf("point %d %v: full mesh %g %v / %g %v %v, without the lists %g %v / %g %v %v", i, p, d0, g0, w0, h0, ok0, d1, g1, w1, h1, ok1)
		}
	}
}
