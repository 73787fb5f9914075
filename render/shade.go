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
	light := opt.Light
	exposure := opt.Exposure

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

	// ground plane: y = gy, checkered, matte, fading out around the target
	ground := s != nil && s.Ground && !math.IsNaN(s.GroundY) && !math.IsInf(s.GroundY, 0)
	var gy, cell, fadeR2, cx, cz float64
	var gcol, gshade [3][3]float64 // checker colours 0, 1 and their mean 2
	if ground {
		height := v.eye.Y - s.GroundY
		ground = height > 0
		gy = s.GroundY - 1e-3*height // a hair low, so cloth lying on it wins
		// centre the ground where the view axis meets it
		cx, cz = v.eye.X, v.eye.Z
		dist := 4 * height
		if v.fwd.Y < 0 {
			t := (gy - v.eye.Y) / v.fwd.Y
			cx, cz, dist = v.eye.X+t*v.fwd.X, v.eye.Z+t*v.fwd.Z, t
		}
		cell = niceStep(dist / 12)
		fadeR := groundFadeTo * dist
		fadeR2 = fadeR * fadeR
		lit := (ambient + diffuse*math.Max(0, light.Y)) * exposure
		for k, c := range groundColors {
			gcol[k] = [3]float64{aces(c.R * lit), aces(c.G * lit), aces(c.B * lit)}
			a := ambient * exposure
			gshade[k] = [3]float64{aces(c.R * a), aces(c.G * a), aces(c.B * a)}
		}
		for ch := 0; ch < 3; ch++ {
			gcol[2][ch] = 0.5 * (gcol[0][ch] + gcol[1][ch])
			gshade[2][ch] = 0.5 * (gshade[0][ch] + gshade[1][ch])
		}
	}

	invN := 1 / float64(ss*ss)
	sw := r.sw
	for oy := 0; oy < h; oy++ {
		pix := dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+oy):]
		for ox := 0; ox < w; ox++ {
			var sr, sg, sb float64
			for sy := 0; sy < ss; sy++ {
				y := oy*ss + sy
				ay := (1 - (float64(y)+0.5)*2/v.h) * v.tanY
				for sx := 0; sx < ss; sx++ {
					x := ox*ss + sx
					i := y*sw + x
					m := r.mat[i]
					if m == 0 && !ground {
						sr, sg, sb = sr+bg[3*y], sg+bg[3*y+1], sb+bg[3*y+2]
						continue
					}
					ax := ((float64(x)+0.5)*2/v.w - 1) * v.tanX
					// ray through the sample; its component along fwd is 1,
					// so the ray parameter is the depth
					dir := v.fwd.AddScaled(v.right, ax).AddScaled(v.up, ay)
					if ground && dir.Y < 0 {
						t := (gy - v.eye.Y) / dir.Y
						if t >= v.near && float32(1/t) > r.depth[i] {
							hx, hz := v.eye.X+t*dir.X, v.eye.Z+t*dir.Z
							d2 := (hx-cx)*(hx-cx) + (hz-cz)*(hz-cz)
							if d2 < fadeR2 {
								f := 1 - d2/fadeR2
								f *= f
								// checker contrast fades where a cell gets
								// under a few samples wide, against moiré
								foot := t * 2 * v.tanY / v.h * dir.Len() / -dir.Y
								contrast := math.Max(0, math.Min(1, (cell/foot-2)/4))
								k := (int64(math.Floor(hx/cell)) + int64(math.Floor(hz/cell))) & 1
								l := r.shadow.lit(vec.V(hx, gy, hz), vec.V(0, 1, 0))
								var gc [3]float64
								for ch := range gc {
									inLight := gcol[2][ch] + contrast*(gcol[k][ch]-gcol[2][ch])
									inShade := gshade[2][ch] + contrast*(gshade[k][ch]-gshade[2][ch])
									gc[ch] = inShade + l*(inLight-inShade)
								}
								gr, gg, gb := gc[0], gc[1], gc[2]
								sr += bg[3*y] + f*(gr-bg[3*y])
								sg += bg[3*y+1] + f*(gg-bg[3*y+1])
								sb += bg[3*y+2] + f*(gb-bg[3*y+2])
								continue
							}
							if m == 0 {
								sr, sg, sb = sr+bg[3*y], sg+bg[3*y+1], sb+bg[3*y+2]
								continue
							}
						}
					}
					if m == 0 {
						sr, sg, sb = sr+bg[3*y], sg+bg[3*y+1], sb+bg[3*y+2]
						continue
					}
					// Phong: ambient + diffuse (N·L) + specular (R·V)^32
					view := dir.Neg().Normalize()
					n := vec.V(float64(r.normal[3*i]), float64(r.normal[3*i+1]), float64(r.normal[3*i+2])).Normalize()
					if n == (vec.Vec3{}) {
						n = view
					}
					nl := n.Dot(light)
					lit := ambient
					spec := 0.0
					if nl > 0 {
						// the sample's world position, for the shadow map
						p := v.eye.AddScaled(dir, 1/float64(r.depth[i]))
						sh := r.shadow.lit(p, n)
						nl *= sh
						lit += diffuse * nl
						refl := n.Scale(2 * nl).Sub(light)
						if rv := refl.Dot(view); rv > 0 {
							spec = specular * sh * specPow(rv)
						}
					}
					c := r.mats[m]
					sr += aces((c.R*lit + spec) * exposure)
					sg += aces((c.G*lit + spec) * exposure)
					sb += aces((c.B*lit + spec) * exposure)
				}
			}
			p := pix[4*ox : 4*ox+4 : 4*ox+4]
			p[0], p[1], p[2], p[3] = encode(sr*invN), encode(sg*invN), encode(sb*invN), 255
		}
	}
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
