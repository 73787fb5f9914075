package meshio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
)

// Extent limits outside which Read warns that the file is probably not in
// metres [m].
const (
	warnExtentMax = 50
	warnExtentMin = 0.01
)

// Validate reports an option out of range, naming the field, its value and
// the allowed range.
func (o ReadOptions) Validate() error {
	if math.IsNaN(o.Scale) || math.IsInf(o.Scale, 0) || o.Scale <= 0 {
		return fmt.Errorf("scale = %g: must be a finite number > 0 (0.01 for centimetres)", o.Scale)
	}
	if o.Up != AxisY && o.Up != AxisZ {
		return fmt.Errorf("up axis = %d: must be y or z", int(o.Up))
	}
	return nil
}

// Read reads the render mesh in path. The format comes from the file name's
// ending (.gltf, .glb, .obj, .stl, any case), or from the content when the
// ending is unknown. The mesh is in world space, Y-up, metres: glTF node
// transforms are applied, OBJ and STL are rotated from Z-up when opt.Up is
// AxisZ, and every coordinate is multiplied by opt.Scale.
//
// Every error is a *ParseError naming the file and the place; errors.Is
// matches ErrUnsupported for valid files drape cannot decode and
// ErrNoGeometry for files without triangles.
func Read(path string, opt ReadOptions) (*Mesh, error) {
	if err := opt.Validate(); err != nil {
		return nil, &ParseError{Path: path, Place: "options", Msg: err.Error()}
	}
	data, err := ReadFile(path)
	if err != nil {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("cannot read the file: %v", unwrapPathError(err)), Err: err}
	}
	format := formatFromName(path)
	if format == FormatInvalid {
		format = sniffFormat(data)
	}
	return readBytes(data, path, format, dirFS{filepath.Dir(path)}, opt)
}

// unwrapPathError drops the path from an *fs.PathError, which ParseError
// already names.
func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// readBytes parses data (the content of the file name) in the given format.
// fsys resolves a .gltf file's external buffers; it may be nil. Tests and
// fuzzers call it directly.
func readBytes(data []byte, name string, format Format, fsys fs.FS, opt ReadOptions) (*Mesh, error) {
	var (
		m   *Mesh
		err error
	)
	switch format {
	case FormatOBJ:
		m, err = readOBJ(bufio.NewReaderSize(bytes.NewReader(data), 1<<16), name, opt)
	case FormatSTL:
		m, err = readSTL(data, name, opt)
	case FormatGLTF, FormatGLB:
		m, err = readGLTF(data, name, fsys, opt)
	default:
		return nil, &ParseError{Path: name, Msg: "unknown mesh format: use a .gltf, .glb, .obj or .stl file"}
	}
	if err != nil {
		return nil, err
	}
	if err := finish(m, opt); err != nil {
		return nil, err
	}
	return m, nil
}

// formatFromName returns the format named by the file's ending, or
// FormatInvalid.
func formatFromName(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gltf":
		return FormatGLTF
	case ".glb":
		return FormatGLB
	case ".obj":
		return FormatOBJ
	case ".stl":
		return FormatSTL
	}
	return FormatInvalid
}

// sniffFormat guesses the format from the first bytes of a file with an
// unknown ending.
func sniffFormat(data []byte) Format {
	if len(data) >= 4 && string(data[:4]) == "glTF" {
		return FormatGLB
	}
	if len(data) >= 84 {
		n := int64(binary.LittleEndian.Uint32(data[80:84]))
		if 84+50*n == int64(len(data)) {
			return FormatSTL
		}
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case len(t) > 0 && t[0] == '{':
		return FormatGLTF
	case bytes.HasPrefix(t, []byte("solid")):
		return FormatSTL
	}
	head := data
	if len(head) > 4096 {
		head = head[:4096]
	}
	for _, line := range bytes.Split(head, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if bytes.HasPrefix(line, []byte("v ")) || bytes.HasPrefix(line, []byte("f ")) {
			return FormatOBJ
		}
	}
	return FormatInvalid
}

// zUp reports whether a file of format f is turned from Z-up: OBJ and STL
// when opt.Up is AxisZ (glTF is Y-up by definition).
func (opt ReadOptions) zUp(f Format) bool {
	return opt.Up == AxisZ && (f == FormatOBJ || f == FormatSTL)
}

// Place maps a point as a file of format f stores it to drape's world, as
// Read does: turned from Z-up (see ReadOptions.Up) and scaled. A point
// cache written for the file's vertices takes the same mapping.
func (opt ReadOptions) Place(f Format, p vec.Vec3) vec.Vec3 {
	if opt.zUp(f) {
		p = vec.Vec3{X: p.X, Y: p.Z, Z: -p.Y}
	}
	return p.Scale(opt.Scale)
}

// finish applies the up axis and scale, checks that every coordinate is
// finite and every index in range, and adds unit warnings.
func finish(m *Mesh, opt ReadOptions) error {
	zUp := opt.zUp(m.Format)
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		for i, q := range p.Positions {
			q = opt.Place(m.Format, q)
			if !q.IsFinite() {
				return &ParseError{Path: m.Path, Place: p.Name, Msg: fmt.Sprintf("vertex %d is not finite after scaling by %g", i, opt.Scale)}
			}
			p.Positions[i] = q
		}
		if zUp {
			for i, n := range p.Normals {
				p.Normals[i] = vec.Vec3{X: n.X, Y: n.Z, Z: -n.Y}
			}
		}
		nv := int32(len(p.Positions))
		for _, ix := range p.Indices {
			if ix < 0 || ix >= nv {
				return &ParseError{Path: m.Path, Place: p.Name, Msg: fmt.Sprintf("index %d out of range (%d vertices)", ix, nv)}
			}
		}
	}
	for i, q := range m.SourcePositions {
		m.SourcePositions[i] = opt.Place(m.Format, q)
	}
	for i, l := range m.LineSegments {
		a, b := opt.Place(m.Format, l[0]), opt.Place(m.Format, l[1])
		if !a.IsFinite() || !b.IsFinite() {
			return &ParseError{Path: m.Path, Place: "line primitives", Msg: fmt.Sprintf("loose edge %d is not finite after scaling by %g", i, opt.Scale)}
		}
		m.LineSegments[i] = [2]vec.Vec3{a, b}
	}
	if m.NumTriangles() == 0 {
		return &ParseError{Path: m.Path, Msg: "no triangles: the file holds no faces", Err: ErrNoGeometry}
	}
	lo, hi := m.Bounds()
	ext := hi.Sub(lo)
	size := math.Max(ext.X, math.Max(ext.Y, ext.Z))
	switch {
	case size > warnExtentMax:
		m.Warnings = append(m.Warnings, fmt.Sprintf("mesh is %.4g m across: is it in centimetres or millimetres? use --scale 0.01 or 0.001", size))
	case size < warnExtentMin && size > 0:
		m.Warnings = append(m.Warnings, fmt.Sprintf("mesh is %.4g m across: is it in kilometres or too small? use --scale to give it its size in metres", size))
	}
	return nil
}

// Bounds returns the corners of the axis-aligned box around every render
// vertex [m]. A mesh without vertices gives two zero vectors.
func (m *Mesh) Bounds() (lo, hi vec.Vec3) {
	first := true
	for pi := range m.Primitives {
		for _, q := range m.Primitives[pi].Positions {
			if first {
				lo, hi, first = q, q, false
				continue
			}
			lo, hi = lo.Min(q), hi.Max(q)
		}
	}
	return lo, hi
}
