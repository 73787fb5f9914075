//go:build !linux

package pool

import "runtime"

// yield gives the processor to another goroutine while a goroutine spins.
func yield() {
	runtime.Gosched()
}
