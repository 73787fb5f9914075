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

// TestFollowRidesTheSurface: points near an icosphere that turns and
// moves rigidly follow it exactly, whatever their offset from the
// surface; on a sphere that also stretches along x, a point on the
// surface stays on it.
func TestFollowRidesTheSurface(t *testing.T) {
	rest, tris := icosphere(2)
	points := []vec.Vec3{
		vec.V(0, 1, 0),             // a vertex
		vec.V(0.3, 0.8, 0.2),       // inside
		vec.V(-0.9, 0.6, 0.1),      // outside
		rest[5].Lerp(rest[7], 0.5), // on an edge's midpoint direction
	}
	motion := func(k int, p vec.Vec3) vec.Vec3 {
		r := vec.AxisAngle(vec.V(0.3, 1, 0.2).Normalize(), 0.4*float64(k))
		return r.Rotate(p).Add(vec.V(0.1*float64(k), -0.05*float64(k), 0.2))
	}
	var rigid, stretched [][]vec.Vec3
	for k := range 4 {
		f, g := make([]vec.Vec3, len(rest)), make([]vec.Vec3, len(rest))
		for i, p := range rest {
			f[i] = motion(k, p)
			g[i] = vec.V(p.X*(1+0.2*float64(k)), p.Y, p.Z)
		}
		rigid, stretched = append(rigid, f), append(stretched, g)
	}
	s, err := NewMeshSequence(tris, rigid, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Step() != 0.5 {
		t.Errorf("Step = %v, want 0.5", s.Step())
	}
	start := make([]vec.Vec3, len(points))
	for i, p := range points {
		start[i] = motion(0, p)
	}
	paths, err := s.Follow(start)
	if err != nil {
		t.Fatal(err)
	}
	for k, row := range paths {
		for i, p := range row {
			if want := motion(k, points[i]); p.Sub(want).Len() > 1e-12 {
				t.Errorf("sample %d, point %d at %v, want %v (moved with the sphere)", k, i, p, want)
			}
		}
	}
	s2, err := NewMeshSequence(tris, stretched, 1)
	if err != nil {
		t.Fatal(err)
	}
	m0, _ := NewMesh(stretched[0], tris)
	on := []vec.Vec3{rest[3].Lerp(rest[9], 0.3)}
	on[0] = on[0].Sub(m0.Grad(on[0]).Scale(m0.Dist(on[0]))) // onto the surface
	paths, err = s2.Follow(on)
	if err != nil {
		t.Fatal(err)
	}
	for k, row := range paths {
		mk, _ := NewMesh(stretched[k], tris)
		if d := mk.Dist(row[0]); math.Abs(d) > 1e-9 {
			t.Errorf("sample %d: a surface point is %.3g m off the stretched surface", k, d)
		}
		if k > 0 && row[0].Sub(paths[k-1][0]).Len() < 1e-3 {
			t.Errorf("sample %d: the point did not move with the stretch", k)
		}
	}
}
