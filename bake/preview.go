package bake

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/render"
	"github.com/drape-sim/drape/sdf"
)

// PreviewOptions say what `drape preview` draws.
type PreviewOptions struct {
	// Frames are the frame numbers to draw; nil means four spread over the
	// bake (a contact sheet) or every frame (a GIF).
	Frames []int
	// Width and Height are each frame's size in pixels.
	Width, Height int
	// Scene, if set, is a scene file whose colliders are drawn in grey.
	Scene string
	// Ground draws a ground plane under the lowest point.
	Ground bool
	// Supersample is the anti-aliasing factor (1..4).
	Supersample int
}

// Preview renders a baked glTF to out: a PNG contact sheet, or an animated
// GIF when out ends in .gif. The file is written atomically.
func Preview(in, out string, opt PreviewOptions) error {
	b, err := meshio.ReadBaked(in)
	if err != nil {
		return badInput(err, "preview reads drape's baked .glb/.gltf output")
	}
	gif := strings.EqualFold(filepath.Ext(out), ".gif")
	if !gif && !strings.EqualFold(filepath.Ext(out), ".png") {
		return badInputf("preview output %s: must end in .png (contact sheet) or .gif (animation)", out)
	}
	if opt.Width <= 0 || opt.Height <= 0 || opt.Width > 8192 || opt.Height > 8192 {
		return badInputf("preview size %dx%d: width and height must be in 1..8192", opt.Width, opt.Height)
	}
	frames := opt.Frames
	n := len(b.Frames)
	if frames == nil {
		if gif {
			for k := 0; k < n; k++ {
				frames = append(frames, k)
			}
		} else {
			for i := 0; i < 4 && i < n; i++ {
				frames = append(frames, int(math.Round(float64(i)*float64(n-1)/3)))
			}
		}
	}
	for _, f := range frames {
		if f < 0 || f >= n {
			return badInputf("preview frame %d: %s has frames 0..%d", f, in, n-1)
		}
	}
	w, err := meshio.Weld(b.Mesh, meshio.DefaultWeldOptions())
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", in, err), "")
	}
	// Colliders move with their keys: draw each frame's pose.
	extras := make([][]render.Surface, len(frames))
	if opt.Scene != "" {
		draw, err := colliderSurfaces(opt.Scene)
		if err != nil {
			return err
		}
		for i, f := range frames {
			if extras[i], err = draw(b.Times[f]); err != nil {
				return err
			}
		}
	}
	// One camera for every drawn frame, framing all of them.
	scene := &render.Scene{Ground: opt.Ground}
	scene.Cloth.Triangles = w.Triangles
	sim := make([][]vec.Vec3, len(frames))
	lo, hi := vec.V(math.Inf(1), math.Inf(1), math.Inf(1)), vec.V(math.Inf(-1), math.Inf(-1), math.Inf(-1))
	for i, f := range frames {
		sim[i] = make([]vec.Vec3, len(w.Positions))
		for r, s := range w.RenderToSim {
			sim[i][s] = b.Frames[f][r]
		}
		if l, h, ok := render.Bounds(sim[i]); ok {
			lo, hi = lo.Min(l), hi.Max(h)
		}
	}
	for _, ex := range extras {
		for _, e := range ex {
			if l, h, ok := render.Bounds(e.Positions); ok {
				lo, hi = lo.Min(l), hi.Max(h)
			}
		}
	}
	scene.GroundY = lo.Y
	cam := render.AutoCamera(lo, hi, float64(opt.Width)/float64(opt.Height))
	ropt := render.DefaultOptions()
	ropt.Supersample = max(1, min(opt.Supersample, 4))
	rd := render.NewRenderer()
	imgs := make([]*image.RGBA, len(frames))
	labels := make([]string, len(frames))
	for i, f := range frames {
		scene.Cloth.Positions = sim[i]
		scene.Extras = extras[i]
		imgs[i] = image.NewRGBA(image.Rect(0, 0, opt.Width, opt.Height))
		rd.Render(imgs[i], cam, scene, ropt)
		labels[i] = fmt.Sprintf("frame %d", f)
	}
	st, err := stageFile(out, func(wr io.Writer) error {
		if gif {
			fps := 24.0
			if len(b.Times) > 1 && b.Times[1] > b.Times[0] {
				fps = 1 / (b.Times[1] - b.Times[0])
			}
			if len(frames) > 1 && frames[1] > frames[0] {
				fps /= float64(frames[1] - frames[0])
			}
			return render.EncodeGIF(wr, imgs, fps)
		}
		return png.Encode(wr, render.ContactSheet(imgs, labels, 0))
	})
	if err != nil {
		return err
	}
	return st.commit()
}

// surfaceAt draws one collider at time t [s].
type surfaceAt func(t float64) (render.Surface, error)

// colliderSurfaces reads a scene's colliders, and its input's collider
// nodes, once and returns what draws them at any time t [s].
func colliderSurfaces(scenePath string) (func(t float64) ([]render.Surface, error), error) {
	sc, err := LoadScene(scenePath)
	if err != nil {
		return nil, err
	}
	var draws []surfaceAt
	for i, cs := range sc.Colliders {
		if cs.Type == ColliderPlane {
			continue // the ground plane stands in for it
		}
		key := fmt.Sprintf("colliders[%d]", i)
		a := &sdf.Animated{Keys: toKeys(cs.Keys)}
		if cs.Type == ColliderMesh {
			m, w, err := readColliderMesh(sc, key, cs)
			if err != nil {
				return nil, err
			}
			var frames [][]vec.Vec3
			if cs.Cache != "" {
				if frames, err = cacheFrames(sc, key, cs, m, w); err != nil {
					return nil, err
				}
			}
			draws = append(draws, func(t float64) (render.Surface, error) {
				pos := make([]vec.Vec3, len(w.Positions))
				if frames != nil {
					// a deforming collider: its cache between the samples
					// around t
					u := min(max(t*sc.FPS, 0), float64(len(frames)-1))
					k := min(int(u), len(frames)-1)
					b := min(k+1, len(frames)-1)
					for i := range pos {
						pos[i] = frames[k][i].Lerp(frames[b][i], u-float64(k))
					}
				} else {
					tr := a.Transform(t)
					for k, p := range w.Positions {
						pos[k] = tr.MulPoint(p)
					}
				}
				return render.Surface{Positions: pos, Triangles: w.Triangles}, nil
			})
			continue
		}
		if a.Shape, err = colliderShape(sc, key, cs); err != nil {
			return nil, err
		}
		draws = append(draws, func(t float64) (render.Surface, error) {
			pose, err := a.At(t)
			if err != nil {
				return render.Surface{}, sc.rangeError(key+".keys", len(cs.Keys), err.Error())
			}
			return tessellate(pose), nil
		})
	}
	nodes, err := nodeSurfaces(sc)
	if err != nil {
		return nil, err
	}
	draws = append(draws, nodes...)
	return func(t float64) ([]render.Surface, error) { return drawAt(draws, t) }, nil
}

// drawAt draws every collider of draws at time t [s].
func drawAt(draws []surfaceAt, t float64) ([]render.Surface, error) {
	out := make([]render.Surface, len(draws))
	for i, d := range draws {
		s, err := d(t)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// nodeSurfaces reads the collider nodes of a glTF input and returns what
// draws each of them, as the bake moves them: skinned meshes posed by
// their skeleton, animated nodes by their animation.
func nodeSurfaces(sc *Scene) ([]surfaceAt, error) {
	if ext := strings.ToLower(filepath.Ext(sc.Input)); ext != ".gltf" && ext != ".glb" {
		return nil, nil // only glTF carries collider nodes
	}
	m, err := meshio.Read(sc.Resolve(sc.Input), inputReadOptions(sc))
	if err != nil {
		return nil, badInput(err, readFix(err))
	}
	var draws []surfaceAt
	for _, n := range m.Colliders {
		if n.Kind == "plane" {
			continue // the ground plane stands in for it
		}
		keys, err := nodeKeys(n)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: collider node %q: %w", m.Path, n.Name, err), "")
		}
		a := &sdf.Animated{Keys: keys}
		if n.Kind == "mesh" {
			draws = append(draws, func(t float64) (render.Surface, error) {
				if n.Skin != nil {
					return render.Surface{Positions: n.Skin.At(t), Triangles: n.Triangles}, nil
				}
				tr := a.Transform(t).Mul(n.World)
				pos := make([]vec.Vec3, len(n.Local))
				for i, p := range n.Local {
					pos[i] = tr.MulPoint(p)
				}
				return render.Surface{Positions: pos, Triangles: n.Triangles}, nil
			})
			continue
		}
		if a.Shape, err = fitNodeShape(n); err != nil {
			return nil, badInput(fmt.Errorf("%s: collider node %q: %w", m.Path, n.Name, err), "")
		}
		draws = append(draws, func(t float64) (render.Surface, error) {
			pose, err := a.At(t)
			if err != nil {
				return render.Surface{}, err
			}
			return tessellate(pose), nil
		})
	}
	return draws, nil
}

// tessellate draws a convex SDF as a sphere mesh around its bounds projected
// onto its surface by Newton steps along the gradient.
func tessellate(s sdf.SDF) render.Surface {
	lo, hi := s.Bounds()
	c := lo.Add(hi).Scale(0.5)
	r := hi.Sub(lo).Len() / 2
	const nu, nv = 48, 24
	var pos []vec.Vec3
	for i := 0; i <= nv; i++ {
		th := math.Pi * float64(i) / nv
		for j := 0; j < nu; j++ {
			ph := 2 * math.Pi * float64(j) / nu
			p := c.Add(vec.V(math.Sin(th)*math.Cos(ph), math.Cos(th), math.Sin(th)*math.Sin(ph)).Scale(r))
			for k := 0; k < 8; k++ {
				d, g := s.DistGrad(p)
				p = p.Sub(g.Scale(d))
			}
			pos = append(pos, p)
		}
	}
	var tris [][3]int32
	for i := 0; i < nv; i++ {
		for j := 0; j < nu; j++ {
			a := int32(i*nu + j)
			b := int32(i*nu + (j+1)%nu)
			tris = append(tris, [3]int32{a, b, a + nu}, [3]int32{b, b + nu, a + nu})
		}
	}
	return render.Surface{Positions: pos, Triangles: tris}
}
