package render

import (
	"image"
	"math"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// Test colours: hues far apart so a pixel's side can be told by its hue.
var (
	testFront = RGB8(200, 40, 30) // red
	testBack  = RGB8(40, 80, 200) // blue
)

// drapeSphere is the ball the synthetic cloth hangs over.
var (
	drapeCentre = vec.V(0, 1, 0)
	drapeRadius = 0.5
)

// drapedCloth returns an n x n vertex grid of a 2.4 m square cloth (seed
// 000's size) draped over the sphere drapeCentre, drapeRadius: the middle
// wraps the top of the ball, the rest hangs down, flaring out in folds.
// Its front (counter-clockwise side) faces outwards, away from the ball.
func drapedCloth(n int) Surface {
	const size, thetaMax = 2.4, 1.9
	r := drapeRadius + 0.02
	pos := make([]vec.Vec3, 0, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			u := (float64(i)/float64(n-1) - 0.5) * size
			v := (float64(j)/float64(n-1) - 0.5) * size
			s, phi := math.Hypot(u, v), math.Atan2(v, u)
			radial := vec.V(math.Cos(phi), 0, math.Sin(phi))
			theta := math.Min(s/r, thetaMax)
			st, ct := math.Sincos(theta)
			p := drapeCentre.Add(radial.Scale(r * st)).Add(vec.V(0, r*ct, 0))
			if rest := s - r*thetaMax; rest > 0 {
				down := vec.V(0, -1, 0).AddScaled(radial, 0.3).Normalize()
				fold := 0.12 * rest * math.Sin(7*phi)
				p = p.AddScaled(down, rest).AddScaled(radial, fold)
			}
			pos = append(pos, p)
		}
	}
	tris := make([][3]int32, 0, 2*(n-1)*(n-1))
	for j := 0; j < n-1; j++ {
		for i := 0; i < n-1; i++ {
			a := int32(j*n + i)
			b, c, d := a+1, a+int32(n), a+int32(n)+1
			tris = append(tris, [3]int32{a, c, b}, [3]int32{b, c, d})
		}
	}
	return Surface{Positions: pos, Triangles: tris, Front: testFront, Back: testBack}
}

// flipped returns sf with every triangle's winding reversed.
func flipped(sf Surface) Surface {
	out := sf
	out.Triangles = make([][3]int32, len(sf.Triangles))
	for i, t := range sf.Triangles {
		out.Triangles[i] = [3]int32{t[0], t[2], t[1]}
	}
	return out
}

// sphereMesh returns a UV sphere with outward-facing triangles.
func sphereMesh(c vec.Vec3, r float64, rings, segs int) Surface {
	var pos []vec.Vec3
	for j := 0; j <= rings; j++ {
		th := math.Pi * float64(j) / float64(rings)
		for i := 0; i < segs; i++ {
			ph := 2 * math.Pi * float64(i) / float64(segs)
			pos = append(pos, c.Add(vec.V(math.Sin(th)*math.Cos(ph), math.Cos(th), math.Sin(th)*math.Sin(ph)).Scale(r)))
		}
	}
	var tris [][3]int32
	for j := 0; j < rings; j++ {
		for i := 0; i < segs; i++ {
			a := int32(j*segs + i)
			b := int32(j*segs + (i+1)%segs)
			cc, d := a+int32(segs), b+int32(segs)
			tris = append(tris, [3]int32{a, b, cc}, [3]int32{b, d, cc})
		}
	}
	return Surface{Positions: pos, Triangles: tris}
}

// quad returns the rectangle with corners a, b, c, d (counter-clockwise
// seen from its front) as two triangles.
func quad(a, b, c, d vec.Vec3, front, back Color) Surface {
	return Surface{
		Positions: []vec.Vec3{a, b, c, d},
		Triangles: [][3]int32{{0, 1, 2}, {0, 2, 3}},
		Front:     front, Back: back,
	}
}

// hit is what a ray through a pixel centre meets first.
type hit uint8

const (
	hitNone hit = iota
	hitFront
	hitBack
)

// rayCast is the test oracle: it shoots a ray through the centre of every
// pixel of a w x h image, written from the camera's definition rather than
// from the rasteriser, and reports per pixel the side of the nearest
// triangle of the given surfaces it hits (Möller & Trumbore 1997), with
// hits nearer than the camera's near distance ignored.
func rayCast(cam Camera, w, h int, surfs ...Surface) []hit {
	fwd := cam.Target.Sub(cam.Eye).Normalize()
	right := fwd.Cross(vec.V(0, 1, 0)).Normalize()
	up := right.Cross(fwd)
	tanY := math.Tan(cam.FovY * math.Pi / 360)
	tanX := tanY * float64(w) / float64(h)
	// Möller-Trumbore per pixel, visiting only the pixels inside each
	// triangle's conservative screen box (the whole image if a corner is
	// not in front of the eye)
	out := make([]hit, w*h)
	best := make([]float64, w*h)
	for i := range best {
		best[i] = math.Inf(1)
	}
	for _, sf := range surfs {
		for _, t := range sf.Triangles {
			a, b, c := sf.Positions[t[0]], sf.Positions[t[1]], sf.Positions[t[2]]
			x0, y0, x1, y1 := 0, 0, w-1, h-1
			lo, hi := math.Inf(1), math.Inf(-1)
			loY, hiY := math.Inf(1), math.Inf(-1)
			inFront := true
			for _, p := range []vec.Vec3{a, b, c} {
				d := p.Sub(cam.Eye)
				z := d.Dot(fwd)
				if z <= 1e-9 {
					inFront = false
					break
				}
				px := (d.Dot(right)/(z*tanX) + 1) * 0.5 * float64(w)
				py := (1 - d.Dot(up)/(z*tanY)) * 0.5 * float64(h)
				lo, hi = math.Min(lo, px), math.Max(hi, px)
				loY, hiY = math.Min(loY, py), math.Max(hiY, py)
			}
			if inFront {
				x0, x1 = max(0, int(math.Floor(lo))-1), min(w-1, int(math.Ceil(hi))+1)
				y0, y1 = max(0, int(math.Floor(loY))-1), min(h-1, int(math.Ceil(hiY))+1)
			}
			e1, e2 := b.Sub(a), c.Sub(a)
			back := e1.Cross(e2)
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					sx := (2*(float64(x)+0.5)/float64(w) - 1) * tanX
					sy := (1 - 2*(float64(y)+0.5)/float64(h)) * tanY
					dir := fwd.AddScaled(right, sx).AddScaled(up, sy) // depth-normalised
					p := dir.Cross(e2)
					det := e1.Dot(p)
					if det == 0 {
						continue
					}
					s := cam.Eye.Sub(a)
					u := s.Dot(p) / det
					q := s.Cross(e1)
					v := dir.Dot(q) / det
					d := e2.Dot(q) / det
					i := y*w + x
					if u < 0 || v < 0 || u+v > 1 || d < cam.Near || d >= best[i] {
						continue
					}
					best[i] = d
					out[i] = hitFront
					if back.Dot(dir) > 0 {
						out[i] = hitBack
					}
				}
			}
		}
	}
	return out
}

// background renders an empty scene: the per-pixel background colours.
func background(cam Camera, w, h int, opt Options) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	Render(img, cam, nil, opt)
	return img
}

// covered reports, per pixel, whether img differs from the background bg.
func covered(img, bg *image.RGBA) []bool {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := make([]bool, w*h)
	for i := range out {
		a, b := img.Pix[4*i:4*i+3], bg.Pix[4*i:4*i+3]
		out[i] = a[0] != b[0] || a[1] != b[1] || a[2] != b[2]
	}
	return out
}

// renderImage renders s into a new w x h image.
func renderImage(t testing.TB, cam Camera, s *Scene, w, h int, opt Options) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	Render(img, cam, s, opt)
	return img
}

// sceneCamera frames every point of s for an image of aspect w/h.
func sceneCamera(s *Scene, w, h int) Camera {
	lo, hi, _ := SceneBounds(s)
	return AutoCamera(lo, hi, float64(w)/float64(h))
}
