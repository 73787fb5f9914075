// Command bench bakes the same cloth scenes with drape and with Blender's
// cloth modifier on this machine, in one run and interleaved (drape, then
// Blender, scene by scene, so both see the same machine speed), measures
// both results with drape's own code, and prints a Markdown table.
//
//	go run ./bench [-frames 120] [-sizes 32,64,128] [-self 64] [-tshirt] [-reps 1] [-out bench/out]
//
// Scenes: an N x N vertex grid 2 m wide, 1 m above a 0.5 m sphere at the
// origin, for each N in -sizes with self-collision off, and for each N in
// -self with it on; and, with -tshirt, the MakeHuman T-shirt and jeans
// settling on the body (examples/tshirt, self-collision on).
//
// drape runs as a child process (the binary built from ./cmd/drape) with
// the scene written to -out; Blender runs
// `blender -b --factory-startup --python bench/blender_cloth.py -- ...`.
// Time per frame is each tool's own simulation time divided by the steps
// (frames - 1), without reading the meshes and writing outputs; wall is
// the child's whole run. Peak RSS is the child's getrusage maximum
// resident set.
//
// Quality figures come from the two PC2 files, both in the input's vertex
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
	"syscall"
	"time"
)

// scene is one benchmark case, baked by both tools.
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
	flag.StringVar(&o.blender, "blender", "blender", "Blender 3.4 binary")
	flag.StringVar(&o.drape, "drape", "", "drape binary to run (default: build ./cmd/drape into -out)")
	flag.Float64Var(&o.mass, "blender-mass", 0, "Blender cloth vertex mass [kg]; 0 keeps Blender's default (0.3 kg)")
	flag.IntVar(&o.threads, "threads", 0, "drape worker threads (0 = all cores)")
	flag.BoolVar(&o.again, "remeasure", false, "bake nothing: measure the point caches and timings a previous run with the same flags left in -out (peak RSS is not kept)")
	flag.Parse()
	var err error
	if o.sizes, err = parseInts(sizes); err == nil {
		o.self, err = parseInts(self)
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
	script, err := filepath.Abs(filepath.Join("bench", "blender_cloth.py"))
	if err != nil {
		return err
	}

	var scenes []scene
	add := func(n int, self bool) error {
		name := fmt.Sprintf("grid%d", n)
		path := filepath.Join(out, name+".obj")
		if err := writeGrid(path, n); err != nil {
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
		cloth, _ := filepath.Abs(filepath.Join("examples", "tshirt", "male_casualsuit04.obj"))
		body, _ := filepath.Abs(filepath.Join("examples", "tshirt", "male_generic.obj"))
		frames := o.frames
		if o.tframes > 0 {
			frames = o.tframes
		}
		scenes = append(scenes, scene{Name: "T-shirt + jeans on body, self", Cloth: cloth, Scale: 0.1, Body: body, Self: true, Vertices: 1696, Frames: frames})
	}

	start := time.Now()
	load0 := loadAvg()
	results := make([][2][]run, len(scenes))
	for rep := 0; rep < o.reps; rep++ {
		for i, sc := range scenes {
			tag := fmt.Sprintf("%s-%d", slug(sc.Name), rep)
			if o.again {
				results[i][0] = append(results[i][0], previous(out, tag, "drape"))
				results[i][1] = append(results[i][1], previous(out, tag, "Blender"))
				continue
			}
			fmt.Fprintf(log, "[%s] %s: drape\n", time.Since(start).Round(time.Second), sc.Name)
			d := runDrape(o, drape, out, tag, sc)
			results[i][0] = append(results[i][0], d)
			fmt.Fprintf(log, "    drape   %.2f ms/frame, %.0f MiB, err %v\n", 1000*d.PerFrame, d.RSS, d.Err)
			fmt.Fprintf(log, "[%s] %s: Blender\n", time.Since(start).Round(time.Second), sc.Name)
			b := runBlender(o, script, out, tag, sc)
			results[i][1] = append(results[i][1], b)
			fmt.Fprintf(log, "    Blender %.2f ms/frame, %.0f MiB, err %v\n", 1000*b.PerFrame, b.RSS, b.Err)
		}
	}
	load1 := loadAvg()
	base := blenderBaseline(o, out)

	// measure every result the same way
	for i, sc := range scenes {
		m, err := newMeasurer(sc)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.Name, err)
		}
		for t := 0; t < 2; t++ {
			for k := range results[i][t] {
				r := &results[i][t][k]
				if r.Err != nil {
					continue
				}
				// drape writes point caches in Blender's axes, as Blender's
				// Mesh Cache modifier reads them; blender_cloth.py writes Y-up
				if r.Quality, err = m.measurePC2(r.PC2, r.Tool == "drape"); err != nil {
					r.Err = err
				}
			}
		}
	}

	fmt.Fprintf(stdout, "Command: `go run ./bench %s`  \n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(stdout, "Machine: %d cores (GOMAXPROCS %d), load average %s at the start and %s at the end; %s; %s; run took %s.\n\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), load0, load1, runtime.Version(), blenderVersion(o), time.Since(start).Round(time.Second))
	fmt.Fprintf(stdout, "| scene | verts | frames | drape ms/frame | Blender ms/frame | speed-up | drape / Blender peak RSS [MiB] | max stretch %% (d / B) | max penetration mm (d / B) | self-intersecting pairs (d / B) | lowest y m (d / B) |\n")
	fmt.Fprintf(stdout, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, sc := range scenes {
		d, b := best(results[i][0]), best(results[i][1])
		fmt.Fprintf(stdout, "| %s | %d | %d | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |\n",
			sc.Name, sc.Vertices, sc.Frames, ms(d), ms(b), ratio(d, b), mib(d), mib(b),
			fig(d, func(q quality) string { return fmt.Sprintf("%.2f", 100*q.MaxStretch) }),
			fig(b, func(q quality) string { return fmt.Sprintf("%.2f", 100*q.MaxStretch) }),
			fig(d, func(q quality) string { return fmt.Sprintf("%.1f", 1000*q.MaxPenetration) }),
			fig(b, func(q quality) string { return fmt.Sprintf("%.1f", 1000*q.MaxPenetration) }),
			fig(d, func(q quality) string { return strconv.Itoa(q.SelfIntersections) }),
			fig(b, func(q quality) string { return strconv.Itoa(q.SelfIntersections) }),
			fig(d, func(q quality) string { return fmt.Sprintf("%.3f", q.LowestY) }),
			fig(b, func(q quality) string { return fmt.Sprintf("%.3f", q.LowestY) }))
	}
	fmt.Fprintf(stdout, "\nTime per frame is the median over %d run(s) of each tool's own simulation time / (frames - 1) at %d fps. Blender's peak RSS includes %.0f MiB of Blender itself (an empty `blender -b --factory-startup` run).\n",
		o.reps, o.fps, base)
	for i, sc := range scenes {
		for t := 0; t < 2; t++ {
			for _, r := range results[i][t] {
				if r.Err != nil {
					fmt.Fprintf(stdout, "\n- %s, %s failed: %v", sc.Name, r.Tool, firstLine(r.Err.Error()))
				}
			}
		}
	}
	fmt.Fprintln(stdout)
	return nil
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

func ms(r *run) string {
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

func ratio(d, b *run) string {
	if d == nil || b == nil || d.Err != nil || b.Err != nil || d.PerFrame <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fx", b.PerFrame/d.PerFrame)
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
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = float64(ru.Maxrss) / 1024 // Linux reports KiB
		}
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
	ds := drapeScene{Input: sc.Cloth, Scale: sc.Scale, Output: r.PC2, Frames: sc.Frames, FPS: o.fps, Threads: o.threads, SelfCollision: sc.Self}
	if sc.Sphere > 0 {
		ds.Colliders = []map[string]any{{"type": "sphere", "center": []float64{0, 0, 0}, "radius": sc.Sphere}}
	} else {
		ds.Colliders = []map[string]any{{"type": "mesh", "path": sc.Body}}
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
// cache and its time per frame.
func previous(out, tag, tool string) run {
	r := run{Tool: tool}
	var t struct {
		SecondsPerFrame float64 `json:"seconds_per_frame"`
	}
	if tool == "drape" {
		r.PC2 = filepath.Join(out, tag+"-drape.pc2")
		r.Err = readJSON(filepath.Join(out, tag+"-drape-report.json"), &t)
	} else {
		r.PC2 = filepath.Join(out, tag+"-blender.pc2")
		r.Err = readJSON(filepath.Join(out, tag+"-blender.json"), &t)
	}
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

// writeGrid writes an n x n vertex grid, 2 m wide, at y = 1, centred over
// the origin, as an OBJ of quads split along alternating diagonals. Blender
// reads the same file, so both tools see the same vertices and triangles.
func writeGrid(path string, n int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# drape benchmark grid: %d x %d vertices, 2 m wide, 1 m above the origin (Y-up)\n", n, n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x := -1 + 2*float64(i)/float64(n-1)
			z := -1 + 2*float64(j)/float64(n-1)
			fmt.Fprintf(&b, "v %.6f 1 %.6f\n", x, z)
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
