package render

import (
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// Color is a linear-light RGB reflectance, each channel in [0, 1]. Use RGB8
// to make one from the usual 8-bit sRGB values.
type Color struct{ R, G, B float64 }

// RGB8 returns the linear Color of the 8-bit sRGB triple (r, g, b), so
// RGB8(128, 128, 128) is the mid grey of a colour picker.
func RGB8(r, g, b uint8) Color {
	return Color{srgbToLinear(float64(r) / 255), srgbToLinear(float64(g) / 255), srgbToLinear(float64(b) / 255)}
}

// isZero reports whether c is black, which Surface treats as "unset".
func (c Color) isZero() bool { return c.R == 0 && c.G == 0 && c.B == 0 }

// Default colours. The cloth is a deep red on its front (the side its
// triangles wind counter-clockwise around) and a warm sand colour on its
// back, so folds that show the back read at a glance; colliders are a
// neutral grey on both sides.
var (
	DefaultFront    = RGB8(190, 42, 32)
	DefaultBack     = RGB8(214, 170, 96)
	DefaultCollider = RGB8(150, 150, 150)
)

// Surface is one triangle mesh to draw: positions [m] and triangles indexing
// them. The front of a triangle is the side from which its corners a, b, c
// run counter-clockwise (the side (b-a)×(c-a) points to). Triangles with an
// index out of range or a non-finite corner are skipped, never a panic.
type Surface struct {
	Positions []vec.Vec3
	Triangles [][3]int32
	// Front and Back are the colours of the two sides. When both are black
	// (the zero value) the defaults are used: DefaultFront and DefaultBack
	// for the cloth, DefaultCollider for extras.
	Front, Back Color
}

// Scene is what one frame shows.
type Scene struct {
	// Cloth is the simulated cloth.
	Cloth Surface
	// Extras are further meshes such as colliders, drawn in a neutral grey
	// unless they set their own colours.
	Extras []Surface
	// Ground draws a checkered ground plane at height GroundY, fading out
	// with distance from the camera target.
	Ground bool
	// GroundY is the ground height [m]. Set it to the lowest point over
	// every frame of the bake (see Bounds) so the ground stays put while the
	// cloth moves; it is drawn a hair lower so a cloth lying on it shows.
	GroundY float64
}

// Bounds returns the axis-aligned bounds of the finite points in pts
// [m]. ok is false when there is none. Union the bounds of several frames
// with vec.Vec3.Min and Max to frame a whole bake with one camera.
func Bounds(pts []vec.Vec3) (min, max vec.Vec3, ok bool) {
	min = vec.V(math.Inf(1), math.Inf(1), math.Inf(1))
	max = min.Neg()
	for _, p := range pts {
		if !p.IsFinite() {
			continue
		}
		min, max, ok = min.Min(p), max.Max(p), true
	}
	if !ok {
		return vec.Vec3{}, vec.Vec3{}, false
	}
	return min, max, true
}

// SceneBounds returns the bounds of every finite point of the cloth and the
// extras of s [m]; ok is false when there is none.
func SceneBounds(s *Scene) (min, max vec.Vec3, ok bool) {
	if s == nil {
		return vec.Vec3{}, vec.Vec3{}, false
	}
	min, max, ok = Bounds(s.Cloth.Positions)
	for i := range s.Extras {
		lo, hi, k := Bounds(s.Extras[i].Positions)
		switch {
		case !k:
		case !ok:
			min, max, ok = lo, hi, true
		default:
			min, max = min.Min(lo), max.Max(hi)
		}
	}
	return min, max, ok
}

// srgbToLinear decodes one sRGB channel in [0, 1] (IEC 61966-2-1).
func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// linearToSRGB encodes one linear channel in [0, 1] (IEC 61966-2-1).
func linearToSRGB(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}
