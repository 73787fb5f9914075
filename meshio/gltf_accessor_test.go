package meshio

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An accessor whose byteStride times count wraps int64 to a size that
// fits its 36-byte bufferView, and a negative byteStride, are refused by
// the accessor check, naming the accessor, instead of the reader
// allocating for 2^31 elements (a Go runtime fatal error: out of memory).
func TestAccessorStrideCountThatWraps(t *testing.T) {
	data := make([]byte, 36)
	for i, v := range []float32{0, 0, 0, 1, 0, 0, 0, 0, 1} {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	uri := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(data)
	for _, c := range []struct {
		stride int64
		count  int64
		want   string
	}{
		{1 << 33, 1<<31 + 1, "2147483649 elements need 18446744073709551628 bytes but bufferView 0 has 36"},
		{-12, 3, "byteStride -12 is negative"},
		{0, 4, "4 elements need 48 bytes but bufferView 0 has 36"},
		{12, 3, ""},
	} {
		js := fmt.Sprintf(`{"asset": {"version": "2.0"}, "buffers": [{"byteLength": 36, "uri": %q}],
			"bufferViews": [{"buffer": 0, "byteLength": 36, "byteStride": %d}],
			"accessors": [{"bufferView": 0, "componentType": 5126, "count": %d, "type": "VEC3", "min": [0, 0, 0], "max": [1, 0, 1]}],
			"meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}], "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}], "scene": 0}`,
			uri, c.stride, c.count)
		p := filepath.Join(t.TempDir(), "tri.gltf")
		os.WriteFile(p, []byte(js), 0o644)
		_, err := Read(p, DefaultReadOptions())
		if c.want == "" {
			if err != nil {
				t.Errorf("stride %d, count %d: %v", c.stride, c.count, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "tri.gltf: meshes[0].primitives[0] accessor 0: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("stride %d, count %d: %v, want %q", c.stride, c.count, err, c.want)
		}
	}
}
