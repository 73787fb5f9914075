// Command bench bakes the same cloth scenes with drape, with Blender's
// cloth modifier and, with -newton, with NVIDIA Newton's cloth solvers on
// this machine, in one run and interleaved (drape, then each peer, scene by
// scene, so all see the same machine speed), measures every result with
// drape's own code, and prints a Markdown table.
//
//	go run ./bench [-frames 120] [-sizes 32,64,128] [-self 64] [-tshirt] [-newton] [-reps 1] [-out bench/out]
//
// Scenes: an N x N vertex grid 2 m wide, 1 m above a 0.5 m sphere at the
// origin, for each N in -sizes with self-collision off, and for each N in
// -self with it on; and, with -tshirt, the MakeHuman T-shirt and jeans
// settling on the body (examples/tshirt, self-collision on).
//
// drape runs as a child process (the binary built from ./cmd/drape) with
// the scene written to -out; Blender runs
// `blender -b --factory-startup --python bench/blender_cloth.py -- ...`;
// Newton runs bench/newton_cloth.py once per solver (VBD, XPBD, Style3D) in
// a virtual environment with the pinned packages of
// bench/newton-requirements.txt, created under tools/venv-newton when
// missing (newton.go).
// Time per frame is each tool's own simulation time divided by the steps
// (frames - 1), without reading the meshes and writing outputs; wall is
// the child's whole run. Peak RSS is the child's getrusage maximum
// resident set (rss_*.go); on Windows it is not measured and shows "-".
//
// Quality figures come from the PC2 files, all in the input's vertex
// order, measured the same way (see measure.go): max edge stretch over all
// frames against the rest mesh, deepest penetration into the collider
// surface over all frames, intersecting triangle pairs at the last frame
// (solver.SelfIntersections), and the lowest point at the last frame.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// scene is one benchmark case, baked by every tool.
type scene struct {
	Name     string
	Cloth    string  // cloth OBJ, Y-up
	Scale    float64 // unit scale of the cloth and body OBJ
	Sphere   float64 // sphere collider radius at the origin [m], or 0
	Body     string  // OBJ mesh collider, or ""
	Self     bool    // self-collision
	Vertices int
	Frames   int // frames baked (frame 1 is the rest pose)
}

// run is one child process's result.
type run struct {
	Tool     string
	PerFrame float64 // simulation seconds per step
	Wall     float64 // whole child process [s]
	RSS      float64 // peak resident set [MiB]
	PC2      string
	Err      error
	Quality  quality
}

type options struct {
	frames  int
	big     int
	tframes int
	fps     int
	sizes   []int
	self    []int
	tshirt  bool
	reps    int
	out     string
	blender string
	drape   string
	mass    float64
	threads int
	again   bool

	root         string // the repository (bench/, examples/, tools/)
	newton       bool
	newtonDevice string
	newtonOnly   []string // Newton solvers to run (names of newtonSolvers)
	venv         string
}

func main() {
	var o options
	var sizes, self string
	flag.IntVar(&o.frames, "frames", 120, "frames to bake (frame 1 is the rest pose)")
	flag.IntVar(&o.big, "big-frames", 0, "frames to bake for grids of more than 64 x 64 vertices (0 = -frames); Blender needs tens of seconds per frame there")
	flag.IntVar(&o.tframes, "tshirt-frames", 0, "frames to bake for the T-shirt scene (0 = -frames)")
	flag.IntVar(&o.fps, "fps", 24, "frames per second")
	flag.StringVar(&sizes, "sizes", "32,64,128", "grid sizes N (N x N vertices) baked without self-collision")
	flag.StringVar(&self, "self", "64", "grid sizes baked with self-collision")
	flag.BoolVar(&o.tshirt, "tshirt", true, "also bake the T-shirt-on-body scene (self-collision on)")
	flag.IntVar(&o.reps, "reps", 1, "repeat every scene this many times (drape and Blender alternate)")
	flag.StringVar(&o.out, "out", filepath.Join("bench", "out"), "work folder for scenes, caches and logs")
	flag.StringVar(&o.blender, "blender", "blender", "Blender 3.4 binary (\"\" leaves Blender out)")
	flag.StringVar(&o.drape, "drape", "", "drape binary to run (default: build ./cmd/drape into -out)")
	flag.Float64Var(&o.mass, "blender-mass", 0, "Blender cloth vertex mass [kg]; 0 keeps Blender's default (0.3 kg)")
	flag.IntVar(&o.threads, "threads", 0, "drape worker threads (0 = all cores)")
	flag.BoolVar(&o.newton, "newton", false, "also bake every scene with NVIDIA Newton's cloth solvers (installs the pinned newton and warp-lang into -newton-venv when missing)")
	flag.StringVar(&o.newtonDevice, "newton-device", "cpu", "Warp device Newton runs on: cpu, or cuda (cuda:N) on a machine with an NVIDIA GPU")
	var solvers string
	flag.StringVar(&solvers, "newton-solvers", "vbd,xpbd,style3d", "Newton cloth solvers to run")
	flag.StringVar(&o.venv, "newton-venv", filepath.Join("tools", "venv-newton"), "Python virtual environment for Newton (created when missing)")
	flag.BoolVar(&o.again, "remeasure", false, "bake nothing: measure the point caches and timings a previous run with the same flags left in -out (peak RSS is not kept)")
	flag.Parse()
	o.root = "."
	var err error
	if o.sizes, err = parseInts(sizes); err == nil {
		o.self, err = parseInts(self)
	}
	if err == nil {
		o.newtonOnly, err = parseSolvers(solvers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := bench(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 2 || n > 1024 {
			return nil, fmt.Errorf("grid size %q: must be an integer in 2..1024", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseSolvers(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		ok := false
		for _, ns := range newtonSolvers {
			ok = ok || ns.Name == f
		}
		if !ok {
			return nil, fmt.Errorf("-newton-solvers: %q is not one of vbd, xpbd, style3d", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// tool is one simulator of the table: drape or a peer.
type tool struct {
	Label, Short string
	CPU          bool // runs on this machine's CPU, so it counts in the speed-ups
	BlenderAxes  bool // its PC2 is in Blender's axes (drape's)
	run          func(tag string, sc scene) run
	previous     func(tag string) run
}

func bench(o options, stdout, log io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	drape := o.drape
	if drape == "" && !o.again {
		drape = filepath.Join(out, "drape")
		fmt.Fprintf(log, "building %s\n", drape)
		if b, err := exec.Command("go", "build", "-o", drape, "./cmd/drape").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/drape: %v\n%s", err, b)
		}
	}
	script, err := filepath.Abs(filepath.Join(o.root, "bench", "blender_cloth.py"))
	if err != nil {
		return err
	}
	tools := []tool{{Label: "drape", Short: "d", CPU: true, BlenderAxes: true,
		run:      func(tag string, sc scene) run { return runDrape(o, drape, out, tag, sc) },
		previous: func(tag string) run { return previous(out, tag, "drape", tag+"-drape.pc2", tag+"-drape-report.json") },
	}}
	versions := []string{runtime.Version()}
	if o.blender != "" {
		tools = append(tools, tool{Label: "Blender", Short: "B", CPU: true,
			run:      func(tag string, sc scene) run { return runBlender(o, script, out, tag, sc) },
			previous: func(tag string) run { return previous(out, tag, "Blender", tag+"-blender.pc2", tag+"-blender.json") },
		})
		versions = append(versions, blenderVersion(o))
	}
	if o.newton {
		nscript, err := filepath.Abs(filepath.Join(o.root, "bench", "newton_cloth.py"))
		if err != nil {
			return err
		}
		py := filepath.Join(o.venv, "bin", "python")
		if !o.again {
			if py, err = ensureNewton(o.venv, filepath.Join(o.root, "bench", "newton-requirements.txt"), log); err != nil {
				return err
			}
		}
		if py, err = filepath.Abs(py); err != nil {
			return err
		}
		versions = append(versions, newtonVersions(py)+" on "+o.newtonDevice)
		for _, ns := range newtonSolvers {
			if !contains(o.newtonOnly, ns.Name) {
				continue
			}
			name, label := ns.Name, ns.Label
			short := strings.TrimPrefix(label, "Newton ")
			if o.newtonDevice != "cpu" {
				label += " (" + o.newtonDevice + ")"
			}
			tools = append(tools, tool{Label: label, Short: short, CPU: o.newtonDevice == "cpu",
				run: func(tag string, sc scene) run { return runNewton(o, py, nscript, name, label, out, tag, sc) },
				previous: func(tag string) run {
					return previous(out, tag, label, tag+"-newton-"+name+".pc2", tag+"-newton-"+name+".json")
				},
			})
		}
	}

	var scenes []scene
	add := func(n int, self bool) error {
		name := fmt.Sprintf("grid%d", n)
		path := filepath.Join(out, name+".obj")
		if err := writeGrid(path, n, 1); err != nil {
			return err
		}
		label := fmt.Sprintf("%d x %d sphere", n, n)
		if self {
			label += ", self"
		}
		frames := o.frames
		if n > 64 && o.big > 0 {
			frames = o.big
		}
		scenes = append(scenes, scene{Name: label, Cloth: path, Scale: 1, Sphere: 0.5, Self: self, Vertices: n * n, Frames: frames})
		return nil
	}
	for _, n := range o.sizes {
		if err := add(n, false); err != nil {
			return err
		}
	}
	for _, n := range o.self {
		if err := add(n, true); err != nil {
			return err
		}
	}
	if o.tshirt {
		cloth, _ := filepath.Abs(filepath.Join(o.root, "examples", "tshirt", "male_casualsuit04.obj"))
		body, _ := filepath.Abs(filepath.Join(o.root, "examples", "tshirt", "male_generic.obj"))
		frames := o.frames
		if o.tframes > 0 {
			frames = o.tframes
		}
		scenes = append(scenes, scene{Name: "T-shirt + jeans on body, self", Cloth: cloth, Scale: 0.1, Body: body, Self: true, Vertices: 1696, Frames: frames})
	}

	start := time.Now()
	load0 := loadAvg()
	results := make([][][]run, len(scenes)) // scene, tool, repetition
	for i := range results {
		results[i] = make([][]run, len(tools))
	}
	for rep := 0; rep < o.reps; rep++ {
		for i, sc := range scenes {
			tag := fmt.Sprintf("%s-%d", slug(sc.Name), rep)
			for t, tl := range tools {
				if o.again {
					results[i][t] = append(results[i][t], tl.previous(tag))
					continue
				}
				fmt.Fprintf(log, "[%s] %s: %s\n", time.Since(start).Round(time.Second), sc.Name, tl.Label)
				r := tl.run(tag, sc)
				results[i][t] = append(results[i][t], r)
				fmt.Fprintf(log, "    %s %.2f ms/frame, %.0f MiB, err %v\n", tl.Label, 1000*r.PerFrame, r.RSS, r.Err)
			}
		}
	}
	load1 := loadAvg()
	base := math.NaN()
	if o.blender != "" {
		base = blenderBaseline(o, out)
	}

	// measure every result the same way
	for i, sc := range scenes {
		m, err := newMeasurer(sc)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.Name, err)
		}
		for t, tl := range tools {
			for k := range results[i][t] {
				r := &results[i][t][k]
				if r.Err != nil {
					continue
				}
				// drape writes point caches in Blender's axes, as Blender's
				// Mesh Cache modifier reads them; the peers' scripts write Y-up
				if r.Quality, err = m.measurePC2(r.PC2, tl.BlenderAxes); err != nil {
					r.Err = err
				}
			}
		}
	}

	var args []string
	for _, a := range os.Args[1:] {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = strconv.Quote(a)
		}
		args = append(args, a)
	}
	fmt.Fprintf(stdout, "Command: `go run ./bench %s`  \n", strings.Join(args, " "))
	fmt.Fprintf(stdout, "Machine: %d cores (GOMAXPROCS %d), load average %s at the start and %s at the end; %s; run took %s.\n\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), load0, load1, strings.Join(versions, "; "), time.Since(start).Round(time.Second))
	writeTable(stdout, scenes, tools, results)
	fmt.Fprintf(stdout, "\nTime per frame is the median over %d run(s) of each tool's own simulation time / (frames - 1) at %d fps.", o.reps, o.fps)
	if !rssMeasured {
		fmt.Fprintf(stdout, " Peak RSS is not measured on this system (no getrusage).")
	}
	if o.blender != "" && rssMeasured {
		fmt.Fprintf(stdout, " Blender's peak RSS includes %.0f MiB of Blender itself (an empty `blender -b --factory-startup` run).", base)
	}
	fmt.Fprintf(stdout, " † marks a peer whose result is worse than drape's in max stretch, max penetration or self-intersecting pairs (compared as printed); the speed-up is drape's against the fastest peer on this machine's CPU whose result is not marked.\n")
	for i, sc := range scenes {
		for t := range tools {
			for _, r := range results[i][t] {
				if _, skip := r.Err.(notRun); skip {
					fmt.Fprintf(stdout, "\n- %s, %s not run: %v", sc.Name, r.Tool, r.Err)
				} else if r.Err != nil {
					fmt.Fprintf(stdout, "\n- %s, %s failed: %v", sc.Name, r.Tool, firstLine(r.Err.Error()))
				}
			}
		}
	}
	fmt.Fprintln(stdout)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// the quality figures as the table prints them; a peer is "as good" as
// drape when none of its printed figures is worse
func stretchFig(q quality) string { return fmt.Sprintf("%.2f", 100*q.MaxStretch) }
func penFig(q quality) string     { return fmt.Sprintf("%.1f", 1000*q.MaxPenetration) }
func pairsFig(q quality) string   { return strconv.Itoa(q.SelfIntersections) }
func lowFig(q quality) string     { return fmt.Sprintf("%.3f", q.LowestY) }

// worse says whether peer p's result is worse than drape's d in stretch,
// penetration or self-intersections, at the precision the table prints.
func worse(p, d *run) bool {
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	return num(stretchFig(p.Quality)) > num(stretchFig(d.Quality)) ||
		num(penFig(p.Quality)) > num(penFig(d.Quality)) ||
		p.Quality.SelfIntersections > d.Quality.SelfIntersections
}

func ok(r *run) bool { return r != nil && r.Err == nil }

// speedup is drape's time per frame against the fastest CPU peer whose
// result is as good as drape's; without one, it says so and gives the
// ratio to the fastest CPU peer.
func speedup(tools []tool, rs []*run) string {
	d := rs[0]
	if !ok(d) || d.PerFrame <= 0 {
		return "-"
	}
	var good, fastest *run
	gl, al := "", ""
	for t := 1; t < len(tools); t++ {
		p := rs[t]
		if !tools[t].CPU || !ok(p) {
			continue
		}
		if fastest == nil || p.PerFrame < fastest.PerFrame {
			fastest, al = p, tools[t].Short
		}
		if !worse(p, d) && (good == nil || p.PerFrame < good.PerFrame) {
			good, gl = p, tools[t].Short
		}
	}
	switch {
	case good != nil:
		return fmt.Sprintf("%.1fx (%s)", good.PerFrame/d.PerFrame, gl)
	case fastest != nil:
		return fmt.Sprintf("no peer as good; %.1fx (%s†)", fastest.PerFrame/d.PerFrame, al)
	}
	return "-"
}

func writeTable(w io.Writer, scenes []scene, tools []tool, results [][][]run) {
	var shorts []string
	fmt.Fprintf(w, "| scene | verts | frames |")
	for _, tl := range tools {
		fmt.Fprintf(w, " %s ms/frame |", tl.Label)
		shorts = append(shorts, tl.Short)
	}
	sl := strings.Join(shorts, " / ")
	fmt.Fprintf(w, " drape speed-up (peer) | peak RSS MiB (%s) | max stretch %% (%s) | max penetration mm (%s) | self-intersecting pairs (%s) | lowest y m (%s) |\n", sl, sl, sl, sl, sl)
	fmt.Fprintf(w, "|---|---:|---:|%s---:|---:|---:|---:|---:|---:|\n", strings.Repeat("---:|", len(tools)))
	for i, sc := range scenes {
		rs := make([]*run, len(tools))
		for t := range tools {
			rs[t] = best(results[i][t])
		}
		fmt.Fprintf(w, "| %s | %d | %d |", sc.Name, sc.Vertices, sc.Frames)
		for t := range tools {
			mark := ""
			if t > 0 && ok(rs[t]) && ok(rs[0]) && worse(rs[t], rs[0]) {
				mark = "†"
			}
			fmt.Fprintf(w, " %s%s |", ms(rs[t]), mark)
		}
		col := func(f func(*run) string) string {
			var c []string
			for _, r := range rs {
				c = append(c, f(r))
			}
			return strings.Join(c, " / ")
		}
		fmt.Fprintf(w, " %s | %s | %s | %s | %s | %s |\n", speedup(tools, rs), col(mib),
			col(func(r *run) string { return fig(r, stretchFig) }),
			col(func(r *run) string { return fig(r, penFig) }),
			col(func(r *run) string { return fig(r, pairsFig) }),
			col(func(r *run) string { return fig(r, lowFig) }))
	}
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// best returns the successful run with the median time per frame.
func best(rs []run) *run {
	var ok []*run
	for i := range rs {
		if rs[i].Err == nil {
			ok = append(ok, &rs[i])
		}
	}
	if len(ok) == 0 {
		if len(rs) > 0 {
			return &rs[0]
		}
		return nil
	}
	for i := 1; i < len(ok); i++ {
		for j := i; j > 0 && ok[j].PerFrame < ok[j-1].PerFrame; j-- {
			ok[j], ok[j-1] = ok[j-1], ok[j]
		}
	}
	return ok[len(ok)/2]
}

// notRun is the error of a run a tool cannot do, and why.
type notRun string

func (e notRun) Error() string { return string(e) }

func ms(r *run) string {
	if r != nil {
		if _, skip := r.Err.(notRun); skip {
			return "n/a"
		}
	}
	if r == nil || r.Err != nil {
		return "failed"
	}
	return fmt.Sprintf("%.1f", 1000*r.PerFrame)
}

func mib(r *run) string {
	if r == nil || r.RSS == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.RSS)
}

func fig(r *run, f func(quality) string) string {
	if r == nil || r.Err != nil {
		return "-"
	}
	return f(r.Quality)
}

// child runs cmd, logging its output to logPath, and returns its wall time
// and peak RSS [MiB].
func child(cmd *exec.Cmd, logPath string) (wall, rss float64, err error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return 0, 0, err
	}
	defer lf.Close()
	cmd.Stdout, cmd.Stderr = lf, lf
	t := time.Now()
	err = cmd.Run()
	wall = time.Since(t).Seconds()
	if cmd.ProcessState != nil {
		rss = peakRSS(cmd.ProcessState)
	}
	if err != nil {
		b, _ := os.ReadFile(logPath)
		err = fmt.Errorf("%s: %v (log %s): %s", filepath.Base(cmd.Path), err, logPath, tail(string(b), 400))
	}
	return wall, rss, err
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

// drapeScene is the subset of docs/scene.md the benchmark writes.
type drapeScene struct {
	Input         string           `json:"input"`
	Scale         float64          `json:"scale,omitempty"`
	Output        string           `json:"output"`
	Frames        int              `json:"frames"`
	FPS           int              `json:"fps"`
	Threads       int              `json:"threads,omitempty"`
	SelfCollision bool             `json:"self_collision"`
	Colliders     []map[string]any `json:"colliders"`
}

func runDrape(o options, bin, out, tag string, sc scene) run {
	r := run{Tool: "drape", PC2: filepath.Join(out, tag+"-drape.pc2")}
	// A scene file names only files in its own folder: meshes from
	// elsewhere (the T-shirt example's) are copied into out first.
	cloth, err := intoFolder(out, sc.Cloth)
	if err != nil {
		r.Err = err
		return r
	}
	ds := drapeScene{Input: cloth, Scale: sc.Scale, Output: r.PC2, Frames: sc.Frames, FPS: o.fps, Threads: o.threads, SelfCollision: sc.Self}
	if sc.Sphere > 0 {
		ds.Colliders = []map[string]any{{"type": "sphere", "center": []float64{0, 0, 0}, "radius": sc.Sphere}}
	} else {
		body, err := intoFolder(out, sc.Body)
		if err != nil {
			r.Err = err
			return r
		}
		ds.Colliders = []map[string]any{{"type": "mesh", "path": body}}
	}
	scenePath := filepath.Join(out, tag+"-drape.json")
	b, _ := json.MarshalIndent(ds, "", "  ")
	if r.Err = os.WriteFile(scenePath, b, 0o644); r.Err != nil {
		return r
	}
	report := filepath.Join(out, tag+"-drape-report.json")
	cmd := exec.Command(bin, "bake", scenePath, "--progress", "none", "--report", report)
	r.Wall, r.RSS, r.Err = child(cmd, filepath.Join(out, tag+"-drape.log"))
	if r.Err != nil {
		return r
	}
	var rep struct {
		SecondsPerFrame float64 `json:"seconds_per_frame"`
	}
	if r.Err = readJSON(report, &rep); r.Err == nil {
		r.PerFrame = rep.SecondsPerFrame
	}
	return r
}

func runBlender(o options, script, out, tag string, sc scene) run {
	r := run{Tool: "Blender", PC2: filepath.Join(out, tag+"-blender.pc2")}
	timing := filepath.Join(out, tag+"-blender.json")
	args := []string{"-b", "--factory-startup", "--python", script, "--",
		"--cloth", sc.Cloth, "--scale", fmt.Sprint(sc.Scale), "--frames", strconv.Itoa(sc.Frames),
		"--fps", strconv.Itoa(o.fps), "--out", r.PC2, "--timing", timing}
	if sc.Sphere > 0 {
		args = append(args, "--sphere", fmt.Sprint(sc.Sphere))
	} else {
		args = append(args, "--body", sc.Body)
	}
	if sc.Self {
		args = append(args, "--self-collision")
	}
	if o.mass > 0 {
		args = append(args, "--mass", fmt.Sprint(o.mass))
	}
	r.Wall, r.RSS, r.Err = child(exec.Command(o.blender, args...), filepath.Join(out, tag+"-blender.log"))
	if r.Err != nil {
		return r
	}
	var t struct {
		SecondsPerFrame float64 `json:"seconds_per_frame"`
	}
	if r.Err = readJSON(timing, &t); r.Err == nil {
		r.PerFrame = t.SecondsPerFrame
	}
	return r
}

// previous returns a run of an earlier bench with the same -out: its point
// cache and its time per frame (from the JSON file timing).
func previous(out, tag, tool, pc2, timing string) run {
	r := run{Tool: tool, PC2: filepath.Join(out, pc2)}
	var t struct {
		SecondsPerFrame float64 `json:"seconds_per_frame"`
	}
	r.Err = readJSON(filepath.Join(out, timing), &t)
	r.PerFrame = t.SecondsPerFrame
	return r
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// blenderBaseline is the peak RSS [MiB] of Blender doing nothing.
func blenderBaseline(o options, out string) float64 {
	py := filepath.Join(out, "empty.py")
	if err := os.WriteFile(py, []byte("import bpy\n"), 0o644); err != nil {
		return math.NaN()
	}
	_, rss, err := child(exec.Command(o.blender, "-b", "--factory-startup", "--python", py), filepath.Join(out, "empty-blender.log"))
	if err != nil {
		return math.NaN()
	}
	return rss
}

func blenderVersion(o options) string {
	b, err := exec.Command(o.blender, "-b", "--factory-startup", "--version").Output()
	if err != nil {
		return "Blender (version unknown)"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Blender ") {
			return strings.TrimSpace(l)
		}
	}
	return "Blender"
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// writeGrid writes an n x n vertex grid, 2 m wide, at height y [m], centred
// over the origin, as an OBJ of quads split along alternating diagonals.
// Every tool reads the same file, so all see the same vertices and triangles.
func writeGrid(path string, n int, y float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# drape benchmark grid: %d x %d vertices, 2 m wide, %g m above the origin (Y-up)\n", n, n, y)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x := -1 + 2*float64(i)/float64(n-1)
			z := -1 + 2*float64(j)/float64(n-1)
			fmt.Fprintf(&b, "v %.6f %g %.6f\n", x, y, z)
		}
	}
	for j := 0; j+1 < n; j++ {
		for i := 0; i+1 < n; i++ {
			a := j*n + i + 1
			if (i+j)%2 == 0 {
				fmt.Fprintf(&b, "f %d %d %d\nf %d %d %d\n", a, a+n+1, a+1, a, a+n, a+n+1)
			} else {
				fmt.Fprintf(&b, "f %d %d %d\nf %d %d %d\n", a, a+n, a+1, a+1, a+n, a+n+1)
			}
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// intoFolder returns path as a scene file in dir may name it: path itself
// when it lies in dir, otherwise a copy made in dir under its base name.
func intoFolder(dir, path string) (string, error) {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(ad, ap); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path, nil
	}
	data, err := os.ReadFile(ap)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(ad, filepath.Base(ap))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return "", err
	}
	return dst, nil
}
