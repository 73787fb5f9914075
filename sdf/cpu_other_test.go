//go:build !linux

package sdf

import "time"

// cpuTime is only measured on Linux.
func cpuTime(process bool) (time.Duration, bool) { return 0, false }
