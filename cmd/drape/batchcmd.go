package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

// bakeBatch bakes shard `shard` of `shards` of a batch's jobs, -j at a
// time, with resume: a job a record shows done is skipped unless --force.
// A failing job does not stop the others; the exit code is the first
// failure's (in key order), or ExitRequirement when no job failed but some
// missed a requirement (their outputs are written). --json prints one
// result per job and then the summary object, the last line; --summary
// FILE writes the summary.
func bakeBatch(c *cli.Context, jobs []bake.BatchJob, shard, shards int, mode string, stdout, stderr io.Writer) error {
	t0 := time.Now()
	sum := &bake.Summary{Drape: bake.Version, Summary: true, Shard: shard, Shards: shards, Manifest: []string{}, Jobs: []bake.JobResult{}}
	scenes := make([]*bake.Scene, len(jobs))
	sceneErr := make([]error, len(jobs))
	for i, j := range jobs {
		sum.Manifest = append(sum.Manifest, j.Key)
		scenes[i], sceneErr[i] = sceneFor(c, j.Path, j.Root)
		if shards > 1 {
			jobs[i].Cost = 1
			if sceneErr[i] == nil {
				jobs[i].Cost = bake.EstimateCost(scenes[i])
			}
		}
	}
	var mine []int
	for i, s := range bake.AssignShards(jobs, shards) {
		if s == shard {
			mine = append(mine, i)
		}
	}
	n := c.Int("jobs")
	results := make([]bake.JobResult, len(mine))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	enc := json.NewEncoder(stdout)
	maxMem, _ := maxMemoryFlag(c) // checked by bakeAction
	// The jobs that run at once share the memory budget: each reserves its
	// estimate before it allocates, in key order, and waits while the
	// running ones hold too much.
	share := bake.NewMemoryShare(maxMem)
	for k, i := range mine {
		claim := share.Claim()
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer claim.Release() // a job that ends before it reserves passes its turn
			in, sc := jobs[i].Path, scenes[i]
			start := time.Now()
			err := sceneErr[i]
			var rep *bake.Report
			var done *bake.Record
			if err == nil && c.String("report") != "" {
				err = sc.CheckExtraOutput(batchReportPath(c.String("report"), i, in))
			}
			if err == nil {
				if n > 1 && sc.Threads == 0 {
					sc.Threads = 1 // jobs run side by side; identical result either way
				}
				rep, done, err = bake.RunJob(c.Context, sc, bake.BatchOptions{Force: c.Bool("force"), Options: bake.Options{
					MaxMemory: maxMem,
					Memory:    claim,
					Warn: func(s string) {
						mu.Lock()
						fmt.Fprintf(stderr, "drape: %s: warning: %s\n", jobs[i].Key, s)
						mu.Unlock()
					},
					Progress: func(p bake.Progress) {
						if p.WaitingMemory > 0 && mode != "json" {
							mu.Lock()
							fmt.Fprintf(stderr, "drape: %s: waiting for memory: it needs about %s; running jobs hold %s of the %s budget\n",
								jobs[i].Key, bake.FormatBytes(p.WaitingMemory), bake.FormatBytes(p.MemoryHeld), bake.FormatBytes(p.MemoryBudget))
							mu.Unlock()
						}
						if mode == "json" {
							mu.Lock()
							enc.Encode(struct {
								Job string `json:"job"`
								bake.Progress
							}{jobs[i].Key, p})
							mu.Unlock()
						}
					},
				}})
			}
			if err == nil && c.String("report") != "" {
				r := rep
				if done != nil {
					r = done.Report // a skipped job's report is its record's
				}
				err = r.WriteFile(batchReportPath(c.String("report"), i, in))
			}
			var res bake.JobResult
			switch {
			case err != nil && bake.ExitCode(err) == bake.ExitCancelled:
				err = errors.New("cancelled (SIGINT or SIGTERM) before it finished; nothing of it written")
				res = bake.JobResult{Input: in, Status: bake.StatusFailed, Code: bake.ExitCancelled, Error: err.Error()}
			case err != nil:
				res = bake.JobResult{Input: in, Status: bake.StatusFailed, Code: bake.ExitCode(err), Error: err.Error()}
			case done != nil:
				res = bake.SkippedResult(in, done)
			default:
				res = bakedResult(in, rep)
			}
			res.Job, res.Shard, res.Cost = jobs[i].Key, shard, jobs[i].Cost
			res.MemoryReserved, res.MemoryWait = claim.Reserved(), claim.Waited().Seconds()
			res.Seconds = time.Since(start).Seconds()
			mu.Lock()
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "drape: %s: %v\n", jobs[i].Key, err)
			case res.Status == bake.StatusMissed && !res.Skipped:
				fmt.Fprintf(stderr, "drape: %s: %s\n", jobs[i].Key, res.Error)
			case mode != "json" && res.Skipped:
				fmt.Fprintf(stderr, "drape: %s: skipped, done before (%.0f ms)\n", jobs[i].Key, 1000*res.Seconds)
			case mode != "json":
				fmt.Fprintf(stderr, "drape: %s: done in %.1f s\n", jobs[i].Key, res.Seconds)
			}
			results[k] = res
			mu.Unlock()
		}()
	}
	wg.Wait()
	if c.Bool("json") {
		for _, r := range results {
			enc.Encode(r)
		}
	}
	for _, r := range results {
		r.Report = nil
		sum.Jobs = append(sum.Jobs, r)
	}
	sum.Seconds = time.Since(t0).Seconds()
	sum.MemoryBudget, sum.MemoryPeak = share.Budget(), share.Peak()
	sum.Tally()
	writeBatchTable(stderr, sum)
	var werr error
	if p := c.String("summary"); p != "" {
		if werr = writeJSONFile(p, sum); werr != nil {
			sum.OK, sum.ExitCode = false, bake.ExitCode(werr)
		}
	}
	if c.Bool("json") || mode == "json" {
		enc.Encode(sum)
		if werr != nil {
			return jsonReported{werr} // the summary object ends stdout; the message goes to stderr
		}
	}
	if werr != nil {
		return werr
	}
	if sum.ExitCode != 0 {
		return silentExit(sum.ExitCode)
	}
	return nil
}

// writeBatchTable prints the batch's table and count line for a person.
func writeBatchTable(w io.Writer, sum *bake.Summary) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "job\tresult\tframes\ts/frame\toutputs")
	for _, r := range sum.Jobs {
		spf := "-"
		if r.Timings != nil && r.Frames > 1 {
			spf = fmt.Sprintf("%.4f", r.Timings.Simulate/float64(r.Frames-1))
		}
		switch {
		case r.Status == bake.StatusOK:
			fmt.Fprintf(tw, "%s\tok\t%d\t%s\t%s\n", r.Job, r.Frames, spf, strings.Join(r.Outputs, " "))
		case r.Status == bake.StatusSkipped:
			fmt.Fprintf(tw, "%s\tskipped (done before, %.0f ms)\t%d\t-\t%s\n", r.Job, 1000*r.Seconds, r.Frames, strings.Join(r.Outputs, " "))
		case r.Status == bake.StatusMissed:
			what := "MISSED REQUIREMENT"
			if r.Skipped {
				what += ", skipped (done before)"
			}
			fmt.Fprintf(tw, "%s\t%s (exit %d)\t%d\t%s\t%s; missed %s\n", r.Job, what, r.Code, r.Frames, spf,
				strings.Join(r.Outputs, " "), strings.Join(r.Missed, "; "))
		default:
			msg, _, _ := strings.Cut(r.Error, "\n")
			fmt.Fprintf(tw, "%s\tFAILED (exit %d)\t-\t-\t%s\n", r.Job, r.Code, msg)
		}
	}
	tw.Flush()
	total := len(sum.Jobs)
	fmt.Fprintf(w, "%d of %d jobs baked, %d failed", total-sum.Failed, total, sum.Failed)
	if sum.Missed > 0 {
		fmt.Fprintf(w, ", %d missed a requirement", sum.Missed)
	}
	if sum.Skipped > 0 {
		fmt.Fprintf(w, ", %d skipped (done before; --force bakes them again)", sum.Skipped)
	}
	if sum.Shards > 1 {
		fmt.Fprintf(w, " (shard %d/%d of %d jobs)", sum.Shard, sum.Shards, len(sum.Manifest))
	}
	fmt.Fprintln(w)
}

// writeJSONFile writes v as indented JSON to path through a temporary file
// renamed into place.
func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &bake.Error{Code: bake.ExitWrite, Err: fmt.Errorf("write %s: %w", path, err), Fix: "check that the folder can be created and written"}
	}
	tmp := path + ".tmp-" + fmt.Sprint(os.Getpid())
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return &bake.Error{Code: bake.ExitWrite, Err: fmt.Errorf("write %s: %w", path, err), Fix: "check that the folder exists and can be written"}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return &bake.Error{Code: bake.ExitWrite, Err: fmt.Errorf("write %s: %w", path, err), Fix: "check that the folder exists and can be written"}
	}
	return nil
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "work with batch summaries",
		Subcommands: []*cli.Command{{
			Name:      "merge",
			Usage:     "join the summaries of a batch's shards into one JSON report and one Markdown table",
			ArgsUsage: "SUMMARY.json...",
			Description: `Every shard of a batch (drape bake BATCH --shard I/N --summary FILE) writes a summary;
merge joins them, checks that every job of the batch was reported exactly once, and writes
the merged JSON (-o, default stdout) and a Markdown table (--markdown, default stderr).

Example:
   drape report merge out/summary-*.json -o report.json --markdown report.md

Exit codes: 0 every job baked or skipped (done before), 1 a job failed, is missing (its shard
did not report) or was reported twice, 3 a summary is unreadable or from another batch,
5 the only fault is a missed requirement.`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the merged JSON to `FILE` (default stdout)"},
				&cli.StringFlag{Name: "markdown", Usage: "write the Markdown table to `FILE` (default stderr)"},
			},
			Action: reportMergeAction,
		}},
	}
}

func reportMergeAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("report merge: no summaries; give the summary files of every shard")
	}
	var sums []*bake.Summary
	for _, p := range c.Args().Slice() {
		s, err := bake.ReadSummary(p)
		if err != nil {
			return err
		}
		sums = append(sums, s)
	}
	m, err := bake.Merge(c.Args().Slice(), sums)
	if err != nil {
		return err
	}
	if p := c.String("out"); p != "" {
		if err := writeJSONFile(p, m); err != nil {
			return err
		}
	} else {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		enc.Encode(m)
	}
	if p := c.String("markdown"); p != "" {
		var b strings.Builder
		m.WriteMarkdown(&b)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return &bake.Error{Code: bake.ExitWrite, Err: fmt.Errorf("write %s: %w", p, err)}
		}
	} else {
		m.WriteMarkdown(c.App.ErrWriter)
	}
	fmt.Fprintf(c.App.ErrWriter, "drape: merged %d summaries: %d of %d jobs baked or skipped, %d failed, %d missing, %d reported twice\n",
		len(sums), m.Baked+m.Skipped, m.Total, m.Failed, len(m.Missing), len(m.Duplicates))
	if m.ExitCode != 0 {
		return silentExit(m.ExitCode)
	}
	return nil
}
