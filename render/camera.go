package render

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Camera is a perspective pin-hole camera, Y-up.
type Camera struct {
	// Eye is the camera position and Target the point it looks at [m].
	Eye, Target vec.Vec3
	// Up is the world direction that appears upwards; zero means +Y.
	Up vec.Vec3
	// FovY is the vertical field of view [degrees]; 0 means DefaultFovY.
	FovY float64
	// Near is the near clipping distance [m]; geometry closer to the eye is
	// clipped away. 0 means a thousandth of the eye-target distance.
	Near float64
}

// DefaultFovY is the vertical field of view AutoCamera uses [degrees].
const DefaultFovY = 35

// autoDir points from the framed centre towards the eye: in front (+Z), to
// the right (+X) and above (+Y), so the camera looks about 20° down.
var autoDir = vec.V(0.55, 0.45, 1).Normalize()

// AutoCamera returns a camera that frames the box [min, max] [m] in an
// image of the given aspect (width / height), looking slightly down from the
// front-right, with a margin of about 10 % on the tighter side. For an
// animation, pass the union of the bounds of every frame shown so that one
// camera serves them all and the motion stays visible. Non-finite or
// inverted bounds fall back to the unit box around the origin; a bad aspect
// falls back to 4:3.
func AutoCamera(min, max vec.Vec3, aspect float64) Camera {
	if !min.IsFinite() || !max.IsFinite() || min.X > max.X || min.Y > max.Y || min.Z > max.Z {
		min, max = vec.V(-1, -1, -1), vec.V(1, 1, 1)
	}
	if !(aspect > 0) || math.IsInf(aspect, 0) {
		aspect = 4.0 / 3
	}
	c := min.Add(max).Scale(0.5)
	half := max.Sub(min).Scale(0.5)
	radius := half.Len()
	if !(radius > 1e-9*math.Max(1, c.Len())) {
		// a point: frame a small box around it
		r := math.Max(1e-3, 1e-3*c.Len())
		half, radius = vec.V(r, r, r), r*math.Sqrt(3)
		min, max = c.Sub(half), c.Add(half)
	}
	fwd := autoDir.Neg()
	right := fwd.Cross(vec.V(0, 1, 0)).Normalize()
	up := right.Cross(fwd)
	tanY := math.Tan(DefaultFovY*math.Pi/360) * 0.9
	tanX := tanY * aspect
	corners := func(c vec.Vec3) (q [8]vec.Vec3) {
		for i := range q {
			p := vec.V(pick(i&1, min.X, max.X), pick(i&2, min.Y, max.Y), pick(i&4, min.Z, max.Z))
			d := p.Sub(c)
			q[i] = vec.V(d.Dot(right), d.Dot(up), d.Dot(fwd))
		}
		return q
	}
	// fit returns the distance from c that fits every corner q (relative
	// to c, in camera axes x, y and depth z): |x| <= tanX (d + z) and
	// |y| <= tanY (d + z), so d >= |x|/tanX - z; every corner also stays
	// at least a tenth of the radius in front of the eye.
	fit := func(q [8]vec.Vec3) float64 {
		d := 0.0
		for _, p := range q {
			d = math.Max(d, math.Max(math.Abs(p.X)/tanX, math.Abs(p.Y)/tanY)-p.Z)
			d = math.Max(d, 0.1*radius-p.Z)
		}
		return d
	}
	// Perspective makes the near side of the box look larger, so aiming at
	// its centre leaves it off-centre in the image: shift the aim point
	// until the projected box is centred, then refit.
	for it := 0; it < 4; it++ {
		q := corners(c)
		d := fit(q)
		x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range q {
			x, y := p.X/(d+p.Z), p.Y/(d+p.Z)
			x0, x1, y0, y1 = math.Min(x0, x), math.Max(x1, x), math.Min(y0, y), math.Max(y1, y)
		}
		c = c.AddScaled(right, 0.5*(x0+x1)*d).AddScaled(up, 0.5*(y0+y1)*d)
	}
	q := corners(c)
	d := fit(q)
	minDepth := math.Inf(1)
	for _, p := range q {
		minDepth = math.Min(minDepth, d+p.Z)
	}
	return Camera{
		Eye:    c.AddScaled(autoDir, d),
		Target: c,
		Up:     vec.V(0, 1, 0),
		FovY:   DefaultFovY,
		Near:   0.5 * minDepth,
	}
}

// pick returns hi when bit is set, else lo.
func pick(bit int, lo, hi float64) float64 {
	if bit != 0 {
		return hi
	}
	return lo
}

// view is a Camera prepared for an image of w x h samples.
type view struct {
	eye, right, up, fwd vec.Vec3
	tanX, tanY, near    float64
	w, h                float64
}

// prepare returns the camera basis and projection for a w x h image. It
// never fails: a degenerate camera falls back to looking down -Z.
func (c Camera) prepare(w, h int) view {
	v := view{eye: c.Eye, w: float64(w), h: float64(h)}
	if !v.eye.IsFinite() {
		v.eye = vec.Vec3{}
	}
	target := c.Target
	if !target.IsFinite() {
		target = v.eye.Add(vec.V(0, 0, -1))
	}
	v.fwd = target.Sub(v.eye).Normalize()
	dist := target.Sub(v.eye).Len()
	if v.fwd == (vec.Vec3{}) || !v.fwd.IsFinite() {
		v.fwd, dist = vec.V(0, 0, -1), 1
	}
	upw := c.Up
	if upw == (vec.Vec3{}) || !upw.IsFinite() {
		upw = vec.V(0, 1, 0)
	}
	v.right = v.fwd.Cross(upw).Normalize()
	if v.right.LenSq() < 0.5 {
		// looking along up: pick any perpendicular
		v.right = v.fwd.Cross(vec.V(0, 0, 1)).Normalize()
		if v.right.LenSq() < 0.5 {
			v.right = v.fwd.Cross(vec.V(1, 0, 0)).Normalize()
		}
	}
	v.up = v.right.Cross(v.fwd)
	fov := c.FovY
	if !(fov > 0 && fov < 179) {
		fov = DefaultFovY
	}
	v.tanY = math.Tan(fov * math.Pi / 360)
	v.tanX = v.tanY * v.w / v.h
	v.near = c.Near
	if !(v.near > 0) || math.IsInf(v.near, 0) {
		v.near = 1e-3 * dist
	}
	return v
}

// toView returns p in camera axes: right, up and depth along the view
// direction [m].
func (v *view) toView(p vec.Vec3) vec.Vec3 {
	d := p.Sub(v.eye)
	return vec.Vec3{X: d.Dot(v.right), Y: d.Dot(v.up), Z: d.Dot(v.fwd)}
}

// screen maps a camera-space point with depth > 0 to pixel coordinates
// (x right, y down, pixel centres at +0.5) and its inverse depth.
func (v *view) screen(q vec.Vec3) (x, y, iz float64) {
	iz = 1 / q.Z
	x = (q.X*iz/v.tanX + 1) * 0.5 * v.w
	y = (1 - q.Y*iz/v.tanY) * 0.5 * v.h
	return x, y, iz
}

// Project returns where the world point p [m] lands in a w x h image: pixel
// coordinates x (right) and y (down), with pixel (i, j) covering
// [i, i+1) x [j, j+1), and its depth along the view direction [m]. ok is
// false when p is not in front of the near plane or not finite.
func (c Camera) Project(p vec.Vec3, w, h int) (x, y, depth float64, ok bool) {
	if w <= 0 || h <= 0 || !p.IsFinite() {
		return 0, 0, 0, false
	}
	v := c.prepare(w, h)
	q := v.toView(p)
	if !(q.Z >= v.near) {
		return 0, 0, q.Z, false
	}
	x, y, _ = v.screen(q)
	return x, y, q.Z, !math.IsInf(x, 0) && !math.IsInf(y, 0)
}
