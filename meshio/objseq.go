package meshio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/drape-sim/drape/internal/vec"
)

// WriteOBJ writes one frame of an OBJ sequence: the mesh m with its render
// vertices at positions (one per render vertex, primitives concatenated, as
// in Animation.Frames).
//
// The v lines follow the input file's vertex order (Primitive.Source,
// m.SourceVertices), so for an OBJ input frame files line up vertex for
// vertex with the original; file vertices no face uses are written at the
// origin. Faces are the mesh's triangles, with one vt per render vertex of
// a primitive that has UVs (in OBJ's convention, v pointing up). Positions
// are written as given: convert them back to the input's up axis and units
// first if the sequence must overlay the original file.
func WriteOBJ(w io.Writer, m *Mesh, positions []vec.Vec3) error {
	nv := m.NumVertices()
	if len(positions) != nv {
		return fmt.Errorf("write obj: %d positions for %d render vertices", len(positions), nv)
	}
	ns := m.SourceVertices
	if ns == 0 {
		ns = nv
	}
	src := make([]vec.Vec3, ns)
	if len(m.SourcePositions) == ns {
		copy(src, m.SourcePositions) // vertices no face uses stay where they are
	}
	r := 0
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		for j := range p.Positions {
			s := r + j
			if p.Source != nil {
				s = int(p.Source[j])
			}
			if s < 0 || s >= ns {
				return fmt.Errorf("write obj: %s: vertex %d maps to file vertex %d of %d", p.Name, j, s, ns)
			}
			src[s] = positions[r+j]
		}
		r += len(p.Positions)
	}
	flipV := m.Format == FormatGLTF || m.Format == FormatGLB

	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	b = append(b, "# drape baked frame\n"...)
	if m.Name != "" {
		b = append(b, "o "...)
		b = append(b, m.Name...)
		b = append(b, '\n')
	}
	for i, q := range src {
		if !finite32(q.X) || !finite32(q.Y) || !finite32(q.Z) {
			return fmt.Errorf("write obj: vertex %d = %v is not finite", i, q)
		}
		b = append(b, 'v', ' ')
		b = appendF32(b, q.X)
		b = append(b, ' ')
		b = appendF32(b, q.Y)
		b = append(b, ' ')
		b = appendF32(b, q.Z)
		b = append(b, '\n')
		if len(b) > 1<<15 {
			bw.Write(b)
			b = b[:0]
		}
	}
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		if len(p.UVs) != len(p.Positions) {
			continue
		}
		for _, t := range p.UVs {
			v := float64(t[1])
			if flipV {
				v = 1 - v
			}
			b = append(b, "vt "...)
			b = appendF32(b, float64(t[0]))
			b = append(b, ' ')
			b = appendF32(b, v)
			b = append(b, '\n')
			if len(b) > 1<<15 {
				bw.Write(b)
				b = b[:0]
			}
		}
	}
	r, vt := 0, 0
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		hasUV := len(p.UVs) == len(p.Positions)
		for i := 0; i+2 < len(p.Indices); i += 3 {
			b = append(b, 'f')
			for _, ix := range p.Indices[i : i+3] {
				s := r + int(ix)
				if p.Source != nil {
					s = int(p.Source[ix])
				}
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(s+1), 10)
				if hasUV {
					b = append(b, '/')
					b = strconv.AppendInt(b, int64(vt+int(ix)+1), 10)
				}
			}
			b = append(b, '\n')
			if len(b) > 1<<15 {
				bw.Write(b)
				b = b[:0]
			}
		}
		r += len(p.Positions)
		if hasUV {
			vt += len(p.Positions)
		}
	}
	bw.Write(b)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write obj: %w", err)
	}
	return nil
}

// appendF32 appends x in the shortest decimal form that reads back as the
// same float32, without an exponent.
func appendF32(b []byte, x float64) []byte {
	return strconv.AppendFloat(b, float64(float32(x)), 'f', -1, 32)
}
