package bake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/drape-sim/drape/meshio"
)

// Resume: a batch job writes a record beside its first output once every
// output is in place (RecordSuffix). It holds the hashes of every input
// file, of the settings and of every output, and drape's version. The next
// batch skips the job when a record matches all of them; a bake killed
// while writing leaves either no record (outputs go in place first, the
// record last) or one whose output hashes no longer match, so nothing
// half-written is taken for done.

// RecordSuffix ends the name of a job's resume record: out.glb gets
// out.glb.drape.json, an OBJ-sequence folder seq/ gets seq.drape.json.
const RecordSuffix = ".drape.json"

// FileHash is a file's SHA-256 and size.
type FileHash struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Stamp identifies what a job bakes: drape's version, its input files and
// its settings. Two bakes with equal stamps write identical outputs.
type Stamp struct {
	Drape  string     `json:"drape_version"`
	Inputs []FileHash `json:"inputs"`
	// SettingsSHA256 hashes the scene settings with flags applied (threads
	// left out: the result does not depend on them).
	SettingsSHA256 string `json:"settings_sha256"`
}

// Record is a job's resume record.
type Record struct {
	Stamp
	Outputs []FileHash `json:"outputs"`
	Report  *Report    `json:"report"`
}

// JobStamp hashes a job's inputs and settings.
func JobStamp(sc *Scene) (Stamp, error) {
	st := Stamp{Drape: Version}
	for _, p := range sc.inputPaths() {
		h, err := hashPath(p)
		if err != nil {
			return st, badInput(fmt.Errorf("input %s: %w", p, err), "check the path; paths in a scene file are relative to the scene file")
		}
		h.Path = filepath.ToSlash(p)
		st.Inputs = append(st.Inputs, h)
	}
	cp := *sc
	cp.Threads = 0
	data, err := json.Marshal(&cp)
	if err != nil {
		return st, err
	}
	sum := sha256.Sum256(data)
	st.SettingsSHA256 = hex.EncodeToString(sum[:])
	return st, nil
}

// same reports whether two stamps bake the same thing (input paths may
// differ between machines; their contents may not).
func (s Stamp) same(o Stamp) bool {
	if s.Drape != o.Drape || s.SettingsSHA256 != o.SettingsSHA256 || len(s.Inputs) != len(o.Inputs) {
		return false
	}
	for i := range s.Inputs {
		if s.Inputs[i].SHA256 != o.Inputs[i].SHA256 || s.Inputs[i].Bytes != o.Inputs[i].Bytes {
			return false
		}
	}
	return true
}

// RecordPath is where the resume record of a scene's bake lives.
func RecordPath(sc *Scene) string {
	outs := (&Job{Scene: sc}).outputPaths()
	return filepath.Clean(outs[0]) + RecordSuffix
}

// CheckDone returns the record of a finished bake of sc when one matches
// stamp and every output is there with the hash the record holds;
// otherwise nil and why the job must bake.
func CheckDone(sc *Scene, stamp Stamp) (*Record, string) {
	path := RecordPath(sc)
	data, err := meshio.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "not baked yet"
	}
	if err != nil {
		return nil, fmt.Sprintf("record %s unreadable: %v", path, err)
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil || rec.Report == nil {
		return nil, fmt.Sprintf("record %s is not a drape record", path)
	}
	switch {
	case rec.Drape != stamp.Drape:
		return nil, fmt.Sprintf("baked by drape %s", rec.Drape)
	case !rec.Stamp.same(stamp):
		return nil, "inputs or settings changed"
	}
	outs := (&Job{Scene: sc}).outputPaths()
	if len(outs) != len(rec.Outputs) {
		return nil, "outputs changed"
	}
	for i, o := range outs {
		h, err := hashPath(filepath.Clean(o))
		if err != nil {
			return nil, fmt.Sprintf("output %s missing", o)
		}
		if h.SHA256 != rec.Outputs[i].SHA256 || h.Bytes != rec.Outputs[i].Bytes {
			return nil, fmt.Sprintf("output %s differs from the one the record lists", o)
		}
	}
	return &rec, ""
}

// RemoveRecord removes the resume record of sc before it bakes again, so a
// bake stopped half-way is never taken for the one before it.
func RemoveRecord(sc *Scene) error {
	err := os.Remove(RecordPath(sc))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return writeFailure(RecordPath(sc), err)
	}
	return nil
}

// WriteRecord writes the resume record of a finished bake, atomically,
// after hashing the outputs it wrote.
func WriteRecord(sc *Scene, stamp Stamp, rep *Report) error {
	rec := Record{Stamp: stamp, Report: rep}
	for _, o := range (&Job{Scene: sc}).outputPaths() {
		h, err := hashPath(filepath.Clean(o))
		if err != nil {
			return writeFailure(o, fmt.Errorf("hash output %s: %w", o, err))
		}
		h.Path = filepath.ToSlash(o)
		rec.Outputs = append(rec.Outputs, h)
	}
	path := RecordPath(sc)
	st, err := stageFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(&rec)
	})
	if err != nil {
		return err
	}
	return st.commit()
}

// hashPath hashes a file, or a folder's regular files in name order (an
// OBJ sequence), each name and content.
func hashPath(p string) (FileHash, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return FileHash{}, err
	}
	h := sha256.New()
	var n int64
	if fi.IsDir() {
		ents, err := os.ReadDir(p)
		if err != nil {
			return FileHash{}, err
		}
		sort.Slice(ents, func(a, b int) bool { return ents[a].Name() < ents[b].Name() })
		for _, e := range ents {
			if !e.Type().IsRegular() {
				continue
			}
			m, err := hashFileInto(h, filepath.Join(p, e.Name()), e.Name())
			if err != nil {
				return FileHash{}, err
			}
			n += m
		}
	} else {
		if n, err = hashFileInto(h, p, ""); err != nil {
			return FileHash{}, err
		}
	}
	return FileHash{Path: p, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

func hashFileInto(h io.Writer, p, name string) (int64, error) {
	f, err := meshio.OpenFile(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if name != "" {
		fmt.Fprintf(h, "%s\x00", name)
	}
	return io.Copy(h, f)
}

// BatchOptions are a batch job's resume settings.
type BatchOptions struct {
	Options
	// Force bakes even when a record says the job is done.
	Force bool
}

// RunJob bakes one job of a batch with resume: a job whose record matches
// is skipped (rec set, rep nil); otherwise the old record goes, the job
// bakes, and a new record is written once every output is in place.
func RunJob(ctx context.Context, sc *Scene, opt BatchOptions) (rep *Report, skipped *Record, err error) {
	stamp, err := JobStamp(sc)
	if err != nil {
		return nil, nil, err
	}
	if !opt.Force {
		if rec, _ := CheckDone(sc, stamp); rec != nil {
			return nil, rec, nil
		}
	}
	if err := RemoveRecord(sc); err != nil {
		return nil, nil, err
	}
	rep, err = Run(ctx, sc, opt.Options)
	if err != nil {
		return nil, nil, err
	}
	if err := WriteRecord(sc, stamp, rep); err != nil {
		return nil, nil, err
	}
	return rep, nil, nil
}
