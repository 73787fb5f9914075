package meshio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
)

// maxOBJLine is the longest OBJ line (after joining continuations) we accept.
const maxOBJLine = 1 << 24

// objCorner is one face corner: 0-based v, vt and vn numbers, -1 for none.
type objCorner struct{ v, vt, vn int32 }

// objGroup collects the faces of one material.
type objGroup struct {
	name     string
	material int
	prim     Primitive
	corners  map[objCorner]int32
	allUV    bool // every corner so far had a valid vt
	allN     bool // every corner so far had a valid vn
	uvIx     []int32
	nIx      []int32
	firstObj string
}

// objReader holds the state of one OBJ parse.
type objReader struct {
	name        string
	line        int
	v           []vec.Vec3
	vt          [][2]float32
	vn          []vec.Vec3
	groups      []*objGroup
	byMat       map[string]*objGroup
	cur         *objGroup
	object      string
	firstObject string
	dangling    int
	firstDL     int // line of the first dangling reference
	poly        []objCorner
	polyPos     []vec.Vec3
	tris        [][3]int
	fanned      int
	lines       [][2]int32 // the l lines' segments, as v numbers from 0
}

// readOBJ parses a Wavefront OBJ stream. name is used in errors only.
func readOBJ(r io.Reader, name string, opt ReadOptions) (*Mesh, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	o := &objReader{name: name, byMat: map[string]*objGroup{}}
	var (
		joined  []byte
		pending bool
	)
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// a very long line: gather it whole
			buf := append([]byte(nil), raw...)
			for err == bufio.ErrBufferFull {
				raw, err = br.ReadSlice('\n')
				buf = append(buf, raw...)
				if len(buf) > maxOBJLine {
					o.line++ // the line being read
					return nil, o.errf("line longer than %d bytes: is this really an OBJ file? (an OBJ line holds one element; check that the file is text with line breaks)", maxOBJLine)
				}
			}
			raw = buf
		}
		if err != nil && err != io.EOF {
			return nil, o.errf("read error: %v", err)
		}
		if len(raw) == 0 && err == io.EOF {
			break
		}
		o.line++
		line := bytes.TrimRight(raw, "\r\n")
		// continuation: a line ending in a backslash joins the next
		if t := bytes.TrimRight(line, " \t"); len(t) > 0 && t[len(t)-1] == '\\' {
			joined = append(joined, t[:len(t)-1]...)
			joined = append(joined, ' ')
			pending = true
			if len(joined) > maxOBJLine {
				return nil, o.errf("continued line longer than %d bytes", maxOBJLine)
			}
			if err == io.EOF {
				break
			}
			continue
		}
		if pending {
			joined = append(joined, line...)
			line = joined
		}
		if perr := o.parseLine(line); perr != nil {
			return nil, perr
		}
		if pending {
			joined, pending = joined[:0], false
		}
		if err == io.EOF {
			break
		}
	}
	if pending {
		if perr := o.parseLine(joined); perr != nil {
			return nil, perr
		}
	}
	return o.mesh()
}

func (o *objReader) errf(format string, args ...any) *ParseError {
	return &ParseError{Path: o.name, Place: fmt.Sprintf("line %d", o.line), Msg: fmt.Sprintf(format, args...)}
}

// parseLine handles one logical line.
func (o *objReader) parseLine(line []byte) error {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	kw, rest := splitWord(line)
	switch string(kw) {
	case "v":
		p, err := o.parseVec(rest, 3, "vertex")
		if err != nil {
			return err
		}
		o.v = append(o.v, vec.Vec3{X: p[0], Y: p[1], Z: p[2]})
	case "vt":
		p, err := o.parseVec(rest, 1, "texture coordinate")
		if err != nil {
			return err
		}
		o.vt = append(o.vt, [2]float32{float32(p[0]), float32(p[1])})
	case "vn":
		p, err := o.parseVec(rest, 3, "normal")
		if err != nil {
			return err
		}
		o.vn = append(o.vn, vec.Vec3{X: p[0], Y: p[1], Z: p[2]}.Normalize())
	case "f":
		return o.parseFace(rest)
	case "l":
		return o.parseLineElement(rest)
	case "usemtl":
		o.useMaterial(string(bytes.TrimSpace(rest)))
	case "o":
		o.object = string(bytes.TrimSpace(rest))
		if o.firstObject == "" {
			o.firstObject = o.object
		}
	}
	// g, s, mtllib, p, vp, t (creases) and anything unknown are ignored
	return nil
}

// splitWord returns the first whitespace-separated word and the rest.
func splitWord(b []byte) (word, rest []byte) {
	b = bytes.TrimLeft(b, " \t")
	i := bytes.IndexAny(b, " \t")
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i+1:]
}

// parseVec reads at least min and at most 3 numbers (missing ones are 0); a
// fourth (w, or a vertex colour) is ignored.
func (o *objReader) parseVec(b []byte, min int, what string) ([3]float64, error) {
	var p [3]float64
	n := 0
	for {
		var w []byte
		w, b = splitWord(b)
		if len(w) == 0 {
			break
		}
		if n >= 3 {
			break
		}
		f, err := parseFloat(w)
		if err != nil && errors.Is(err, strconv.ErrRange) {
			err = nil // overflow gives ±Inf, caught below; underflow gives 0
		}
		if err != nil {
			return p, o.errf("%s: %q is not a number", what, w)
		}
		if f != f || f > maxFinite || f < -maxFinite {
			return p, o.errf("%s coordinate %s is not finite: fix or remove this %s", what, w, what)
		}
		p[n] = f
		n++
	}
	if n < min {
		return p, o.errf("%s has %d coordinates, want %d", what, n, min)
	}
	return p, nil
}

const maxFinite = 1.7976931348623157e308

// parseFloat parses a plain decimal quickly and falls back to strconv for
// anything else (exponents, inf, nan, long mantissas).
func parseFloat(b []byte) (float64, error) {
	i, neg := 0, false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	seenDot := false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if digits >= 18 {
				return strconv.ParseFloat(string(b), 64)
			}
			mant = mant*10 + uint64(c-'0')
			digits++
			if seenDot {
				frac++
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			return strconv.ParseFloat(string(b), 64)
		}
	}
	if digits == 0 {
		return strconv.ParseFloat(string(b), 64)
	}
	f := float64(mant) // exact: mant < 2^63 and digits <= 18 keeps it within 1e18
	if mant >= 1<<53 {
		return strconv.ParseFloat(string(b), 64)
	}
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// useMaterial switches to the group of material name, creating it in order
// of first use.
func (o *objReader) useMaterial(name string) {
	if g, ok := o.byMat[name]; ok {
		o.cur = g
		return
	}
	g := newOBJGroup(name, len(o.groups), o.object)
	if name == "" {
		g.material = -1
	}
	// material numbers count usemtl names only, in order of first use
	nm := 0
	for _, h := range o.groups {
		if h.material >= 0 {
			nm++
		}
	}
	if g.material >= 0 {
		g.material = nm
	}
	o.groups = append(o.groups, g)
	o.byMat[name] = g
	o.cur = g
}

func newOBJGroup(name string, _ int, object string) *objGroup {
	return &objGroup{name: name, corners: map[objCorner]int32{}, allUV: true, allN: true, firstObj: object}
}

// resolve turns a 1-based or negative OBJ index into a 0-based one, or -1
// when it is out of range.
func resolve(n int64, count int) int32 {
	switch {
	case n > 0 && n <= int64(count):
		return int32(n - 1)
	case n < 0 && -n <= int64(count):
		return int32(int64(count) + n)
	}
	return -1
}

// parseFace reads one polygon and triangulates it into the current group.
// parseLineElement reads an l line (a polyline through v numbers, each
// optionally /vt) into its segments; a segment from a vertex to itself is
// dropped.
func (o *objReader) parseLineElement(b []byte) error {
	prev, n := int32(-1), 0
	for {
		var word []byte
		word, b = splitWord(b)
		if len(word) == 0 {
			break
		}
		if j := bytes.IndexByte(word, '/'); j >= 0 {
			word = word[:j]
		}
		ix, err := strconv.ParseInt(string(word), 10, 32)
		if errors.Is(err, strconv.ErrRange) {
			return o.errf("line element: index %s is out of range (at most %d); the file is damaged or not an OBJ", word, math.MaxInt32)
		}
		if err != nil || ix == 0 {
			return o.errf("line element: %q is not a vertex index (OBJ indices start at 1)", word)
		}
		v := resolve(ix, len(o.v))
		if v < 0 {
			return o.errf("line element index %d out of range (%d vertices defined so far)", ix, len(o.v))
		}
		if n > 0 && int32(v) != prev {
			o.lines = append(o.lines, [2]int32{prev, int32(v)})
		}
		prev = int32(v)
		n++
	}
	if n < 2 {
		return o.errf("line element with %d vertices: an l line needs at least 2", n)
	}
	return nil
}

func (o *objReader) parseFace(b []byte) error {
	o.poly = o.poly[:0]
	for {
		var word []byte
		word, b = splitWord(b)
		if len(word) == 0 {
			break
		}
		w := word
		var parts [3][]byte
		k := 0
		for k < 3 {
			j := bytes.IndexByte(w, '/')
			if j < 0 {
				parts[k] = w
				k++
				break
			}
			parts[k] = w[:j]
			w = w[j+1:]
			k++
		}
		var ix [3]int64
		for j := 0; j < 3; j++ {
			if len(parts[j]) == 0 {
				continue
			}
			n, err := strconv.ParseInt(string(parts[j]), 10, 32)
			if errors.Is(err, strconv.ErrRange) {
				return o.errf("face corner %q: index %s is out of range (at most %d); the file is damaged or not an OBJ", word, parts[j], math.MaxInt32)
			}
			if err != nil {
				return o.errf("face corner %q: %q is not an index (a face corner is v, v/vt, v//vn or v/vt/vn, with whole numbers)", word, parts[j])
			}
			if n == 0 {
				return o.errf("face index 0: OBJ indices start at 1")
			}
			ix[j] = n
		}
		if ix[0] == 0 {
			return o.errf("face corner without a vertex index")
		}
		c := objCorner{v: resolve(ix[0], len(o.v)), vt: -1, vn: -1}
		if c.v < 0 {
			return o.errf("face index %d out of range (%d vertices defined so far)", ix[0], len(o.v))
		}
		if ix[1] != 0 {
			if c.vt = resolve(ix[1], len(o.vt)); c.vt < 0 {
				o.dangle()
			}
		}
		if ix[2] != 0 {
			if c.vn = resolve(ix[2], len(o.vn)); c.vn < 0 {
				o.dangle()
			}
		}
		o.poly = append(o.poly, c)
	}
	if len(o.poly) < 3 {
		return o.errf("face with %d corners: a face needs at least 3", len(o.poly))
	}
	if o.cur == nil {
		o.useMaterial("")
	}
	g := o.cur
	// triangulate
	o.tris = o.tris[:0]
	if len(o.poly) == 3 {
		o.tris = append(o.tris, [3]int{0, 1, 2})
	} else {
		o.polyPos = o.polyPos[:0]
		for _, c := range o.poly {
			o.polyPos = append(o.polyPos, o.v[c.v])
		}
		var fanned bool
		o.tris, fanned = triangulate(o.polyPos, o.tris)
		if fanned {
			o.fanned++
		}
	}
	for _, t := range o.tris {
		for _, k := range t {
			g.prim.Indices = append(g.prim.Indices, g.corner(o.poly[k]))
		}
	}
	return nil
}

func (o *objReader) dangle() {
	if o.dangling == 0 {
		o.firstDL = o.line
	}
	o.dangling++
}

// corner returns the render vertex of c in g, adding it on first use.
func (g *objGroup) corner(c objCorner) int32 {
	if r, ok := g.corners[c]; ok {
		return r
	}
	r := int32(len(g.prim.Source))
	g.corners[c] = r
	g.prim.Source = append(g.prim.Source, c.v)
	g.uvIx = append(g.uvIx, c.vt)
	g.nIx = append(g.nIx, c.vn)
	if c.vt < 0 {
		g.allUV = false
	}
	if c.vn < 0 {
		g.allN = false
	}
	return r
}

// mesh assembles the primitives once the whole file is read.
func (o *objReader) mesh() (*Mesh, error) {
	base := filepath.Base(o.name)
	m := &Mesh{Path: o.name, Format: FormatOBJ, Name: strings.TrimSuffix(base, filepath.Ext(base)), SourceVertices: len(o.v),
		SourcePositions: append([]vec.Vec3(nil), o.v...), Lines: o.lines}
	if len(o.v) == 0 {
		return nil, &ParseError{Path: o.name, Msg: "no vertices: the file has no `v` lines (empty or not an OBJ file)", Err: ErrNoGeometry}
	}
	if o.dangling > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d face corners refer to missing vt or vn entries (first on line %d): those texture coordinates and normals are ignored", o.dangling, o.firstDL))
	}
	if o.fanned > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d polygons could not be triangulated cleanly (degenerate or self-intersecting) and were fan-split", o.fanned))
	}
	for _, g := range o.groups {
		if g.material >= 0 {
			m.MaterialNames = append(m.MaterialNames, g.name)
		}
	}
	for _, g := range o.groups {
		if len(g.prim.Indices) == 0 {
			continue
		}
		p := g.prim
		p.Material = g.material
		p.Name = "obj group " + g.name
		if g.name == "" {
			p.Name = "obj group (no material)"
		}
		p.Positions = make([]vec.Vec3, len(p.Source))
		for i, s := range p.Source {
			p.Positions[i] = o.v[s]
		}
		if g.allUV {
			p.UVs = make([][2]float32, len(p.Source))
			for i, t := range g.uvIx {
				p.UVs[i] = o.vt[t]
			}
		}
		if g.allN {
			p.Normals = make([]vec.Vec3, len(p.Source))
			for i, n := range g.nIx {
				p.Normals[i] = o.vn[n]
			}
		}
		m.Primitives = append(m.Primitives, p)
	}
	if o.firstObject != "" {
		m.Name = o.firstObject
	}
	m.MeshNames = []string{m.Name}
	return m, nil
}
