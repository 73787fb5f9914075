package meshio

import (
	"bytes"
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
