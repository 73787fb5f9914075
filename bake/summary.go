package bake

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/drape-sim/drape/meshio"
)

// Job statuses of a batch.
const (
	StatusOK      = "ok"
	StatusMissed  = "requirement_missed" // baked and written, a requirement missed (exit code 5)
	StatusFailed  = "failed"
	StatusSkipped = "skipped" // done before: a matching resume record
)

// Timings are a baked job's phases [s] (from its report).
type Timings struct {
	Prepare  float64 `json:"prepare_s"`
	Simulate float64 `json:"simulate_s"`
	Write    float64 `json:"write_s"`
	Quality  float64 `json:"quality_s"`
}

// JobResult is one job's outcome in a batch: a line of `--json` and an
// entry of the summary.
type JobResult struct {
	Job   string `json:"job,omitempty"`
	Input string `json:"input"`
	Shard int    `json:"shard"`
	OK    bool   `json:"ok"`
	// Status is StatusOK, StatusMissed, StatusFailed or StatusSkipped (a
	// job done before that missed a requirement stays StatusMissed, with
	// Skipped set).
	Status  string   `json:"status"`
	Skipped bool     `json:"skipped,omitempty"`
	Code    int      `json:"exit_code"`
	Error   string   `json:"error,omitempty"`
	Outputs []string `json:"outputs,omitempty"`
	// Cost is the job's estimated work (EstimateCost).
	Cost float64 `json:"cost,omitempty"`
	// Seconds is the job's wall time; a skipped job's is the check's.
	Seconds float64  `json:"seconds"`
	Timings *Timings `json:"timings,omitempty"`
	Frames  int      `json:"frames,omitempty"`
	// MemoryReserved is the job's memory estimate [bytes] that it reserved
	// from the budget the batch's running jobs share, and MemoryWait how
	// long it waited for it [s] while other jobs held the budget.
	MemoryReserved int64   `json:"memory_reserved,omitempty"`
	MemoryWait     float64 `json:"memory_wait_s,omitempty"`
	// Quality is the job's quality certificate (a skipped job's from its
	// record).
	Quality *Quality `json:"quality,omitempty"`
	// Missed are the requirements a job missed (see Quality.Failed).
	Missed []string `json:"missed_requirements,omitempty"`
	// Report is the whole report (in the --json stream, not in summaries).
	Report *Report `json:"report,omitempty"`
}

// ResultOf fills a result from a finished bake's report.
func ResultOf(input string, rep *Report) JobResult {
	res := JobResult{Input: input, OK: true, Status: StatusOK, Outputs: rep.OutputPaths(), Report: rep}
	res.fromReport(rep)
	if err := rep.RequirementError(); err != nil {
		res.OK, res.Status, res.Code, res.Error = false, StatusMissed, ExitCode(err), err.Error()
		res.Missed = rep.Quality.Failed
	}
	return res
}

func (r *JobResult) fromReport(rep *Report) {
	r.Timings = &Timings{rep.PrepareSeconds, rep.SimSeconds, rep.WriteSeconds, rep.QualitySeconds}
	r.Frames = rep.Frames
	q := rep.Quality
	r.Quality = &q
}

// SkippedResult is the result of a job its record shows done.
func SkippedResult(input string, rec *Record) JobResult {
	res := JobResult{Input: input, OK: true, Status: StatusSkipped, Skipped: true}
	for _, o := range rec.Outputs {
		res.Outputs = append(res.Outputs, o.Path)
	}
	res.fromReport(rec.Report)
	if len(rec.Report.Quality.Failed) > 0 {
		// skipped, but its requirement still missed: the batch says so again
		res.OK, res.Status, res.Code = false, StatusMissed, ExitRequirement
		res.Missed = rec.Report.Quality.Failed
		res.Error = "requirement not met: " + strings.Join(res.Missed, "; ")
	}
	return res
}

// Summary is what one run of a batch (one shard of it) did: every job of
// the shard, and the keys of the whole manifest so `drape report merge`
// can tell a missing job.
type Summary struct {
	Drape    string `json:"drape_version"`
	Summary  bool   `json:"summary"`
	OK       bool   `json:"ok"`
	ExitCode int    `json:"exit_code"`
	Shard    int    `json:"shard"`
	Shards   int    `json:"shards"`
	// Manifest lists the keys of every job of the batch, all shards.
	Manifest []string    `json:"manifest"`
	Jobs     []JobResult `json:"jobs"`
	Baked    int         `json:"baked"`
	Skipped  int         `json:"skipped"`
	Failed   int         `json:"failed"`
	Missed   int         `json:"requirement_missed"`
	Seconds  float64     `json:"seconds"`
	// MemoryBudget is the memory budget [bytes] the shard's running jobs
	// shared (0: none), and MemoryPeak the most of it they reserved at
	// once.
	MemoryBudget int64 `json:"memory_budget,omitempty"`
	MemoryPeak   int64 `json:"memory_reserved_peak,omitempty"`
}

// Tally counts the jobs by status and sets OK and ExitCode: the first
// failed job's code (in key order), else ExitRequirement when a job missed
// a requirement, else 0.
func (s *Summary) Tally() {
	s.Baked, s.Skipped, s.Failed, s.Missed, s.ExitCode = 0, 0, 0, 0, 0
	missed := false
	for _, j := range s.Jobs {
		if j.Skipped {
			s.Skipped++
		}
		switch j.Status {
		case StatusOK:
			s.Baked++
		case StatusMissed:
			s.Missed++
			if !j.Skipped {
				s.Baked++
			}
		case StatusFailed:
			s.Failed++
			if s.ExitCode == 0 {
				s.ExitCode = j.Code
			}
		}
		if len(j.Missed) > 0 {
			missed = true
		}
	}
	if s.ExitCode == 0 && missed {
		s.ExitCode = ExitRequirement
	}
	s.OK = s.ExitCode == 0
}

// Merged joins the summaries of a batch's shards.
type Merged struct {
	Drape     string      `json:"drape_version"`
	OK        bool        `json:"ok"`
	ExitCode  int         `json:"exit_code"`
	Shards    int         `json:"shards"`
	Summaries []string    `json:"summaries"`
	Jobs      []JobResult `json:"jobs"`
	// Missing are jobs of the manifest no summary reports; Duplicates are
	// jobs more than one summary reports.
	Missing    []string `json:"missing"`
	Duplicates []string `json:"duplicates"`
	Total      int      `json:"total"`
	Baked      int      `json:"baked"`
	Skipped    int      `json:"skipped"`
	Failed     int      `json:"failed"`
	Missed     int      `json:"requirement_missed"`
}

// ExitMergeIncomplete is `drape report merge`'s exit code when a job
// failed, is missing or was reported twice.
const ExitMergeIncomplete = 1

// ReadSummary reads a summary file.
func ReadSummary(path string) (*Summary, error) {
	data, err := meshio.ReadFile(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("read summary %s: %w", path, err), "check the path")
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil || !s.Summary {
		return nil, badInputf("%s is not a drape batch summary (written by drape bake --summary FILE)", path)
	}
	return &s, nil
}

// Merge joins shard summaries. They must come from one batch: the same
// manifest and shard count. The merge exits 0 only when every job of the
// manifest is reported exactly once, ok or skipped; ExitRequirement when
// the only fault is a missed requirement; else ExitMergeIncomplete.
func Merge(names []string, sums []*Summary) (*Merged, error) {
	m := &Merged{Drape: Version, Summaries: names, Missing: []string{}, Duplicates: []string{}}
	if len(sums) == 0 {
		return nil, badInputf("no summaries to merge")
	}
	manifest := strings.Join(sums[0].Manifest, "\n")
	m.Shards = sums[0].Shards
	for i, s := range sums[1:] {
		if strings.Join(s.Manifest, "\n") != manifest {
			return nil, badInputf("%s and %s come from different batches (their manifests differ)", names[0], names[i+1])
		}
		if s.Shards != m.Shards {
			return nil, badInputf("%s has %d shards, %s %d: merge the summaries of one array job", names[0], m.Shards, names[i+1], s.Shards)
		}
	}
	seen := map[string]int{}
	for _, s := range sums {
		for _, j := range s.Jobs {
			seen[j.Job]++
			if seen[j.Job] == 2 {
				m.Duplicates = append(m.Duplicates, j.Job)
			}
			if seen[j.Job] == 1 {
				j.Report = nil
				m.Jobs = append(m.Jobs, j)
			}
		}
	}
	sort.Slice(m.Jobs, func(a, b int) bool { return m.Jobs[a].Job < m.Jobs[b].Job })
	sort.Strings(m.Duplicates)
	for _, k := range sums[0].Manifest {
		if seen[k] == 0 {
			m.Missing = append(m.Missing, k)
		}
	}
	m.Total = len(sums[0].Manifest)
	t := Summary{Jobs: m.Jobs}
	t.Tally()
	m.Baked, m.Skipped, m.Failed, m.Missed = t.Baked, t.Skipped, t.Failed, t.Missed
	m.ExitCode = t.ExitCode
	if m.Failed > 0 || len(m.Missing) > 0 || len(m.Duplicates) > 0 {
		m.ExitCode = ExitMergeIncomplete
	}
	m.OK = m.ExitCode == 0
	return m, nil
}

// WriteMarkdown writes the merged report as a Markdown table, one row per
// job, with the missing jobs and a count line.
func (m *Merged) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# drape batch report\n\n%d jobs in %d shards: %d baked, %d skipped (done before), %d failed, %d missed a requirement, %d missing",
		m.Total, m.Shards, m.Baked, m.Skipped, m.Failed, m.Missed, len(m.Missing))
	if len(m.Duplicates) > 0 {
		fmt.Fprintf(w, ", %d reported twice", len(m.Duplicates))
	}
	fmt.Fprint(w, ".\n\n| job | shard | status | exit | frames | seconds | max strain | penetration [mm] | self-intersections | outputs |\n")
	fmt.Fprint(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	for _, j := range m.Jobs {
		frames, strain, pen, inter := "-", "-", "-", "-"
		if j.Frames > 0 {
			frames = fmt.Sprint(j.Frames)
		}
		if q := j.Quality; q != nil {
			for _, c := range q.Checks {
				switch c.Key {
				case KeyMaxStrain:
					strain = fmt.Sprintf("%.2f %%", 100*c.Value)
				case KeyPenetration:
					pen = fmt.Sprintf("%.2f", 1000*c.Value)
				case KeySelfIntersections:
					inter = fmt.Sprintf("%.0f", c.Value)
				}
			}
		}
		status := j.Status
		if j.Error != "" {
			msg, _, _ := strings.Cut(j.Error, "\n")
			status += ": " + msg
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %.3f | %s | %s | %s | %s |\n", mdEscape(j.Job), j.Shard, mdEscape(status), j.Code,
			frames, j.Seconds, strain, pen, inter, mdEscape(strings.Join(j.Outputs, " ")))
	}
	for _, k := range m.Missing {
		fmt.Fprintf(w, "| %s | - | MISSING | - | - | - | - | - | - | - |\n", mdEscape(k))
	}
	for _, k := range m.Duplicates {
		fmt.Fprintf(w, "\n%s was reported by more than one summary.\n", k)
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
