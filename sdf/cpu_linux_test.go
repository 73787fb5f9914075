package sdf

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time of the calling OS thread (process = false)
// or of the whole process, so benchmarks on a shared machine can report
// CPU ns per operation next to wall time.
func cpuTime(process bool) (time.Duration, bool) {
	var ru syscall.Rusage
	who := 1 // RUSAGE_THREAD
	if process {
		who = syscall.RUSAGE_SELF
	}
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
