package bake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/solver"
)

// A batch manifest is what `drape bake BATCH...` bakes: folders of scene
// files (searched recursively with -r), list files (one scene or mesh path
// per line, relative to the list file) and single scene or mesh files. Each
// job has a key, its path as the manifest names it (relative to the folder
// or list file, with forward slashes), so that every machine of a farm
// sees the same jobs under the same names whatever its mount points, and
// --shard I/N can split them the same way everywhere.

// BatchJob is one job of a batch manifest.
type BatchJob struct {
	// Key names the job the same way on every machine: its path relative
	// to the folder or list file that listed it, slash-separated (a
	// folder's own name first), or the path as given on the command line.
	Key string `json:"job"`
	// Path is where this machine opens the scene or mesh.
	Path string `json:"input"`
	// Root is the folder of the manifest that listed the job (the folder
	// named, or the list file's folder): a scene listed there may name
	// files anywhere below it, such as meshes shared by several scenes.
	// "" for a file named on the command line: its own folder.
	Root string `json:"-"`
	// Cost is the estimated work of the job (EstimateCost), set by the
	// caller before sharding.
	Cost float64 `json:"cost"`
}

// listExts are the extensions of list files (and a file without one).
var listExts = map[string]bool{"": true, ".txt": true, ".list": true, ".lst": true}

// IsListFile reports whether path names a batch list file by its extension
// (.txt, .list, .lst or none).
func IsListFile(path string) bool {
	return listExts[strings.ToLower(filepath.Ext(path))]
}

// ListBatch expands the command line's inputs into the jobs of a batch,
// sorted by key. recursive searches folders' subfolders for scene files.
// Two inputs naming the same file are one job.
func ListBatch(args []string, recursive bool) ([]BatchJob, error) {
	var jobs []BatchJob
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, badInput(fmt.Errorf("input %s: %w", a, err), "check the path")
		}
		switch {
		case st.IsDir():
			js, err := listFolder(a, folderKey(a), a, recursive)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, js...)
		case IsListFile(a):
			js, err := readList(a, recursive)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, js...)
		default:
			jobs = append(jobs, BatchJob{Key: filepath.ToSlash(filepath.Clean(a)), Path: a, Root: ""})
		}
	}
	return dedupeJobs(jobs)
}

// folderKey is the key prefix of a folder named on the command line: its
// own name ("" for the working folder), so scenes/a.json is the same job
// from any working folder or mount point.
func folderKey(dir string) string {
	b := filepath.Base(filepath.Clean(dir))
	if b == "." || b == string(filepath.Separator) {
		return ""
	}
	return b
}

func joinKey(prefix, rel string) string {
	rel = filepath.ToSlash(rel)
	if prefix == "" {
		return rel
	}
	return prefix + "/" + rel
}

// listFolder lists the scene files of dir: *.json and */scene.json, or with
// recursive every *.json below it. Hidden files and folders, drape's own
// reports, summaries and resume records are not scenes.
func listFolder(dir, key, root string, recursive bool) ([]BatchJob, error) {
	var found []string
	if recursive {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, badInput(fmt.Errorf("search folder %s: %w", dir, err), "check the folder's permissions")
		}
	} else {
		m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		sub, _ := filepath.Glob(filepath.Join(dir, "*", "scene.json"))
		found = append(m, sub...)
	}
	var jobs []BatchJob
	for _, p := range found {
		if strings.HasPrefix(filepath.Base(p), ".") || isDrapeOutput(p) {
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			rel = filepath.Base(p)
		}
		jobs = append(jobs, BatchJob{Key: joinKey(key, rel), Path: p, Root: root})
	}
	if len(jobs) == 0 {
		hint := "(*.json or */scene.json)"
		if recursive {
			hint = "(*.json in it or any subfolder)"
		} else {
			hint += "; -r searches its subfolders"
		}
		return nil, badInputf("folder %s holds no scene files %s", dir, hint)
	}
	return jobs, nil
}

// isDrapeOutput reports whether the JSON file p is one drape wrote: a
// resume record, a report or a batch summary (they carry drape_version).
func isDrapeOutput(p string) bool {
	if strings.HasSuffix(p, RecordSuffix) {
		return true
	}
	data, err := meshio.ReadFile(p)
	if err != nil {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["drape_version"]
	return ok
}

// readList reads a list file: one scene, mesh or folder path per line,
// relative to the list file; blank lines and lines starting with # are
// skipped.
func readList(path string, recursive bool) ([]BatchJob, error) {
	data, err := meshio.ReadFile(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("read list %s: %w", path, err), "check the path")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, badInputf("list %s: not a text file (a batch list names one scene or mesh per line)", path)
	}
	base := filepath.Dir(path)
	var jobs []BatchJob
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := line
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, badInput(fmt.Errorf("list %s: line %d: %s: %w", path, n, line, err),
				"paths in a list file are relative to the list file's folder")
		}
		key := filepath.ToSlash(filepath.Clean(line))
		switch {
		case st.IsDir():
			js, err := listFolder(p, key, base, recursive)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, js...)
		case IsListFile(p):
			return nil, badInputf("list %s: line %d: %s is a list file; lists do not nest (name scenes, meshes or folders)", path, n, line)
		default:
			jobs = append(jobs, BatchJob{Key: key, Path: p, Root: base})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, badInput(fmt.Errorf("read list %s: %w", path, err), "")
	}
	if len(jobs) == 0 {
		return nil, badInputf("list %s names no jobs (one scene or mesh path per line; # starts a comment)", path)
	}
	return jobs, nil
}

// dedupeJobs sorts jobs by key and merges entries naming the same file. Two
// files under one key are an error: the key is the job's name on the farm.
func dedupeJobs(jobs []BatchJob) ([]BatchJob, error) {
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Key < jobs[b].Key })
	out := jobs[:0]
	for _, j := range jobs {
		if n := len(out); n > 0 && out[n-1].Key == j.Key {
			if realPath(out[n-1].Path) == realPath(j.Path) {
				continue
			}
			return nil, badInputf("jobs %s and %s are both named %s in the batch", out[n-1].Path, j.Path, j.Key)
		}
		out = append(out, j)
	}
	return out, nil
}

// selfCollisionCost is how many times the work of a step self-collision
// multiplies: the hash rebuild and pair tests per substep cost about as
// much again as the constraint solve, twice over.
const selfCollisionCost = 3

// EstimateCost returns a job's estimated work: simulation vertices x frames
// x substeps, times selfCollisionCost with self-collision. It reads and
// welds the cloth mesh (no model is built); a job whose mesh cannot be
// read costs 1 (it fails at once). The estimate depends only on the files'
// contents and the settings, so every machine computes the same.
func EstimateCost(sc *Scene) float64 {
	m, err := meshio.Read(sc.Resolve(sc.Input), inputReadOptions(sc))
	if err != nil {
		return 1
	}
	wopt := meshio.DefaultWeldOptions()
	if sc.Weld > 0 {
		wopt.Tolerance = sc.Weld
	}
	w, err := meshio.Weld(m, wopt)
	if err != nil {
		return 1
	}
	sub := sc.Substeps
	if sub <= 0 {
		sub = solver.DefaultParams().Substeps
	}
	c := float64(len(w.Positions)) * float64(max(sc.Frames, 1)) * float64(sub)
	if sc.SelfCollision {
		c *= selfCollisionCost
	}
	return max(c, 1)
}

// AssignShards splits jobs into n shards balanced by Cost and returns each
// job's shard (0..n-1). The split is longest-processing-time first: jobs in
// order of decreasing cost (ties by key) each go to the shard with the
// least cost so far (ties to the lower index). It depends only on the
// set of keys and costs, not on the jobs' order, so every task of an
// array job computes the same split.
func AssignShards(jobs []BatchJob, n int) []int {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ja, jb := jobs[order[a]], jobs[order[b]]
		if ja.Cost != jb.Cost {
			return ja.Cost > jb.Cost
		}
		return ja.Key < jb.Key
	})
	load := make([]float64, n)
	shard := make([]int, len(jobs))
	for _, i := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		shard[i] = best
		load[best] += jobs[i].Cost
	}
	return shard
}

// ParseShard parses --shard I/N (0-based I).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if ok {
		_, e1 := fmt.Sscanf(a, "%d", &i)
		_, e2 := fmt.Sscanf(b, "%d", &n)
		if e1 == nil && e2 == nil && fmt.Sprint(i) == strings.TrimSpace(a) && fmt.Sprint(n) == strings.TrimSpace(b) && n >= 1 && i >= 0 && i < n {
			return i, n, nil
		}
	}
	return 0, 0, fmt.Errorf("--shard %q: must be I/N with 0 <= I < N (0-based, e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)", s)
}
