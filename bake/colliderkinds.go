package bake

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/sdf"
)

// This file is the one place that knows each kind of scene collider: its
// scene keys, its --collider flag syntax, the signed distance it makes and
// how it is fitted to a mesh. The scene's validation, the flag parser,
// `drape colliders` and `drape fit-collider`, glTF collider nodes and the
// Blender add-on (through those two commands) all read colliderKinds.
//
// A new kind is a shape in sdf (its own file), one entry here (a constant
// and a colliderKinds element) and its rows in docs/scene.md
// (TestColliderDocs checks them). A kind with a key no other kind has also
// adds that key's field to ColliderSpec.

// ColliderKind is the type of a scene collider. The zero value is invalid.
type ColliderKind int

// Collider kinds, in the order colliderKinds lists them.
const (
	_ ColliderKind = iota
	ColliderSphere
	ColliderCapsule
	ColliderCone
	ColliderPlane
	ColliderBox
	ColliderMesh
)

// colliderKind describes one kind of collider.
type colliderKind struct {
	name string
	doc  string // one line for `drape colliders`
	keys []colliderKey
	// check validates what the keys' own checks do not (nil: nothing);
	// bad names a key and its problem.
	check func(c *ColliderSpec, bad func(key string, v any, allowed string) error) error
	// shape makes the collider's signed distance from a validated spec.
	shape func(sc *Scene, key string, c ColliderSpec) (sdf.SDF, error)
	// fit returns the kind fitted to a mesh in its own space; nil for a
	// kind that is the mesh itself.
	fit func(m FitMesh) ColliderSpec
	// fitDoc says how fit fits, for `drape colliders` and docs/scene.md.
	fitDoc string
}

// maxColliderExtent [m] bounds every collider coordinate and size: far beyond
// any scene a cloth drapes in (100 km), and small enough that the distances the
// solver computes from it stay exact to well under a thickness; a radius of
// 1e300 would otherwise pass and make the bake diverge for no reason it names.
const maxColliderExtent = 1e5

// keyType is the value type of a collider key.
type keyType int

const (
	_         keyType = iota
	keyVec3           // [x,y,z], finite
	keyLength         // a number > 0 [m]
	keyNumber         // a finite number
	keyNonNeg         // a number >= 0
	keyPath           // a file path
	keyAxis           // "y" or "z"
)

var keyTypeNames = [...]string{"", "vec3", "length", "number", "non-negative number", "path", "axis"}

// colliderKey is one scene key of a collider kind.
type colliderKey struct {
	key      string // the scene key, a json tag of ColliderSpec
	typ      keyType
	required bool
	// flag names the key's values in the --collider syntax ("cx,cy,cz");
	// "" keeps the key out of the flag.
	flag string
	doc  string
}

// colliderKinds is the registry, indexed by ColliderKind.
var colliderKinds = [...]colliderKind{
	ColliderSphere: {
		name: "sphere", doc: "a ball",
		keys: []colliderKey{
			{key: "center", typ: keyVec3, required: true, flag: "cx,cy,cz", doc: "centre [m]"},
			{key: "radius", typ: keyLength, required: true, flag: "r", doc: "radius [m]"},
		},
		shape: func(_ *Scene, _ string, c ColliderSpec) (sdf.SDF, error) {
			return sdf.Sphere{Center: v3(c.Center), Radius: c.Radius}, nil
		},
		fit: func(m FitMesh) ColliderSpec {
			c, h := m.centerHalf()
			return ColliderSpec{Type: ColliderSphere, Center: p3(c), Radius: math.Max(h.X, math.Max(h.Y, h.Z))}
		},
		fitDoc: "centre of the bounds, radius = the largest half extent",
	},
	ColliderCapsule: {
		name: "capsule", doc: "a segment a-b swept by a ball",
		keys: []colliderKey{
			{key: "a", typ: keyVec3, required: true, flag: "ax,ay,az", doc: "one end of the axis [m]"},
			{key: "b", typ: keyVec3, required: true, flag: "bx,by,bz", doc: "the other end of the axis [m]"},
			{key: "radius", typ: keyLength, required: true, flag: "r", doc: "radius [m]"},
		},
		shape: func(_ *Scene, _ string, c ColliderSpec) (sdf.SDF, error) {
			return sdf.Capsule{A: v3(c.A), B: v3(c.B), Radius: c.Radius}, nil
		},
		fit: func(m FitMesh) ColliderSpec {
			c, h := m.centerHalf()
			ax := 0
			for i := 1; i < 3; i++ {
				if h.Get(i) > h.Get(ax) {
					ax = i
				}
			}
			r := 0.0
			for i := 0; i < 3; i++ {
				if i != ax {
					r = math.Max(r, h.Get(i))
				}
			}
			d := [3]float64{}
			d[ax] = math.Max(h.Get(ax)-r, 0)
			off := vec.V(d[0], d[1], d[2])
			return ColliderSpec{Type: ColliderCapsule, A: p3(c.Sub(off)), B: p3(c.Add(off)), Radius: r}
		},
		fitDoc: "along the longest axis of the bounds, radius = the largest other half extent",
	},
	ColliderCone: {
		name: "cone", doc: "a capped cone from a (radius ra) to b (radius rb)",
		keys: []colliderKey{
			{key: "a", typ: keyVec3, required: true, flag: "ax,ay,az", doc: "centre of one cap [m]"},
			{key: "b", typ: keyVec3, required: true, flag: "bx,by,bz", doc: "centre of the other cap [m]"},
			{key: "ra", typ: keyNonNeg, flag: "ra", doc: "radius at a [m]"},
			{key: "rb", typ: keyNonNeg, flag: "rb", doc: "radius at b [m]"},
		},
		check: func(c *ColliderSpec, bad func(string, any, string) error) error {
			if c.RA+c.RB == 0 {
				return bad("ra", c.RA, "ra and rb must be >= 0 and not both 0")
			}
			return nil
		},
		shape: func(_ *Scene, _ string, c ColliderSpec) (sdf.SDF, error) {
			return sdf.CappedCone{A: v3(c.A), B: v3(c.B), RA: c.RA, RB: c.RB}, nil
		},
		fit: func(m FitMesh) ColliderSpec {
			c, h := m.centerHalf()
			lo, hi := m.Min, m.Max
			ra, rb := h.X, h.X
			if len(m.Points) > 0 {
				ra, rb = 0, 0
				tol := 1e-3 * (hi.Y - lo.Y)
				for _, p := range m.Points {
					rad := math.Hypot(p.X-c.X, p.Z-c.Z)
					if p.Y <= lo.Y+tol {
						ra = math.Max(ra, rad)
					}
					if p.Y >= hi.Y-tol {
						rb = math.Max(rb, rad)
					}
				}
			}
			return ColliderSpec{Type: ColliderCone, A: p3(vec.V(c.X, lo.Y, c.Z)), B: p3(vec.V(c.X, hi.Y, c.Z)), RA: ra, RB: rb}
		},
		fitDoc: "along the Y axis, radii measured at the bottom and top of the mesh",
	},
	ColliderPlane: {
		name: "plane", doc: "the half-space n·p < d (points with n·p >= d are outside)",
		keys: []colliderKey{
			{key: "normal", typ: keyVec3, required: true, flag: "nx,ny,nz", doc: "normal n, pointing out of the collider"},
			{key: "offset", typ: keyNumber, flag: "d", doc: "offset d along the normal [m]"},
		},
		check: func(c *ColliderSpec, bad func(string, any, string) error) error {
			if vecLen(*c.Normal) < 1e-9 {
				return bad("normal", *c.Normal, "must be non-zero")
			}
			return nil
		},
		shape: func(_ *Scene, _ string, c ColliderSpec) (sdf.SDF, error) {
			n := v3(c.Normal)
			l := n.Len()
			return sdf.Plane{Normal: n.Scale(1 / l), Offset: c.Offset / l}, nil
		},
		fit: func(m FitMesh) ColliderSpec {
			return ColliderSpec{Type: ColliderPlane, Normal: &[3]float64{0, 1, 0}, Offset: m.Max.Y}
		},
		fitDoc: "the XZ plane at the top of the mesh, normal along Y",
	},
	ColliderBox: {
		name: "box", doc: "an axis-aligned box, optionally with rounded edges",
		keys: []colliderKey{
			{key: "center", typ: keyVec3, required: true, flag: "cx,cy,cz", doc: "centre [m]"},
			{key: "half", typ: keyVec3, required: true, flag: "hx,hy,hz", doc: "half extents [m]"},
			{key: "rounding", typ: keyNonNeg, doc: "edge radius [m] (default 0)"},
		},
		check: func(c *ColliderSpec, bad func(string, any, string) error) error {
			if !(c.Half[0] > 0 && c.Half[1] > 0 && c.Half[2] > 0) {
				return bad("half", *c.Half, "half extents must be > 0")
			}
			return nil
		},
		shape: func(_ *Scene, _ string, c ColliderSpec) (sdf.SDF, error) {
			r := math.Min(c.Rounding, math.Min(c.Half[0], math.Min(c.Half[1], c.Half[2])))
			return sdf.Box{Center: v3(c.Center), Half: v3(c.Half), Rounding: r}, nil
		},
		fit: func(m FitMesh) ColliderSpec {
			c, h := m.centerHalf()
			return ColliderSpec{Type: ColliderBox, Center: p3(c), Half: p3(h)}
		},
		fitDoc: "the bounds",
	},
	ColliderMesh: {
		name: "mesh", doc: "a closed mesh file, rigid or deforming (cache)",
		keys: []colliderKey{
			{key: "path", typ: keyPath, required: true, flag: "PATH", doc: "a closed mesh file (.glb, .gltf, .obj, .stl)"},
			{key: "up", typ: keyAxis, doc: "up axis of an OBJ or STL file (default: the scene's)"},
			{key: "scale", typ: keyNonNeg, doc: "unit scale of the file (0 = the scene's)"},
			{key: "cache", typ: keyPath, doc: "a PC2 or MDD point cache of the file's vertices, sample k at frame k (a deforming collider)"},
		},
		check: func(c *ColliderSpec, bad func(string, any, string) error) error {
			if c.Cache != "" && len(c.Keys) > 0 {
				return bad("keys", len(c.Keys), "a mesh collider with a cache moves by its cache: remove keys, or bake the motion into the cache")
			}
			return nil
		},
		shape:  meshCollider,
		fitDoc: "the mesh itself (it must be closed)",
	},
}

// kind returns k's registry entry, or nil for an invalid kind.
func (k ColliderKind) kind() *colliderKind {
	if k <= 0 || int(k) >= len(colliderKinds) {
		return nil
	}
	return &colliderKinds[k]
}

// String returns the kind's scene name ("sphere", ...).
func (k ColliderKind) String() string {
	if e := k.kind(); e != nil {
		return e.name
	}
	return fmt.Sprintf("ColliderKind(%d)", int(k))
}

// MarshalText writes the kind's scene name.
func (k ColliderKind) MarshalText() ([]byte, error) {
	if k.kind() == nil {
		return nil, fmt.Errorf("invalid collider kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText parses a kind's scene name.
func (k *ColliderKind) UnmarshalText(b []byte) error {
	v, err := ParseColliderKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ParseColliderKind parses a collider kind's scene name.
func ParseColliderKind(s string) (ColliderKind, error) {
	for k := ColliderKind(1); int(k) < len(colliderKinds); k++ {
		if colliderKinds[k].name == s {
			return k, nil
		}
	}
	if s == "" {
		return 0, errors.New("required: " + colliderKindList())
	}
	return 0, errors.New("must be " + colliderKindList())
}

// ColliderKinds returns every collider kind in registry order.
func ColliderKinds() []ColliderKind {
	out := make([]ColliderKind, 0, len(colliderKinds)-1)
	for k := ColliderKind(1); int(k) < len(colliderKinds); k++ {
		out = append(out, k)
	}
	return out
}

// colliderKindList is "sphere, capsule, ... or mesh".
func colliderKindList() string {
	var names []string
	for _, k := range ColliderKinds() {
		names = append(names, k.String())
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FlagSyntax returns the kind's --collider syntax ("sphere:cx,cy,cz,r").
func (k ColliderKind) FlagSyntax() string {
	e := k.kind()
	if e == nil {
		return ""
	}
	var parts []string
	for _, ck := range e.keys {
		if ck.flag != "" {
			parts = append(parts, ck.flag)
		}
	}
	return e.name + ":" + strings.Join(parts, ",")
}

// ColliderFlagUsage is the --collider flag's usage: every kind's syntax.
func ColliderFlagUsage() string {
	var s []string
	for _, k := range ColliderKinds() {
		s = append(s, k.FlagSyntax())
	}
	return strings.Join(s, " ") + "; repeatable"
}

// FitMesh is a mesh to fit a collider to, in its own space [m].
type FitMesh struct {
	// Min and Max are the corners of the mesh's bounds.
	Min, Max vec.Vec3
	// Points are the mesh's vertices (none for an empty's cube).
	Points []vec.Vec3
}

func (m FitMesh) centerHalf() (c, h vec.Vec3) {
	return m.Min.Add(m.Max).Scale(0.5), m.Max.Sub(m.Min).Scale(0.5)
}

// NewFitMesh returns the bounds and points of pts.
func NewFitMesh(pts []vec.Vec3) FitMesh {
	m := FitMesh{Points: pts}
	for i, p := range pts {
		if i == 0 {
			m.Min, m.Max = p, p
			continue
		}
		m.Min, m.Max = m.Min.Min(p), m.Max.Max(p)
	}
	return m
}

// Fit returns kind k fitted to m, in m's space; ok is false for a kind
// that is the mesh itself (mesh).
func (k ColliderKind) Fit(m FitMesh) (spec ColliderSpec, ok bool) {
	e := k.kind()
	if e == nil || e.fit == nil {
		return ColliderSpec{}, false
	}
	return e.fit(m), true
}

func p3(v vec.Vec3) *[3]float64 { return &[3]float64{v.X, v.Y, v.Z} }

// colliderFields maps each ColliderSpec json key to its field index.
var colliderFields = func() map[string]int {
	t := reflect.TypeFor[ColliderSpec]()
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		if tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]; tag != "" && tag != "-" {
			m[tag] = i
		}
	}
	return m
}()

// field returns the field of c that holds scene key k (a registry key,
// so a missing field is a programming error).
func (c *ColliderSpec) field(k string) reflect.Value {
	i, ok := colliderFields[k]
	if !ok {
		panic("bake: ColliderSpec has no field for collider key " + k)
	}
	return reflect.ValueOf(c).Elem().Field(i)
}

// validate checks c's keys against its kind's registry entry.
func (c *ColliderSpec) validate(s *Scene, key string) error {
	e := c.Type.kind()
	if e == nil {
		_, err := ParseColliderKind("")
		if c.Type != 0 {
			return s.rangeError(key+".type", c.Type, err.Error())
		}
		return s.rangeError(key+".type", `""`, err.Error())
	}
	bad := func(k string, v any, allowed string) error { return s.rangeError(key+"."+k, v, allowed) }
	for _, ck := range e.keys {
		if err := ck.check(c, e.name, bad); err != nil {
			return err
		}
	}
	if e.check != nil {
		if err := e.check(c, bad); err != nil {
			return err
		}
	}
	if c.Friction != nil && (!(*c.Friction >= 0) || *c.Friction > 10) {
		return bad("friction", *c.Friction, "must be in 0..10")
	}
	if c.Thickness < 0 || !finite(c.Thickness) || c.Thickness > 1 {
		return bad("thickness", c.Thickness, "must be in [0, 1] m (0 = the scene's)")
	}
	return validateKeys(s, key+".keys", c.Keys)
}

// check validates the value of key ck in c, a collider of kind kind.
func (ck colliderKey) check(c *ColliderSpec, kind string, bad func(string, any, string) error) error {
	f := c.field(ck.key)
	switch ck.typ {
	case keyVec3:
		v := f.Interface().(*[3]float64)
		if v == nil {
			if ck.required {
				return bad(ck.key, "missing", fmt.Sprintf("a %s collider needs %s [x,y,z]", kind, ck.key))
			}
			return nil
		}
		if !finite3(*v) || math.Abs(v[0]) > maxColliderExtent || math.Abs(v[1]) > maxColliderExtent || math.Abs(v[2]) > maxColliderExtent {
			return bad(ck.key, *v, fmt.Sprintf("must be finite, each within ±%g m", maxColliderExtent))
		}
	case keyLength:
		if v := f.Float(); !(v > 0) || !(v <= maxColliderExtent) {
			return bad(ck.key, v, fmt.Sprintf("must be a length > 0 [m], at most %g m", maxColliderExtent))
		}
	case keyNumber:
		if v := f.Float(); !(math.Abs(v) <= maxColliderExtent) {
			return bad(ck.key, v, fmt.Sprintf("must be within ±%g", maxColliderExtent))
		}
	case keyNonNeg:
		if v := f.Float(); !(v >= 0) || !(v <= maxColliderExtent) {
			return bad(ck.key, v, fmt.Sprintf("must be in [0, %g]", maxColliderExtent))
		}
	case keyPath:
		if ck.required && f.String() == "" {
			return bad(ck.key, `""`, fmt.Sprintf("a %s collider needs %s (%s)", kind, ck.key, ck.doc))
		}
	case keyAxis:
		if a := Axis(f.Int()); a != 0 && a != AxisY && a != AxisZ {
			return bad(ck.key, a, `must be "y" or "z"`)
		}
	}
	return nil
}

// ParseColliderFlag parses a --collider value, KIND:VALUES in the kind's
// FlagSyntax (sphere:cx,cy,cz,r, mesh:PATH, ...).
func ParseColliderFlag(s string) (ColliderSpec, error) {
	name, rest, _ := strings.Cut(s, ":")
	k, err := ParseColliderKind(name)
	if err != nil {
		return ColliderSpec{}, fmt.Errorf("--collider %q: kind %v", s, err)
	}
	e := k.kind()
	c := ColliderSpec{Type: k}
	var nums []colliderKey
	n := 0
	for _, ck := range e.keys {
		switch {
		case ck.flag == "":
		case ck.typ == keyPath:
			if rest == "" {
				return ColliderSpec{}, fmt.Errorf("--collider %q: %s needs a %s, e.g. %s:body.obj", s, e.name, ck.key, e.name)
			}
			c.field(ck.key).SetString(rest)
			return c, nil
		case ck.typ == keyVec3:
			nums, n = append(nums, ck), n+3
		default:
			nums, n = append(nums, ck), n+1
		}
	}
	f, err := parseFloats(rest, n)
	if err != nil {
		return ColliderSpec{}, fmt.Errorf("--collider %q: %v (%s)", s, err, k.FlagSyntax())
	}
	for _, ck := range nums {
		if ck.typ == keyVec3 {
			c.field(ck.key).Set(reflect.ValueOf(&[3]float64{f[0], f[1], f[2]}))
			f = f[3:]
			continue
		}
		c.field(ck.key).SetFloat(f[0])
		f = f[1:]
	}
	return c, nil
}

// FitCollider fits kind k to every vertex of the mesh file at path, read
// as Inspect reads it, in the file's space after the up axis and scale.
// A mesh collider is the file itself: its spec names the path.
func FitCollider(k ColliderKind, path string, o InspectOptions) (ColliderSpec, error) {
	if k.kind() == nil {
		return ColliderSpec{}, fmt.Errorf("collider kind %v: must be %s", k, colliderKindList())
	}
	opt := meshio.DefaultReadOptions()
	opt.Up, opt.Scale, opt.AllMeshes = o.Up, o.Scale, true
	m, err := meshio.Read(path, opt)
	if err != nil {
		return ColliderSpec{}, badInput(err, readFix(err))
	}
	var pts []vec.Vec3
	for _, p := range m.Primitives {
		pts = append(pts, p.Positions...)
	}
	if len(pts) == 0 {
		return ColliderSpec{}, badInputf("%s: no vertices to fit a %s to", path, k)
	}
	spec, ok := k.Fit(NewFitMesh(pts))
	if !ok {
		spec = ColliderSpec{Type: k, Path: path}
		if o.Up != AxisY {
			spec.Up = o.Up
		}
		if o.Scale != 1 {
			spec.Scale = o.Scale
		}
	}
	return spec, nil
}

// ColliderKindInfo describes a collider kind for `drape colliders --json`
// and the Blender add-on.
type ColliderKindInfo struct {
	Kind ColliderKind `json:"kind"`
	Doc  string       `json:"doc"`
	// Flag is the --collider syntax.
	Flag string `json:"flag"`
	// Keys are the kind's scene keys; every collider also takes name,
	// friction, thickness and keys (docs/scene.md).
	Keys []ColliderKeyInfo `json:"keys"`
	// Fit says how `drape fit-collider` and glTF collider nodes fit the
	// kind to a mesh.
	Fit string `json:"fit"`
	// Fits is false for a kind that is the mesh itself.
	Fits bool `json:"fits"`
}

// ColliderKeyInfo is one scene key of a collider kind.
type ColliderKeyInfo struct {
	Key      string `json:"key"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
	Doc      string `json:"doc"`
}

// ColliderKindInfos describes every collider kind in registry order.
func ColliderKindInfos() []ColliderKindInfo {
	var out []ColliderKindInfo
	for _, k := range ColliderKinds() {
		e := k.kind()
		info := ColliderKindInfo{Kind: k, Doc: e.doc, Flag: k.FlagSyntax(), Fit: e.fitDoc, Fits: e.fit != nil}
		for _, ck := range e.keys {
			info.Keys = append(info.Keys, ColliderKeyInfo{Key: ck.key, Type: keyTypeNames[ck.typ], Required: ck.required, Doc: ck.doc})
		}
		out = append(out, info)
	}
	return out
}
