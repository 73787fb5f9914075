package bake

import (
	"fmt"
	"strconv"
	"strings"
)

// parseFloats parses n comma-separated numbers.
func parseFloats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d comma-separated numbers, got %d", n, len(parts))
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !finite(v) {
			return nil, fmt.Errorf("%q is not a finite number", p)
		}
		out[i] = v
	}
	return out, nil
}

// ParseVec3Flag parses "x,y,z".
func ParseVec3Flag(s string) ([3]float64, error) {
	f, err := parseFloats(s, 3)
	if err != nil {
		return [3]float64{}, err
	}
	return [3]float64{f[0], f[1], f[2]}, nil
}

// ParsePinFlag parses a --pin value: "top", "index:i,j,..." or
// "box:x0,y0,z0,x1,y1,z1".
func ParsePinFlag(s string) (PinSpec, error) {
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "top":
		if rest != "" {
			return PinSpec{}, fmt.Errorf("--pin %q: top takes no value", s)
		}
		return PinSpec{Top: true}, nil
	case "index", "indices":
		var ix []int
		for _, p := range strings.Split(rest, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || v < 0 {
				return PinSpec{}, fmt.Errorf("--pin %q: %q is not a vertex number >= 0", s, p)
			}
			ix = append(ix, v)
		}
		return PinSpec{Indices: ix}, nil
	case "box":
		f, err := parseFloats(rest, 6)
		if err != nil {
			return PinSpec{}, fmt.Errorf("--pin %q: box: %v (box:x0,y0,z0,x1,y1,z1)", s, err)
		}
		return PinSpec{Box: f}, nil
	case "attribute":
		if rest == "" {
			return PinSpec{}, fmt.Errorf("--pin %q: attribute needs a name, e.g. attribute:_PIN", s)
		}
		return PinSpec{Attribute: rest}, nil
	}
	return PinSpec{}, fmt.Errorf("--pin %q: must be top, index:i,j,..., box:x0,y0,z0,x1,y1,z1 or attribute:NAME", s)
}

// ParseColliderFlag parses a --collider value: sphere:cx,cy,cz,r,
// capsule:ax,ay,az,bx,by,bz,r, cone:ax,ay,az,bx,by,bz,ra,rb,
// plane:nx,ny,nz,d, box:cx,cy,cz,hx,hy,hz or mesh:PATH.
func ParseColliderFlag(s string) (ColliderSpec, error) {
	kind, rest, _ := strings.Cut(s, ":")
	v3 := func(f []float64) *[3]float64 { return &[3]float64{f[0], f[1], f[2]} }
	want := map[string]string{
		"sphere":  "sphere:cx,cy,cz,r",
		"capsule": "capsule:ax,ay,az,bx,by,bz,r",
		"cone":    "cone:ax,ay,az,bx,by,bz,ra,rb",
		"plane":   "plane:nx,ny,nz,d",
		"box":     "box:cx,cy,cz,hx,hy,hz",
	}
	n := map[string]int{"sphere": 4, "capsule": 7, "cone": 8, "plane": 4, "box": 6}
	if kind == "mesh" {
		if rest == "" {
			return ColliderSpec{}, fmt.Errorf("--collider %q: mesh needs a path, e.g. mesh:body.obj", s)
		}
		return ColliderSpec{Type: "mesh", Path: rest}, nil
	}
	count, ok := n[kind]
	if !ok {
		return ColliderSpec{}, fmt.Errorf("--collider %q: kind must be sphere, capsule, cone, plane, box or mesh", s)
	}
	f, err := parseFloats(rest, count)
	if err != nil {
		return ColliderSpec{}, fmt.Errorf("--collider %q: %v (%s)", s, err, want[kind])
	}
	c := ColliderSpec{Type: kind}
	switch kind {
	case "sphere":
		c.Center, c.Radius = v3(f), f[3]
	case "capsule":
		c.A, c.B, c.Radius = v3(f), v3(f[3:]), f[6]
	case "cone":
		c.A, c.B, c.RA, c.RB = v3(f), v3(f[3:]), f[6], f[7]
	case "plane":
		c.Normal, c.Offset = v3(f), f[3]
	case "box":
		c.Center, c.Half = v3(f), v3(f[3:])
	}
	return c, nil
}
