// Command drape bakes cloth: it reads a mesh or a scene file, simulates, and
// writes glTF morph-target animation or point caches. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/drape-sim/drape/bake"
)

// cancelGrace is how long a cancelled command may take to stop by itself
// (a bake stops at once while it prepares, between frames while it
// simulates, and within milliseconds while it writes, also while it
// compresses a glTF's morph targets); after it the process removes its
// temporary outputs and exits 130, so that a step that does not check (a
// frame of a huge mesh) still ends within a second of the signal, also on
// a busy machine. Its message says so (forcedCancel).
const cancelGrace = 300 * time.Millisecond

// forcedCancel ends the message of a cancel that cancelGrace cut short.
const forcedCancel = " (stopped 0.3 s after the signal, in a step that does not check for it)"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		select {
		case <-done:
		case <-time.After(cancelGrace):
			bake.AbandonStaged()
			fmt.Fprintln(os.Stderr, "drape: cancelled; no output was written"+forcedCancel)
			os.Exit(bake.ExitCancelled)
		}
	}()
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	close(done)
	stop()
	os.Exit(code)
}
