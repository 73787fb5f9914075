package bake

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The cgroup limit is the smallest memory.max (v2) or
// memory.limit_in_bytes (v1) from the process's cgroup up to the root of
// its mount, found through mountinfo as in a container or a Slurm job.
func TestCgroupMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cg2, mem := filepath.Join(dir, "cg2"), filepath.Join(dir, "mem v1")
	mountinfo := "22 1 0:21 / /proc rw - proc proc rw\n" +
		"30 1 0:26 / " + cg2 + " rw,nosuid - cgroup2 cgroup2 rw\n" +
		"35 1 0:32 /docker/abc " + strings.ReplaceAll(mem, " ", `\040`) + " rw,relatime shared:9 - cgroup cgroup rw,memory\n" +
		"36 1 0:33 / " + filepath.Join(dir, "cpu") + " rw - cgroup cgroup rw,cpu\n"
	write("mountinfo", mountinfo)
	write("cg2/user.slice/memory.max", "2147483648\n") // 2 GiB on the parent
	write("cg2/user.slice/job/memory.max", "max\n")
	write("mem v1/memory.limit_in_bytes", "9223372036854771712\n") // v1's "no limit"
	write("mem v1/sub/memory.limit_in_bytes", "1073741824\n")
	write("cpu/docker/abc/sub/memory.limit_in_bytes", "1024\n") // not the memory controller

	for _, c := range []struct {
		name, cgroup string
		want         int64
		file         string
	}{
		{"v2 parent's limit", "0::/user.slice/job\n", 2 << 30, "cg2/user.slice/memory.max"},
		{"v1 below v2", "0::/user.slice/job\n4:memory:/docker/abc/sub\n3:cpu:/docker/abc/sub\n", 1 << 30, "mem v1/sub/memory.limit_in_bytes"},
		{"v1 with no limit", "4:memory:/docker/abc\n", 0, ""},
		{"cgroup outside the mount's root", "4:memory:/other/sub\n", 0, ""},
		{"v2 without a limit", "0::/\n", 0, ""},
	} {
		write("cgroup", c.cgroup)
		got := cgroupMemoryLimit(filepath.Join(dir, "cgroup"), filepath.Join(dir, "mountinfo"))
		if got.bytes != c.want {
			t.Errorf("%s: limit %d, want %d (%s)", c.name, got.bytes, c.want, got.what)
		}
		if c.file != "" && (!strings.Contains(got.what, filepath.Join(dir, c.file)) || got.fix == "") {
			t.Errorf("%s: %q does not name %s, or no fix %q", c.name, got.what, c.file, got.fix)
		}
	}
}

// A lowered RLIMIT_DATA bounds the default budget and --max-memory alike
// (a process beyond it dies with a runtime fatal error); -1 lifts every
// bound.
func TestMemoryBudgetHonoursRlimit(t *testing.T) {
	phys := physicalMemory()
	if phys == 0 {
		t.Fatal("physicalMemory() = 0: /proc/meminfo has no MemTotal")
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &old); err != nil {
		t.Fatal(err)
	}
	status, _ := os.ReadFile("/proc/self/status")
	// a quarter of the machine above what the process holds, or less when
	// the hard limit leaves less (a soft limit may always be lowered)
	used := statusBytes(status, "VmData:")
	room := phys / 4
	if old.Max < 1<<62 {
		room = min(room, int64(old.Max)-used)
	}
	if room < 64<<20 {
		t.Fatalf("the hard RLIMIT_DATA (%d) leaves %d bytes above the %d the process holds: too little to test", old.Max, room, used)
	}
	lim := old
	lim.Cur = uint64(used + room)
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		t.Fatal("lowering the soft RLIMIT_DATA:", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_DATA, &old)

	for _, max := range []int64{0, phys} {
		b := memoryBudget(max)
		if b.bytes <= 0 || b.bytes > int64(0.8*float64(room)) || b.bytes < int64(0.7*float64(room)) {
			t.Errorf("--max-memory %d: budget %d, want about 80 %% of the %d left under RLIMIT_DATA", max, b.bytes, room)
		}
		if !strings.Contains(b.what, "RLIMIT_DATA") || !strings.Contains(b.fixBudget(), "ulimit -d") {
			t.Errorf("--max-memory %d: budget %q, fix %q: want RLIMIT_DATA and ulimit -d", max, b.what, b.fixBudget())
		}
	}
	if b := memoryBudget(1 << 20); b.bytes != 1<<20 || b.what != "--max-memory" {
		t.Errorf("--max-memory 1M under a larger limit: %d (%s)", b.bytes, b.what)
	}
	if b := memoryBudget(-1); b.bytes != 0 {
		t.Errorf("--max-memory 0 (no limit): budget %d", b.bytes)
	}
}
