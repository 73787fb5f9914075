package meshio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/drape-sim/drape/internal/vec"
)

// PointCache is a PC2 point cache read back: every sample's positions in the
// order and axes they were written, and the cache's timing.
type PointCache struct {
	Start, Rate float64      // first sample's frame and frames between samples
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
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("not a PC2 point cache (%d bytes, no POINTCACHE2 signature)", len(b))}
	}
	le := binary.LittleEndian
	n, samples := int64(int32(le.Uint32(b[16:]))), int64(int32(le.Uint32(b[28:])))
	if n <= 0 || samples <= 0 || int64(len(b)) != 32+12*n*samples {
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("%d points x %d samples does not match the file's %d bytes", n, samples, len(b))}
	}
	pc := &PointCache{
		Start:  float64(math.Float32frombits(le.Uint32(b[20:]))),
		Rate:   float64(math.Float32frombits(le.Uint32(b[24:]))),
		Frames: make([][]vec.Vec3, samples),
	}
	off := 32
	for k := range pc.Frames {
		f := make([]vec.Vec3, n)
		for i := range f {
			f[i] = vec.V(float64(math.Float32frombits(le.Uint32(b[off:]))),
				float64(math.Float32frombits(le.Uint32(b[off+4:]))),
				float64(math.Float32frombits(le.Uint32(b[off+8:]))))
			off += 12
		}
		pc.Frames[k] = f
	}
	return pc, nil
}

// ReadPC2File reads the PC2 point cache at path (see ReadPC2).
func ReadPC2File(path string) (*PointCache, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("cannot read the file: %v", unwrapPathError(err)), Err: err}
	}
	return ReadPC2(bytes.NewReader(data), path)
}
