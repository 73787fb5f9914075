package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A cancel (SIGTERM; SIGINT in one phase) reaches the drape binary in
// each phase of a bake: reading a large input, the pre-flight checks,
// the simulation, and writing a glTF (compressing its morph targets). In
// every phase drape exits with 130 within a second of the signal, leaves
// the earlier output as it was and no temporary file beside it. The write
// checks for the cancel itself: three signals at different points of the
// compression each end it without main's cancelGrace fallback, the median
// in well under the fallback's time. Built on Linux only (the file's
// name): the phases are told apart from outside by what the process has
// read (/proc/PID/io) and by its --progress json lines.
func TestCancelEveryPhase(t *testing.T) {
	dir := t.TempDir()
	// 640,000 vertices, 46 MB: the parse and weld take over a second
	writeGrid(t, filepath.Join(dir, "big.obj"), 800, 1, 1)
	writeGrid(t, filepath.Join(dir, "mid.obj"), 150, 1, 1)
	writeGrid(t, filepath.Join(dir, "small.obj"), 60, 1, 1)
	writeGrid(t, filepath.Join(dir, "c100.obj"), 100, 1, 1)
	// 20,000 spheres far below the cloth: the pre-flight's check for
	// vertices inside colliders takes seconds, 97 % of the preparation
	var cols []string
	for k := range 20000 {
		cols = append(cols, fmt.Sprintf(`{"type": "sphere", "center": [%g, -100, 0], "radius": 0.1}`, 0.001*float64(k)))
	}
	os.WriteFile(filepath.Join(dir, "many.json"), []byte(`{"input": "mid.obj", "frames": 2, "colliders": [`+strings.Join(cols, ",")+`]}`), 0o644)
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	big, mid, scene := size("big.obj"), size("mid.obj"), size("many.json")
	// the write phase's signals come this long after the last frame:
	// while the normals are computed, in the Gram matrix and basis, and
	// deep in the basis's growth and normal fit (the write takes about 5 s)
	writeDelays := []time.Duration{200 * time.Millisecond, 600 * time.Millisecond, time.Second}
	var writeDelay time.Duration

	for _, c := range []struct {
		phase string
		sig   syscall.Signal
		args  []string
		// ready reports when the bake is in the phase; after the exit,
		// stayed checks that the bake did not leave it before the signal
		// took effect.
		ready  func(b *runningBake) bool
		stayed func(b *runningBake) error
		// delays, if set, runs the phase once per delay (setting
		// writeDelay), each to be ended by drape's own check
		delays []time.Duration
	}{
		{"load", syscall.SIGTERM, []string{"big.obj", "--frames", "2"},
			// the file is read in, its parse under way; it is read a
			// second time (hashed) only after the load
			func(b *runningBake) bool { return b.readBytes() >= big },
			func(b *runningBake) error {
				if r := b.lastRead; r >= 2*big {
					return fmt.Errorf("the input was read twice (%d bytes): the load had ended", r)
				}
				return nil
			}, nil},
		{"pre-flight", syscall.SIGTERM, []string{"many.json"},
			// the scene read, the mesh read and hashed: the model and the
			// pre-flight follow before the first frame
			func(b *runningBake) bool {
				if b.readBytes() < scene+2*mid {
					b.since = time.Time{}
					return false
				}
				if b.since.IsZero() {
					b.since = time.Now()
				}
				return time.Since(b.since) > 200*time.Millisecond
			},
			func(b *runningBake) error {
				if f, _ := b.progress(); f > 0 {
					return fmt.Errorf("it reached frame %d", f)
				}
				return nil
			}, nil},
		{"simulate", syscall.SIGINT, []string{"small.obj", "--frames", "100000", "--frame-step", "1000"},
			func(b *runningBake) bool { f, _ := b.progress(); return f >= 3 },
			func(b *runningBake) error {
				if f, n := b.progress(); f >= n {
					return fmt.Errorf("it simulated all %d frames", n)
				}
				return nil
			}, nil},
		{"write", syscall.SIGTERM, []string{"c100.obj", "--frames", "300", "--substeps", "1"},
			// writeDelay after the last frame, in the morph-target
			// compression
			func(b *runningBake) bool {
				f, n := b.progress()
				if n == 0 || f < n {
					return false
				}
				if b.since.IsZero() {
					b.since = time.Now()
				}
				return time.Since(b.since) > writeDelay
			},
			func(b *runningBake) error { return nil }, writeDelays},
	} {
		t.Run(c.phase, func(t *testing.T) {
			if c.delays == nil {
				cancelPhase(t, dir, c.phase, c.sig, c.args, c.ready, c.stayed)
				return
			}
			var took []time.Duration
			for _, d := range c.delays {
				writeDelay = d
				b := cancelPhase(t, dir, c.phase, c.sig, c.args, c.ready, c.stayed)
				took = append(took, b.took)
				if strings.Contains(b.stderr(), forcedCancel) {
					t.Errorf("signal %v into the %s phase: main's fallback ended it after %v, not drape's own check", d, c.phase, cancelGrace)
				}
			}
			slices.Sort(took)
			if med := took[len(took)/2]; med > cancelGrace/2 {
				t.Errorf("%s phase: median exit %v after the signal (of %v), want well under the fallback's %v", c.phase, med, took, cancelGrace)
			}
		})
	}
}

// cancelPhase starts `drape bake ARGS` with an earlier output in place,
// signals it once ready says it is in the phase, and checks that it exits
// 130 within a second, that stayed holds, and that the earlier output and
// no temporary file remain.
func cancelPhase(t *testing.T, dir, phase string, sig syscall.Signal, args []string, ready func(b *runningBake) bool, stayed func(b *runningBake) error) *runningBake {
	t.Helper()
	out := filepath.Join(dir, "out-"+phase+".glb")
	earlier := []byte("an earlier bake")
	os.WriteFile(out, earlier, 0o644)
	b := startBake(t, dir, append(append([]string{"bake"}, args...), "--progress", "json", "-o", out)...)
	deadline := time.Now().Add(30 * time.Second)
	for !ready(b) {
		if b.exited() || time.Now().After(deadline) {
			b.cmd.Process.Kill()
			t.Fatalf("the bake never reached the %s phase: %s", phase, b.stderr())
		}
		time.Sleep(2 * time.Millisecond)
	}
	sent := time.Now()
	b.cmd.Process.Signal(sig)
	code := b.wait()
	b.took = time.Since(sent)
	t.Logf("%s: %v, exit %d after %v", phase, sig, code, b.took.Round(time.Millisecond))
	if code != 130 || !strings.Contains(b.stderr(), "cancelled") {
		t.Errorf("exit %d, want 130 saying it was cancelled (stderr %q)", code, b.stderr())
	}
	if b.took > time.Second {
		t.Errorf("it exited %v after the signal, want within 1 s", b.took.Round(time.Millisecond))
	}
	if err := stayed(b); err != nil {
		t.Errorf("the signal came after the %s phase: %v", phase, err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, earlier) {
		t.Errorf("the earlier %s changed (%d bytes)", filepath.Base(out), len(got))
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	return b
}

// runningBake is a drape process started by startBake: its progress
// lines and what it has read, watched as it runs.
type runningBake struct {
	cmd      *exec.Cmd
	errb     bytes.Buffer
	mu       sync.Mutex
	frame    int // the last progress line's frame and frames
	frames   int
	lastRead int64         // the last read count seen (readBytes)
	since    time.Time     // for the phases' ready funcs
	took     time.Duration // from the signal to the exit (cancelPhase)
	waiting  bool          // a job sent a waiting-for-memory line
	done     chan struct{}
	code     int
}

func startBake(t *testing.T, dir string, args ...string) *runningBake {
	t.Helper()
	b := &runningBake{cmd: exec.Command(drapeBin, args...), done: make(chan struct{})}
	b.cmd.Dir = dir
	b.cmd.Stderr = &b.errb
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var p struct {
				Frame, Frames int
				Waiting       int64 `json:"waiting_for_memory"`
			}
			if json.Unmarshal(sc.Bytes(), &p) == nil && p.Frames > 0 {
				b.mu.Lock()
				if p.Waiting > 0 {
					b.waiting = true
				} else {
					b.frame, b.frames = p.Frame, p.Frames
				}
				b.mu.Unlock()
			}
		}
		err := b.cmd.Wait()
		b.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			b.code = ee.ExitCode()
		}
		close(b.done)
	}()
	// watch the read count until the process ends
	go func() {
		for {
			select {
			case <-b.done:
				return
			case <-time.After(2 * time.Millisecond):
				b.readBytes()
			}
		}
	}()
	return b
}

// readBytes returns the bytes the process has read so far (rchar of
// /proc/PID/io), and remembers the count as lastRead.
func (b *runningBake) readBytes() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", b.cmd.Process.Pid))
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		return b.lastRead
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > b.lastRead {
				b.lastRead = n
			}
		}
	}
	return b.lastRead
}

func (b *runningBake) progress() (int, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.frame, b.frames
}

// waitingLine reports whether a job has said it waits for memory.
func (b *runningBake) waitingLine() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting
}

func (b *runningBake) exited() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

func (b *runningBake) wait() int { <-b.done; return b.code }

// stderr is the process's stderr; call it after the process ended.
func (b *runningBake) stderr() string {
	if !b.exited() {
		return "(running)"
	}
	return b.errb.String()
}

// A batch whose second job waits for memory the first one holds (-j 2
// under a --max-memory that fits one job) ends at once on SIGTERM: exit
// 130 within a second, both jobs failed with 130 in the summary, neither
// output written.
func TestCancelBatchWaitingForMemory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "scenes"), 0o755)
	writeGrid(t, filepath.Join(dir, "scenes", "small.obj"), 60, 1, 1)
	for _, name := range []string{"a", "b"} {
		body := `{"input": "small.obj", "frames": 100000, "frame_step": 1000, "output": ["` + name + `.glb"]}`
		os.WriteFile(filepath.Join(dir, "scenes", name+".json"), []byte(body), 0o644)
	}
	type summary struct {
		Jobs []struct {
			Job      string
			Code     int   `json:"exit_code"`
			Reserved int64 `json:"memory_reserved"`
		}
	}
	readSummary := func() summary {
		var s summary
		data, err := os.ReadFile(filepath.Join(dir, "sum.json"))
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err != nil || len(s.Jobs) != 2 {
			t.Fatalf("summary: %v, %d jobs", err, len(s.Jobs))
		}
		return s
	}
	waitFor := func(b *runningBake, what string, ok func() bool) {
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if b.exited() || time.Now().After(deadline) {
				b.cmd.Process.Kill()
				t.Fatalf("the batch never %s: %s", what, b.stderr())
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	// the first job's estimate, from a batch cancelled in its first frames
	b := startBake(t, dir, "bake", "scenes", "-j", "1", "--summary", "sum.json", "--progress", "json")
	waitFor(b, "simulated", func() bool { f, _ := b.progress(); return f >= 1 })
	b.cmd.Process.Signal(syscall.SIGTERM)
	b.wait()
	est := readSummary().Jobs[0].Reserved
	if est <= 0 {
		t.Fatalf("the cancelled job reserved %d bytes, want its estimate", est)
	}

	b = startBake(t, dir, "bake", "scenes", "-j", "2", "--max-memory", fmt.Sprint(est*3/2), "--summary", "sum.json", "--progress", "json")
	waitFor(b, "waited for memory", func() bool { return b.waitingLine() })
	sent := time.Now()
	b.cmd.Process.Signal(syscall.SIGTERM)
	code := b.wait()
	took := time.Since(sent)
	t.Logf("SIGTERM with a job waiting for memory: exit %d after %v", code, took.Round(time.Millisecond))
	if code != 130 || took > time.Second {
		t.Errorf("exit %d after %v, want 130 within 1 s (stderr %q)", code, took, b.stderr())
	}
	for _, j := range readSummary().Jobs {
		if j.Code != 130 {
			t.Errorf("%s: exit code %d in the summary, want 130", j.Job, j.Code)
		}
	}
	for _, name := range []string{"a.glb", "b.glb"} {
		if _, err := os.Stat(filepath.Join(dir, "scenes", name)); err == nil {
			t.Errorf("the cancelled batch wrote %s", name)
		}
	}
}
