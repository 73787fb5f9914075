package vec

import "math"

// Vec3 is a 3D vector or point [m]. It is float64 because Go's math package
// is float64-only and millimetre-scale thickness in metre-scale scenes needs
// the precision.
type Vec3 struct{ X, Y, Z float64 }

// V returns the vector (x, y, z).
func V(x, y, z float64) Vec3 { return Vec3{x, y, z} }

// FromF32 converts a float32 triple, as glTF accessors and STL store them.
func FromF32(a [3]float32) Vec3 { return Vec3{float64(a[0]), float64(a[1]), float64(a[2])} }

// F32 converts v to a float32 triple for writing files.
func (a Vec3) F32() [3]float32 { return [3]float32{float32(a.X), float32(a.Y), float32(a.Z)} }

// Add returns a + b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a - b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Scale returns s a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }

// AddScaled returns a + s b.
func (a Vec3) AddScaled(b Vec3, s float64) Vec3 {
	return Vec3{a.X + s*b.X, a.Y + s*b.Y, a.Z + s*b.Z}
}

// Mul returns the component-wise product of a and b.
func (a Vec3) Mul(b Vec3) Vec3 { return Vec3{a.X * b.X, a.Y * b.Y, a.Z * b.Z} }

// Neg returns -a.
func (a Vec3) Neg() Vec3 { return Vec3{-a.X, -a.Y, -a.Z} }

// Dot returns a · b.
func (a Vec3) Dot(b Vec3) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Cross returns a × b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// LenSq returns |a|².
func (a Vec3) LenSq() float64 { return a.X*a.X + a.Y*a.Y + a.Z*a.Z }

// Len returns |a|.
func (a Vec3) Len() float64 { return math.Sqrt(a.LenSq()) }

// Normalize returns a / |a|, or the zero vector when |a| is zero.
func (a Vec3) Normalize() Vec3 {
	l := a.Len()
	if l == 0 {
		return Vec3{}
	}
	return a.Scale(1 / l)
}

// Min returns the component-wise minimum of a and b: the built-in min,
// which compiles inline and orders signed zeros as math.Min does, but
// gives NaN for a NaN component even against an infinity.
func (a Vec3) Min(b Vec3) Vec3 {
	return Vec3{min(a.X, b.X), min(a.Y, b.Y), min(a.Z, b.Z)}
}

// Max returns the component-wise maximum of a and b (see Min).
func (a Vec3) Max(b Vec3) Vec3 {
	return Vec3{max(a.X, b.X), max(a.Y, b.Y), max(a.Z, b.Z)}
}

// Lerp returns a + t (b - a).
func (a Vec3) Lerp(b Vec3, t float64) Vec3 { return a.AddScaled(b.Sub(a), t) }

// Get returns component i (0 = X, 1 = Y, 2 = Z).
func (a Vec3) Get(i int) float64 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	}
	return a.Z
}

// MaxAxis returns the index (0, 1 or 2) of the largest component, the
// lowest index among equal ones.
func (a Vec3) MaxAxis() int {
	switch {
	case a.Y > a.X && a.Y >= a.Z:
		return 1
	case a.Z > a.X && a.Z > a.Y:
		return 2
	}
	return 0
}

// IsFinite reports whether every component is neither NaN nor ±Inf.
func (a Vec3) IsFinite() bool {
	return !math.IsNaN(a.X+a.Y+a.Z) && !math.IsInf(a.X+a.Y+a.Z, 0)
}
