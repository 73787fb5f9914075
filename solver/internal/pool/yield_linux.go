package pool

import (
	"runtime"
	"syscall"
)

// yield gives the processor away while a goroutine spins: to another
// goroutine of this process (runtime.Gosched), and to another process's
// thread waiting for this core (sched_yield), so a spinning worker costs
// little on a machine busy with other work.
func yield() {
	runtime.Gosched()
	syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
