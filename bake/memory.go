package bake

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/drape-sim/drape/solver"
)

// Bytes per vertex per stored frame that a bake with a glTF or USD output
// holds at its peak, while it writes a glTF: the recorded simulation positions (float64 x 3), the
// positions scattered onto the render vertices and their normals
// (float64 x 3 each), and the glTF's float32 morph data with its encoded
// copy (float32 x 3, positions and normals, twice). Point caches and OBJ
// sequences hold one more float64 copy per vertex while they are written.
const (
	bytesPerSimVertex    = 24
	bytesPerRenderVertex = 24 + 24 + 2*2*12
	bytesPerCacheVertex  = 24
	// A bake whose outputs all stream (PC2, MDD, OBJ sequence) holds per
	// stored frame only its number and time, and per output a write
	// buffer.
	bytesPerStreamedFrame = 16
	bytesStreamBuffer     = 1<<20 + 1<<16
	// The model, the solver's scratch and the self-contact structures per
	// simulation vertex and triangle, an upper estimate.
	bytesModelPerVertex   = 2048
	bytesModelPerTriangle = 1024
	// gcOverhead is the peak heap over the live data: Go's collector lets
	// the heap grow past what is live before it collects (a 10,000-vertex,
	// 400-frame bake peaks at 1.4 times the sum above).
	gcOverhead = 1.5
	// defaultMemoryShare is the share of physical memory a bake may plan
	// to hold when no --max-memory is given.
	defaultMemoryShare = 0.8
)

// bytesReadPerFileByte is the memory reading a mesh file takes per byte of
// it, an upper estimate: the file itself plus the parsed mesh (an OBJ's
// text shrinks, a GLB's float32 data doubles to float64, plus normals and
// UVs).
const bytesReadPerFileByte = 10

// checkInputSize refuses a mesh file that reading alone would take more
// than the memory budget for, before reading it.
func checkInputSize(path string, maxBytes int64) error {
	budget := memoryBudget(maxBytes)
	fi, err := os.Stat(path)
	if budget.bytes == 0 || err != nil || !fi.Mode().IsRegular() {
		return nil // Read reports what is wrong with the path
	}
	if need := sat(fi.Size(), bytesReadPerFileByte); need > budget.bytes {
		return &Error{Code: ExitBadInput,
			Err: fmt.Errorf("%s: the file is %s; reading it would take about %s of memory, more than the budget of %s (%s)", path, FormatBytes(fi.Size()), FormatBytes(need), FormatBytes(budget.bytes), budget.what),
			Fix: "decimate the mesh (a cloth of this size cannot be simulated in this memory anyway), or " + budget.fixBudget()}
	}
	return nil
}

// storedFrames is how many frames a bake of sc keeps: every FrameStep-th
// and the last.
func storedFrames(sc *Scene) int64 {
	if sc.Frames <= 0 || sc.FrameStep <= 0 {
		return 0
	}
	n := int64((sc.Frames-1)/sc.FrameStep) + 1
	if (sc.Frames-1)%sc.FrameStep != 0 {
		n++
	}
	return n
}

// storedFrameNumbers lists the baked frame numbers of the stored frames.
func storedFrameNumbers(sc *Scene) []int {
	out := make([]int, 0, storedFrames(sc))
	for k := 0; k < sc.Frames; k++ {
		if k%sc.FrameStep == 0 || k == sc.Frames-1 {
			out = append(out, k)
		}
	}
	return out
}

// memoryEstimate returns the bytes the bake will hold at its peak, from
// the stored frames, the vertex counts and the outputs.
func (j *Job) memoryEstimate() int64 {
	sc := j.Scene
	frames := storedFrames(sc)
	sim, render := int64(len(j.Welded.Positions)), int64(len(j.Welded.RenderToSim))
	tris := int64(len(j.Welded.Triangles))
	model := sim*bytesModelPerVertex + tris*bytesModelPerTriangle
	if sc.Solver == "implicit" { // its factored global matrix
		model += solver.DirectSolveBytes(int(sim))
	}
	var live int64
	if j.streams() {
		// Each frame goes to disk as it comes: the bake holds the last
		// frame and the frames in the intersection search (a few per
		// thread), one frame scattered onto the render vertices and one in
		// each output's order, the frame numbers and times, and each
		// output's write buffer.
		outs := int64(len(j.outputPaths()))
		threads := int64(sc.Threads)
		if threads <= 0 {
			threads = int64(runtime.GOMAXPROCS(0))
		}
		held := (threads+4)*sim*bytesPerSimVertex + render*bytesPerRenderVertex + outs*max(render, int64(j.Mesh.SourceVertices))*bytesPerCacheVertex
		live = held + sat(frames, bytesPerStreamedFrame) + outs*bytesStreamBuffer + model
	} else {
		perFrame := sim*bytesPerSimVertex + render*bytesPerRenderVertex
		for _, p := range j.outputPaths() {
			if k, _ := ParseOutputKind(p); k != OutputGLB && k != OutputGLTF {
				perFrame += max(render, int64(j.Mesh.SourceVertices)) * bytesPerCacheVertex
				break
			}
		}
		live = sat(frames, perFrame) + model
	}
	if live > 1<<61 {
		return 1 << 62
	}
	return int64(gcOverhead * float64(live))
}

// sat multiplies without overflowing: the product, or the largest int64.
func sat(a, b int64) int64 {
	if a != 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

// memoryLimit is one bound on the memory a bake may take: its size
// [bytes], what it is and how to raise it, for messages.
type memoryLimit struct {
	bytes int64
	what  string // "physical memory (24 GiB)"
	fix   string // "raise the address-space limit (ulimit -v)"; "" for --max-memory's own
}

// memoryBudget is what a bake may plan to hold: maxBytes if > 0, else
// defaultMemoryShare of physical memory, and never more than
// defaultMemoryShare of the process's own limits (cgroup memory.max,
// RLIMIT_AS, RLIMIT_DATA), which end a process that exceeds them with a
// runtime fatal error or the kernel's OOM killer, whatever --max-memory
// says. maxBytes < 0 lifts every bound; bytes 0 means no check.
func memoryBudget(maxBytes int64) memoryLimit {
	if maxBytes < 0 {
		return memoryLimit{}
	}
	b := memoryLimit{bytes: maxBytes, what: "--max-memory"}
	if maxBytes == 0 {
		b = memoryLimit{}
		if phys := physicalMemory(); phys > 0 {
			b = memoryLimit{bytes: int64(defaultMemoryShare * float64(phys)), what: "80 % of physical memory, " + FormatBytes(phys)}
		}
	}
	for _, l := range processMemoryLimits() {
		if n := max(int64(defaultMemoryShare*float64(l.bytes)), 1); b.bytes == 0 || n < b.bytes {
			b = memoryLimit{bytes: n, what: "80 % of " + l.what, fix: l.fix}
		}
	}
	return b
}

// MemoryBudget is the memory [bytes] a bake may plan to hold given
// --max-memory as maxBytes (0: the default; < 0: none): the caller sets
// the Go runtime's soft memory limit to it so that the collector works
// hard before the budget is reached. 0 means no budget.
func MemoryBudget(maxBytes int64) int64 { return memoryBudget(maxBytes).bytes }

// fixBudget says how to raise budget b.
func (b memoryLimit) fixBudget() string {
	if b.fix != "" {
		return b.fix
	}
	return "set the budget with --max-memory SIZE (e.g. --max-memory 32G; the default is 80 % of physical memory, or of the process's memory limits when they are smaller)"
}

// physicalMemory returns the machine's memory [bytes] from /proc/meminfo,
// or 0 where it cannot tell.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// checkMemory refuses a bake whose estimate exceeds the budget, before
// the model and the frames are allocated.
func (j *Job) checkMemory(maxBytes int64) error {
	budget := memoryBudget(maxBytes)
	if budget.bytes == 0 {
		return nil
	}
	est := j.memoryEstimate()
	if est <= budget.bytes {
		return nil
	}
	sc := j.Scene
	frames := storedFrames(sc)
	fix := "store fewer frames (--frame-step K keeps every Kth frame; fewer --frames), use a coarser mesh, or " + budget.fixBudget()
	streamFix := "; or write only point caches (.pc2, .mdd) or an OBJ sequence (DIR/), which stream their frames to disk instead of holding them"
	if j.streams() {
		fix = "use a coarser mesh, or " + budget.fixBudget()
		streamFix = ""
	} else if perFrame := (est - j.memoryEstimateFixed()) / max(frames, 1); perFrame > 0 {
		if fit := (budget.bytes - j.memoryEstimateFixed()) / perFrame; fit >= 2 && fit < frames {
			k := (frames + fit - 1) / fit * int64(sc.FrameStep)
			fix = fmt.Sprintf("store at most %d frames: --frame-step %d, or fewer --frames; or a coarser mesh; or %s", fit, k, budget.fixBudget())
		}
	}
	return &Error{Code: ExitBadInput,
		Err: fmt.Errorf("%s: the bake would hold about %s in memory (%d stored frames of %d vertices), more than its budget of %s (%s)",
			sc.Input, FormatBytes(est), frames, len(j.Welded.RenderToSim), FormatBytes(budget.bytes), budget.what),
		Fix: fix + streamFix}
}

// memoryEstimateFixed is the part of memoryEstimate that does not grow
// with the frames.
func (j *Job) memoryEstimateFixed() int64 {
	return int64(gcOverhead * float64(int64(len(j.Welded.Positions))*bytesModelPerVertex+int64(len(j.Welded.Triangles))*bytesModelPerTriangle))
}

// FormatBytes writes n as a size people read: 1.5 GiB, 300 MiB.
func FormatBytes(n int64) string {
	const k = 1024
	switch {
	case n >= k*k*k*k:
		return fmt.Sprintf("%.1f TiB", float64(n)/(k*k*k*k))
	case n >= k*k*k:
		return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
	case n >= k*k:
		return fmt.Sprintf("%.0f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%d bytes", n)
}

// ParseBytes reads a size such as 512M, 8G, 8GiB, 1.5T or a plain number of
// bytes (K, M, G, T are powers of 1024).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mul := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mul = 1 << 10
		case 'M':
			mul = 1 << 20
		case 'G':
			mul = 1 << 30
		case 'T':
			mul = 1 << 40
		}
		if mul > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v > 0) || v*mul > 1<<62 {
		return 0, fmt.Errorf("%q is not a size: give bytes with K, M, G or T, e.g. 8G", s)
	}
	return int64(v * mul), nil
}
