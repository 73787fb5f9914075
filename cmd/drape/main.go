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
// (every phase checks for cancellation at least this often, as a rule);
// after it the process removes its temporary outputs and exits 130.
const cancelGrace = time.Second

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
			fmt.Fprintln(os.Stderr, "drape: cancelled; no output was written")
			os.Exit(bake.ExitCancelled)
		}
	}()
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	close(done)
	stop()
	os.Exit(code)
}
