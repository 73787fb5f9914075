package meshio

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func TestReadPC2RoundTrip(t *testing.T) {
	frames := [][]vec.Vec3{{vec.V(1, 2, 3), vec.V(-1, 0.5, 0)}, {vec.V(1.5, 2, 3), vec.V(-1, 0.25, 4)}}
	var buf bytes.Buffer
	if err := WritePC2(&buf, frames, 0, 2); err != nil {
		t.Fatal(err)
	}
	pc, err := ReadPC2(bytes.NewReader(buf.Bytes()), "a.pc2")
	if err != nil {
		t.Fatal(err)
	}
	if pc.Start != 0 || pc.Rate != 2 || len(pc.Frames) != 2 || pc.Frames[1][1] != vec.V(-1, 0.25, 4) {
		t.Errorf("ReadPC2 = start %g rate %g frames %v, want 0, 2 and the written frames", pc.Start, pc.Rate, pc.Frames)
	}
	for _, bad := range [][]byte{nil, []byte("POINTCACHE2\x00 too short"), buf.Bytes()[:buf.Len()-1]} {
		if _, err := ReadPC2(bytes.NewReader(bad), "bad.pc2"); err == nil {
			t.Errorf("ReadPC2 of %d bytes = nil error", len(bad))
		}
	}
}

// A 12 KB PC2 whose point and sample counts, times 12, wrap int64 to the
// file's size is refused by its header, not read into billions of points
// (a Go runtime fatal error: out of memory).
func TestReadPC2CountsThatWrap(t *testing.T) {
	const n, samples = 2147380029, 715862424 // 12 n samples = 2^64 + 11936
	b := make([]byte, 32+11936)
	copy(b, pc2Signature)
	le := binary.LittleEndian
	le.PutUint32(b[12:], 1)
	le.PutUint32(b[16:], n)
	le.PutUint32(b[28:], samples)
	_, err := ReadPC2(bytes.NewReader(b), "wrap.pc2")
	if err == nil || !strings.Contains(err.Error(), "wrap.pc2: header: 2147380029 points x 715862424 samples does not match the file's 11968 bytes") {
		t.Errorf("ReadPC2 = %v, want the header refused", err)
	}
}
