package addon_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// children returns the pids of the processes whose parent is ppid and whose
// command name is comm (Linux /proc).
func children(ppid int, comm string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		// pid (comm) state ppid ...
		l, r := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if l < 0 || r < l {
			continue
		}
		f := strings.Fields(s[r+1:])
		if len(f) < 2 || s[l+1:r] != comm {
			continue
		}
		if p, _ := strconv.Atoi(f[1]); p == ppid {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	r := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[r+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// cancelRun runs the "cancel" case of tests/test_addon.py with cmd (Blender
// or a bpy interpreter, its arguments set), waits for drape's progress on
// stdout, sends sig to Blender, and checks that drape is gone within a
// second and that the test (operator CANCELLED, object unchanged, no
// staging folder) passed. It returns the time drape took to go.
func cancelRun(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) time.Duration {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var log strings.Builder
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// drape's progress: "drape: Cloth frame 3/5000"
	progress := 0
	for line := range lines {
		log.WriteString(line + "\n")
		if strings.HasPrefix(line, "drape: Cloth frame ") {
			if progress++; progress == 3 {
				break
			}
		}
	}
	if progress < 3 {
		cmd.Wait()
		t.Fatalf("no progress from drape before the output ended:\n%s", log.String())
	}
	pids := children(cmd.Process.Pid, "drape")
	if len(pids) != 1 {
		t.Fatalf("want one drape child of %d, found %v:\n%s", cmd.Process.Pid, pids, log.String())
	}
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	go func() {
		for line := range lines {
			log.WriteString(line + "\n") // the Wait below orders this before the reads of log
		}
	}()
	var gone time.Duration
	for alive(pids[0]) {
		if gone = time.Since(sent); gone > 10*time.Second {
			t.Fatalf("drape (pid %d) still runs 10 s after %v", pids[0], sig)
		}
		time.Sleep(5 * time.Millisecond)
	}
	gone = time.Since(sent)
	err = cmd.Wait()
	if sig == syscall.SIGKILL {
		// Blender had no say: drape stops on the parent-death signal
		// (PR_SET_PDEATHSIG), or at its next progress line on the broken
		// pipe, whichever comes first (here both do); the next bake sweeps
		// the staging folder (test_runner.py's test_stale_staging_is_swept).
		t.Logf("SIGKILL to Blender: drape (pid %d) gone %v later", pids[0], gone.Round(time.Millisecond))
		if gone > time.Second {
			t.Errorf("drape took %v to stop after Blender was killed, want under 1 s", gone)
		}
		return gone
	}
	time.Sleep(50 * time.Millisecond)
	out := log.String()
	if err != nil || !strings.Contains(out, "\nOK") {
		t.Fatalf("after %v: %v; output:\n%s", sig, err, out)
	}
	if !strings.Contains(out, "cancelled by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]) {
		t.Errorf("the operator did not say which signal cancelled the bake:\n%s", out)
	}
	t.Logf("%v: drape (pid %d) gone %v after the signal", sig, pids[0], gone.Round(time.Millisecond))
	if gone > time.Second {
		t.Errorf("drape took %v to stop after %v, want under 1 s", gone, sig)
	}
	return gone
}
