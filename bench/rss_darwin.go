package main

import (
	"os"
	"syscall"
)

// rssMeasured reports whether peakRSS measures anything on this system.
const rssMeasured = true

// peakRSS returns the peak resident set [MiB] of the exited process ps,
// from its getrusage record (macOS reports bytes).
func peakRSS(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return 0
}
