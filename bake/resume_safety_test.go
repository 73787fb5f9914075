//go:build linux

package bake

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drape-sim/drape/meshio"
)

// A batch's resume record and the files it hashes are read as every input
// is: a FIFO or a link to /dev/zero is refused instead of hanging or
// reading forever.
func TestResumeReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 2, "out.glb")
	rp := RecordPath(sc)
	if err := syscall.Mkfifo(rp, 0o644); err != nil {
		t.Fatal(err)
	}
	// held open for writing at most 5 s: a reader that waited would then
	// see the end of the file and the test fails instead of hanging
	w, err := os.OpenFile(rp, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	tm := time.AfterFunc(5*time.Second, func() { w.Close() })
	defer func() { tm.Stop(); w.Close() }()
	if rec, why := CheckDone(sc, Stamp{}); rec != nil || !strings.Contains(why, "not a regular file") {
		t.Errorf("CheckDone with a FIFO as the record: %v %q, want it unreadable as not a regular file", rec, why)
	}
	zero := filepath.Join(dir, "zero.obj")
	os.Symlink("/dev/zero", zero)
	if _, err := hashPath(zero); !errors.Is(err, meshio.ErrNotRegular) {
		t.Errorf("hashPath of a link to /dev/zero: %v, want ErrNotRegular", err)
	}
}
