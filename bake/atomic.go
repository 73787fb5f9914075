package bake

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// staged is an output written to a temporary name beside its target, waiting
// to be renamed into place. Nothing is visible at the target until commit.
type staged struct {
	target string
	tmp    string
	dir    bool // an OBJ-sequence folder rather than a file
}

// stageFile writes a temporary file beside target through write.
func stageFile(target string, write func(io.Writer) error) (*staged, error) {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	st := &staged{target: target, tmp: f.Name()}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(st.tmp)
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	if err := os.Chmod(st.tmp, 0o644); err != nil {
		os.Remove(st.tmp)
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	return st, nil
}

// stageDir creates a temporary folder beside target and lets fill write
// files into it.
func stageDir(target string, fill func(dir string) error) (*staged, error) {
	parent := filepath.Dir(filepath.Clean(target))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(target))+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	st := &staged{target: filepath.Clean(target), tmp: tmp, dir: true}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	return st, nil
}

// discard removes a staged output.
func (s *staged) discard() {
	if s.dir {
		os.RemoveAll(s.tmp)
	} else {
		os.Remove(s.tmp)
	}
}

// commit renames the staged output onto its target. A folder replaces an
// existing folder of the same name: the old one is moved aside first and
// removed once the new one is in place.
func (s *staged) commit() error {
	if !s.dir {
		if err := os.Rename(s.tmp, s.target); err != nil {
			s.discard()
			return fmt.Errorf("write %s: %w", s.target, err)
		}
		return nil
	}
	old := ""
	if _, err := os.Stat(s.target); err == nil {
		old = s.tmp + ".old"
		if err := os.Rename(s.target, old); err != nil {
			s.discard()
			return fmt.Errorf("replace %s: %w", s.target, err)
		}
	}
	if err := os.Rename(s.tmp, s.target); err != nil {
		if old != "" {
			os.Rename(old, s.target)
		}
		s.discard()
		return fmt.Errorf("write %s: %w", s.target, err)
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
