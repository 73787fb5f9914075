package bake

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// staged is an output written to a temporary name beside its target, waiting
// to be renamed into place. Nothing is visible at the target until commit.
type staged struct {
	target string
	tmp    string
	dir    bool // an OBJ-sequence folder rather than a file
}

// Temporary outputs are named ".<target name>.tmp-<pid>-<random>" beside
// their target, so that the next bake of the same target can tell its own
// leftovers (a bake killed while writing) from a bake still running: a
// leftover whose process is gone is removed.
func tmpPattern(target string) string {
	return "." + filepath.Base(target) + ".tmp-" + strconv.Itoa(os.Getpid()) + "-*"
}

// staleUnnumberedAge is how old a temporary output without a process id
// (written by drape before it numbered them) must be to count as a
// leftover: no bake writes one file for that long.
const staleUnnumberedAge = time.Hour

// removeStale removes leftovers of earlier bakes of target (see
// tmpPattern). Errors are ignored: a leftover that cannot be removed harms
// nothing but disk space.
func removeStale(target string) {
	dir, base := filepath.Split(filepath.Clean(target))
	if dir == "" {
		dir = "."
	}
	prefix := "." + base + ".tmp-"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := name[len(prefix):]
		if i := strings.IndexByte(rest, '-'); i > 0 {
			if pid, err := strconv.Atoi(rest[:i]); err == nil {
				if pid == os.Getpid() || pidAlive(pid) {
					continue
				}
				os.RemoveAll(filepath.Join(dir, name))
				continue
			}
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleUnnumberedAge {
			os.RemoveAll(filepath.Join(dir, name))
		}
	}
}

// live holds the temporary outputs being written or waiting for commit,
// so that AbandonStaged can remove them when the process must end at once.
var live = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

func track(tmp string, on bool) {
	live.Lock()
	defer live.Unlock()
	if on {
		live.paths[tmp] = true
	} else {
		delete(live.paths, tmp)
	}
}

// AbandonStaged removes every temporary output of this process, for a
// process that ends before its bakes return (a cancel that a phase did not
// notice in time): no target changes, and no temporary file stays.
func AbandonStaged() {
	live.Lock()
	defer live.Unlock()
	for p := range live.paths {
		os.RemoveAll(p)
		delete(live.paths, p)
	}
}

// stagedFile is a temporary file beside its target, open for writing
// through w; finish closes it and readies it for commit, abort removes it.
type stagedFile struct {
	*staged
	f *os.File
	w *bufio.Writer
}

// openStaged creates the temporary file beside target.
func openStaged(target string) (*stagedFile, error) {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, writeFailure(target, fmt.Errorf("write %s: create its folder %s: %w", target, dir, err))
	}
	removeStale(target)
	f, err := os.CreateTemp(dir, tmpPattern(target))
	if err != nil {
		return nil, writeFailure(target, fmt.Errorf("write %s: %w", target, err))
	}
	st := &staged{target: target, tmp: f.Name()}
	track(st.tmp, true)
	return &stagedFile{staged: st, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// finish flushes, syncs and closes the file; on failure it removes it and
// returns the write failure.
func (s *stagedFile) finish() (*staged, error) {
	err := s.w.Flush()
	if err == nil {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(s.tmp, 0o644)
	}
	if err != nil {
		s.discard()
		return nil, s.fail(err)
	}
	return s.staged, nil
}

// abort closes and removes the file.
func (s *stagedFile) abort() {
	s.f.Close()
	s.discard()
}

// fail is err, a failure to write the staged output, marked as such.
func (s *staged) fail(err error) error {
	return writeFailure(s.target, fmt.Errorf("write %s: %w", s.target, err))
}

// stageFile writes a temporary file beside target through write.
func stageFile(target string, write func(io.Writer) error) (*staged, error) {
	sf, err := openStaged(target)
	if err != nil {
		return nil, err
	}
	if err := write(sf.w); err != nil {
		sf.abort()
		return nil, sf.fail(err)
	}
	return sf.finish()
}

// openStagedDir creates a temporary folder beside target for the files of
// an OBJ sequence; finishDir adds the manifest and readies it for commit.
func openStagedDir(target string) (*staged, error) {
	target = filepath.Clean(target)
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, writeFailure(target, fmt.Errorf("write %s: create its folder %s: %w", target, parent, err))
	}
	removeStale(target)
	tmp, err := os.MkdirTemp(parent, tmpPattern(target))
	if err != nil {
		return nil, writeFailure(target, fmt.Errorf("write %s: %w", target, err))
	}
	st := &staged{target: target, tmp: tmp, dir: true}
	track(tmp, true)
	return st, nil
}

// finishDir adds the sequence manifest listing the folder's files; on
// failure it removes the folder and returns the write failure.
func (s *staged) finishDir() (*staged, error) {
	err := writeSeqManifest(s.tmp)
	if err == nil {
		err = os.Chmod(s.tmp, 0o755)
	}
	if err != nil {
		s.discard()
		return nil, s.fail(err)
	}
	return s, nil
}

// discard removes a staged output.
func (s *staged) discard() {
	defer track(s.tmp, false)
	if s.dir {
		os.RemoveAll(s.tmp)
	} else {
		os.Remove(s.tmp)
	}
}

// commit renames the staged output onto its target. A folder replaces an
// existing folder only when that holds nothing but an earlier drape
// sequence (checkReplaceable): the old one is moved aside first and removed
// once the new one is in place.
func (s *staged) commit() error {
	defer track(s.tmp, false)
	if !s.dir {
		if fi, err := os.Stat(s.target); err == nil && fi.IsDir() {
			s.discard()
			return writeFailure(s.target, fmt.Errorf("write %s: a folder is in the way", s.target))
		}
		if err := os.Rename(s.tmp, s.target); err != nil {
			s.discard()
			return writeFailure(s.target, fmt.Errorf("write %s: %w", s.target, err))
		}
		return nil
	}
	if err := checkReplaceable(s.target); err != nil {
		s.discard()
		return err
	}
	old := ""
	if _, err := os.Lstat(s.target); err == nil {
		old = s.tmp + ".old"
		if err := os.Rename(s.target, old); err != nil {
			s.discard()
			return writeFailure(s.target, fmt.Errorf("replace %s: %w", s.target, err))
		}
	}
	if err := os.Rename(s.tmp, s.target); err != nil {
		if old != "" {
			os.Rename(old, s.target)
		}
		s.discard()
		return writeFailure(s.target, fmt.Errorf("write %s: %w", s.target, err))
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// commitAll renames every staged output into place, or, when any stage
// failed or ctxErr is set, discards them all so no target changes.
func commitAll(st []*staged, ctxErr error) error {
	if ctxErr != nil {
		for _, s := range st {
			s.discard()
		}
		return ctxErr
	}
	for i, s := range st {
		if err := s.commit(); err != nil {
			for _, r := range st[i+1:] {
				r.discard()
			}
			return err
		}
	}
	return nil
}
