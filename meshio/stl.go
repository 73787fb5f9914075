package meshio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/hschendel/stl"
)

// STL binary layout: an 80-byte header, a uint32 triangle count, then 50
// bytes per triangle.
const (
	stlHeader   = 84
	stlTriangle = 50
)

// readSTL parses an ASCII or binary STL file held in data. A file is binary
// when its size is 84 + 50 n for the count n in its header, even when the
// header starts with "solid"; an ASCII file may hold several solids; a
// binary file with a few bytes after its last triangle is read with a
// warning.
func readSTL(data []byte, name string, opt ReadOptions) (*Mesh, error) {
	base := filepath.Base(name)
	m := &Mesh{Path: name, Format: FormatSTL, Name: strings.TrimSuffix(base, filepath.Ext(base))}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ParseError{Path: name, Msg: "empty file", Err: ErrNoGeometry}
	}
	var tris []stl.Triangle
	binSize := int64(-1)
	if len(data) >= stlHeader {
		binSize = stlHeader + stlTriangle*int64(binary.LittleEndian.Uint32(data[80:84]))
	}
	switch {
	case binSize == int64(len(data)):
		t, err := readSTLLib(data)
		if err != nil {
			return nil, &ParseError{Path: name, Place: "binary triangles", Msg: err.Error()}
		}
		tris = t
	case looksASCIISTL(data):
		t, err := readSTLASCII(normalizeASCIISTL(data), name)
		if err != nil {
			return nil, err
		}
		tris = t
	case binSize > 0 && binSize < int64(len(data)):
		extra := int64(len(data)) - binSize
		t, err := readSTLLib(data[:binSize])
		if err != nil {
			return nil, &ParseError{Path: name, Place: "binary triangles", Msg: err.Error()}
		}
		tris = t
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d bytes after the last of %d triangles ignored", extra, len(t)))
	case binSize > int64(len(data)):
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("binary STL truncated: the header counts %d triangles (%d bytes) but the file has %d bytes", (binSize-stlHeader)/stlTriangle, binSize, len(data))}
	default:
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("not an STL file: %d bytes, too short for a binary STL and not starting with \"solid\"", len(data))}
	}
	m.SourceVertices = 3 * len(tris)
	p := Primitive{Name: "stl " + m.Name, Material: -1}
	p.Positions = make([]vec.Vec3, 0, 3*len(tris))
	p.Indices = make([]int32, 0, 3*len(tris))
	p.Source = make([]int32, 0, 3*len(tris))
	for i, t := range tris {
		for k := 0; k < 3; k++ {
			q := vec.Vec3{X: float64(t.Vertices[k][0]), Y: float64(t.Vertices[k][1]), Z: float64(t.Vertices[k][2])}
			if !q.IsFinite() {
				return nil, &ParseError{Path: name, Place: fmt.Sprintf("facet %d", i), Msg: fmt.Sprintf("vertex %d is not finite (%g, %g, %g)", k, q.X, q.Y, q.Z)}
			}
			r := int32(len(p.Positions))
			p.Positions = append(p.Positions, q)
			p.Indices = append(p.Indices, r)
			p.Source = append(p.Source, r)
		}
	}
	if len(tris) == 0 {
		return nil, &ParseError{Path: name, Msg: "no facets", Err: ErrNoGeometry}
	}
	m.Primitives = []Primitive{p}
	m.MeshNames = []string{m.Name}
	return m, nil
}

// readSTLLib reads a complete STL (one binary file, or one ASCII solid)
// with hschendel/stl.
func readSTLLib(data []byte) ([]stl.Triangle, error) {
	s, err := stl.ReadAll(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return s.Triangles, nil
}

// looksASCIISTL reports whether data starts with "solid" and its first
// kilobyte is the text of an ASCII STL (any bytes in a solid's name).
func looksASCIISTL(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	if !bytes.HasPrefix(t, []byte("solid")) {
		return false
	}
	head := t
	if len(head) > 1024 {
		head = head[:1024]
	}
	// The solid and endsolid lines carry a name of any bytes (UTF-8 "solid
	// 月", Latin-1); every other line is ASCII text, and a facet or the
	// endsolid follows the first solid line.
	keyword := false
	for i, line := range bytes.Split(head, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		kw := string(bytes.ToLower(f[0]))
		if kw == "solid" || kw == "endsolid" {
			keyword = keyword || (i > 0 && kw == "endsolid")
			continue
		}
		if i > 0 && (kw == "facet" || kw == "endsolid") {
			keyword = true
		}
		for _, c := range line {
			if c == 0 || (c < 0x20 && c != '\r' && c != '\t') || c >= 0x7f {
				return false
			}
		}
	}
	return keyword || len(t) <= len(head) && bytes.IndexByte(t, '\n') < 0
}

// normalizeASCIISTL rewrites an ASCII STL in the exact form hschendel/stl
// parses: lower-case keywords (many exporters write ENDLOOP or EndSolid),
// single spaces between words (a tab after "solid" is common), one line
// per input line so that line numbers stay right.
func normalizeASCIISTL(data []byte) []byte {
	out := make([]byte, 0, len(data)+len(data)/16)
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		fields := bytes.Fields(line)
		if len(fields) > 0 {
			kw := bytes.ToLower(fields[0])
			out = append(out, kw...)
			if string(kw) == "solid" || string(kw) == "endsolid" {
				// keep the name as it is
				out = append(out, ' ')
				for i, f := range fields[1:] {
					if i > 0 {
						out = append(out, ' ')
					}
					out = append(out, f...)
				}
			} else {
				for _, f := range fields[1:] {
					out = append(out, ' ')
					out = append(out, bytes.ToLower(f)...)
				}
			}
		}
		out = append(out, '\n')
	}
	return out
}

// readSTLASCII reads every solid ... endsolid block of an ASCII file.
func readSTLASCII(data []byte, name string) ([]stl.Triangle, error) {
	var tris []stl.Triangle
	line := 1
	rest := data
	for len(bytes.TrimSpace(rest)) > 0 {
		start := bytes.Index(rest, []byte("solid"))
		if start < 0 || len(bytes.TrimSpace(rest[:start])) > 0 {
			return nil, &ParseError{Path: name, Place: fmt.Sprintf("line %d", line+bytes.Count(rest[:max(start, 0)], []byte("\n"))), Msg: "text outside a solid ... endsolid block"}
		}
		line += bytes.Count(rest[:start], []byte("\n"))
		block := rest[start:]
		end := findEndsolid(block)
		if end < 0 {
			return nil, &ParseError{Path: name, Place: fmt.Sprintf("line %d", line), Msg: "solid without endsolid: the file is truncated"}
		}
		// include the endsolid line
		eol := bytes.IndexByte(block[end:], '\n')
		if eol < 0 {
			eol = len(block) - end
		} else {
			eol++
		}
		one := block[:end+eol]
		t, err := readSTLLib(one)
		if err != nil {
			return nil, &ParseError{Path: name, Place: fmt.Sprintf("solid at line %d", line), Msg: "ASCII STL: " + err.Error()}
		}
		tris = append(tris, t...)
		line += bytes.Count(one, []byte("\n"))
		rest = block[end+eol:]
	}
	return tris, nil
}

// findEndsolid returns the offset of the "endsolid" keyword at the start of
// a line in block, or -1.
func findEndsolid(block []byte) int {
	off := 0
	for {
		i := bytes.Index(block[off:], []byte("endsolid"))
		if i < 0 {
			return -1
		}
		j := off + i
		k := j
		for k > 0 && (block[k-1] == ' ' || block[k-1] == '\t') {
			k--
		}
		if k == 0 || block[k-1] == '\n' || block[k-1] == '\r' {
			return j
		}
		off = j + len("endsolid")
	}
}
