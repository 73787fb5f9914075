package bake

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// seqManifest is the file drape writes into every OBJ-sequence folder,
// listing the files it wrote there. A folder is replaced by a new sequence
// only when it holds nothing but what its manifest lists, so a bake never
// deletes a folder of the user's.
const seqManifest = ".drape-sequence"

const seqManifestHeader = "drape OBJ sequence: the next bake to this folder replaces it and every file listed here"

// writeSeqManifest lists the files of the sequence folder dir in its
// manifest.
func writeSeqManifest(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(seqManifestHeader + "\n")
	for _, e := range ents {
		b.WriteString(e.Name() + "\n")
	}
	return os.WriteFile(filepath.Join(dir, seqManifest), []byte(b.String()), 0o644)
}

// seqFix is the fix for an OBJ-sequence target that drape may not replace.
const seqFix = "an output without an extension or ending in / is an OBJ-sequence folder, which replaces what is there: choose a new folder name, or give the output an extension (.glb, .gltf, .pc2, .mdd)"

// checkReplaceable returns nil when an OBJ sequence may be written to
// target: nothing is there, an empty folder, or a folder that holds only
// the files its drape manifest lists.
func checkReplaceable(target string) error {
	fi, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return writeFailure(target, fmt.Errorf("output %s: %w", target, err))
	}
	if !fi.IsDir() {
		what := "a file"
		if fi.Mode()&fs.ModeSymlink != 0 {
			what = "a symbolic link"
		}
		return badInput(fmt.Errorf("output %s: %s is there, not a drape OBJ-sequence folder; drape does not replace it", target, what), seqFix)
	}
	ents, err := os.ReadDir(target)
	if err != nil {
		return writeFailure(target, fmt.Errorf("output %s: %w", target, err))
	}
	if len(ents) == 0 {
		return nil
	}
	listed, err := readSeqManifest(filepath.Join(target, seqManifest))
	if err != nil {
		return badInput(fmt.Errorf("output %s: the folder exists and is not a drape OBJ sequence (no readable %s in it; a sequence drape wrote before it kept one has none, so delete that folder yourself); drape does not replace it", target, seqManifest), seqFix)
	}
	for _, e := range ents {
		if e.Name() != seqManifest && !listed[e.Name()] {
			return badInput(fmt.Errorf("output %s: the folder holds %s, which drape did not write; drape does not replace it", target, e.Name()), seqFix)
		}
	}
	return nil
}

// readSeqManifest returns the names a sequence manifest lists.
func readSeqManifest(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	sc := bufio.NewScanner(f)
	if !sc.Scan() || sc.Text() != seqManifestHeader {
		return nil, errors.New("not a drape manifest")
	}
	out := map[string]bool{}
	for sc.Scan() {
		name := sc.Text()
		if name != "" && name == filepath.Base(name) && name != "." && name != ".." {
			out[name] = true
		}
	}
	return out, sc.Err()
}

// inputPaths lists every file the scene reads: the scene file, the cloth
// mesh, collider meshes and point caches.
func (sc *Scene) inputPaths() []string {
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, sc.Resolve(p))
		}
	}
	if sc.file != "" {
		out = append(out, sc.file)
	}
	add(sc.Input)
	for _, c := range sc.Colliders {
		add(c.Path)
		add(c.Cache)
	}
	for _, p := range sc.Pins {
		add(p.Cache)
	}
	return out
}

// realPath is p made absolute with symbolic links resolved as far as the
// path exists.
func realPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		a = filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
		return filepath.Join(r, filepath.Base(a))
	}
	return a
}

// within reports whether p is dir or inside it (both real paths).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkOutputs refuses outputs that would destroy what drape did not
// make: an output that is one of the bake's inputs (or, for an OBJ
// sequence, holds one), a folder in the way of a file, a sequence folder
// that is not drape's, and two outputs to one path.
func (j *Job) checkOutputs() error {
	sc := j.Scene
	ins := sc.inputPaths()
	realIns := make([]string, len(ins))
	for i, in := range ins {
		realIns[i] = realPath(in)
	}
	seen := map[string]string{}
	for _, p := range j.outputPaths() {
		kind, err := ParseOutputKind(p)
		if err != nil {
			return badInput(fmt.Errorf("output %s: %w", p, err), "")
		}
		rp := realPath(p)
		if q, ok := seen[rp]; ok {
			return badInput(fmt.Errorf("outputs %s and %s are the same file", q, p), "give each output its own path")
		}
		seen[rp] = p
		for i, in := range realIns {
			same := in == rp
			if kind == OutputOBJSeq {
				same = within(in, rp)
			} else if !same {
				a, e1 := os.Stat(rp)
				b, e2 := os.Stat(in)
				same = e1 == nil && e2 == nil && os.SameFile(a, b)
			}
			if same {
				what := "is"
				if kind == OutputOBJSeq {
					what = "would replace the folder of"
				}
				return badInput(fmt.Errorf("output %s %s the input %s: the bake would destroy it", p, what, ins[i]),
					"write the output elsewhere, e.g. -o "+suggestOutput(ins[i]))
			}
		}
		if kind == OutputOBJSeq {
			if err := checkReplaceable(filepath.Clean(p)); err != nil {
				return err
			}
		} else if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return writeFailure(p, fmt.Errorf("output %s: a folder is in the way", p))
		}
	}
	return nil
}

// CheckExtraOutput refuses a file the command line writes besides the
// scene's outputs (the report) when it is one of the scene's inputs or a
// folder, before the bake starts.
func (sc *Scene) CheckExtraOutput(p string) error {
	rp := realPath(p)
	for _, in := range sc.inputPaths() {
		a, e1 := os.Stat(rp)
		b, e2 := os.Stat(in)
		if realPath(in) == rp || e1 == nil && e2 == nil && os.SameFile(a, b) {
			return badInput(fmt.Errorf("%s is the input %s: the bake would destroy it", p, in), "write it elsewhere")
		}
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return writeFailure(p, fmt.Errorf("%s: a folder is in the way", p))
	}
	return nil
}

// suggestOutput names an output beside input that is not input.
func suggestOutput(input string) string {
	return strings.TrimSuffix(input, filepath.Ext(input)) + "_baked.glb"
}

// writeFailure marks err, a failure to write the output target, with
// ExitWrite and the fix for its cause. Errors that already carry a code
// keep it.
func writeFailure(target string, err error) error {
	var be *Error
	if errors.As(err, &be) {
		return err
	}
	return &Error{Code: ExitWrite, Err: err, Fix: writeFix(target, err)}
}

func writeFix(target string, err error) string {
	dir := filepath.Dir(filepath.Clean(target))
	// The folder the failing call wrote in: the target's, or the one
	// above a folder that could not be created.
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != "" {
		dir = filepath.Dir(filepath.Clean(pe.Path))
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "the disk is full: free space on it, or write the output to another disk"
	case errors.Is(err, syscall.EROFS):
		return "the file system of " + dir + " is read-only: write the output elsewhere"
	case errors.Is(err, fs.ErrPermission):
		return "you may not write in " + dir + ": choose a folder you can write to"
	case errors.Is(err, syscall.ENOTDIR):
		return "a file is in the way on the path to " + target + ": move it or choose another output path"
	case errors.Is(err, syscall.EISDIR), strings.Contains(err.Error(), "folder is in the way"):
		return "a folder is in the way at " + target + ": move it or choose another output path"
	}
	return "check that " + dir + " exists and can be written"
}
