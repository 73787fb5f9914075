package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

func bakeCommand() *cli.Command {
	return &cli.Command{
		Name:      "bake",
		Usage:     "simulate cloth on a mesh or scene file and write the baked animation",
		ArgsUsage: "INPUT|SCENE.json [MORE...]",
		Description: `INPUT is a .glb, .gltf, .obj or .stl cloth mesh, or a scene file (.json, see docs/scene.md).
Several inputs, a folder of scene files (-r: and its subfolders) or a list file (.txt: one scene or
mesh path per line, # comments) bake as a batch (-j jobs at once). A batch skips jobs a resume record
beside their outputs shows done (--force bakes them), bakes only --shard I/N of the jobs when asked,
and writes --summary FILE; drape report merge joins the shards' summaries.
Flags override the scene file.

Examples:
   drape bake cloth.obj --pin top --frames 96 -o cloth.glb
   drape bake sheet.glb --collider sphere:0,0,0,0.5 --self-collision -o sheet.pc2
   drape bake scene.json --progress json --report report.json
   drape bake examples/ -j 2 --json
   drape bake garments/ -r --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT --summary sum-$SLURM_ARRAY_TASK_ID.json
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
			&cli.StringSliceFlag{Name: "collider", Usage: bake.ColliderFlagUsage()},
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
			&cli.BoolFlag{Name: "recursive", Aliases: []string{"r"}, Usage: "search a batch folder's subfolders for scene files too"},
			&cli.StringFlag{Name: "shard", Usage: "bake only shard `I/N` of the batch (0-based; the same split on every machine, balanced by estimated cost)"},
			&cli.BoolFlag{Name: "force", Usage: "bake every job of a batch, also those a resume record shows done"},
			&cli.StringFlag{Name: "summary", Usage: "write the batch's summary (every job's status, outputs, timings and quality) to `FILE` (JSON; drape report merge joins shards' summaries)"},
			&cli.StringSliceFlag{Name: "require", Usage: "fail the bake with exit code 5 (outputs still written) unless `KEY<=VALUE` holds (quote it: a shell reads < as a redirection); keys max_strain, last_strain (edge strain, 0.01 = 1 %), penetration_m, self_intersections; repeatable"},
			&cli.StringFlag{Name: "max-memory", Usage: "refuse a bake that would hold more than `SIZE` in memory (e.g. 8G; default 80% of physical memory; never more than 80% of what the process's cgroup memory limit, ulimit -v or ulimit -d leave; 0 or less: no limit)"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the bake to `FILE` (for go tool pprof)"},
		},
		Action: bakeAction,
	}
}

// sceneFor builds the settings of one job: the scene file (or a bare mesh
// input) with the flags applied over it.
// root is the folder of the batch manifest that listed it ("" for a file
// named on the command line).
func sceneFor(c *cli.Context, input, root string) (*bake.Scene, error) {
	var sc *bake.Scene
	if strings.EqualFold(filepath.Ext(input), ".json") {
		s, err := bake.LoadSceneWithin(input, root)
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
		up, err := bake.ParseAxis(c.String("up"))
		if err != nil {
			return usagef("--up %q: %v", c.String("up"), err)
		}
		sc.Up = up
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

// bakedResult is the result of a job that baked and wrote its outputs:
// ok, or missing a requirement.
func bakedResult(input string, rep *bake.Report) bake.JobResult {
	return bake.ResultOf(input, rep)
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
	maxMem, err := maxMemoryFlag(c)
	if err != nil {
		return err
	}
	// The collector works hard as the heap nears the budget, so that a bake
	// within its estimate stays within the budget's limit (RLIMIT_AS, the
	// cgroup's memory.max) instead of meeting it between collections.
	if b := bake.MemoryBudget(maxMem); b > 0 {
		debug.SetMemoryLimit(b)
	}
	shard, shards := 0, 1
	if c.IsSet("shard") {
		var err error
		if shard, shards, err = bake.ParseShard(c.String("shard")); err != nil {
			return usagef("%v", err)
		}
	}
	jobs, err := bake.ListBatch(c.Args().Slice(), c.Bool("recursive"))
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
	if len(jobs) == 1 && !isBatch(c) {
		return bakeOne(c, jobs[0].Path, mode, stdout, stderr)
	}
	return bakeBatch(c, jobs, shard, shards, mode, stdout, stderr)
}

// isBatch reports whether the command line asks for a batch even when it
// holds one job: a folder or list file, or a batch flag.
func isBatch(c *cli.Context) bool {
	if c.IsSet("shard") || c.IsSet("summary") || c.IsSet("force") || c.IsSet("recursive") {
		return true
	}
	for _, a := range c.Args().Slice() {
		if st, err := os.Stat(a); err == nil && (st.IsDir() || bake.IsListFile(a)) {
			return true
		}
	}
	return false
}

func bakeOne(c *cli.Context, input, mode string, stdout, stderr io.Writer) error {
	sc, err := sceneFor(c, input, "")
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
	if p := c.String("report"); p != "" {
		if err := sc.CheckExtraOutput(p); err != nil {
			return err
		}
	}
	rep, err := bake.Run(c.Context, sc, opt)
	if mode == "bar" {
		bar.finish()
	}
	if err != nil {
		if c.Bool("json") || mode == "json" {
			code := bake.ExitCode(err)
			enc.Encode(bake.JobResult{Input: input, Status: bake.StatusFailed, Code: code, Error: err.Error()})
			return jsonReported{err}
		}
		return err
	}
	if p := c.String("report"); p != "" {
		if err := rep.WriteFile(p); err != nil {
			return err
		}
	}
	rep.WriteSummary(stderr)
	// --progress json keeps stdout JSON lines only: the result object ends it.
	if c.Bool("json") || mode == "json" {
		if err := enc.Encode(bakedResult(input, rep)); err != nil {
			return err
		}
	} else {
		for _, o := range rep.OutputPaths() {
			fmt.Fprintln(stdout, o)
		}
	}
	if err := rep.RequirementError(); err != nil {
		if c.Bool("json") || mode == "json" {
			return jsonReported{err}
		}
		return err
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
