package bake

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
)

// heapArenaBytes is the address space Go reserves at a time as its heap
// grows (on 64-bit Linux).
const heapArenaBytes = 64 << 20

// Address space at package initialisation: the process's (VmSize: Go's
// own reservations, several hundred MiB, and the program) and what the Go
// runtime had mapped read-write of it.
var asAtInit, mappedAtInit = statusBytes(readStatus(), "VmSize:"), goMapped()

func readStatus() []byte {
	b, _ := os.ReadFile("/proc/self/status")
	return b
}

// goMapped is the memory the Go runtime has mapped read-write [bytes].
func goMapped() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// addressSpaceUsed is the address space the process holds for RLIMIT_AS:
// what it held at initialisation plus what Go has mapped since, plus one
// heap arena that Go may reserve beyond it as the heap grows. The current
// VmSize alone would jump by a whole arena depending on when the last one
// was reserved, and with it the budget and the advice of its message; the
// larger of the two counts.
func addressSpaceUsed(status []byte) int64 {
	used := asAtInit + max(goMapped()-mappedAtInit, 0) + heapArenaBytes
	return max(used, statusBytes(status, "VmSize:"))
}

// processMemoryLimits returns the limits the kernel sets on this
// process's memory, as the memory a bake may still take under each: the
// memory.max (cgroup v2) or memory.limit_in_bytes (v1) of its cgroup and
// of every cgroup above it, and the room left under RLIMIT_AS (address
// space, `ulimit -v`) and RLIMIT_DATA (`ulimit -d`). Go reserves several
// hundred MiB of address space when it starts, so the rlimits count from
// what the process already holds (addressSpaceUsed; VmData in
// /proc/self/status).
func processMemoryLimits() []memoryLimit {
	var out []memoryLimit
	if l := cgroupMemoryLimit("/proc/self/cgroup", "/proc/self/mountinfo"); l.bytes > 0 {
		out = append(out, l)
	}
	status := readStatus()
	for _, r := range []struct {
		res  int
		used int64
		kind string
		name string
		fix  string
	}{
		{syscall.RLIMIT_AS, addressSpaceUsed(status), "address space", "RLIMIT_AS", "raise the address-space limit (ulimit -v)"},
		{syscall.RLIMIT_DATA, statusBytes(status, "VmData:"), "data segment", "RLIMIT_DATA", "raise the data-segment limit (ulimit -d)"},
	} {
		var lim syscall.Rlimit
		if syscall.Getrlimit(r.res, &lim) != nil || lim.Cur >= 1<<62 /* RLIM_INFINITY */ {
			continue
		}
		used := r.used
		left := int64(lim.Cur) - used
		if left <= 0 {
			left = 1 // no room at all: any bake is over budget
		}
		out = append(out, memoryLimit{bytes: left, fix: r.fix,
			what: "the " + FormatBytes(left) + " of " + r.kind + " left under the process's " + r.name + " of " + FormatBytes(int64(lim.Cur))})
	}
	return out
}

// statusBytes reads a "Name:   123 kB" field of /proc/self/status [bytes]
// (0 when absent).
func statusBytes(status []byte, field string) int64 {
	for _, l := range bytes.Split(status, []byte("\n")) {
		f := strings.Fields(string(l))
		if len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// cgroupMemoryLimit returns the smallest memory limit of the process's
// cgroups (v2 memory.max, v1 memory.limit_in_bytes), read from the
// cgroup file systems that mountinfo lists, walking from the process's
// cgroup up to the mount's root; bytes is 0 when none is set.
func cgroupMemoryLimit(cgroupFile, mountinfoFile string) memoryLimit {
	cg, err := os.ReadFile(cgroupFile)
	if err != nil {
		return memoryLimit{}
	}
	// The process's cgroup path in v2 ("0::/path") and in v1's memory
	// hierarchy ("4:memory:/path").
	var v2, v1 string
	var haveV2, haveV1 bool
	for _, l := range strings.Split(string(cg), "\n") {
		f := strings.SplitN(l, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			v2, haveV2 = f[2], true
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "memory" {
				v1, haveV1 = f[2], true
			}
		}
	}
	mi, err := os.Open(mountinfoFile)
	if err != nil {
		return memoryLimit{}
	}
	defer mi.Close()
	best := memoryLimit{}
	s := bufio.NewScanner(mi)
	for s.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		f := strings.Fields(s.Text())
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(f) {
			continue
		}
		root, mnt, fstype := unescapeMount(f[3]), unescapeMount(f[4]), f[sep+1]
		var path, file string
		switch {
		case fstype == "cgroup2" && haveV2:
			path, file = v2, "memory.max"
		case fstype == "cgroup" && haveV1 && hasOption(f[sep+3], "memory"):
			path, file = v1, "memory.limit_in_bytes"
		default:
			continue
		}
		rel, ok := strings.CutPrefix(path, root)
		if !ok || (rel != "" && root != "/" && rel[0] != '/') {
			continue // the process's cgroup is not below this mount
		}
		for dir := filepath.Join(mnt, rel); ; dir = filepath.Dir(dir) {
			if n := readCgroupLimit(filepath.Join(dir, file)); n > 0 && (best.bytes == 0 || n < best.bytes) {
				best = memoryLimit{bytes: n, what: "the cgroup's " + file + " of " + FormatBytes(n) + " (" + filepath.Join(dir, file) + ")",
					fix: "raise the container's or job's memory limit (cgroup " + file + ")"}
			}
			if len(dir) <= len(filepath.Clean(mnt)) {
				break
			}
		}
	}
	return best
}

// readCgroupLimit reads a cgroup memory limit file [bytes]; 0 for "max",
// v1's "no limit" (a number near 2^63) or a file that cannot be read.
func readCgroupLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0
	}
	return n
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
