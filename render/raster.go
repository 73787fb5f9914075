package render

import (
	"image"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// maxSamples caps the supersampled buffer size (samples): Supersample is
// lowered until the image fits, so a huge image cannot exhaust memory.
const maxSamples = 1 << 24

// Renderer draws Scenes into images. It owns the depth, normal and
// material buffers and the per-vertex scratch, and reuses them from frame to
// frame: once it has drawn a frame of a given size and mesh, further frames
// of that size allocate nothing. A Renderer is not safe for concurrent use;
// use one per goroutine.
type Renderer struct {
	sw, sh int       // sample grid: image size times Supersample
	depth  []float32 // inverse depth 1/z per sample [1/m]; 0 means empty
	normal []float32 // world normal per sample (3 floats), not normalised
	mat    []uint16  // material per sample; 0 means background
	mats   []Color   // material colours; index 0 is unused
	bg     []float64 // background per sample row (3 floats), display-linear
	vn     []vec.Vec3
	vv     []vec.Vec3
	v      view
	shadow shadowMap
}

// NewRenderer returns a Renderer with empty buffers; they grow on first use.
func NewRenderer() *Renderer { return &Renderer{} }

// Render draws s as seen by cam into dst with a fresh Renderer. To draw many
// frames, make one Renderer and call its Render method instead.
func Render(dst *image.RGBA, cam Camera, s *Scene, opt Options) {
	NewRenderer().Render(dst, cam, s, opt)
}

// Render draws s as seen by cam into every pixel of dst (its whole Rect,
// opaque). A nil s draws only the background. Zero fields of opt take their
// defaults (see DefaultOptions). Bad geometry (out-of-range indices, NaN or
// huge coordinates, triangles behind the camera) is skipped or clipped;
// Render never panics on it.
func (r *Renderer) Render(dst *image.RGBA, cam Camera, s *Scene, opt Options) {
	if dst == nil {
		return
	}
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if w <= 0 || h <= 0 {
		return
	}
	opt = opt.withDefaults()
	ss := opt.Supersample
	for ss > 1 && w*h*ss*ss > maxSamples {
		ss--
	}
	r.resize(w*ss, h*ss)
	r.v = cam.prepare(w*ss, h*ss)
	r.mats = append(r.mats[:0], Color{})
	r.shadow.ok = false
	if !opt.NoShadows {
		r.buildShadow(s, opt.Light)
	}
	if s != nil {
		r.drawSurface(&s.Cloth, DefaultFront, DefaultBack)
		for i := range s.Extras {
			r.drawSurface(&s.Extras[i], DefaultCollider, DefaultCollider)
		}
	}
	r.shade(dst, s, opt, ss)
}

// resize makes the sample buffers sw x sh and clears depth and material.
func (r *Renderer) resize(sw, sh int) {
	n := sw * sh
	if cap(r.depth) < n {
		r.depth = make([]float32, n)
		r.normal = make([]float32, 3*n)
		r.mat = make([]uint16, n)
	}
	r.depth, r.normal, r.mat = r.depth[:n], r.normal[:3*n], r.mat[:n]
	clear(r.depth)
	clear(r.mat)
	r.sw, r.sh = sw, sh
}

// drawSurface rasterises every valid triangle of sf into the sample
// buffers with two materials: front and back (sf's own colours if set).
func (r *Renderer) drawSurface(sf *Surface, front, back Color) {
	pos := sf.Positions
	n := len(pos)
	if n == 0 || len(sf.Triangles) == 0 || len(r.mats)+2 > math.MaxUint16 {
		return
	}
	if !sf.Front.isZero() || !sf.Back.isZero() {
		front, back = sf.Front, sf.Back
	}
	mf := uint16(len(r.mats))
	r.mats = append(r.mats, front, back)
	if cap(r.vn) < n {
		r.vn = make([]vec.Vec3, n)
		r.vv = make([]vec.Vec3, n)
	}
	vn, vv := r.vn[:n], r.vv[:n]

	// smooth vertex normals: area-weighted sum of face normals
	clear(vn)
	for _, t := range sf.Triangles {
		if !inRange(t, n) {
			continue
		}
		a := pos[t[0]]
		fn := pos[t[1]].Sub(a).Cross(pos[t[2]].Sub(a))
		if !fn.IsFinite() {
			continue
		}
		vn[t[0]] = vn[t[0]].Add(fn)
		vn[t[1]] = vn[t[1]].Add(fn)
		vn[t[2]] = vn[t[2]].Add(fn)
	}
	for i := range vn {
		vn[i] = vn[i].Normalize()
	}

	// camera space
	v := &r.v
	for i, p := range pos {
		vv[i] = v.toView(p)
	}

	// triangles
	for _, t := range sf.Triangles {
		if !inRange(t, n) {
			continue
		}
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		// front when the face normal points towards the eye (seed 000)
		facing := b.Sub(a).Cross(c.Sub(a)).Dot(v.eye.Sub(a))
		if !(facing != 0) || math.IsInf(facing, 0) {
			continue // edge-on, NaN or overflowed: nothing sensible to draw
		}
		m, flip := mf, 1.0
		if facing < 0 {
			m, flip = mf+1, -1
		}
		r.clipDraw([3]cv{
			{vv[t[0]], vn[t[0]].Scale(flip)},
			{vv[t[1]], vn[t[1]].Scale(flip)},
			{vv[t[2]], vn[t[2]].Scale(flip)},
		}, m)
	}
}

func inRange(t [3]int32, n int) bool {
	return t[0] >= 0 && t[1] >= 0 && t[2] >= 0 && int(t[0]) < n && int(t[1]) < n && int(t[2]) < n
}

// cv is a clip-space vertex: camera-space position and world normal.
type cv struct{ p, n vec.Vec3 }

// clipDraw clips the triangle against the near plane (Sutherland-Hodgman;
// one triangle becomes up to two) and rasterises what is left.
func (r *Renderer) clipDraw(in [3]cv, m uint16) {
	near := r.v.near
	behind := 0
	for i := range in {
		if !in[i].p.IsFinite() {
			return
		}
		if in[i].p.Z < near {
			behind++
		}
	}
	switch behind {
	case 0:
		r.drawTri(in[0], in[1], in[2], m)
		return
	case 3:
		return
	}
	var out [4]cv
	k := 0
	for i := 0; i < 3; i++ {
		cur, nxt := in[i], in[(i+1)%3]
		cin, nin := cur.p.Z >= near, nxt.p.Z >= near
		if cin {
			out[k] = cur
			k++
		}
		if cin != nin {
			t := (near - cur.p.Z) / (nxt.p.Z - cur.p.Z)
			p := cur.p.Lerp(nxt.p, t)
			p.Z = near
			out[k] = cv{p, cur.n.Lerp(nxt.n, t)}
			k++
		}
	}
	for j := 1; j+1 < k; j++ {
		r.drawTri(out[0], out[j], out[j+1], m)
	}
}

// sv is a screen vertex: pixel position, inverse depth and the normal
// premultiplied by the inverse depth for perspective-correct interpolation.
type sv struct {
	x, y, iz float64
	n        vec.Vec3
}

func (r *Renderer) project(c cv) sv {
	x, y, iz := r.v.screen(c.p)
	return sv{x, y, iz, c.n.Scale(iz)}
}

// drawTri projects and rasterises one triangle lying in front of the near
// plane: edge functions over its bounding box clamped to the image, pixel
// centres at +0.5, a top-left style tie rule so shared edges are drawn
// once, and a depth test on the interpolated inverse depth (larger is
// nearer).
func (r *Renderer) drawTri(c0, c1, c2 cv, m uint16) {
	a, b, c := r.project(c0), r.project(c1), r.project(c2)
	area := (b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x)
	if !(area != 0) || math.IsInf(area, 0) {
		return // degenerate, NaN or overflowed
	}
	if area < 0 {
		b, c = c, b
		area = -area
	}
	// bounding box clamped to the image; NaN fails every comparison
	fx0 := math.Max(0, math.Floor(min(a.x, b.x, c.x)))
	fy0 := math.Max(0, math.Floor(min(a.y, b.y, c.y)))
	fx1 := math.Min(float64(r.sw-1), math.Floor(max(a.x, b.x, c.x)))
	fy1 := math.Min(float64(r.sh-1), math.Floor(max(a.y, b.y, c.y)))
	if !(fx0 <= fx1 && fy0 <= fy1) {
		return
	}
	x0, y0, x1, y1 := int(fx0), int(fy0), int(fx1), int(fy1)
	inv := 1 / area
	// e_k(p) = (q.x-p0.x)(p.y-p0.y) - (q.y-p0.y)(p.x-p0.x) for edge p0->q
	// opposite vertex k; stepping x by one adds -(q.y-p0.y).
	dx0, dy0 := c.x-b.x, c.y-b.y
	dx1, dy1 := a.x-c.x, a.y-c.y
	dx2, dy2 := b.x-a.x, b.y-a.y
	own0, own1, own2 := owns(dx0, dy0), owns(dx1, dy1), owns(dx2, dy2)
	sw := r.sw
	depth, nrm, mat := r.depth, r.normal, r.mat
	for y := y0; y <= y1; y++ {
		py := float64(y) + 0.5
		px := float64(x0) + 0.5
		r0 := dx0*(py-b.y) - dy0*(px-b.x)
		r1 := dx1*(py-c.y) - dy1*(px-c.x)
		r2 := dx2*(py-a.y) - dy2*(px-a.x)
		row := y * sw
		seen := false
		for x := x0; x <= x1; x++ {
			k := float64(x - x0)
			w0, w1, w2 := r0-k*dy0, r1-k*dy1, r2-k*dy2
			// !(w >= 0) also rejects NaN from overflowed coordinates
			if !(w0 >= 0 && w1 >= 0 && w2 >= 0) || (w0 == 0 && !own0) || (w1 == 0 && !own1) || (w2 == 0 && !own2) {
				if seen {
					break // a triangle's row span is contiguous
				}
				continue
			}
			seen = true
			b0, b1, b2 := w0*inv, w1*inv, w2*inv
			iz := float32(b0*a.iz + b1*b.iz + b2*c.iz)
			i := row + x
			if !(iz > depth[i]) {
				continue
			}
			depth[i] = iz
			mat[i] = m
			j := 3 * i
			nrm[j] = float32(b0*a.n.X + b1*b.n.X + b2*c.n.X)
			nrm[j+1] = float32(b0*a.n.Y + b1*b.n.Y + b2*c.n.Y)
			nrm[j+2] = float32(b0*a.n.Z + b1*b.n.Z + b2*c.n.Z)
		}
	}
}

// owns reports whether an edge with direction (dx, dy) keeps the samples
// lying exactly on it. Two triangles sharing an edge run it in opposite
// directions, so exactly one of them owns it.
func owns(dx, dy float64) bool { return dy > 0 || (dy == 0 && dx < 0) }
