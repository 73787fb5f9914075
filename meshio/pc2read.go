package meshio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// PointCache is a PC2 or MDD point cache read back: every sample's
// positions in the order and axes they were written, and the cache's
// timing.
type PointCache struct {
	Start, Rate float64      // PC2: first sample's frame and frames between samples (MDD: 0 and 1)
	Times       []float64    // MDD: each sample's time [s] (PC2: nil)
	Frames      [][]vec.Vec3 // per sample, per point
}

// ReadPC2 reads a PC2 point cache (the format WritePC2 writes and Blender's
// Mesh Cache modifier reads), checking its header against its size. The
// benchmark and the example tests read drape's and Blender's caches with it.
func ReadPC2(r io.Reader, name string) (*PointCache, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{Path: name, Msg: err.Error()}
	}
	if len(b) < 32 || string(b[:12]) != "POINTCACHE2\x00" {
		hint := ""
		if len(b) >= 8 {
			hint = " (an MDD point cache needs the .mdd extension)"
		}
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("not a PC2 point cache (%d bytes, no POINTCACHE2 signature)%s", len(b), hint)}
	}
	le := binary.LittleEndian
	n, samples := int64(int32(le.Uint32(b[16:]))), int64(int32(le.Uint32(b[28:])))
	if !pointsFill(int64(len(b))-32, n, samples) {
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("%d points x %d samples does not match the file's %d bytes", n, samples, len(b))}
	}
	pc := &PointCache{
		Start:  float64(math.Float32frombits(le.Uint32(b[20:]))),
		Rate:   float64(math.Float32frombits(le.Uint32(b[24:]))),
		Frames: readPoints(b[32:], le, n, samples),
	}
	return pc, nil
}

// pointsFill reports whether body bytes hold exactly samples x points
// float32 x, y, z, both counts > 0. It divides rather than multiplies:
// two int32 counts times 12 overflow int64, and a 12 KB file whose
// counts wrap to its size would have the reader allocate for billions of
// points.
func pointsFill(body, points, samples int64) bool {
	if points <= 0 || samples <= 0 || body <= 0 || body%12 != 0 {
		return false
	}
	per := body / 12
	return per%samples == 0 && per/samples == points
}

// readPoints decodes samples x points float32 x, y, z from b, which
// pointsFill has checked holds exactly that many.
func readPoints(b []byte, o binary.ByteOrder, points, samples int64) [][]vec.Vec3 {
	frames := make([][]vec.Vec3, samples)
	off := 0
	for k := range frames {
		f := make([]vec.Vec3, points)
		for i := range f {
			f[i] = vec.V(float64(math.Float32frombits(o.Uint32(b[off:]))),
				float64(math.Float32frombits(o.Uint32(b[off+4:]))),
				float64(math.Float32frombits(o.Uint32(b[off+8:]))))
			off += 12
		}
		frames[k] = f
	}
	return frames
}

// ReadPC2File reads the PC2 point cache at path (see ReadPC2).
func ReadPC2File(path string) (*PointCache, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("cannot read the file: %v", unwrapPathError(err)), Err: err}
	}
	return ReadPC2(bytes.NewReader(data), path)
}
