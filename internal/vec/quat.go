package vec

import "math"

// Quat is a rotation quaternion x i + y j + z k + w, in glTF's (x, y, z, w)
// order.
type Quat struct{ X, Y, Z, W float64 }

// QuatIdentity returns the rotation that does nothing.
func QuatIdentity() Quat { return Quat{0, 0, 0, 1} }

// AxisAngle returns the rotation by angle [rad] about axis.
func AxisAngle(axis Vec3, angle float64) Quat {
	a := axis.Normalize()
	s, c := math.Sincos(angle / 2)
	return Quat{a.X * s, a.Y * s, a.Z * s, c}
}

// Dot returns the 4D dot product of q and r.
func (q Quat) Dot(r Quat) float64 { return q.X*r.X + q.Y*r.Y + q.Z*r.Z + q.W*r.W }

// Normalize returns q / |q|, or the identity for a zero quaternion.
func (q Quat) Normalize() Quat {
	l := math.Sqrt(q.Dot(q))
	if l == 0 {
		return QuatIdentity()
	}
	return Quat{q.X / l, q.Y / l, q.Z / l, q.W / l}
}

// Mul returns the rotation q r (r applied first).
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		q.W*r.X + q.X*r.W + q.Y*r.Z - q.Z*r.Y,
		q.W*r.Y - q.X*r.Z + q.Y*r.W + q.Z*r.X,
		q.W*r.Z + q.X*r.Y - q.Y*r.X + q.Z*r.W,
		q.W*r.W - q.X*r.X - q.Y*r.Y - q.Z*r.Z,
	}
}

// Rotate returns v rotated by the unit quaternion q.
func (q Quat) Rotate(v Vec3) Vec3 {
	u := Vec3{q.X, q.Y, q.Z}
	t := u.Cross(v).Scale(2)
	return v.AddScaled(t, q.W).Add(u.Cross(t))
}

// Mat4 returns the rotation matrix of the unit quaternion q.
func (q Quat) Mat4() Mat4 {
	x, y, z, w := q.X, q.Y, q.Z, q.W
	return Mat4{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w), 0},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w), 0},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y), 0},
		{0, 0, 0, 1},
	}
}

// Slerp returns the spherical interpolation from q to r at t in [0, 1],
// along the shorter arc.
func (q Quat) Slerp(r Quat, t float64) Quat {
	d := q.Dot(r)
	if d < 0 {
		r, d = Quat{-r.X, -r.Y, -r.Z, -r.W}, -d
	}
	if d > 0.9995 {
		return Quat{
			q.X + t*(r.X-q.X), q.Y + t*(r.Y-q.Y), q.Z + t*(r.Z-q.Z), q.W + t*(r.W-q.W),
		}.Normalize()
	}
	th := math.Acos(d)
	s := math.Sin(th)
	a, b := math.Sin((1-t)*th)/s, math.Sin(t*th)/s
	return Quat{a*q.X + b*r.X, a*q.Y + b*r.Y, a*q.Z + b*r.Z, a*q.W + b*r.W}
}

// QuatFromMat returns the unit quaternion of the rotation in the upper 3x3
// of m, which must be a rotation matrix (Shepperd's method: the largest of
// the four squared components is taken from the diagonal, the others from
// the off-diagonal terms, so no division is by a small number).
func QuatFromMat(m Mat4) Quat {
	tr := m[0][0] + m[1][1] + m[2][2]
	var q Quat
	switch {
	case tr >= m[0][0] && tr >= m[1][1] && tr >= m[2][2]:
		s := 2 * math.Sqrt(1+tr)
		q = Quat{(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, s / 4}
	case m[0][0] >= m[1][1] && m[0][0] >= m[2][2]:
		s := 2 * math.Sqrt(1+m[0][0]-m[1][1]-m[2][2])
		q = Quat{s / 4, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s}
	case m[1][1] >= m[2][2]:
		s := 2 * math.Sqrt(1+m[1][1]-m[0][0]-m[2][2])
		q = Quat{(m[0][1] + m[1][0]) / s, s / 4, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s}
	default:
		s := 2 * math.Sqrt(1+m[2][2]-m[0][0]-m[1][1])
		q = Quat{(m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, s / 4, (m[1][0] - m[0][1]) / s}
	}
	return q.Normalize()
}
