//go:build unix

package bake

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this id exists (a process of
// another user counts).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
