package bake

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBallOBJ writes a closed latitude-longitude ball of radius r (wound
// outwards) centred at height y, and returns its path.
func writeBallOBJ(t *testing.T, dir string, r, y float64) string {
	t.Helper()
	const nLat, nLon = 10, 14
	var b strings.Builder
	fmt.Fprintf(&b, "v 0 %g 0\n", y+r)
	for i := 1; i < nLat; i++ {
		th := math.Pi * float64(i) / nLat
		for j := range nLon {
			ph := 2 * math.Pi * float64(j) / nLon
			fmt.Fprintf(&b, "v %g %g %g\n", r*math.Sin(th)*math.Cos(ph), y+r*math.Cos(th), r*math.Sin(th)*math.Sin(ph))
		}
	}
	fmt.Fprintf(&b, "v 0 %g 0\n", y-r)
	south := 1 + (nLat-1)*nLon + 1
	ring := func(i, j int) int { return 2 + (i-1)*nLon + (j+nLon)%nLon }
	for j := range nLon {
		fmt.Fprintf(&b, "f 1 %d %d\n", ring(1, j), ring(1, j+1))
		fmt.Fprintf(&b, "f %d %d %d\n", south, ring(nLat-1, j+1), ring(nLat-1, j))
	}
	for i := 1; i+1 < nLat; i++ {
		for j := range nLon {
			fmt.Fprintf(&b, "f %d %d %d %d\n", ring(i, j), ring(i+1, j), ring(i+1, j+1), ring(i, j+1))
		}
	}
	p := filepath.Join(dir, "ball.obj")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVolumeInflatesBall bakes a closed ball of cloth hanging from its top
// with volume 1.3: the report gives its volume at the last frame as 1.3
// times the rest volume (within 2 %).
func TestVolumeInflatesBall(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writeBallOBJ(t, dir, 0.2, 1)
	sc.Output = Outputs{filepath.Join(dir, "ball.pc2")}
	sc.Frames = 24
	sc.Volume = 1.3
	sc.Pins = []PinSpec{{Top: true}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("closed volume ratio at the last frame: %v, max stretch %.1f %%", rep.ClosedVolumes, 100*rep.MaxStretch)
	if len(rep.ClosedVolumes) != 1 || math.Abs(rep.ClosedVolumes[0]-1.3) > 0.026 {
		t.Errorf("closed_volume_ratio = %v, want one piece at 1.3 ± 0.026", rep.ClosedVolumes)
	}
}

// TestVolumeNeedsAClosedPiece checks that volume on an open cloth is an
// error naming the file and the fix.
func TestVolumeNeedsAClosedPiece(t *testing.T) {
	dir := t.TempDir()
	sc := DefaultScene()
	sc.Input = writeGridOBJ(t, dir, 6, 1, 1)
	sc.Volume = 1
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := Prepare(sc, Options{})
	if err == nil || ExitCode(err) != ExitBadInput {
		t.Fatalf("Prepare = %v, want a bad-input error", err)
	}
	for _, w := range []string{"grid.obj", "volume = 1", "no closed piece", "drape inspect"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}
