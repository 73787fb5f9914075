package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

func bakeCommand() *cli.Command {
	return &cli.Command{
		Name:      "bake",
		Usage:     "simulate cloth on a mesh or scene file and write the baked animation",
		ArgsUsage: "INPUT|SCENE.json [MORE...]",
		Description: `INPUT is a .glb, .gltf, .obj or .stl cloth mesh, or a scene file (.json, see docs/scene.md).
Several scene files, or a folder of them, bake as a batch (-j jobs at once).
Flags override the scene file.

Examples:
   drape bake cloth.obj --pin top --frames 96 -o cloth.glb
   drape bake sheet.glb --collider sphere:0,0,0,0.5 --self-collision -o sheet.pc2
   drape bake scene.json --progress json --report report.json
   drape bake examples/ -j 2 --json
   drape bake scene.json --require 'max_strain<=0.02' --require 'self_intersections<=0'

Every bake checks its quality (largest edge strain in any frame and at the last frame, deepest collider
penetration, intersecting triangle pairs) against the fabric's bounds, warns on stderr for each exceeded
bound and writes the certificate into --report and --json (key "quality").

Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input, 4 simulation diverged (nothing written),
5 a --require bound missed (outputs and report written; the message names the bound), 6 cannot write the
output (nothing written), 130 cancelled.`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `PATH`: .glb (default), .gltf, .pc2, .mdd, .usda/.usd/.usdc (USD point cache), or DIR/ for an OBJ sequence; repeat for several"},
			&cli.IntFlag{Name: "frames", Usage: "frames to bake (default 120)"},
			&cli.Float64Flag{Name: "fps", Usage: "frames per second (default 24)"},
			&cli.IntFlag{Name: "frame-step", Usage: "write every `K`th frame"},
			&cli.IntFlag{Name: "substeps", Usage: "substeps per frame (default: the solver's)"},
			&cli.IntFlag{Name: "iterations", Usage: "constraint iterations per substep"},
			&cli.IntFlag{Name: "bending-interval", Usage: "most substeps one bending projection spans (0 = automatic, 1 = every substep)"},
			&cli.StringFlag{Name: "solver", Usage: "xpbd, verlet, euler or implicit"},
			&cli.IntFlag{Name: "threads", Usage: "worker threads (0 = all cores); the result does not depend on it"},
			&cli.StringFlag{Name: "gravity", Usage: "gravity `x,y,z` [m/s²]"},
			&cli.StringFlag{Name: "up", Usage: "up axis of OBJ/STL input: y or z"},
			&cli.Float64Flag{Name: "scale", Usage: "unit scale of the input (0.01 for cm)"},
			&cli.StringFlag{Name: "mesh", Usage: "glTF mesh `NAME` of the cloth"},
			&cli.StringSliceFlag{Name: "pin", Usage: "pin vertices: top, index:i,j,..., box:x0,y0,z0,x1,y1,z1, attribute:NAME; repeatable"},
			&cli.StringSliceFlag{Name: "collider", Usage: "sphere:cx,cy,cz,r capsule:ax,ay,az,bx,by,bz,r cone:ax,ay,az,bx,by,bz,ra,rb plane:nx,ny,nz,d box:cx,cy,cz,hx,hy,hz mesh:PATH; repeatable"},
			&cli.Float64Flag{Name: "thickness", Usage: "cloth thickness `M` kept from colliders and itself"},
			&cli.Float64Flag{Name: "sewing", Usage: "sew the input's loose edges (OBJ l lines) shut at `V` m/s"},
			&cli.Float64Flag{Name: "volume", Usage: "hold every closed piece at `R` times its rest volume (1 keeps a pillow lofted, above 1 inflates)"},
			&cli.Float64Flag{Name: "friction", Usage: "cloth-collider friction coefficient"},
			&cli.BoolFlag{Name: "self-collision", Usage: "enable cloth self-collision"},
			&cli.StringFlag{Name: "fabric", Usage: "fabric preset (see drape presets)"},
			&cli.BoolFlag{Name: "tethers", Usage: "long-range attachments from pinned vertices"},
			&cli.IntFlag{Name: "retry", Usage: "on divergence retry a frame with twice the substeps up to `N` times"},
			&cli.BoolFlag{Name: "sleep", Usage: "let vertices at rest sleep once the whole cloth is calm (resting frames cost almost nothing)"},
			&cli.BoolFlag{Name: "quantize", Usage: "write KHR_mesh_quantization morph targets (smaller glTF)"},
			&cli.BoolFlag{Name: "no-normals", Usage: "write no NORMAL morph targets"},
			&cli.StringFlag{Name: "morph-targets", Usage: "most glTF morph targets `K` (default 64): more frames are compressed into K basis shapes; all = one exact target per frame"},
			&cli.Float64Flag{Name: "max-error", Usage: "compress glTF morph targets to a largest vertex error of `M` metres at any frame (default 0.0005 when frames > 64)"},
			&cli.Int64Flag{Name: "seed", Usage: "seed of the wind gusts"},
			&cli.StringFlag{Name: "progress", Value: "auto", Usage: "auto (a bar on a terminal), bar, json (one object per frame on stdout) or none"},
			&cli.StringFlag{Name: "report", Usage: "write a JSON report to `FILE` (a batch writes FILE per job, suffixed)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as one JSON object on stdout"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 1, Usage: "bake up to `N` jobs of a batch at once"},
			&cli.StringSliceFlag{Name: "require", Usage: "fail the bake with exit code 5 (outputs still written) unless `KEY<=VALUE` holds (quote it: a shell reads < as a redirection); keys max_strain, last_strain (edge strain, 0.01 = 1 %), penetration_m, self_intersections; repeatable"},
			&cli.StringFlag{Name: "max-memory", Usage: "refuse a bake that would hold more than `SIZE` in memory (e.g. 8G; default 80% of physical memory; 0 or less: no limit)"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the bake to `FILE` (for go tool pprof)"},
		},
		Action: bakeAction,
	}
}

// jobInput lists the jobs named on the command line: files as given, and
// the *.json scene files of a folder in name order.
func jobInputs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, &bake.Error{Code: bake.ExitBadInput, Err: fmt.Errorf("input %s: %w", a, err), Fix: "check the path"}
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.json"))
		sub, _ := filepath.Glob(filepath.Join(a, "*", "scene.json"))
		m = append(m, sub...)
		sort.Strings(m)
		if len(m) == 0 {
			return nil, &bake.Error{Code: bake.ExitBadInput, Err: fmt.Errorf("folder %s holds no scene files (*.json or */scene.json)", a)}
		}
		out = append(out, m...)
	}
	return out, nil
}

// sceneFor builds the settings of one job: the scene file (or a bare mesh
// input) with the flags applied over it.
func sceneFor(c *cli.Context, input string) (*bake.Scene, error) {
	var sc *bake.Scene
	if strings.EqualFold(filepath.Ext(input), ".json") {
		s, err := bake.LoadScene(input)
		if err != nil {
			return nil, err
		}
		sc = s
	} else {
		sc = bake.DefaultScene()
		sc.Input = input
	}
	if err := applyFlags(c, sc); err != nil {
		return nil, err
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// applyFlags overrides scene settings with the flags the user set.
func applyFlags(c *cli.Context, sc *bake.Scene) error {
	if c.IsSet("out") {
		sc.Output = c.StringSlice("out")
		if err := flagPathsAbs(sc, sc.Output); err != nil {
			return err
		}
	}
	setInt := func(name string, dst *int) {
		if c.IsSet(name) {
			*dst = c.Int(name)
		}
	}
	setFloat := func(name string, dst *float64) {
		if c.IsSet(name) {
			*dst = c.Float64(name)
		}
	}
	setInt("frames", &sc.Frames)
	setInt("frame-step", &sc.FrameStep)
	setInt("substeps", &sc.Substeps)
	setInt("iterations", &sc.Iterations)
	setInt("bending-interval", &sc.BendInterval)
	setInt("threads", &sc.Threads)
	setInt("retry", &sc.Retry)
	setFloat("fps", &sc.FPS)
	setFloat("scale", &sc.Scale)
	setFloat("thickness", &sc.Thickness)
	setFloat("volume", &sc.Volume)
	setFloat("sewing", &sc.Sewing)
	if c.IsSet("solver") {
		sc.Solver = c.String("solver")
	}
	if c.IsSet("up") {
		sc.Up = c.String("up")
	}
	if c.IsSet("mesh") {
		sc.Mesh = c.String("mesh")
	}
	if c.IsSet("fabric") {
		sc.Fabric.Preset = c.String("fabric")
	}
	if c.IsSet("friction") {
		f := c.Float64("friction")
		sc.Friction = &f
	}
	if c.IsSet("gravity") {
		g, err := bake.ParseVec3Flag(c.String("gravity"))
		if err != nil {
			return usagef("--gravity %q: %v", c.String("gravity"), err)
		}
		sc.Gravity = &g
	}
	if c.IsSet("self-collision") {
		sc.SelfCollision = c.Bool("self-collision")
	}
	if c.IsSet("tethers") {
		sc.Tethers = c.Bool("tethers")
	}
	if c.IsSet("sleep") {
		sc.Sleep = c.Bool("sleep")
	}
	if c.IsSet("quantize") {
		sc.Quantize = c.Bool("quantize")
	}
	if c.IsSet("morph-targets") {
		k, err := bake.ParseMorphTargets(c.String("morph-targets"))
		if err != nil {
			return usagef("--morph-targets %v", err)
		}
		sc.MorphTargets = k
	}
	setFloat("max-error", &sc.MaxError)
	if c.IsSet("no-normals") {
		n := !c.Bool("no-normals")
		sc.Normals = &n
	}
	if c.IsSet("seed") {
		sc.Seed = c.Int64("seed")
	}
	if c.IsSet("pin") {
		sc.Pins = nil
		for _, p := range c.StringSlice("pin") {
			ps, err := bake.ParsePinFlag(p)
			if err != nil {
				return usagef("%v", err)
			}
			sc.Pins = append(sc.Pins, ps)
		}
	}
	if c.IsSet("require") {
		var req bake.Requirements
		for _, r := range c.StringSlice("require") {
			if err := bake.ParseRequireFlag(r, &req); err != nil {
				return usagef("%v", err)
			}
		}
		if sc.Require == nil {
			sc.Require = &bake.Requirements{}
		}
		sc.Require.Merge(req)
	}
	if c.IsSet("collider") {
		for _, s := range c.StringSlice("collider") {
			cs, err := bake.ParseColliderFlag(s)
			if err != nil {
				return usagef("%v", err)
			}
			ps := []string{cs.Path}
			if err := flagPathsAbs(sc, ps); err != nil {
				return err
			}
			cs.Path = ps[0]
			sc.Colliders = append(sc.Colliders, cs)
		}
	}
	return nil
}

// flagPathsAbs makes relative paths given on the command line absolute
// when the settings come from a scene file: flags name paths from the
// working directory, as in every CLI, while paths inside a scene file are
// the scene file's. A trailing separator (an OBJ-sequence folder) stays.
func flagPathsAbs(sc *bake.Scene, paths []string) error {
	if sc.File() == "" {
		return nil
	}
	for i, p := range paths {
		if p == "" || filepath.IsAbs(p) {
			continue
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return usagef("%q: %v", p, err)
		}
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
			a += string(filepath.Separator)
		}
		paths[i] = a
	}
	return nil
}

// maxMemoryFlag returns --max-memory in bytes (0 when not set, -1 for no
// limit).
func maxMemoryFlag(c *cli.Context) (int64, error) {
	if !c.IsSet("max-memory") {
		return 0, nil
	}
	v := strings.TrimSpace(c.String("max-memory"))
	if f, err := strconv.ParseFloat(v, 64); err == nil && f <= 0 {
		return -1, nil
	}
	n, err := bake.ParseBytes(v)
	if err != nil {
		return 0, usagef("--max-memory: %v", err)
	}
	return n, nil
}

// jobResult is one job's outcome, as --json prints it.
type jobResult struct {
	Input string `json:"input"`
	OK    bool   `json:"ok"`
	// Status is "ok", "requirement_missed" (baked and written, but a
	// --require bound was missed: exit code 5) or "failed".
	Status  string       `json:"status"`
	Code    int          `json:"exit_code"`
	Error   string       `json:"error,omitempty"`
	Outputs []string     `json:"outputs,omitempty"`
	Report  *bake.Report `json:"report,omitempty"`
	// Missed are the requirements a job missed (see bake.Quality.Failed).
	Missed []string `json:"missed_requirements,omitempty"`
}

// Job statuses of jobResult.
const (
	statusOK     = "ok"
	statusMissed = "requirement_missed"
	statusFailed = "failed"
)

// bakedResult is the result of a job that baked and wrote its outputs:
// ok, or missing a requirement.
func bakedResult(input string, rep *bake.Report) jobResult {
	res := jobResult{Input: input, OK: true, Status: statusOK, Outputs: rep.OutputPaths(), Report: rep}
	if err := rep.RequirementError(); err != nil {
		res.OK, res.Status, res.Code, res.Error = false, statusMissed, bake.ExitCode(err), err.Error()
		res.Missed = rep.Quality.Failed
	}
	return res
}

func bakeAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("bake: no input; give a mesh (.glb .gltf .obj .stl) or a scene file (.json)")
	}
	mode := c.String("progress")
	switch mode {
	case "auto", "bar", "json", "none":
	default:
		return usagef("--progress %q: must be auto, bar, json or none", mode)
	}
	if c.Int("jobs") < 1 {
		return usagef("--jobs %d: must be >= 1", c.Int("jobs"))
	}
	// Flag syntax first: a mistyped flag is a usage error whatever the input.
	if err := applyFlags(c, bake.DefaultScene()); err != nil {
		return err
	}
	if _, err := maxMemoryFlag(c); err != nil {
		return err
	}
	inputs, err := jobInputs(c.Args().Slice())
	if err != nil {
		return err
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if mode == "auto" {
		mode = "none"
		if isTerminal(stderr) {
			mode = "bar"
		}
	}
	if p := c.String("cpuprofile"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	if len(inputs) == 1 {
		return bakeOne(c, inputs[0], mode, stdout, stderr)
	}
	return bakeBatch(c, inputs, mode, stdout, stderr)
}

func bakeOne(c *cli.Context, input, mode string, stdout, stderr io.Writer) error {
	sc, err := sceneFor(c, input)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	enc := json.NewEncoder(stdout)
	bar := newProgressBar(stderr)
	maxMem, err := maxMemoryFlag(c)
	if err != nil {
		return err
	}
	opt := bake.Options{
		MaxMemory: maxMem,
		Warn:      func(s string) { fmt.Fprintf(stderr, "drape: warning: %s\n", s) },
		Progress: func(p bake.Progress) {
			mu.Lock()
			defer mu.Unlock()
			switch mode {
			case "json":
				enc.Encode(p)
			case "bar":
				bar.update(p)
			}
		},
	}
	rep, err := bake.Run(c.Context, sc, opt)
	if mode == "bar" {
		bar.finish()
	}
	if err != nil {
		if c.Bool("json") {
			code := bake.ExitCode(err)
			enc.Encode(jobResult{Input: input, Status: statusFailed, Code: code, Error: err.Error()})
		}
		return err
	}
	if p := c.String("report"); p != "" {
		if err := rep.WriteFile(p); err != nil {
			return err
		}
	}
	rep.WriteSummary(stderr)
	if c.Bool("json") {
		if err := enc.Encode(bakedResult(input, rep)); err != nil {
			return err
		}
	} else {
		for _, o := range rep.OutputPaths() {
			fmt.Fprintln(stdout, o)
		}
	}
	return rep.RequirementError()
}

// bakeBatch bakes several jobs, -j at a time. A failing job does not stop
// the others; the exit code is the first failure's (in input order), or
// ExitRequirement when no job failed but some missed a requirement (their
// outputs are written).
func bakeBatch(c *cli.Context, inputs []string, mode string, stdout, stderr io.Writer) error {
	n := c.Int("jobs")
	results := make([]jobResult, len(inputs))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	enc := json.NewEncoder(stdout)
	for i, in := range inputs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res := jobResult{Input: in}
			start := time.Now()
			sc, err := sceneFor(c, in)
			var rep *bake.Report
			if err == nil {
				if n > 1 && sc.Threads == 0 {
					sc.Threads = 1 // jobs run side by side; identical result either way
				}
				maxMem, _ := maxMemoryFlag(c) // checked by bakeAction
				rep, err = bake.Run(c.Context, sc, bake.Options{
					MaxMemory: maxMem,
					Warn: func(s string) {
						mu.Lock()
						fmt.Fprintf(stderr, "drape: %s: warning: %s\n", in, s)
						mu.Unlock()
					},
					Progress: func(p bake.Progress) {
						if mode == "json" {
							mu.Lock()
							enc.Encode(struct {
								Job string `json:"job"`
								bake.Progress
							}{in, p})
							mu.Unlock()
						}
					},
				})
			}
			if err == nil && c.String("report") != "" {
				err = rep.WriteFile(batchReportPath(c.String("report"), i, in))
			}
			if err != nil {
				res.Status, res.Code, res.Error = statusFailed, bake.ExitCode(err), err.Error()
			} else {
				res = bakedResult(in, rep)
			}
			mu.Lock()
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "drape: %s: %v\n", in, err)
			case res.Status == statusMissed:
				fmt.Fprintf(stderr, "drape: %s: %s\n", in, res.Error)
			case mode != "json":
				fmt.Fprintf(stderr, "drape: %s: done in %.1f s\n", in, time.Since(start).Seconds())
			}
			results[i] = res
			mu.Unlock()
		}()
	}
	wg.Wait()
	if c.Bool("json") {
		for _, r := range results {
			enc.Encode(r)
		}
	}
	tw := tabwriter.NewWriter(stderr, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "job\tresult\tframes\ts/frame\toutputs")
	failed, missed := 0, 0
	code := 0
	for _, r := range results {
		switch r.Status {
		case statusOK:
			fmt.Fprintf(tw, "%s\tok\t%d\t%.4f\t%s\n", r.Input, r.Report.Frames, r.Report.SecondsPerFrame, strings.Join(r.Outputs, " "))
			continue
		case statusMissed:
			missed++
			fmt.Fprintf(tw, "%s\tMISSED REQUIREMENT (exit %d)\t%d\t%.4f\t%s; missed %s\n", r.Input, r.Code, r.Report.Frames, r.Report.SecondsPerFrame,
				strings.Join(r.Outputs, " "), strings.Join(r.Missed, "; "))
			continue
		}
		failed++
		if code == 0 {
			code = r.Code
		}
		msg := r.Error
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		fmt.Fprintf(tw, "%s\tFAILED (exit %d)\t-\t-\t%s\n", r.Input, r.Code, msg)
	}
	tw.Flush()
	fmt.Fprintf(stderr, "%d of %d jobs baked, %d failed", len(results)-failed, len(results), failed)
	if missed > 0 {
		fmt.Fprintf(stderr, ", %d missed a requirement", missed)
	}
	fmt.Fprintln(stderr)
	if code == 0 && missed > 0 {
		code = bake.ExitRequirement
	}
	if code != 0 {
		return silentExit(code)
	}
	return nil
}

// batchReportPath names the report of job i: report.json becomes
// report.<scene name>.json.
func batchReportPath(p string, i int, input string) string {
	ext := filepath.Ext(p)
	name := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input))
	if name == "scene" {
		name = filepath.Base(filepath.Dir(input))
	}
	return fmt.Sprintf("%s.%02d-%s%s", strings.TrimSuffix(p, ext), i, name, ext)
}
