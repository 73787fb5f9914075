package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// TestNewtonSphere runs the bench's Newton path: it installs the pinned
// newton and warp-lang into tools/venv-newton when missing (as ./test.sh
// does; pip's progress goes to stderr), then bakes a 16 x 16 grid 2 cm above
// the 0.5 m sphere for 5 frames at 24 fps with Newton's VBD and XPBD cloth,
// and measures each point cache with the bench's own code. Warp compiles
// its CPU kernels on first use (minutes on two cores) and caches them in the
// venv, so later runs take seconds.
//
// Physics bounds, 4/24 s after the drop: the centre of mass falls no
// faster than gravity (y >= 0.52 - g t²/2); the sheet's middle rests on the
// sphere (its four middle vertices end within 1 cm of the surface, where
// free fall would have taken them 13 cm down, and no vertex is ever more
// than 2 mm inside it); its rim hangs below the sphere's top (lowest y <
// 0.47); and the sheet is whole (max edge stretch under 50 %).
func TestNewtonSphere(t *testing.T) {
	root := ".."
	venv := filepath.Join(root, "tools", "venv-newton")
	py, err := ensureNewton(venv, filepath.Join(root, "bench", "newton-requirements.txt"), os.Stderr)
	if err != nil {
		t.Fatalf("ensureNewton: %v", err)
	}
	if py, err = filepath.Abs(py); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join(root, "bench", "newton_cloth.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const n, y0, frames, fps = 16, 0.52, 5, 24
	grid := filepath.Join(dir, "grid16.obj")
	if err := writeGrid(grid, n, y0); err != nil {
		t.Fatal(err)
	}
	sc := scene{Name: "16 x 16 sphere", Cloth: grid, Scale: 1, Sphere: 0.5, Vertices: n * n, Frames: frames}
	m, err := newMeasurer(sc)
	if err != nil {
		t.Fatalf("newMeasurer: %v", err)
	}
	o := options{fps: fps, newtonDevice: "cpu", venv: venv}
	tFall := float64(frames-1) / fps
	for _, solver := range []string{"vbd", "xpbd"} {
		t.Run(solver, func(t *testing.T) {
			r := runNewton(o, py, script, solver, "Newton "+solver, dir, "t", sc)
			if r.Err != nil {
				t.Fatalf("runNewton(%s): %v", solver, r.Err)
			}
			if !(r.PerFrame > 0) {
				t.Errorf("time per frame = %g s, want > 0", r.PerFrame)
			}
			q, err := m.measurePC2(r.PC2, false)
			if err != nil {
				t.Fatalf("measurePC2(%s): %v", r.PC2, err)
			}
			pc, err := meshio.ReadPC2File(r.PC2)
			if err != nil {
				t.Fatal(err)
			}
			if len(pc.Frames) != frames {
				t.Fatalf("%d frames in the point cache, want %d", len(pc.Frames), frames)
			}
			t.Logf("%s: %.0f ms/frame, max stretch %.2f %%, max penetration %.2f mm, lowest y %.3f m, %d self-intersecting pairs",
				solver, 1000*r.PerFrame, 100*q.MaxStretch, 1000*q.MaxPenetration, q.LowestY, q.SelfIntersections)
			last := pc.Frames[frames-1]
			// the centre of mass (vertex masses a third of their triangles'
			// areas, as the cloth is uniform) cannot fall faster than gravity
			// takes it: the sphere only pushes up
			var mass, my float64
			for _, tri := range m.tris {
				a := m.rest[tri[1]].Sub(m.rest[tri[0]]).Cross(m.rest[tri[2]].Sub(m.rest[tri[0]])).Len() / 6
				for _, v := range tri {
					mass += a
					my += a * last[v].Y
				}
			}
			if cy, free := my/mass, y0-9.81*tFall*tFall/2; cy < free-1e-3 || math.IsNaN(cy) {
				t.Errorf("centre of mass at y = %.4f m: below free fall's %.4f m", cy, free)
			}
			if q.LowestY > 0.47 {
				t.Errorf("lowest y = %.4f m, want < 0.47 m: the rim did not hang below the sphere's top", q.LowestY)
			}
			if q.MaxPenetration > 0.002 {
				t.Errorf("max penetration = %.2f mm, want <= 2 mm", 1000*q.MaxPenetration)
			}
			if q.MaxStretch > 0.5 {
				t.Errorf("max stretch = %.1f %%, want < 50 %%", 100*q.MaxStretch)
			}
			for _, i := range []int{n/2*n + n/2, n/2*n + n/2 - 1, (n/2-1)*n + n/2, (n/2-1)*n + n/2 - 1} {
				if d := last[i].Sub(vec.V(0, 0, 0)).Len() - 0.5; math.Abs(d) > 0.01 || math.IsNaN(d) {
					t.Errorf("middle vertex %d ends %.1f mm from the sphere's surface (at %v), want within 10 mm", i, 1000*d, last[i])
				}
			}
		})
	}
}
