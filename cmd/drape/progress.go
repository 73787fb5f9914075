package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/drape-sim/drape/bake"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws one self-overwriting line on a terminal: a bar, the
// frame, baking speed and the time left. It redraws at most 10 times a
// second.
type progressBar struct {
	w    io.Writer
	last time.Time
	drew bool
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w} }

func (b *progressBar) update(p bake.Progress) {
	now := time.Now()
	if p.Frame < p.Frames && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	const width = 30
	filled := 0
	if p.Frames > 0 {
		filled = width * p.Frame / p.Frames
	}
	// Frame 1 is the input pose: speed and ETA start from frame 2.
	speed, eta := "-", "-"
	if p.Frame > 1 && p.Elapsed > 0 {
		speed = fmt.Sprintf("%.1f", float64(p.Frame-1)/p.Elapsed)
		eta = (time.Duration(p.ETA * float64(time.Second))).Round(time.Second).String()
	}
	fmt.Fprintf(b.w, "\r[%s%s] frame %d/%d  %s frames/s  ETA %s ",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.Frame, p.Frames, speed, eta)
	b.drew = true
}

func (b *progressBar) finish() {
	if b.drew {
		fmt.Fprintln(b.w)
	}
}
