// Package examples_test bakes a shortened version of every example scene
// through the real bake path (bake.LoadScene + bake.Run, as `drape bake`
// does) and checks its report and its last baked frame: no divergence, no
// collider penetration beyond the cloth thickness, no self-intersecting
// triangle pairs, a bounded stretch, and one physics figure per scene.
package examples_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/bake"
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// maxStretch bounds the largest edge strain over all frames: cloth that
// stretches by more than this has not converged or has blown up.
const maxStretch = 0.25

// figures are what a check sees of one shortened bake.
type figures struct {
	rep  *bake.Report
	last []vec.Vec3 // last frame in the input file's vertex order, Y-up [m]
	rest []vec.Vec3 // first frame (rest pose) [m]
}

func (f figures) bounds() (lo, hi vec.Vec3) {
	lo = vec.V(math.Inf(1), math.Inf(1), math.Inf(1))
	hi = lo.Scale(-1)
	for _, p := range f.last {
		lo, hi = lo.Min(p), hi.Max(p)
	}
	return lo, hi
}

func (f figures) meanZ() float64 {
	s := 0.0
	for _, p := range f.last {
		s += p.Z
	}
	return s / float64(len(f.last))
}

var examples = []struct {
	name   string
	frames int
	// stretch, when set, replaces maxStretch for a scene whose contact
	// holds some edges stretched (see the scene's comment).
	stretch float64
	// check returns "" when the scene's physics figure is sane, or what is
	// wrong.
	check func(f figures) string
}{
	{"tablecloth", 12, 0, func(f figures) string {
		// the table top is at y = 0.005; the cloth must drape over its rim
		if f.rep.LowestY >= 0 {
			return fmt.Sprintf("lowest point y = %.4f m, want below the table top (0.005 m) after 0.5 s", f.rep.LowestY)
		}
		if f.rep.HighestY > 0.1 {
			return fmt.Sprintf("highest point y = %.4f m, want < 0.1 m: the cloth should have landed on the table", f.rep.HighestY)
		}
		return ""
	}},
	// Gusts whip the free corner: single edges there reach 13.6 % strain
	// in these 24 frames and 16.5 % over the full 120-frame bake.
	{"flag", 24, 0.2, func(f figures) string {
		// the pole edge holds the flag's top corner (vertex 10) in place
		if d := f.last[10].Sub(f.rest[10]).Len(); d > 1e-3 {
			return fmt.Sprintf("pinned pole vertex 10 moved %.4f m, want <= 1 mm", d)
		}
		// the wind must lift the free edge: the far corner (vertex 430)
		// hangs 1.07 m below the top at rest
		if f.last[430].Y <= f.rest[430].Y {
			return fmt.Sprintf("free corner y = %.4f m, want above its rest height %.4f m in a 7 m/s wind", f.last[430].Y, f.rest[430].Y)
		}
		return ""
	}},
	// The curtain's lines hang from its rod pins and are solved whole
	// (solver/limits.go): 11.8 % in these 24 frames, where the ball hits.
	{"curtain", 24, 0.15, func(f figures) string {
		if math.Abs(f.rep.HighestY-2) > 1e-3 {
			return fmt.Sprintf("highest point y = %.4f m, want the rod height 2 m ± 1 mm", f.rep.HighestY)
		}
		// the ball (surface at z = -0.25 m after 1 s) pushes the cloth back
		if lo, _ := f.bounds(); lo.Z > -0.15 {
			return fmt.Sprintf("curtain min z = %.4f m, want < -0.15 m: the ball should push it back", lo.Z)
		}
		return ""
	}},
	// Pinned at the shoulders: 0.63 % in these 24 frames.
	{"cape", 24, 0.01, func(f figures) string {
		// the shoulders walk 0.6 m along +Z in the first second; the cape
		// follows, trailing behind them
		if mz := f.meanZ(); mz < 0.1 || mz > 0.6 {
			return fmt.Sprintf("cape mean z = %.4f m, want in 0.1..0.6 m (it follows the shoulders to z = 0.6 m)", mz)
		}
		return ""
	}},
	// The jeans slide down the hips and pile on the feet; at the scene's 30
	// substeps a few hem edges caught between the feet and the floor reach
	// about 40 % strain (at 15 substeps 113 %).
	{"tshirt", 12, 0.5, func(f figures) string {
		// the body's feet are at y = -0.818 m: the jeans must stay on the
		// body, not slide off it or fall through
		if f.rep.LowestY < -0.82 {
			return fmt.Sprintf("lowest point y = %.4f m, want >= -0.82 m (the feet)", f.rep.LowestY)
		}
		if f.rep.HighestY > 0.70 {
			return fmt.Sprintf("highest point y = %.4f m, want <= 0.70 m (the collar starts at 0.697 m)", f.rep.HighestY)
		}
		return ""
	}},
	// The dense heap: as it lands, a few quads pinched between layers
	// stretch for a frame or two. The spike is chaotic: these 14 frames
	// reach 42 %, and 32 % to 44 % with the floor up to 0.1 mm lower.
	{"knee", 24, 0, func(f figures) string {
		// at the last frame (23/24 s) the knee's top has risen to 0.215 m
		// (the still leg's top is at 0.14 m), and the blanket lies on it
		if f.rep.HighestY < 0.21 || f.rep.HighestY > 0.23 {
			return fmt.Sprintf("highest point y = %.4f m, want on the rising knee's top (0.215 m + thickness): 0.21-0.23 m", f.rep.HighestY)
		}
		if f.rep.LowestY < -f.rep.Thickness {
			return fmt.Sprintf("lowest point y = %.4f m, want >= -thickness %.4f m (the floor)", f.rep.LowestY, f.rep.Thickness)
		}
		return ""
	}},
	// The throw lands on the right cushion's rounded edge: single edges there
	// stretch to about 25 % for a frame (24.5 % over the full bake).
	{"cushions", 24, 0.35, func(f figures) string {
		// both cushions (closed, volume 1) keep their volume
		if v := f.rep.ClosedVolumes; len(v) != 2 || math.Abs(v[0]-1) > 0.03 || math.Abs(v[1]-1) > 0.03 {
			return fmt.Sprintf("closed volume ratios %v, want the two cushions at 1 ± 0.03", v)
		}
		// the left cushion (vertices 0..1175 of the file) stays lofted: its
		// top was at 0.15 m
		top := math.Inf(-1)
		for _, p := range f.last[:1176] {
			top = math.Max(top, p.Y)
		}
		if top < 0.14 {
			return fmt.Sprintf("left cushion top y = %.4f m, want >= 0.14 m (0.15 m at rest)", top)
		}
		// the throw (the file's last 1024 vertices) has landed on the right
		// cushion and the floor
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range f.last[len(f.last)-1024:] {
			lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
		}
		if lo < 0 || lo > 0.02 || hi < 0.15 || hi > 0.2 {
			return fmt.Sprintf("throw spans y = %.4f..%.4f m, want from the floor (0..0.02 m) to the cushion's top (0.15..0.2 m)", lo, hi)
		}
		return ""
	}},
	// The seams pull the panels' sides together at 0.3 m/s while the waist
	// hangs from its centre: edges near the waist reach about 22 % strain
	// while sewing (13 % once sewn, at the last frame).
	{"skirt", 36, 0.3, func(f figures) string {
		// after 1.5 s the side seams (0.4 m apart at rest) are shut
		if f.rep.SeamGap > 1e-3 {
			return fmt.Sprintf("widest seam %.4f m after 1.5 s, want <= 1 mm", f.rep.SeamGap)
		}
		// sewn around the hips, the skirt is narrower than the flat panels'
		// 0.8 m hem
		if lo, hi := f.bounds(); hi.X-lo.X > 0.5 {
			return fmt.Sprintf("skirt spans %.3f m in x, want <= 0.5 m once sewn around the hips (0.8 m flat)", hi.X-lo.X)
		}
		return ""
	}},
	// Tacked along the thigh: 1.75 % in these 36 frames.
	{"sash", 36, 0.03, func(f figures) string {
		// the tacked row (the file's first 16 vertices, x = -0.45..-0.15,
		// 7.5 cm above the leg's axis) rides on the thigh, which turns
		// about the hip (x = -0.5, y = 0.07) by the knee angle: 30 degrees
		// times smoothstep((t - 0.25 s) / 2 s), 19.6 degrees at frame 35
		u := (35.0/24 - 0.25) / 2
		th := 30 * math.Pi / 180 * u * u * (3 - 2*u)
		for _, i := range []int{0, 15} {
			dx := f.rest[i].X + 0.5
			want := 0.07 + dx*math.Sin(th) + 0.075*math.Cos(th)
			if got := f.last[i].Y; math.Abs(got-want) > 1e-3 {
				return fmt.Sprintf("tacked vertex %d at y = %.4f m, want %.4f m (carried by the turning thigh)", i, got, want)
			}
		}
		// the rest of the sash hangs below the row
		for _, p := range f.last[16:] {
			if p.Y > f.last[15].Y+0.01 {
				return fmt.Sprintf("a free vertex at y = %.4f m, above the tacked row (%.4f m)", p.Y, f.last[15].Y)
			}
		}
		return ""
	}},
	{"sheet", 14, 0.5, func(f figures) string {
		// the sheet starts upright up to y = 1.45 m and heaps on the floor
		if f.rep.HighestY > 0.9 {
			return fmt.Sprintf("highest point y = %.4f m, want < 0.9 m: the sheet should be collapsing after 0.54 s", f.rep.HighestY)
		}
		if f.rep.LowestY < -f.rep.Thickness {
			return fmt.Sprintf("lowest point y = %.4f m, want >= -thickness %.4f m (the floor)", f.rep.LowestY, f.rep.Thickness)
		}
		return ""
	}},
}

func TestExamples(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			path := filepath.Join(ex.name, "scene.json")
			sc, err := bake.LoadScene(path)
			if err != nil {
				t.Fatalf("LoadScene(%s): %v", path, err)
			}
			sc.Frames = ex.frames
			out := filepath.Join(t.TempDir(), ex.name+".pc2")
			sc.Output = bake.Outputs{out}
			rep, err := bake.Run(context.Background(), sc, bake.Options{})
			if err != nil {
				t.Fatalf("bake %s (%d frames): %v", path, ex.frames, err)
			}
			pc, err := meshio.ReadPC2File(out)
			if err != nil {
				t.Fatalf("read %s: %v", out, err)
			}
			frames := pc.Frames
			if len(frames) != ex.frames {
				t.Fatalf("bake %s: %d frames in the point cache, want %d", path, len(frames), ex.frames)
			}
			f := figures{rep: rep, rest: frames[0], last: frames[len(frames)-1]}
			// drape writes PC2 in Blender's axes (x, -z, y) and the input's
			// units, as Blender's Mesh Cache modifier reads it
			for _, fr := range [][]vec.Vec3{f.rest, f.last} {
				for i, p := range fr {
					fr[i] = vec.V(p.X, p.Z, -p.Y).Scale(sc.Scale)
				}
			}
			for name, v := range map[string]float64{
				"lowest_y": rep.LowestY, "highest_y": rep.HighestY, "mean_y": rep.MeanY,
				"max_stretch": rep.MaxStretch, "max_penetration": rep.MaxPenetration,
			} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("bake %s: %s = %v, want finite", path, name, v)
				}
			}
			bound := maxStretch
			if ex.stretch > 0 {
				bound = ex.stretch
			}
			if rep.MaxStretch > bound {
				t.Errorf("bake %s: max stretch = %.1f %%, want <= %.0f %%", path, 100*rep.MaxStretch, 100*bound)
			}
			if rep.MaxPenetration > rep.Thickness {
				t.Errorf("bake %s: max penetration = %.2f mm, want <= the thickness %.2f mm", path, 1000*rep.MaxPenetration, 1000*rep.Thickness)
			}
			// a cloth without self-collision may pass through itself (the
			// flag's folds do at some frames)
			if rep.SelfCollision && rep.SelfIntersections != 0 {
				t.Errorf("bake %s: self-intersecting triangle pairs = %d, want 0 with self-collision on", path, rep.SelfIntersections)
			}
			if msg := ex.check(f); msg != "" {
				t.Errorf("bake %s (%d frames): %s", path, ex.frames, msg)
			}
			t.Logf("%s: %d frames, %.1f ms/frame, lowest %.4f m, highest %.4f m, max stretch %.2f %%, max penetration %.2f mm, self-intersections %d",
				ex.name, ex.frames, 1000*rep.SecondsPerFrame, rep.LowestY, rep.HighestY, 100*rep.MaxStretch, 1000*rep.MaxPenetration, rep.SelfIntersections)
		})
	}
}
