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
	cw, err := NewPC2Writer(w, n, len(frames), start, rate)
	if err != nil {
		return err
	}
	return writeAll(cw, frames)
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
	cw, err := NewMDDWriter(w, n, times)
	if err != nil {
		return err
	}
	return writeAll(cw, frames)
}

func writeAll(cw *CacheWriter, frames [][]vec.Vec3) error {
	for _, f := range frames {
		if err := cw.WriteFrame(f); err != nil {
			return err
		}
	}
	return cw.Close()
}

// CacheWriter streams a PC2 or MDD point cache one frame at a time: the
// header, which holds the frame count, is written first, so a long bake
// need not hold its frames. The bytes are those of WritePC2 and WriteMDD.
type CacheWriter struct {
	bw     *bufio.Writer
	format string // "pc2" or "mdd", for messages
	order  binary.AppendByteOrder
	points int
	frames int // frames the header announced
	done   int // frames written
	buf    []byte
}

// NewPC2Writer writes the header of a PC2 cache of frames samples of points
// points each (see WritePC2 for start and rate) and returns the writer of
// its frames.
func NewPC2Writer(w io.Writer, points, frames int, start, rate float64) (*CacheWriter, error) {
	if err := checkCounts(points, frames); err != nil {
		return nil, fmt.Errorf("write pc2: %w", err)
	}
	if !finite32(start) || !finite32(rate) || rate <= 0 {
		return nil, fmt.Errorf("write pc2: start frame %g, sample rate %g: both must be finite and the rate > 0", start, rate)
	}
	cw := newCacheWriter(w, "pc2", binary.LittleEndian, points, frames)
	var head [32]byte
	copy(head[:12], pc2Signature)
	le := binary.LittleEndian
	le.PutUint32(head[12:], 1)
	le.PutUint32(head[16:], uint32(points))
	le.PutUint32(head[20:], math.Float32bits(float32(start)))
	le.PutUint32(head[24:], math.Float32bits(float32(rate)))
	le.PutUint32(head[28:], uint32(frames))
	cw.bw.Write(head[:])
	return cw, nil
}

// NewMDDWriter writes the header of an MDD cache of len(times) frames of
// points points each (see WriteMDD for times) and returns the writer of
// its frames.
func NewMDDWriter(w io.Writer, points int, times []float64) (*CacheWriter, error) {
	if err := checkCounts(points, len(times)); err != nil {
		return nil, fmt.Errorf("write mdd: %w", err)
	}
	for k, t := range times {
		if !finite32(t) || (k > 0 && !(t > times[k-1])) {
			return nil, fmt.Errorf("write mdd: time %d = %g: times must be finite and increasing", k, t)
		}
	}
	cw := newCacheWriter(w, "mdd", binary.BigEndian, points, len(times))
	be := binary.BigEndian
	var b [8]byte
	be.PutUint32(b[0:], uint32(len(times)))
	be.PutUint32(b[4:], uint32(points))
	cw.bw.Write(b[:])
	for _, t := range times {
		be.PutUint32(b[:4], math.Float32bits(float32(t)))
		cw.bw.Write(b[:4])
	}
	return cw, nil
}

func newCacheWriter(w io.Writer, format string, o binary.AppendByteOrder, points, frames int) *CacheWriter {
	return &CacheWriter{bw: bufio.NewWriterSize(w, 1<<16), format: format, order: o, points: points, frames: frames, buf: make([]byte, 0, 12*256)}
}

// WriteFrame writes the next frame's points, failing on a frame of another
// point count, a frame beyond the header's count, or a point float32
// cannot hold.
func (cw *CacheWriter) WriteFrame(f []vec.Vec3) error {
	k := cw.done
	if k >= cw.frames {
		return fmt.Errorf("write %s: frame %d beyond the %d frames of the header", cw.format, k, cw.frames)
	}
	if len(f) != cw.points {
		return fmt.Errorf("write %s: frame %d has %d points, frame 0 has %d: every frame must have the same points", cw.format, k, len(f), cw.points)
	}
	for i := 0; i < len(f); i += 256 {
		end := min(i+256, len(f))
		b := cw.buf[:0]
		for j, p := range f[i:end] {
			if !finite32(p.X) || !finite32(p.Y) || !finite32(p.Z) {
				return fmt.Errorf("write %s: frame %d point %d = %v is not a finite float32", cw.format, k, i+j, p)
			}
			b = cw.order.AppendUint32(b, math.Float32bits(float32(p.X)))
			b = cw.order.AppendUint32(b, math.Float32bits(float32(p.Y)))
			b = cw.order.AppendUint32(b, math.Float32bits(float32(p.Z)))
		}
		if _, err := cw.bw.Write(b); err != nil {
			return fmt.Errorf("write %s: %w", cw.format, err)
		}
	}
	cw.done++
	return nil
}

// Close flushes the cache; it fails when fewer frames were written than
// the header announced.
func (cw *CacheWriter) Close() error {
	if cw.done != cw.frames {
		return fmt.Errorf("write %s: %d of the header's %d frames written", cw.format, cw.done, cw.frames)
	}
	if err := cw.bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", cw.format, err)
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
	if err := checkCounts(n, len(frames)); err != nil {
		return 0, err
	}
	for k, f := range frames {
		if len(f) != n {
			return 0, fmt.Errorf("frame %d has %d points, frame 0 has %d: every frame must have the same points", k, len(f), n)
		}
	}
	return n, nil
}

// checkCounts refuses no frames, no points and counts beyond int32.
func checkCounts(points, frames int) error {
	if frames <= 0 {
		return errors.New("no frames")
	}
	if points <= 0 {
		return errors.New("frame 0 has no points")
	}
	if points > math.MaxInt32 || frames > math.MaxInt32 {
		return fmt.Errorf("%d frames of %d points: too many for the format", frames, points)
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
