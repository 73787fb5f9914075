package vec

import "math"

// Mat4 is a 4x4 affine transform in row-major order: M[r][c]. Points are
// column vectors, so M.MulPoint(p) = M p. glTF stores matrices column-major;
// convert with Mat4FromColumnMajor.
type Mat4 [4][4]float64

// Identity returns the identity transform.
func Identity() Mat4 {
	return Mat4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
}

// Translate returns the transform that moves points by t.
func Translate(t Vec3) Mat4 {
	m := Identity()
	m[0][3], m[1][3], m[2][3] = t.X, t.Y, t.Z
	return m
}

// ScaleMat returns the transform that scales by s along each axis.
func ScaleMat(s Vec3) Mat4 {
	m := Identity()
	m[0][0], m[1][1], m[2][2] = s.X, s.Y, s.Z
	return m
}

// TRS returns T R S: scale, then rotate, then translate, as glTF composes a
// node's translation, rotation and scale.
func TRS(t Vec3, r Quat, s Vec3) Mat4 {
	return Translate(t).Mul(r.Mat4()).Mul(ScaleMat(s))
}

// Mat4FromColumnMajor converts the 16 numbers of a glTF node matrix.
func Mat4FromColumnMajor(a [16]float64) Mat4 {
	var m Mat4
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			m[r][c] = a[c*4+r]
		}
	}
	return m
}

// ColumnMajor returns the 16 numbers of m in glTF's column-major order.
func (m Mat4) ColumnMajor() [16]float64 {
	var a [16]float64
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			a[c*4+r] = m[r][c]
		}
	}
	return a
}

// Mul returns the product m n (n applied first).
func (m Mat4) Mul(n Mat4) Mat4 {
	var o Mat4
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			o[r][c] = m[r][0]*n[0][c] + m[r][1]*n[1][c] + m[r][2]*n[2][c] + m[r][3]*n[3][c]
		}
	}
	return o
}

// MulPoint returns m p for a point (w = 1).
func (m Mat4) MulPoint(p Vec3) Vec3 {
	return Vec3{
		m[0][0]*p.X + m[0][1]*p.Y + m[0][2]*p.Z + m[0][3],
		m[1][0]*p.X + m[1][1]*p.Y + m[1][2]*p.Z + m[1][3],
		m[2][0]*p.X + m[2][1]*p.Y + m[2][2]*p.Z + m[2][3],
	}
}

// MulDir returns m d for a direction (w = 0): no translation.
func (m Mat4) MulDir(d Vec3) Vec3 {
	return Vec3{
		m[0][0]*d.X + m[0][1]*d.Y + m[0][2]*d.Z,
		m[1][0]*d.X + m[1][1]*d.Y + m[1][2]*d.Z,
		m[2][0]*d.X + m[2][1]*d.Y + m[2][2]*d.Z,
	}
}

// MulNormal transforms a surface normal by the inverse transpose of m's
// linear part and normalises it.
func (m Mat4) MulNormal(n Vec3) Vec3 {
	inv := m.Inverse()
	return Vec3{
		inv[0][0]*n.X + inv[1][0]*n.Y + inv[2][0]*n.Z,
		inv[0][1]*n.X + inv[1][1]*n.Y + inv[2][1]*n.Z,
		inv[0][2]*n.X + inv[1][2]*n.Y + inv[2][2]*n.Z,
	}.Normalize()
}

// Det3 returns the determinant of m's linear 3x3 part; negative means the
// transform mirrors and flips triangle winding.
func (m Mat4) Det3() float64 {
	return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
}

// Inverse returns the inverse of the affine transform m. A singular m gives
// a matrix of NaN; callers check Det3 first where that can happen.
func (m Mat4) Inverse() Mat4 {
	d := m.Det3()
	if d == 0 {
		n := math.NaN()
		return Mat4{{n, n, n, n}, {n, n, n, n}, {n, n, n, n}, {0, 0, 0, 1}}
	}
	id := 1 / d
	var o Mat4
	o[0][0] = (m[1][1]*m[2][2] - m[1][2]*m[2][1]) * id
	o[0][1] = (m[0][2]*m[2][1] - m[0][1]*m[2][2]) * id
	o[0][2] = (m[0][1]*m[1][2] - m[0][2]*m[1][1]) * id
	o[1][0] = (m[1][2]*m[2][0] - m[1][0]*m[2][2]) * id
	o[1][1] = (m[0][0]*m[2][2] - m[0][2]*m[2][0]) * id
	o[1][2] = (m[0][2]*m[1][0] - m[0][0]*m[1][2]) * id
	o[2][0] = (m[1][0]*m[2][1] - m[1][1]*m[2][0]) * id
	o[2][1] = (m[0][1]*m[2][0] - m[0][0]*m[2][1]) * id
	o[2][2] = (m[0][0]*m[1][1] - m[0][1]*m[1][0]) * id
	t := Vec3{m[0][3], m[1][3], m[2][3]}
	for r := 0; r < 3; r++ {
		o[r][3] = -(o[r][0]*t.X + o[r][1]*t.Y + o[r][2]*t.Z)
	}
	o[3] = [4]float64{0, 0, 0, 1}
	return o
}

// DecomposeTRS splits the affine transform m into T R S (see TRS). A
// mirroring m gets a negative X scale. ok is false when m is not of that
// form: its axes are not orthogonal within tol (relative), which a
// non-uniform scale under a rotation in a node hierarchy (shear) gives, or
// an axis is scaled to zero.
func (m Mat4) DecomposeTRS(tol float64) (t Vec3, r Quat, s Vec3, ok bool) {
	t = Vec3{m[0][3], m[1][3], m[2][3]}
	var ax [3]Vec3
	for c := range 3 {
		ax[c] = Vec3{m[0][c], m[1][c], m[2][c]}
		l := ax[c].Len()
		if !(l > 0) || math.IsInf(l, 0) {
			return t, QuatIdentity(), Vec3{}, false
		}
		ax[c] = ax[c].Scale(1 / l)
		switch c {
		case 0:
			s.X = l
		case 1:
			s.Y = l
		default:
			s.Z = l
		}
	}
	if math.Abs(ax[0].Dot(ax[1])) > tol || math.Abs(ax[0].Dot(ax[2])) > tol || math.Abs(ax[1].Dot(ax[2])) > tol {
		return t, QuatIdentity(), Vec3{}, false
	}
	if ax[0].Cross(ax[1]).Dot(ax[2]) < 0 {
		s.X, ax[0] = -s.X, ax[0].Neg()
	}
	var rm Mat4
	for c := range 3 {
		rm[0][c], rm[1][c], rm[2][c] = ax[c].X, ax[c].Y, ax[c].Z
	}
	rm[3][3] = 1
	return t, QuatFromMat(rm), s, true
}
