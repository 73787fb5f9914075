//go:build !linux

package solver

import "runtime"

// yield gives the processor to another goroutine while a goroutine spins.
func yield() {
	runtime.Gosched()
}
