package bake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// snapshot records every file under dir with its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func sameSnapshot(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d files before, %d after", what, len(a), len(b))
	}
	for p, s := range a {
		if b[p] != s {
			t.Errorf("%s: %s changed or vanished", what, p)
		}
	}
}

// bakeErr bakes sc and returns the error, failing the test when the bake
// succeeds.
func bakeErr(t *testing.T, sc *Scene) error {
	t.Helper()
	_, err := Run(context.Background(), sc, Options{})
	if err == nil {
		t.Fatalf("bake to %v succeeded, want a refusal", sc.Output)
	}
	return err
}

func wantCode(t *testing.T, err error, code int, frag string) {
	t.Helper()
	if ExitCode(err) != code {
		t.Errorf("exit code = %d (%v), want %d", ExitCode(err), err, code)
	}
	if !strings.Contains(err.Error(), frag) {
		t.Errorf("message %q does not say %q", err, frag)
	}
}

func TestSequenceOutputKeepsUserFolder(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "Documents")
	os.MkdirAll(filepath.Join(docs, "taxes"), 0o755)
	os.WriteFile(filepath.Join(docs, "letter.txt"), []byte("dear"), 0o644)
	os.WriteFile(filepath.Join(docs, "taxes", "2025.pdf"), []byte("%PDF"), 0o644)
	before := snapshot(t, docs)
	for _, o := range []string{"Documents", "Documents/"} {
		sc := hangingScene(t, dir, 2, o)
		if strings.HasSuffix(o, "/") {
			sc.Output[0] += "/"
		}
		wantCode(t, bakeErr(t, sc), ExitBadInput, "drape does not replace it")
		sameSnapshot(t, "-o "+o, before, snapshot(t, docs))
	}
}

func TestSequenceOutputKeepsUserFile(t *testing.T) {
	dir := t.TempDir()
	mk := filepath.Join(dir, "Makefile")
	os.WriteFile(mk, []byte("all:\n\tgo build\n"), 0o644)
	sc := hangingScene(t, dir, 2, "Makefile")
	wantCode(t, bakeErr(t, sc), ExitBadInput, "a file is there")
	if b, err := os.ReadFile(mk); err != nil || string(b) != "all:\n\tgo build\n" {
		t.Errorf("Makefile after the bake: %q, %v", b, err)
	}
}

func TestOutputNeverTheInput(t *testing.T) {
	dir := t.TempDir()
	// the input as an OBJ-sequence folder
	sc := hangingScene(t, dir, 2)
	in, _ := os.ReadFile(sc.Input)
	sc.Output = Outputs{sc.Input + "/"}
	wantCode(t, bakeErr(t, sc), ExitBadInput, "the input")
	if b, err := os.ReadFile(sc.Input); err != nil || !bytes.Equal(b, in) {
		t.Fatalf("input changed by a refused bake: %v", err)
	}
	// a glb input written over by its own bake
	sc = hangingScene(t, dir, 2, "cloth.glb")
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatal(err)
	}
	glb, _ := os.ReadFile(sc.Output[0])
	sc2 := DefaultScene()
	sc2.Input, sc2.Frames, sc2.Output = sc.Output[0], 2, Outputs{sc.Output[0]}
	wantCode(t, bakeErr(t, sc2), ExitBadInput, "is the input")
	// through a symbolic link, too
	link := filepath.Join(dir, "link.glb")
	os.Symlink(sc.Output[0], link)
	sc2.Output = Outputs{link}
	wantCode(t, bakeErr(t, sc2), ExitBadInput, "is the input")
	if b, _ := os.ReadFile(sc.Output[0]); !bytes.Equal(b, glb) {
		t.Errorf("the glb input changed")
	}
	// a folder holding the input
	sc3 := hangingScene(t, dir, 2)
	sc3.Output = Outputs{dir + "/"}
	wantCode(t, bakeErr(t, sc3), ExitBadInput, "would replace the folder of")
	// a scene file
	scene := filepath.Join(dir, "scene.json")
	os.WriteFile(scene, []byte(`{"input": "grid.obj", "frames": 2, "output": "scene.json/"}`), 0o644)
	sc4, err := LoadScene(scene)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, bakeErr(t, sc4), ExitBadInput, "the input")
}

func TestSequenceReplacesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 3, "seq/")
	for i := range 2 { // the second bake replaces the first's folder
		if _, err := Run(context.Background(), sc, Options{}); err != nil {
			t.Fatalf("bake %d: %v", i, err)
		}
	}
	seq := filepath.Join(dir, "seq")
	if m, _ := filepath.Glob(filepath.Join(seq, "*.obj")); len(m) != 3 {
		t.Fatalf("sequence holds %d OBJs, want 3", len(m))
	}
	os.WriteFile(filepath.Join(seq, "notes.txt"), []byte("mine"), 0o644)
	before := snapshot(t, seq)
	wantCode(t, bakeErr(t, sc), ExitBadInput, "notes.txt")
	sameSnapshot(t, "sequence with a user's file", before, snapshot(t, seq))
	// an empty folder made for the output is fine
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	sc = hangingScene(t, dir, 2, "empty/")
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatalf("bake into an empty folder: %v", err)
	}
}

func TestStaleTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 2, "out.glb", "seq/")
	// 999999999 exceeds every Linux pid (pid_max is at most 2^22).
	dead := filepath.Join(dir, ".out.glb.tmp-999999999-12345")
	deadDir := filepath.Join(dir, ".seq.tmp-999999999-777")
	old := filepath.Join(dir, ".out.glb.tmp-3141592")
	live := filepath.Join(dir, fmt.Sprintf(".out.glb.tmp-%d-1", os.Getppid()))
	fresh := filepath.Join(dir, ".out.glb.tmp-2718281")
	for _, p := range []string{dead, old, live, fresh} {
		os.WriteFile(p, []byte("partial"), 0o644)
	}
	os.MkdirAll(filepath.Join(deadDir, "sub"), 0o755)
	long := time.Now().Add(-2 * staleUnnumberedAge)
	os.Chtimes(old, long, long)
	if _, err := Run(context.Background(), sc, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dead, deadDir, old} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("stale %s survived the next bake", filepath.Base(p))
		}
	}
	for _, p := range []string{live, fresh} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s (a bake that may be running) was removed", filepath.Base(p))
		}
	}
}

func TestWriteFailuresExitWrite(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "out.glb"), 0o755)
	sc := hangingScene(t, dir, 2, "out.glb")
	wantCode(t, bakeErr(t, sc), ExitWrite, "folder is in the way")
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	sc = hangingScene(t, dir, 2, "file/sub/out.glb")
	wantCode(t, bakeErr(t, sc), ExitWrite, "file is in the way")
	// root writes into a 0555 folder: cmd/drape TestReadOnlyFolderExitWrite
	// covers root with a read-only mount
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.MkdirAll(ro, 0o555)
		sc = hangingScene(t, dir, 2, "ro/out.glb")
		wantCode(t, bakeErr(t, sc), ExitWrite, "choose a folder you can write to")
	}
	for _, c := range []struct {
		err  error
		frag string
	}{
		{syscall.ENOSPC, "disk is full"},
		{syscall.EROFS, "read-only"},
		{syscall.EACCES, "you may not write"},
	} {
		err := writeFailure("/x/out.glb", &fs.PathError{Op: "write", Path: "/x/.out.glb.tmp-1-2", Err: c.err})
		wantCode(t, err, ExitWrite, c.frag)
	}
}

// AbandonStaged, called by a process that must end at once, removes every
// temporary output it has staged and touches no target.
func TestAbandonStagedRemovesTemporaries(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.glb")
	os.WriteFile(target, []byte("earlier"), 0o644)
	f, err := stageFile(target, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err })
	if err != nil {
		t.Fatal(err)
	}
	d, err := openStagedDir(filepath.Join(dir, "seq"))
	if err == nil {
		d, err = d.finishDir()
	}
	if err != nil {
		t.Fatal(err)
	}
	// an output still streaming its frames
	open, err := openStaged(filepath.Join(dir, "out.pc2"))
	if err != nil {
		t.Fatal(err)
	}
	open.w.Write([]byte("frame 0"))
	open.w.Flush()
	AbandonStaged()
	for _, p := range []string{f.tmp, d.tmp, open.tmp} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s survived AbandonStaged", p)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "earlier" {
		t.Errorf("the target changed: %q", b)
	}
	// committed outputs are no longer staged
	g, _ := stageFile(target, func(w io.Writer) error { return nil })
	if err := g.commit(); err != nil {
		t.Fatal(err)
	}
	AbandonStaged()
	if _, err := os.Stat(target); err != nil {
		t.Errorf("AbandonStaged removed a committed output: %v", err)
	}
}
