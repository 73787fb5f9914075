//go:build unix

package render

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used (user + system), so
// benchmarks can report cost per frame independent of other load on a
// shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
