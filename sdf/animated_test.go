package sdf

import (
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func testKeys() []Key {
	return []Key{
		{Time: 0.5, Translation: vec.V(0, 1, 0), Rotation: vec.QuatIdentity(), Scale: vec.V(1, 1, 1)},
		{Time: 1.5, Translation: vec.V(1, 1, -0.5), Rotation: vec.AxisAngle(vec.V(0, 1, 0), 1.2), Scale: vec.V(1.5, 1.5, 1.5)},
		{Time: 2, Translation: vec.V(1, 2, 0), Rotation: vec.AxisAngle(vec.V(1, 0, 1), -0.7), Scale: vec.V(1, 2, 1)},
		// a 180+ degree turn written with a far quaternion: slerp must take
		// the shorter arc.
		{Time: 3, Translation: vec.V(1, 2, 0), Rotation: vec.Quat{X: 0.1, Y: -0.2, Z: 0.3, W: -0.9}.Normalize(), Scale: vec.V(1, 2, 1)},
	}
}

func matNear(a, b vec.Mat4, tol float64) bool {
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			if math.Abs(a[r][c]-b[r][c]) > tol {
				return false
			}
		}
	}
	return true
}

// TestAnimatedPoses: key poses at the keys, lerp and slerp between them,
// held outside the key range.
func TestAnimatedPoses(t *testing.T) {
	keys := testKeys()
	a := Animated{Shape: Sphere{Radius: 0.2}, Keys: keys}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	trs := func(k Key) vec.Mat4 { return vec.TRS(k.Translation, k.Rotation.Normalize(), k.Scale) }
	cases := []struct {
		name string
		t    float64
		want vec.Mat4
	}{
		{"before first", -1, trs(keys[0])},
		{"at first", 0.5, trs(keys[0])},
		{"at second", 1.5, trs(keys[1])},
		{"at third", 2, trs(keys[2])},
		{"at last", 3, trs(keys[3])},
		{"after last", 10, trs(keys[3])},
	}
	for i := 0; i+1 < len(keys); i++ {
		k0, k1 := keys[i], keys[i+1]
		for _, u := range []float64{0.25, 0.5, 0.9} {
			q := k0.Rotation.Slerp(k1.Rotation, u)
			cases = append(cases, struct {
				name string
				t    float64
				want vec.Mat4
			}{"between", k0.Time + u*(k1.Time-k0.Time), vec.TRS(k0.Translation.Lerp(k1.Translation, u), q, k0.Scale.Lerp(k1.Scale, u))})
		}
	}
	for _, c := range cases {
		if got := a.Transform(c.t); !matNear(got, c.want, 1e-9) {
			t.Errorf("%s: Transform(%v) = %v, want %v", c.name, c.t, got, c.want)
		}
		// the pose's shape is the sphere moved by that matrix.
		ps, err := a.At(c.t)
		if err != nil {
			t.Fatal(err)
		}
		centre := c.want.MulPoint(vec.Vec3{})
		if d := ps.Dist(centre); d >= 0 {
			t.Errorf("%s: pose at %v: Dist(moved centre) = %v, want < 0", c.name, c.t, d)
		}
	}
}

// TestAnimatedVelocity: the velocity of a material point equals the
// central finite difference of its position, away from keys; it is zero
// outside the key range and for a static shape.
func TestAnimatedVelocity(t *testing.T) {
	a := Animated{Shape: Box{Half: vec.V(0.3, 0.1, 0.2)}, Keys: testKeys()}
	r := newRand(11)
	for _, tm := range []float64{0.7, 1.0, 1.6, 1.9, 2.4, 2.99} {
		m := a.Transform(tm)
		var ps Pose
		if err := a.PoseAt(tm, &ps); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			l := randIn(r, vec.V(-0.5, -0.5, -0.5), vec.V(0.5, 0.5, 0.5))
			p := m.MulPoint(l)
			const h = 1e-6
			fd := a.Transform(tm + h).MulPoint(l).Sub(a.Transform(tm - h).MulPoint(l)).Scale(1 / (2 * h))
			v := ps.Velocity(p)
			if v.Sub(fd).Len() > 1e-6*(1+fd.Len()) {
				t.Fatalf("Velocity(%s, t=%v) = %s, finite difference %s", fmtV(p), tm, fmtV(v), fmtV(fd))
			}
			if v2 := a.Velocity(p, tm); v2.Sub(v).Len() > 1e-12 {
				t.Fatalf("Animated.Velocity = %s, Pose.Velocity = %s", fmtV(v2), fmtV(v))
			}
		}
	}
	zero := []struct {
		name string
		a    Animated
		t    float64
	}{
		{"before the keys", a, 0.1},
		{"after the keys", a, 3.5},
		{"at the last key", a, 3},
		{"static", Animated{Shape: a.Shape}, 1},
		{"single key", Animated{Shape: a.Shape, Keys: a.Keys[:1]}, 1},
	}
	for _, c := range zero {
		if v := c.a.Velocity(vec.V(0.3, 1, 0.2), c.t); v != (vec.Vec3{}) {
			t.Errorf("%s: Velocity at t=%v = %s, want 0", c.name, c.t, fmtV(v))
		}
	}
	// at a key the velocity is the next segment's.
	var ps Pose
	if err := a.PoseAt(0.5, &ps); err != nil {
		t.Fatal(err)
	}
	if v := ps.Velocity(vec.V(0, 1, 0)); v.Sub(vec.V(1, 0, -0.5)).Len() > 1e-12 {
		t.Errorf("Velocity at the first key's origin = %s, want (1, 0, -0.5)", fmtV(v))
	}
}

// TestAnimatedValidate names the bad key.
func TestAnimatedValidate(t *testing.T) {
	good := testKeys()
	mod := func(i int, f func(*Key)) []Key {
		k := append([]Key(nil), good...)
		f(&k[i])
		return k
	}
	cases := []struct {
		name string
		a    Animated
	}{
		{"nil shape", Animated{Keys: good}},
		{"unsorted", Animated{Shape: Sphere{Radius: 1}, Keys: mod(2, func(k *Key) { k.Time = 1 })}},
		{"duplicate time", Animated{Shape: Sphere{Radius: 1}, Keys: mod(1, func(k *Key) { k.Time = 0.5 })}},
		{"NaN time", Animated{Shape: Sphere{Radius: 1}, Keys: mod(0, func(k *Key) { k.Time = math.NaN() })}},
		{"zero scale", Animated{Shape: Sphere{Radius: 1}, Keys: mod(1, func(k *Key) { k.Scale = vec.Vec3{} })}},
		{"zero rotation", Animated{Shape: Sphere{Radius: 1}, Keys: mod(1, func(k *Key) { k.Rotation = vec.Quat{} })}},
		{"infinite translation", Animated{Shape: Sphere{Radius: 1}, Keys: mod(3, func(k *Key) { k.Translation.X = math.Inf(1) })}},
	}
	for _, c := range cases {
		if err := c.a.Validate(); err == nil {
			t.Errorf("Validate(%s) = nil, want an error", c.name)
		}
	}
	if err := (&Animated{Shape: Sphere{Radius: 1}, Keys: good}).Validate(); err != nil {
		t.Errorf("Validate(good keys) = %v, want nil", err)
	}
}

// TestColliderValidate checks the friction and thickness ranges and the
// defaults of NewCollider.
func TestColliderValidate(t *testing.T) {
	c := NewCollider(Plane{Normal: vec.V(0, 1, 0)})
	if err := c.Validate(); err != nil {
		t.Fatalf("NewCollider(plane).Validate() = %v", err)
	}
	if c.StaticFriction != DefaultStaticFriction || c.KineticFriction != DefaultKineticFriction || c.Thickness != 0 {
		t.Errorf("NewCollider defaults = %v, %v, %v", c.StaticFriction, c.KineticFriction, c.Thickness)
	}
	for _, f := range []func(*Collider){
		func(c *Collider) { c.StaticFriction = -0.1 },
		func(c *Collider) { c.KineticFriction = math.NaN() },
		func(c *Collider) { c.Thickness = math.Inf(1) },
		func(c *Collider) { c.Shape = nil },
		func(c *Collider) { c.Shape = Plane{} },
		func(c *Collider) { c.Shape = Sphere{Radius: -1} },
		func(c *Collider) { c.Shape = Capsule{Radius: math.NaN()} },
		func(c *Collider) { c.Shape = CappedCone{RA: -0.1} },
		func(c *Collider) { c.Shape = Box{Half: vec.V(1, 0.1, 1), Rounding: 0.2} },
	} {
		bad := c
		f(&bad)
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
}

// TestPoseAtNoAlloc: evaluating a moving collider per substep and
// querying it allocate nothing.
func TestPoseAtNoAlloc(t *testing.T) {
	c := NewCollider(Capsule{A: vec.V(0, 0, 0), B: vec.V(0, 1, 0), Radius: 0.1})
	c.Keys = testKeys()
	var ps Pose
	p := vec.V(0.3, 1.2, 0.1)
	allocs := testing.AllocsPerRun(100, func() {
		if err := c.PoseAt(1.1, &ps); err != nil {
			t.Fatal(err)
		}
		d, g, _ := ps.DistGradWithin(p, 0.5)
		sinkD += d
		sinkG = g.Add(ps.Velocity(p))
	})
	if allocs != 0 {
		t.Errorf("PoseAt + DistGradWithin + Velocity allocates %v times, want 0", allocs)
	}
}
