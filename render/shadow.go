package render

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// The side of the key light's shadow map follows the sample grid's
// smaller side, within these bounds [texels].
const minShadowSize, maxShadowSize = 512, 2048

// shadowMap is an orthographic depth map seen from the key light (a
// directional light): for each texel the smallest depth along the light
// direction of any triangle of the scene.
type shadowMap struct {
	ok         bool
	size       int       // side [texels]
	lx, ly, lz vec.Vec3  // light axes; lz is the direction light travels
	u0, v0     float64   // world offset of texel 0 along lx, ly [m]
	scale      float64   // texels per metre
	texel      float64   // texel size [m]
	depth      []float32 // depth along lz [m]; +Inf means nothing
}

// buildShadow rasterises every surface of s into the shadow map of the
// light direction light (towards the light, unit length).
func (r *Renderer) buildShadow(s *Scene, light vec.Vec3) {
	sm := &r.shadow
	sm.ok = false
	if s == nil {
		return
	}
	sm.size = max(minShadowSize, min(maxShadowSize, r.sw, r.sh))
	sm.lz = light.Neg()
	helper := vec.V(0, 1, 0)
	if math.Abs(sm.lz.Y) > 0.9 {
		helper = vec.V(1, 0, 0)
	}
	sm.lx = sm.lz.Cross(helper).Normalize()
	sm.ly = sm.lx.Cross(sm.lz)

	// extent of every caster in light space
	u0, v0, u1, v1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	extent := func(sf *Surface) {
		for _, p := range sf.Positions {
			if !p.IsFinite() {
				continue
			}
			u, v := p.Dot(sm.lx), p.Dot(sm.ly)
			u0, u1, v0, v1 = math.Min(u0, u), math.Max(u1, u), math.Min(v0, v), math.Max(v1, v)
		}
	}
	extent(&s.Cloth)
	for i := range s.Extras {
		extent(&s.Extras[i])
	}
	size := math.Max(u1-u0, v1-v0)
	if !(size > 0) || math.IsInf(size, 0) {
		return
	}
	size *= 1.02 // keep the border texels empty
	sm.u0, sm.v0 = 0.5*(u0+u1)-0.5*size, 0.5*(v0+v1)-0.5*size
	n := sm.size * sm.size
	sm.scale = float64(sm.size) / size
	sm.texel = size / float64(sm.size)
	if cap(sm.depth) < n {
		sm.depth = make([]float32, n)
	}
	sm.depth = sm.depth[:n]
	inf := float32(math.Inf(1))
	for i := range sm.depth {
		sm.depth[i] = inf
	}
	r.shadowSurface(&s.Cloth)
	for i := range s.Extras {
		r.shadowSurface(&s.Extras[i])
	}
	sm.ok = true
}

// toLight returns p in shadow-map texel coordinates and its depth along
// the light [m].
func (sm *shadowMap) toLight(p vec.Vec3) vec.Vec3 {
	return vec.V((p.Dot(sm.lx)-sm.u0)*sm.scale, (p.Dot(sm.ly)-sm.v0)*sm.scale, p.Dot(sm.lz))
}

// shadowSurface rasterises sf's triangles into the shadow map: edge
// functions over the clamped box, both windings, keeping the nearest
// depth (depth is affine under an orthographic projection).
func (r *Renderer) shadowSurface(sf *Surface) {
	sm := &r.shadow
	n := len(sf.Positions)
	if n == 0 || len(sf.Triangles) == 0 {
		return
	}
	if cap(r.vv) < n {
		r.vn = make([]vec.Vec3, n)
		r.vv = make([]vec.Vec3, n)
	}
	lp := r.vv[:n]
	for i, p := range sf.Positions {
		lp[i] = sm.toLight(p)
	}
	last := float64(sm.size - 1)
	for _, t := range sf.Triangles {
		if !inRange(t, n) {
			continue
		}
		a, b, c := lp[t[0]], lp[t[1]], lp[t[2]]
		area := (b.X-a.X)*(c.Y-a.Y) - (b.Y-a.Y)*(c.X-a.X)
		if !(area != 0) || math.IsInf(area, 0) || !a.IsFinite() || !b.IsFinite() || !c.IsFinite() {
			continue
		}
		if area < 0 {
			b, c, area = c, b, -area
		}
		fx0 := math.Max(0, math.Floor(min(a.X, b.X, c.X)))
		fy0 := math.Max(0, math.Floor(min(a.Y, b.Y, c.Y)))
		fx1 := math.Min(last, math.Floor(max(a.X, b.X, c.X)))
		fy1 := math.Min(last, math.Floor(max(a.Y, b.Y, c.Y)))
		if !(fx0 <= fx1 && fy0 <= fy1) {
			continue
		}
		x0, x1 := int(fx0), int(fx1)
		inv := 1 / area
		dx0, dy0 := c.X-b.X, c.Y-b.Y
		dx1, dy1 := a.X-c.X, a.Y-c.Y
		dx2, dy2 := b.X-a.X, b.Y-a.Y
		for y := int(fy0); y <= int(fy1); y++ {
			py, px := float64(y)+0.5, fx0+0.5
			r0 := dx0*(py-b.Y) - dy0*(px-b.X)
			r1 := dx1*(py-c.Y) - dy1*(px-c.X)
			r2 := dx2*(py-a.Y) - dy2*(px-a.X)
			row := sm.depth[y*sm.size : (y+1)*sm.size]
			seen := false
			for x := x0; x <= x1; x++ {
				k := float64(x - x0)
				w0, w1, w2 := r0-k*dy0, r1-k*dy1, r2-k*dy2
				if !(w0 >= 0 && w1 >= 0 && w2 >= 0) {
					if seen {
						break
					}
					continue
				}
				seen = true
				if d := float32((w0*a.Z + w1*b.Z + w2*c.Z) * inv); d < row[x] {
					row[x] = d
				}
			}
		}
	}
}

// lit returns the fraction of the key light reaching the world point p
// with normal n (unit): 1 in full light, 0 in shadow, soft over a texel
// (2x2 percentage-closer filtering). The point is pushed off its surface
// along n, and compared with a bias of one texel, against shadow acne.
func (sm *shadowMap) lit(p, n vec.Vec3) float64 {
	if !sm.ok {
		return 1
	}
	q := sm.toLight(p.AddScaled(n, 1.5*sm.texel))
	fx, fy := q.X-0.5, q.Y-0.5
	if !(fx >= 0 && fy >= 0 && fx < float64(sm.size-1) && fy < float64(sm.size-1)) {
		return 1 // outside every caster (or NaN)
	}
	x, y := int(fx), int(fy)
	tx, ty := fx-float64(x), fy-float64(y)
	d := float32(q.Z - sm.texel)
	i, row := y*sm.size+x, sm.size
	l := func(k int) float64 {
		if sm.depth[k] < d {
			return 0
		}
		return 1
	}
	top := l(i) + tx*(l(i+1)-l(i))
	bot := l(i+row) + tx*(l(i+row+1)-l(i+row))
	return top + ty*(bot-top)
}
