package render

import (
	"image"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Phong lighting terms of seed 000.
const (
	ambient      = 0.15
	diffuse      = 0.75
	specular     = 0.25
	shininess    = 32 // specular exponent; specPow assumes 32
	groundFadeTo = 0.8
)

// Options tunes how a frame is drawn. The zero value means the defaults.
type Options struct {
	// Supersample is the number of samples per pixel along each axis
	// (1 = none, 2 = 4 samples per pixel, at most 4); 0 means 1.
	Supersample int
	// Exposure scales the light before tone mapping; 0 means 1.
	Exposure float64
	// Light is the direction towards the key light (world space, any
	// length); zero means DefaultLight.
	Light vec.Vec3
	// BackgroundTop and BackgroundBottom are the linear colours of the
	// vertical background gradient; both black means the default dark
	// blue-grey gradient.
	BackgroundTop, BackgroundBottom Color
	// NoShadows turns off the key light's shadows (a shadow map of the
	// cloth and extras, falling on them and on the ground).
	NoShadows bool
}

// DefaultLight is the direction towards the key light: high, in front and
// a little to the left, so a camera at the front-right sees the shading
// fall off across the cloth.
var DefaultLight = vec.V(-0.3, 1, 0.7)

// Default background gradient.
var (
	DefaultBackgroundTop    = RGB8(96, 104, 120)
	DefaultBackgroundBottom = RGB8(30, 33, 40)
)

// Ground checker colours (linear).
var groundColors = [2]Color{RGB8(150, 150, 146), RGB8(120, 120, 117)}

// DefaultOptions returns the options the zero Options stands for.
func DefaultOptions() Options {
	return Options{
		Supersample:      1,
		Exposure:         1,
		Light:            DefaultLight,
		BackgroundTop:    DefaultBackgroundTop,
		BackgroundBottom: DefaultBackgroundBottom,
	}
}

// withDefaults fills the zero or invalid fields of o.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Supersample < 1 {
		o.Supersample = d.Supersample
	}
	o.Supersample = min(o.Supersample, 4)
	if !(o.Exposure > 0) || math.IsInf(o.Exposure, 0) {
		o.Exposure = d.Exposure
	}
	o.Light = o.Light.Normalize()
	if o.Light == (vec.Vec3{}) || !o.Light.IsFinite() {
		o.Light = d.Light.Normalize()
	}
	if o.BackgroundTop.isZero() && o.BackgroundBottom.isZero() {
		o.BackgroundTop, o.BackgroundBottom = d.BackgroundTop, d.BackgroundBottom
	}
	return o
}

// aces is the ACES filmic tone curve as fitted by Krzysztof Narkowicz
// (2015, "ACES Filmic Tone Mapping Curve"): x (2.51 x + 0.03) /
// (x (2.43 x + 0.59) + 0.14), clamped to [0, 1]. It maps 0 to 0, rises
// monotonically and reaches 1 at x ≈ 7.24.
func aces(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	if x >= 8 {
		return 1
	}
	y := x * (2.51*x + 0.03) / (x*(2.43*x+0.59) + 0.14)
	return math.Min(y, 1)
}

// specPow returns x^32 by repeated squaring.
func specPow(x float64) float64 {
	x *= x
	x *= x
	x *= x
	x *= x
	return x * x
}

// lutSize is the number of entries of the display-linear to sRGB table.
const lutSize = 1 << 14

// srgbLUT maps a display-linear value in [0, 1], scaled to the table
// size, to its 8-bit sRGB code. It is filled once and only read.
var srgbLUT = func() (t [lutSize]uint8) {
	for i := range t {
		t[i] = uint8(math.Round(255 * linearToSRGB(float64(i)/(lutSize-1))))
	}
	return t
}()

// encode returns the 8-bit sRGB code of the display-linear value v.
func encode(v float64) uint8 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	return srgbLUT[int(v*(lutSize-1)+0.5)]
}

// shade resolves the sample buffers into dst: each sample is lit with
// Phong, tone mapped, averaged over the ss x ss samples of its pixel and
// sRGB encoded. Empty samples show the ground (when enabled and in view) or
// the background gradient.
func (r *Renderer) shade(dst *image.RGBA, s *Scene, opt Options, ss int) {
	v := &r.v
	w, h := dst.Rect.Dx(), dst.Rect.Dy()

	// background rows, display-linear
	if cap(r.bg) < 3*r.sh {
		r.bg = make([]float64, 3*r.sh)
	}
	bg := r.bg[:3*r.sh]
	top, bot := opt.BackgroundTop, opt.BackgroundBottom
	for y := 0; y < r.sh; y++ {
		t := (float64(y) + 0.5) / float64(r.sh)
		bg[3*y] = top.R + t*(bot.R-top.R)
		bg[3*y+1] = top.G + t*(bot.G-top.G)
		bg[3*y+2] = top.B + t*(bot.B-top.B)
	}
	g := newGround(s, v, opt.Light, opt.Exposure)

	invN := 1 / float64(ss*ss)
	for oy := 0; oy < h; oy++ {
		pix := dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+oy):]
		for ox := 0; ox < w; ox++ {
			var sum [3]float64
			for sy := 0; sy < ss; sy++ {
				y := oy*ss + sy
				ay := (1 - (float64(y)+0.5)*2/v.h) * v.tanY
				back := [3]float64{bg[3*y], bg[3*y+1], bg[3*y+2]}
				for sx := 0; sx < ss; sx++ {
					x := ox*ss + sx
					i := y*r.sw + x
					m := r.mat[i]
					if m == 0 && !g.on {
						sum = add3(sum, back)
						continue
					}
					// ray through the sample; its component along fwd is 1,
					// so the ray parameter is the depth
					ax := ((float64(x)+0.5)*2/v.w - 1) * v.tanX
					dir := v.fwd.AddScaled(v.right, ax).AddScaled(v.up, ay)
					if g.on && dir.Y < 0 {
						t := (g.y - v.eye.Y) / dir.Y
						if t >= v.near && float32(1/t) > r.depth[i] {
							if c, ok := g.sample(v, &r.shadow, dir, t, back); ok {
								sum = add3(sum, c)
								continue
							}
						}
					}
					if m == 0 {
						sum = add3(sum, back)
						continue
					}
					sum = add3(sum, r.phong(i, dir, r.mats[m], opt.Light, opt.Exposure))
				}
			}
			p := pix[4*ox : 4*ox+4 : 4*ox+4]
			p[0], p[1], p[2], p[3] = encode(sum[0]*invN), encode(sum[1]*invN), encode(sum[2]*invN), 255
		}
	}
}

func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// phong shades mesh sample i, seen along dir, with colour c: ambient +
// diffuse (N·L) + a white specular (R·V)^32, the direct terms scaled by the
// shadow map's light fraction, then tone mapped (display-linear result).
func (r *Renderer) phong(i int, dir vec.Vec3, c Color, light vec.Vec3, exposure float64) [3]float64 {
	view := dir.Neg().Normalize()
	n := vec.V(float64(r.normal[3*i]), float64(r.normal[3*i+1]), float64(r.normal[3*i+2])).Normalize()
	if n == (vec.Vec3{}) {
		n = view // normals cancelled out: face the viewer
	}
	lit, spec := ambient, 0.0
	if nl := n.Dot(light); nl > 0 {
		// the sample's world position, for the shadow map
		p := r.v.eye.AddScaled(dir, 1/float64(r.depth[i]))
		sh := r.shadow.lit(p, n)
		lit += diffuse * sh * nl
		if rv := n.Scale(2 * nl).Sub(light).Dot(view); rv > 0 {
			spec = specular * sh * specPow(rv)
		}
	}
	return [3]float64{
		aces((c.R*lit + spec) * exposure),
		aces((c.G*lit + spec) * exposure),
		aces((c.B*lit + spec) * exposure),
	}
}

// groundShader draws the plane y = y: a matte grey checker lit by the key
// light, shadowed by the shadow map, fading into the background with
// distance from the point the camera looks at.
type groundShader struct {
	on             bool
	y, cell        float64 // height and checker cell size [m]
	cx, cz, fadeR2 float64 // fade centre [m] and squared radius [m²]
	// tone-mapped checker colours 0 and 1 and their mean (2), in full
	// light and in shadow
	inLight, inShade [3][3]float64
}

func newGround(s *Scene, v *view, light vec.Vec3, exposure float64) groundShader {
	var g groundShader
	if s == nil || !s.Ground || math.IsNaN(s.GroundY) || math.IsInf(s.GroundY, 0) {
		return g
	}
	height := v.eye.Y - s.GroundY
	if !(height > 0) {
		return g // seen from below: not drawn
	}
	g.on = true
	g.y = s.GroundY - 1e-3*height // a hair low, so cloth lying on it wins
	// centre the fade where the view axis meets the ground
	g.cx, g.cz = v.eye.X, v.eye.Z
	dist := 4 * height
	if v.fwd.Y < 0 {
		t := (g.y - v.eye.Y) / v.fwd.Y
		g.cx, g.cz, dist = v.eye.X+t*v.fwd.X, v.eye.Z+t*v.fwd.Z, t
	}
	g.cell = niceStep(dist / 12)
	fadeR := groundFadeTo * dist
	g.fadeR2 = fadeR * fadeR
	full := (ambient + diffuse*math.Max(0, light.Y)) * exposure
	dark := ambient * exposure
	for k, c := range groundColors {
		g.inLight[k] = [3]float64{aces(c.R * full), aces(c.G * full), aces(c.B * full)}
		g.inShade[k] = [3]float64{aces(c.R * dark), aces(c.G * dark), aces(c.B * dark)}
	}
	for ch := 0; ch < 3; ch++ {
		g.inLight[2][ch] = 0.5 * (g.inLight[0][ch] + g.inLight[1][ch])
		g.inShade[2][ch] = 0.5 * (g.inShade[0][ch] + g.inShade[1][ch])
	}
	return g
}

// sample returns the colour of the ground hit at ray parameter t along
// dir, blended over the background colour back; ok is false beyond the
// fade radius.
func (g *groundShader) sample(v *view, sm *shadowMap, dir vec.Vec3, t float64, back [3]float64) (c [3]float64, ok bool) {
	hx, hz := v.eye.X+t*dir.X, v.eye.Z+t*dir.Z
	d2 := (hx-g.cx)*(hx-g.cx) + (hz-g.cz)*(hz-g.cz)
	if !(d2 < g.fadeR2) {
		return c, false
	}
	fade := 1 - d2/g.fadeR2
	fade *= fade
	// the checker's contrast fades where a cell is under a few samples
	// wide (foot is a sample's footprint on the ground [m]), against moiré
	foot := t * 2 * v.tanY / v.h * dir.Len() / -dir.Y
	contrast := math.Max(0, math.Min(1, (g.cell/foot-2)/4))
	k := (int64(math.Floor(hx/g.cell)) + int64(math.Floor(hz/g.cell))) & 1
	l := sm.lit(vec.V(hx, g.y, hz), vec.V(0, 1, 0))
	for ch := range c {
		bright := g.inLight[2][ch] + contrast*(g.inLight[k][ch]-g.inLight[2][ch])
		dim := g.inShade[2][ch] + contrast*(g.inShade[k][ch]-g.inShade[2][ch])
		c[ch] = back[ch] + fade*(dim+l*(bright-dim)-back[ch])
	}
	return c, true
}

// niceStep returns the number of the form 1, 2 or 5 times a power of ten
// nearest below x (for the ground checker size [m]).
func niceStep(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	switch f := x / p; {
	case f >= 5:
		return 5 * p
	case f >= 2:
		return 2 * p
	}
	return p
}
