package meshio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"path/filepath"
	"strings"
)

// ReadMDD reads an MDD point cache (LightWave's format, which WriteMDD
// writes and Blender's MDD exporter and Mesh Cache modifier write and
// read): big-endian int32 frame count and point count, one float32 time
// [s] per frame, then every frame's points as float32 x, y, z. The header
// is checked against the file's size before anything is allocated, and
// every time and point must be finite.
func ReadMDD(r io.Reader, name string) (*PointCache, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{Path: name, Msg: err.Error()}
	}
	if len(b) < 8 {
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("not an MDD point cache: %d bytes, fewer than its 8-byte header (frame count, point count)", len(b))}
	}
	if bytes.HasPrefix(b, []byte(pc2Signature)) {
		return nil, &ParseError{Path: name, Place: "header", Msg: "this is a PC2 point cache (POINTCACHE2 signature), not an MDD: name it .pc2"}
	}
	be := binary.BigEndian
	frames, n := int64(int32(be.Uint32(b[0:]))), int64(int32(be.Uint32(b[4:])))
	if frames <= 0 || n <= 0 {
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("%d frames of %d points: both counts must be > 0 (is this an MDD file? its counts are big-endian)", frames, n)}
	}
	if !pointsFill(int64(len(b))-8-4*frames, n, frames) {
		return nil, &ParseError{Path: name, Place: "header", Msg: fmt.Sprintf("%d frames of %d points take %s bytes with their times, the file has %d", frames, n, mddSize(frames, n), len(b))}
	}
	pc := &PointCache{Rate: 1, Times: make([]float64, frames)}
	for k := range pc.Times {
		t := float64(math.Float32frombits(be.Uint32(b[8+4*k:])))
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, &ParseError{Path: name, Place: fmt.Sprintf("time of frame %d", k), Msg: fmt.Sprintf("%g is not a finite time", t)}
		}
		pc.Times[k] = t
	}
	pc.Frames = readPoints(b[8+4*frames:], be, n, frames)
	for k, f := range pc.Frames {
		for i, p := range f {
			if !finite32(p.X) || !finite32(p.Y) || !finite32(p.Z) {
				return nil, &ParseError{Path: name, Place: fmt.Sprintf("frame %d, point %d", k, i), Msg: fmt.Sprintf("%v is not a finite position", p)}
			}
		}
	}
	return pc, nil
}

// mddSize is the size [bytes] of an MDD file of frames x points, as a
// decimal string (it may exceed int64).
func mddSize(frames, points int64) string {
	f := big.NewInt(frames)
	s := new(big.Int).Mul(f, big.NewInt(12*points)) // 12 x < 2^31 fits int64
	s.Add(s, f.Mul(f, big.NewInt(4)))
	return s.Add(s, big.NewInt(8)).String()
}

// ReadMDDFile reads the MDD point cache at path (see ReadMDD).
func ReadMDDFile(path string) (*PointCache, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("cannot read the file: %v", unwrapPathError(err)), Err: err}
	}
	return ReadMDD(bytes.NewReader(data), path)
}

// ReadPointCacheFile reads the point cache at path: an MDD when its name
// ends in .mdd, else a PC2.
func ReadPointCacheFile(path string) (*PointCache, error) {
	if strings.EqualFold(filepath.Ext(path), ".mdd") {
		return ReadMDDFile(path)
	}
	return ReadPC2File(path)
}
