// Command exports bakes scenes once each and writes every bake in the
// output formats an engine or a pipeline takes, timing each write and
// measuring its size: glb with one exact morph target per frame, glb with
// the default compressed targets (and quantized), and the USD text point
// cache as text and as crate. It prints one Markdown table row per scene, the figures the
// README quotes.
//
//	go run ./bench/exports examples/tablecloth/scene.json examples/tshirt/scene.json drape300
//
// "drape300" is a generated scene: a 1 m cloth of 64 x 64 vertices falling
// onto a sphere for 300 frames.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/drape-sim/drape/bake"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/exports SCENE.json|drape300 ...")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "drape-exports")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	fmt.Println("| scene | frames | vertices | exact glb | compressed glb | targets, max / RMS error | quantized compressed glb | USD text (.usda) | USD binary (.usdc) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, arg := range os.Args[1:] {
		sc, name, err := scene(arg, tmp)
		if err != nil {
			fail(err)
		}
		j, err := bake.Prepare(sc, bake.Options{})
		if err != nil {
			fail(err)
		}
		rec, err := j.Simulate(context.Background(), bake.Options{})
		if err != nil {
			fail(err)
		}
		write := func(file string, k bake.MorphTargets, quantize bool) (bake.OutputInfo, time.Duration) {
			sc.Output = []string{filepath.Join(tmp, file)}
			sc.MorphTargets, sc.Quantize = k, quantize
			t0 := time.Now()
			infos, err := j.Write(context.Background(), rec)
			if err != nil {
				fail(err)
			}
			return infos[0], time.Since(t0)
		}
		// time the compressed glb without the extra exact and unquantized
		// sizes Write measures for the report: those are writes of their own
		exact, te := write("exact.glb", bake.AllMorphTargets, false)
		comp, tc := write("comp.glb", 0, false)
		tc -= te // Write also sized the exact glb for the report
		q, tq := write("q.glb", 0, true)
		tq -= te + tc
		usd, tu := write("bake.usda", 0, false)
		usdc, tb := write("bake.usdc", 0, false)
		m := comp.Morph
		fmt.Printf("| %s | %d | %d | %s (%s) | %s (%s) | %d, %.3f / %.4f mm | %s (%s) | %s (%s) | %s (%s) |\n",
			name, len(rec.Frames), len(j.Welded.RenderToSim), mb(exact.Bytes), sec(te), mb(comp.Bytes), sec(tc),
			m.Targets, 1e3*m.MaxError, 1e3*m.RMSError, mb(q.Bytes), sec(max(tq, 0)), mb(usd.Bytes), sec(tu), mb(usdc.Bytes), sec(tb))
	}
}

// scene loads a scene file, or makes the generated drape300 scene in dir.
func scene(arg, dir string) (*bake.Scene, string, error) {
	if arg != "drape300" {
		sc, err := bake.LoadScene(arg)
		return sc, filepath.Base(filepath.Dir(arg)), err
	}
	const n = 64
	var b strings.Builder
	for i := range n {
		for k := range n {
			fmt.Fprintf(&b, "v %g 0.6 %g\n", -0.5+float64(k)/(n-1), -0.5+float64(i)/(n-1))
		}
	}
	for i := 0; i < n-1; i++ {
		for k := 0; k < n-1; k++ {
			a := i*n + k + 1
			fmt.Fprintf(&b, "f %d %d %d %d\n", a, a+n, a+n+1, a+1)
		}
	}
	obj := filepath.Join(dir, "drape300.obj")
	if err := os.WriteFile(obj, []byte(b.String()), 0o644); err != nil {
		return nil, "", err
	}
	sc := bake.DefaultScene()
	sc.Input = obj
	sc.Frames = 300
	sc.Colliders = []bake.ColliderSpec{{Type: bake.ColliderSphere, Center: &[3]float64{0, 0, 0}, Radius: 0.3}}
	return sc, "64 x 64 drape (generated)", sc.Validate()
}

func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

func sec(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "exports:", err)
	os.Exit(1)
}
