package meshio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// pc2Signature opens every PC2 file: "POINTCACHE2" and a NUL, 12 bytes.
const pc2Signature = "POINTCACHE2\x00"

// WritePC2 writes frames as a PC2 point cache (3ds Max's format, which
// Blender's Mesh Cache modifier reads): a little-endian header (signature,
// version 1, point count, start frame, sample rate, sample count), then every
// sample's points as float32 x, y, z.
//
// frames[k] holds the points of sample k in the order the target mesh numbers
// its vertices (see SourceOrder) and in the target application's axes (see
// ToBlenderAxes). start is the scene frame of the first sample and rate the
// number of scene frames between samples (1 for every frame, K for
// --frame-step K). Blender's Mesh Cache modifier, in its default Frame time
// mode, plays sample k at scene frame k plus its Frame Start setting.
func WritePC2(w io.Writer, frames [][]vec.Vec3, start, rate float64) error {
	n, err := checkFrames(frames)
	if err != nil {
		return fmt.Errorf("write pc2: %w", err)
	}
	if !finite32(start) || !finite32(rate) || rate <= 0 {
		return fmt.Errorf("write pc2: start frame %g, sample rate %g: both must be finite and the rate > 0", start, rate)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var head [32]byte
	copy(head[:12], pc2Signature)
	le := binary.LittleEndian
	le.PutUint32(head[12:], 1)
	le.PutUint32(head[16:], uint32(n))
	le.PutUint32(head[20:], math.Float32bits(float32(start)))
	le.PutUint32(head[24:], math.Float32bits(float32(rate)))
	le.PutUint32(head[28:], uint32(len(frames)))
	bw.Write(head[:])
	if err := writePoints(bw, frames, le); err != nil {
		return fmt.Errorf("write pc2: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write pc2: %w", err)
	}
	return nil
}

// WriteMDD writes frames as an MDD point cache (LightWave's format, which
// Blender's Mesh Cache modifier and MDD importer read): big-endian int32 frame
// count and point count, one float32 time [s] per frame, then every frame's
// points as float32 x, y, z. times[k] is the time of frames[k] and must
// increase. Point order and axes are the caller's, as for WritePC2.
func WriteMDD(w io.Writer, frames [][]vec.Vec3, times []float64) error {
	n, err := checkFrames(frames)
	if err != nil {
		return fmt.Errorf("write mdd: %w", err)
	}
	if len(times) != len(frames) {
		return fmt.Errorf("write mdd: %d times for %d frames: give one time per frame", len(times), len(frames))
	}
	for k, t := range times {
		if !finite32(t) || (k > 0 && !(t > times[k-1])) {
			return fmt.Errorf("write mdd: time %d = %g: times must be finite and increasing", k, t)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	be := binary.BigEndian
	var b [8]byte
	be.PutUint32(b[0:], uint32(len(frames)))
	be.PutUint32(b[4:], uint32(n))
	bw.Write(b[:])
	for _, t := range times {
		be.PutUint32(b[:4], math.Float32bits(float32(t)))
		bw.Write(b[:4])
	}
	if err := writePoints(bw, frames, be); err != nil {
		return fmt.Errorf("write mdd: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write mdd: %w", err)
	}
	return nil
}

// checkFrames returns the point count shared by every frame, or an error for
// no frames, no points, frames of different lengths or counts beyond int32.
func checkFrames(frames [][]vec.Vec3) (int, error) {
	if len(frames) == 0 {
		return 0, errors.New("no frames")
	}
	n := len(frames[0])
	if n == 0 {
		return 0, errors.New("frame 0 has no points")
	}
	if n > math.MaxInt32 || len(frames) > math.MaxInt32 {
		return 0, fmt.Errorf("%d frames of %d points: too many for the format", len(frames), n)
	}
	for k, f := range frames {
		if len(f) != n {
			return 0, fmt.Errorf("frame %d has %d points, frame 0 has %d: every frame must have the same points", k, len(f), n)
		}
	}
	return n, nil
}

// writePoints writes every frame's points as float32 triples in byte order
// o, failing on the first point float32 cannot hold.
func writePoints(w *bufio.Writer, frames [][]vec.Vec3, o binary.AppendByteOrder) error {
	var buf [12 * 256]byte
	for k, f := range frames {
		for i := 0; i < len(f); i += 256 {
			end := min(i+256, len(f))
			b := buf[:0]
			for j, p := range f[i:end] {
				if !finite32(p.X) || !finite32(p.Y) || !finite32(p.Z) {
					return fmt.Errorf("frame %d point %d = %v is not a finite float32", k, i+j, p)
				}
				b = o.AppendUint32(b, math.Float32bits(float32(p.X)))
				b = o.AppendUint32(b, math.Float32bits(float32(p.Y)))
				b = o.AppendUint32(b, math.Float32bits(float32(p.Z)))
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// finite32 reports whether x is finite and stays finite as a float32.
func finite32(x float64) bool {
	return !math.IsNaN(x) && math.Abs(x) <= math.MaxFloat32
}

// SourceOrder writes the render frame renderFrame (one position per render
// vertex, primitives concatenated) in the input file's own vertex order:
// dst[Primitive.Source[j]] = renderFrame[r] for render vertex r = primitive
// start + j. For an OBJ input that is the order of its v lines, so a point
// cache lines up with the OBJ as Blender imports it. Render vertices that
// share a file vertex share its position after welding, so which one writes
// last does not matter.
//
// dst must have m.SourceVertices entries (m.NumVertices when SourceVertices
// is 0). A primitive without Source is taken to be in file order already.
// File vertices no face uses have no render vertex and keep whatever dst
// held: fill dst with the rest positions first if the file has any.
func SourceOrder(m *Mesh, renderFrame []vec.Vec3, dst []vec.Vec3) {
	r := 0
	for pi := range m.Primitives {
		p := &m.Primitives[pi]
		n := len(p.Positions)
		if p.Source == nil {
			copy(dst[r:r+n], renderFrame[r:r+n])
		} else {
			for j, s := range p.Source {
				dst[s] = renderFrame[r+j]
			}
		}
		r += n
	}
}

// ToBlenderAxes converts a point from drape's Y-up axes to Blender's Z-up
// axes, as Blender's glTF and OBJ importers do: (x, y, z) becomes (x, -z, y).
func ToBlenderAxes(p vec.Vec3) vec.Vec3 { return vec.Vec3{X: p.X, Y: -p.Z, Z: p.Y} }
