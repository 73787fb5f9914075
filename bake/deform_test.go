package bake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// writeGrowingBox writes box.obj, a cube of half size 0.2 m at the origin,
// and box.pc2, its 8 corners over 25 frames: its top rises from 0.2 m to
// 0.5 m at frame 24, its bottom and sides stay (the sides stretch: the
// mesh deforms). It returns the two paths.
func writeGrowingBox(t *testing.T, dir string) (string, string) {
	t.Helper()
	corner := func(i int, h float64) vec.Vec3 {
		p := vec.V(-h, -h, -h)
		if i&1 != 0 {
			p.X = h
		}
		if i&2 != 0 {
			p.Y = h
		}
		if i&4 != 0 {
			p.Z = h
		}
		return p
	}
	var b strings.Builder
	for i := range 8 {
		p := corner(i, 0.2)
		fmt.Fprintf(&b, "v %g %g %g\n", p.X, p.Y, p.Z)
	}
	// outward quads (1-based OBJ indices)
	b.WriteString("f 1 5 7 3\nf 2 4 8 6\nf 1 2 6 5\nf 3 7 8 4\nf 1 3 4 2\nf 5 6 8 7\n")
	obj := filepath.Join(dir, "box.obj")
	if err := os.WriteFile(obj, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var frames [][]vec.Vec3
	for k := range 25 {
		f := make([]vec.Vec3, 8)
		for i := range f {
			f[i] = corner(i, 0.2)
			if f[i].Y > 0 {
				f[i].Y += 0.3 * float64(k) / 24
			}
		}
		frames = append(frames, f)
	}
	var buf bytes.Buffer
	if err := meshio.WritePC2(&buf, frames, 0, 1); err != nil {
		t.Fatal(err)
	}
	pc2 := filepath.Join(dir, "box.pc2")
	if err := os.WriteFile(pc2, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return obj, pc2
}

// TestDeformingMeshColliderLiftsCloth drops a cloth onto a box whose
// point cache raises its top from 0.2 m to 0.5 m over 1 s: after 1 s the
// cloth must lie on the raised top without sinking into the box, where the
// same box without its cache leaves the cloth at 0.2 m.
func TestDeformingMeshColliderLiftsCloth(t *testing.T) {
	dir := t.TempDir()
	obj, pc2 := writeGrowingBox(t, dir)
	for _, cache := range []string{pc2, ""} {
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, 13, 0.6, 0.3)
		sc.Frames = 25
		sc.Output = []string{filepath.Join(dir, "out.pc2")}
		sc.Colliders = []ColliderSpec{{Type: ColliderMesh, Path: obj, Cache: cache}}
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cache %v: highest %.4f m, max penetration %.2f mm, thickness %.2f mm", cache != "", rep.HighestY, 1000*rep.MaxPenetration, 1000*rep.Thickness)
		top := map[bool]float64{true: 0.5, false: 0.2}[cache != ""]
		if rep.HighestY < top || rep.HighestY > top+0.01 {
			t.Errorf("cache %v: the cloth's highest point is %.4f m, want on the box's top %.1f m (within 1 cm above)", cache != "", rep.HighestY, top)
		}
		if rep.MaxPenetration > 0.1*rep.Thickness {
			t.Errorf("cache %v: max penetration %.2f mm, want at most a tenth of the thickness %.2f mm", cache != "", 1000*rep.MaxPenetration, 1000*rep.Thickness)
		}
	}
}

// A deforming collider's cache given as MDD bakes exactly as the same
// points given as PC2.
func TestDeformingColliderMDD(t *testing.T) {
	dir := t.TempDir()
	obj, pc2 := writeGrowingBox(t, dir)
	pc, err := meshio.ReadPC2File(pc2)
	if err != nil {
		t.Fatal(err)
	}
	mdd := writeCache(t, dir, "box.mdd", pc.Frames)
	var outs [][]byte
	for _, cache := range []string{pc2, mdd} {
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, 9, 0.6, 0.3)
		sc.Frames = 25
		sc.Output = []string{filepath.Join(dir, "out.pc2")}
		sc.Colliders = []ColliderSpec{{Type: ColliderMesh, Path: obj, Cache: cache}}
		rep, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(cache), err)
		}
		if rep.HighestY < 0.5 {
			t.Errorf("%s: the cloth's highest point is %.4f m, want lifted onto the box's risen top (0.5 m)", filepath.Base(cache), rep.HighestY)
		}
		b, _ := os.ReadFile(sc.Output[0])
		outs = append(outs, b)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("the bake with box.mdd differs from the one with box.pc2")
	}
}

// TestDeformingColliderErrors: a cache of the wrong mesh, a missing cache,
// and keys beside a cache are bad input naming the collider and the fix.
func TestDeformingColliderErrors(t *testing.T) {
	dir := t.TempDir()
	obj, pc2 := writeGrowingBox(t, dir)
	var buf bytes.Buffer
	if err := meshio.WritePC2(&buf, [][]vec.Vec3{make([]vec.Vec3, 7)}, 0, 1); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.pc2")
	if err := os.WriteFile(short, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		spec ColliderSpec
		want []string
	}{
		{"count", ColliderSpec{Type: ColliderMesh, Path: obj, Cache: short}, []string{"colliders[0].cache", "7 points", "8 vertices"}},
		{"missing", ColliderSpec{Type: ColliderMesh, Path: obj, Cache: filepath.Join(dir, "none.pc2")}, []string{"colliders[0].cache", "none.pc2"}},
		{"keys", ColliderSpec{Type: ColliderMesh, Path: obj, Cache: pc2, Keys: []KeySpec{{Time: 0}}}, []string{"colliders[0].keys", "cache"}},
	}
	for _, c := range cases {
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, 5, 0.6, 0.3)
		sc.Colliders = []ColliderSpec{c.spec}
		err := sc.Validate()
		if err == nil {
			_, err = Prepare(sc, Options{})
		}
		if err == nil || ExitCode(err) != ExitBadInput {
			t.Errorf("%s: %v, want a bad-input error", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", c.name, err, w)
			}
		}
	}
}

// TestPreviewDrawsDeformingCollider: drape preview --scene draws a cached
// mesh collider as its cache has it at the frame drawn.
func TestPreviewDrawsDeformingCollider(t *testing.T) {
	dir := t.TempDir()
	obj, pc2 := writeGrowingBox(t, dir)
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 5, 0.6, 0.3)
	sc.Colliders = []ColliderSpec{{Type: ColliderMesh, Path: obj, Cache: pc2}}
	scene := filepath.Join(dir, "scene.json")
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scene, data, 0o644); err != nil {
		t.Fatal(err)
	}
	draw, err := colliderSurfaces(scene)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, top float64 }{{0, 0.2}, {0.5, 0.35}, {1, 0.5}, {3, 0.5}} {
		surfs, err := draw(c.t)
		if err != nil {
			t.Fatal(err)
		}
		top := math.Inf(-1)
		for _, p := range surfs[0].Positions {
			top = math.Max(top, p.Y)
		}
		if math.Abs(top-c.top) > 1e-6 {
			t.Errorf("t = %g s: the drawn box's top is at %g m, want %g", c.t, top, c.top)
		}
	}
}

// TestDeformingColliderDeterministic: a bake against a deforming collider
// (with self-collision) writes the same bytes on 1, 2 and 8 threads.
func TestDeformingColliderDeterministic(t *testing.T) {
	sameAcrossThreads(t, func(dir string) *Scene {
		obj, pc2 := writeGrowingBox(t, dir)
		sc := DefaultScene()
		sc.Input = writeGridOBJ(t, dir, 13, 0.6, 0.3)
		sc.Frames = 25
		sc.SelfCollision = true
		sc.Output = []string{filepath.Join(dir, "out.pc2")}
		sc.Colliders = []ColliderSpec{{Type: ColliderMesh, Path: obj, Cache: pc2}}
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		return sc
	})
}
