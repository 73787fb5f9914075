package bake

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// Report is what a bake did and measured; `--report FILE.json` writes it and
// a summary goes to stderr.
type Report struct {
	Drape       string       `json:"drape_version"`
	Input       string       `json:"input"`
	InputSHA256 string       `json:"input_sha256"`
	Scene       string       `json:"scene,omitempty"`
	Outputs     []OutputInfo `json:"outputs"`
	Date        string       `json:"date"`

	Frames    int     `json:"frames"`
	FPS       float64 `json:"fps"`
	FrameStep int     `json:"frame_step"`
	Solver    string  `json:"solver"`
	Substeps  int     `json:"substeps"`
	// BendingSpans are, per piece of cloth with bending (xpbd), the
	// substeps one projection of its bending spans (scene key
	// bending_interval).
	BendingSpans []int  `json:"bending_spans,omitempty"`
	Threads      int    `json:"threads"`
	Fabric       Fabric `json:"fabric"`
	// Regions are the fabric regions: each one's triangles and fabric.
	Regions        []RegionInfo `json:"regions,omitempty"`
	Thickness      float64      `json:"thickness_m"`
	SelfCollision  bool         `json:"self_collision"`
	Pins           int          `json:"pinned_vertices"`
	Colliders      int          `json:"colliders"`
	RenderVertices int          `json:"render_vertices"`
	Vertices       int          `json:"vertices"`
	Triangles      int          `json:"triangles"`
	Edges          int          `json:"edges"`
	Settings       *Scene       `json:"settings"`

	// Seed 000's figures at the last frame [m], along the up axis (Y).
	LowestY  float64 `json:"lowest_y_m"`
	HighestY float64 `json:"highest_y_m"`
	MeanY    float64 `json:"mean_y_m"`
	// SeamGap is, with the scene key sewing, the largest distance between
	// two vertices a seam joins at the last frame [m].
	SeamGap float64 `json:"seam_gap_m,omitempty"`
	// ClosedVolumes are, with the scene key volume, each closed piece's
	// volume at the last frame relative to its rest volume.
	ClosedVolumes []float64 `json:"closed_volume_ratio,omitempty"`
	// MaxStretch is the largest edge strain (length/rest - 1) over all frames.
	MaxStretch float64 `json:"max_stretch"`
	// LastStretch is the largest edge strain at the last frame.
	LastStretch float64 `json:"last_frame_max_stretch"`
	// MaxPenetration is the deepest any vertex went inside a collider
	// surface over all frames [m].
	MaxPenetration float64 `json:"max_penetration_m"`
	// SelfIntersections counts intersecting pairs of non-adjacent triangles
	// at the last frame.
	SelfIntersections int `json:"self_intersections"`
	// SleepingFrames counts the frames in which some vertices slept
	// (scene key "sleep").
	SleepingFrames int `json:"sleeping_frames,omitempty"`
	// Quality is the quality certificate: the figures above with where
	// they happened, each against the fabric's bound, and the
	// requirements met or missed.
	Quality Quality `json:"quality"`

	PrepareSeconds float64 `json:"prepare_s"`
	SimSeconds     float64 `json:"simulate_s"`
	WriteSeconds   float64 `json:"write_s"`
	// QualitySeconds is the time the last-frame figures and the quality
	// certificate took (with self-collision, a search for intersecting
	// pairs in every written frame). A bake whose outputs all stream
	// writes and searches each frame as it comes: that time is in
	// SimSeconds, and WriteSeconds is the outputs' completion.
	QualitySeconds  float64  `json:"quality_s"`
	SecondsPerFrame float64  `json:"seconds_per_frame"`
	Warnings        []string `json:"warnings,omitempty"`
}

func (j *Job) report(rec *Recording, outs []OutputInfo) *Report {
	sc := j.Scene
	r := &Report{
		Drape:          Version,
		Input:          sc.Resolve(sc.Input),
		InputSHA256:    j.inputHash,
		Scene:          sc.File(),
		Outputs:        outs,
		Date:           time.Now().UTC().Format(time.RFC3339),
		Frames:         sc.Frames,
		FPS:            sc.FPS,
		FrameStep:      sc.FrameStep,
		Solver:         j.Params.Solver.String(),
		Substeps:       j.Params.Substeps,
		BendingSpans:   j.Model.BendingSpans(sc.FPS),
		Threads:        sc.Threads,
		Fabric:         j.Fabric,
		Regions:        j.Regions,
		Thickness:      j.Params.Thickness,
		SelfCollision:  sc.SelfCollision,
		Pins:           len(j.Pins),
		Colliders:      len(j.Colliders),
		RenderVertices: len(j.Welded.RenderToSim),
		Vertices:       len(j.Welded.Positions),
		Triangles:      len(j.Welded.Triangles),
		Edges:          len(j.Model.Topo.Edges),
		Settings:       sc,
		MaxStretch:     rec.MaxStretch,
		MaxPenetration: rec.MaxPen,
		SleepingFrames: rec.Sleeping,
		Warnings:       append([]string(nil), j.Warnings...),
	}
	last := rec.lastPos()
	for _, v := range j.Model.ClosedVolumes(last) {
		r.ClosedVolumes = append(r.ClosedVolumes, round9(v))
	}
	r.LowestY, r.HighestY = math.Inf(1), math.Inf(-1)
	sum := 0.0
	for _, p := range last {
		r.LowestY = math.Min(r.LowestY, p.Y)
		r.HighestY = math.Max(r.HighestY, p.Y)
		sum += p.Y
	}
	r.MeanY = sum / float64(len(last))
	lastS, lastE := j.maxStretch(last)
	r.LastStretch = lastS
	inter := j.intersections(rec)
	r.SelfIntersections = inter.last
	lastSite := site{collider: -1}
	if lastE >= 0 {
		lastSite = j.strainSite(rec.Frames[len(rec.Frames)-1], lastE, last)
	}
	var qw []string
	r.Quality, qw = j.quality(rec, lastS, lastSite, inter)
	r.Warnings = append(r.Warnings, qw...)
	if len(j.Params.Seams) > 0 {
		r.SeamGap = round9(j.Model.SeamGap(last))
	}
	return r
}

// OutputPaths lists the written outputs.
func (r *Report) OutputPaths() []string {
	out := make([]string, len(r.Outputs))
	for i, o := range r.Outputs {
		out[i] = o.Path
	}
	return out
}

// WriteFile writes the report as indented JSON, atomically.
func (r *Report) WriteFile(path string) error {
	st, err := stageFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
	if err != nil {
		return err
	}
	return st.commit()
}

// WriteSummary prints a few lines for a person: sizes, speed and quality.
func (r *Report) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "baked %d frames of %s (%d vertices, %d triangles) with %s, %d substeps: %.2f ms/frame (%.1f frames/s)\n",
		r.Frames, r.Input, r.Vertices, r.Triangles, r.Solver, r.Substeps, 1000*r.SecondsPerFrame, 1/math.Max(r.SecondsPerFrame, 1e-9))
	fmt.Fprintf(w, "last frame: height min %.4f max %.4f mean %.4f m; max stretch %.3f%% (all frames), max penetration %.2f mm, self-intersecting pairs %d\n",
		r.LowestY, r.HighestY, r.MeanY, 100*r.MaxStretch, 1000*r.MaxPenetration, r.SelfIntersections)
	fmt.Fprintln(w, r.Quality.Summary())
	for _, o := range r.Outputs {
		fmt.Fprintf(w, "wrote %s (%s, %.1f KiB)", o.Path, o.Kind, float64(o.Bytes)/1024)
		if o.UnquantizedBytes > 0 {
			fmt.Fprintf(w, ": quantized, %.0f%% smaller than the %.1f KiB of float targets",
				100*(1-float64(o.Bytes)/float64(o.UnquantizedBytes)), float64(o.UnquantizedBytes)/1024)
		}
		if m := o.Morph; m != nil && m.Compressed {
			fmt.Fprintf(w, "; %d morph targets (compressed, max error %.3g mm, RMS %.3g mm), %.1fx smaller than the %.1f KiB of exact targets",
				m.Targets, 1e3*m.MaxError, 1e3*m.RMSError, float64(o.ExactBytes)/float64(max(o.Bytes, 1)), float64(o.ExactBytes)/1024)
		} else if m != nil {
			fmt.Fprintf(w, "; %d morph targets (one per frame)", m.Targets)
		}
		fmt.Fprintln(w)
	}
}
