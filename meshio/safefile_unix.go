//go:build unix

package meshio

import "syscall"

// openNonblock opens a FIFO without waiting for a writer, so it can be
// refused as not a regular file instead of hanging; regular files ignore it.
const openNonblock = syscall.O_NONBLOCK
