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
