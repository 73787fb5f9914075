package bake

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// mixedJobs is a batch like a studio's: a few large garments with
// self-collision, many medium ones and small props, costs spread over
// three orders of magnitude.
func mixedJobs() []BatchJob {
	var jobs []BatchJob
	for i := 0; i < 60; i++ {
		verts := []float64{400, 1500, 6000, 25000}[i%4]
		frames := float64(48 + 24*(i%5))
		c := verts * frames * 15
		if i%7 == 0 {
			c *= selfCollisionCost
		}
		jobs = append(jobs, BatchJob{Key: fmt.Sprintf("garments/g%02d/scene.json", i), Cost: c})
	}
	return jobs
}

func TestAssignShards(t *testing.T) {
	jobs := mixedJobs()
	for _, n := range []int{1, 2, 3, 5, 8} {
		shard := AssignShards(jobs, n)
		load := make([]float64, n)
		total := 0.0
		for i, s := range shard {
			if s < 0 || s >= n {
				t.Fatalf("n=%d: job %s in shard %d", n, jobs[i].Key, s)
			}
			load[s] += jobs[i].Cost
			total += jobs[i].Cost
		}
		// complete and disjoint: every job has exactly one shard, so the
		// loads add up to the whole
		sum := 0.0
		for _, l := range load {
			sum += l
		}
		if sum != total {
			t.Errorf("n=%d: shard loads add to %g, want %g", n, sum, total)
		}
		mean := total / float64(n)
		for s, l := range load {
			if l > 1.2*mean || l < 0.8*mean {
				t.Errorf("n=%d: shard %d has cost %.3g, %.0f %% of the mean %.3g (want within 20 %%)", n, s, l, 100*l/mean, mean)
			}
		}
		// stable under reordering: shuffled input, same job -> same shard
		byKey := map[string]int{}
		for i, s := range shard {
			byKey[jobs[i].Key] = s
		}
		r := rand.New(rand.NewSource(int64(n)))
		for round := 0; round < 5; round++ {
			sh := append([]BatchJob(nil), jobs...)
			r.Shuffle(len(sh), func(a, b int) { sh[a], sh[b] = sh[b], sh[a] })
			for i, s := range AssignShards(sh, n) {
				if byKey[sh[i].Key] != s {
					t.Fatalf("n=%d: shuffled batch puts %s in shard %d, sorted one in %d", n, sh[i].Key, s, byKey[sh[i].Key])
				}
			}
		}
	}
}

func TestAssignShardsEqualCosts(t *testing.T) {
	// equal costs split by key: 8 jobs in 3 shards are 3, 3, 2
	var jobs []BatchJob
	for i := 0; i < 8; i++ {
		jobs = append(jobs, BatchJob{Key: fmt.Sprintf("s%d.json", i), Cost: 1})
	}
	count := make([]int, 3)
	for _, s := range AssignShards(jobs, 3) {
		count[s]++
	}
	if !reflect.DeepEqual(count, []int{3, 3, 2}) {
		t.Errorf("8 equal jobs in 3 shards: %v, want [3 3 2]", count)
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		i, n int
		ok   bool
	}{{"0/3", 0, 3, true}, {"2/3", 2, 3, true}, {"0/1", 0, 1, true}, {"3/3", 0, 0, false}, {"1", 0, 0, false},
		{"-1/3", 0, 0, false}, {"1/0", 0, 0, false}, {"a/b", 0, 0, false}, {"1/3x", 0, 0, false}} {
		i, n, err := ParseShard(c.in)
		if (err == nil) != c.ok || i != c.i || n != c.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, ok %v", c.in, i, n, err, c.i, c.n, c.ok)
		}
	}
}

func TestEstimateCost(t *testing.T) {
	dir := t.TempDir()
	sc := hangingScene(t, dir, 10)
	base := EstimateCost(sc)
	if want := float64(16 * 16 * 10 * 15); base != want {
		t.Errorf("cost of a 16x16 grid, 10 frames, 15 substeps = %g, want %g", base, want)
	}
	sc.Frames, sc.Substeps = 20, 30
	if c := EstimateCost(sc); c != 4*base {
		t.Errorf("twice the frames and substeps cost %g, want %g", c, 4*base)
	}
	sc.SelfCollision = true
	if c := EstimateCost(sc); c != 4*selfCollisionCost*base {
		t.Errorf("with self-collision cost %g, want %g", c, 4*selfCollisionCost*base)
	}
	sc.Input = filepath.Join(dir, "nothere.obj")
	if c := EstimateCost(sc); c != 1 {
		t.Errorf("unreadable mesh costs %g, want 1", c)
	}
}

func keys(jobs []BatchJob) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Key)
	}
	return out
}

func TestListBatch(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "scenes")
	for _, f := range []string{"a.json", "b.json", "shirt/scene.json", "deep/x/c.json", ".hidden/d.json", "e.json.txt"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(`{"input": "m.obj"}`), 0o644)
	}
	// drape's own JSON files are not scenes
	os.WriteFile(filepath.Join(root, "report.json"), []byte(`{"drape_version": "0.1.0", "input": "m.obj"}`), 0o644)
	os.WriteFile(filepath.Join(root, "a.glb"+RecordSuffix), []byte(`{}`), 0o644)

	jobs, err := ListBatch([]string{root}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(jobs), []string{"scenes/a.json", "scenes/b.json", "scenes/shirt/scene.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folder: %q, want %q", got, want)
	}
	jobs, err = ListBatch([]string{root}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"scenes/a.json", "scenes/b.json", "scenes/deep/x/c.json", "scenes/shirt/scene.json"}
	if got := keys(jobs); !reflect.DeepEqual(got, want) {
		t.Errorf("folder -r: %q, want %q", got, want)
	}
	// the same folder by another path gives the same keys
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, root)
	if err != nil {
		t.Fatal(err)
	}
	jobs2, err := ListBatch([]string{root + "/", rel}, true)
	if err != nil || !reflect.DeepEqual(keys(jobs2), want) {
		t.Errorf("folder twice by other paths: %q, %v; want %q", keys(jobs2), err, want)
	}

	// a list file: relative to itself, comments, a folder line, a mesh
	list := filepath.Join(dir, "batch.txt")
	os.WriteFile(filepath.Join(dir, "cloth.obj"), []byte("v 0 0 0\n"), 0o644)
	os.WriteFile(list, []byte("# garments for the autumn body\nscenes/b.json\n\n  cloth.obj  \nscenes/shirt\n# scenes/a.json\n"), 0o644)
	jobs, err = ListBatch([]string{list}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(jobs), []string{"cloth.obj", "scenes/b.json", "scenes/shirt/scene.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list: %q, want %q", got, want)
	}
	for _, j := range jobs {
		if _, err := os.Stat(j.Path); err != nil {
			t.Errorf("list job %s: path %s does not open: %v", j.Key, j.Path, err)
		}
	}

	// errors name the file and the line
	os.WriteFile(list, []byte("scenes/a.json\nscenes/nothere.json\n"), 0o644)
	if _, err := ListBatch([]string{list}, false); err == nil || !strings.Contains(err.Error(), "batch.txt: line 2: scenes/nothere.json") {
		t.Errorf("missing list entry: %v", err)
	}
	os.WriteFile(list, []byte("# nothing\n"), 0o644)
	if _, err := ListBatch([]string{list}, false); err == nil || !strings.Contains(err.Error(), "names no jobs") {
		t.Errorf("empty list: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(filepath.Join(empty, "sub"), 0o755)
	os.WriteFile(filepath.Join(empty, "sub", "s.json"), []byte(`{}`), 0o644)
	if _, err := ListBatch([]string{empty}, false); err == nil || !strings.Contains(err.Error(), "-r searches its subfolders") {
		t.Errorf("folder with scenes only in subfolders: %v", err)
	}
}

// writeScene writes a scene file baking grid.obj into out.
func writeScene(t *testing.T, dir, name, body string) *Scene {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := LoadScene(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestResume(t *testing.T) {
	dir := t.TempDir()
	writeGridOBJ(t, dir, 8, 1, 1)
	body := `{"input": "grid.obj", "frames": 6, "output": ["a.pc2", "a.glb"], "pins": [{"top": true}]}`
	sc := writeScene(t, dir, "a.json", body)
	ctx := context.Background()
	mustBake := func(what string, opt BatchOptions) {
		t.Helper()
		rep, rec, err := RunJob(ctx, sc, opt)
		if err != nil || rep == nil || rec != nil {
			t.Fatalf("%s: want a bake, got report %v, skipped %v, err %v", what, rep != nil, rec != nil, err)
		}
	}
	mustSkip := func(what string) {
		t.Helper()
		rep, rec, err := RunJob(ctx, sc, BatchOptions{})
		if err != nil || rep != nil || rec == nil {
			t.Fatalf("%s: want a skip, got report %v, skipped %v, err %v", what, rep != nil, rec != nil, err)
		}
		if rec.Report == nil || rec.Report.Frames != sc.Frames || len(rec.Report.Quality.Checks) == 0 {
			t.Errorf("%s: the record lacks the report and its quality certificate", what)
		}
	}
	mustBake("first bake", BatchOptions{})
	glb, _ := os.ReadFile(filepath.Join(dir, "a.glb"))
	mustSkip("second run")
	mustBake("--force", BatchOptions{Force: true})
	if b, _ := os.ReadFile(filepath.Join(dir, "a.glb")); string(b) != string(glb) {
		t.Errorf("a forced re-bake wrote a different a.glb")
	}
	mustSkip("after --force")

	// threads do not change the result, so they do not make a job stale
	sc.Threads = 1
	mustSkip("other thread count")

	// a changed setting, input mesh or collider bakes again
	sc = writeScene(t, dir, "a.json", strings.Replace(body, `"frames": 6`, `"frames": 7`, 1))
	mustBake("frames changed", BatchOptions{})
	mustSkip("frames changed, second run")
	sc = writeScene(t, dir, "a.json", body)
	mustBake("frames changed back", BatchOptions{})
	mesh, _ := os.ReadFile(filepath.Join(dir, "grid.obj"))
	os.WriteFile(filepath.Join(dir, "grid.obj"), append(mesh, []byte("# edited\n")...), 0o644)
	mustBake("input edited", BatchOptions{})
	mustSkip("input edited, second run")

	// a missing or altered output bakes again
	os.Remove(filepath.Join(dir, "a.glb"))
	mustBake("output deleted", BatchOptions{})
	pc2 := filepath.Join(dir, "a.pc2")
	data, _ := os.ReadFile(pc2)
	os.WriteFile(pc2, data[:len(data)/2], 0o644)
	if rec, why := CheckDone(sc, mustStamp(t, sc)); rec != nil || !strings.Contains(why, "a.pc2") {
		t.Errorf("truncated output: CheckDone = %v, %q; want not done, naming a.pc2", rec != nil, why)
	}
	mustBake("output truncated", BatchOptions{})

	// a bake killed after its first output was renamed into place: the new
	// a.pc2 is in place, the old a.glb and the old record still there
	mustSkip("before the kill")
	rec := RecordPath(sc)
	old, _ := os.ReadFile(rec)
	sc2 := writeScene(t, dir, "a.json", strings.Replace(body, `"top": true`, `"indices": [0]`, 1))
	if _, _, err := RunJob(ctx, sc2, BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(rec, old, 0o644) // the new record never got written
	sc = writeScene(t, dir, "a.json", body)
	if r, why := CheckDone(sc, mustStamp(t, sc)); r != nil {
		t.Errorf("outputs of another bake under the old record taken for done (%s)", why)
	}
	mustBake("after a kill mid-write", BatchOptions{})
	mustSkip("after the re-bake")

	// no record at all (killed before it was written): bake
	os.Remove(rec)
	mustBake("record missing", BatchOptions{})
}

func mustStamp(t *testing.T, sc *Scene) Stamp {
	t.Helper()
	st, err := JobStamp(sc)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestMerge(t *testing.T) {
	manifest := []string{"a.json", "b.json", "c.json", "d.json"}
	sum := func(shard int, jobs ...JobResult) *Summary {
		s := &Summary{Summary: true, Shard: shard, Shards: 2, Manifest: manifest, Jobs: jobs}
		s.Tally()
		return s
	}
	ok := func(k string) JobResult { return JobResult{Job: k, OK: true, Status: StatusOK} }
	skip := func(k string) JobResult { return JobResult{Job: k, OK: true, Status: StatusSkipped, Skipped: true} }
	failed := func(k string) JobResult { return JobResult{Job: k, Status: StatusFailed, Code: ExitDiverged} }
	missed := func(k string) JobResult {
		return JobResult{Job: k, Status: StatusMissed, Code: ExitRequirement, Missed: []string{"max_strain<=0.01"}}
	}
	for _, c := range []struct {
		name      string
		sums      []*Summary
		code      int
		missing   []string
		duplicate []string
	}{
		{"complete", []*Summary{sum(0, ok("a.json"), skip("c.json")), sum(1, ok("b.json"), ok("d.json"))}, 0, nil, nil},
		{"a shard missing", []*Summary{sum(0, ok("a.json"), ok("c.json"))}, ExitMergeIncomplete, []string{"b.json", "d.json"}, nil},
		{"a job failed", []*Summary{sum(0, ok("a.json"), failed("c.json")), sum(1, ok("b.json"), ok("d.json"))}, ExitMergeIncomplete, nil, nil},
		{"a requirement missed", []*Summary{sum(0, ok("a.json"), missed("c.json")), sum(1, ok("b.json"), ok("d.json"))}, ExitRequirement, nil, nil},
		{"a job twice", []*Summary{sum(0, ok("a.json"), ok("c.json")), sum(1, ok("b.json"), ok("d.json"), ok("c.json"))}, ExitMergeIncomplete, nil, []string{"c.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			names := make([]string, len(c.sums))
			for i := range names {
				names[i] = fmt.Sprintf("summary-%d.json", i)
			}
			m, err := Merge(names, c.sums)
			if err != nil {
				t.Fatal(err)
			}
			if m.ExitCode != c.code || m.OK != (c.code == 0) {
				t.Errorf("exit code %d ok %v, want %d", m.ExitCode, m.OK, c.code)
			}
			if len(m.Missing) != len(c.missing) || (len(c.missing) > 0 && !reflect.DeepEqual(m.Missing, c.missing)) {
				t.Errorf("missing %q, want %q", m.Missing, c.missing)
			}
			if len(m.Duplicates) != len(c.duplicate) || (len(c.duplicate) > 0 && !reflect.DeepEqual(m.Duplicates, c.duplicate)) {
				t.Errorf("duplicates %q, want %q", m.Duplicates, c.duplicate)
			}
			if !sort.SliceIsSorted(m.Jobs, func(a, b int) bool { return m.Jobs[a].Job < m.Jobs[b].Job }) {
				t.Errorf("merged jobs not in key order")
			}
			var md strings.Builder
			m.WriteMarkdown(&md)
			rows := strings.Count(md.String(), "\n| ") - 1 // minus the separator row
			if want := len(m.Jobs) + len(m.Missing); rows != want {
				t.Errorf("Markdown has %d job rows, want %d:\n%s", rows, want, md.String())
			}
		})
	}
	other := &Summary{Summary: true, Shards: 2, Manifest: []string{"a.json"}}
	if _, err := Merge([]string{"x", "y"}, []*Summary{sum(0), other}); err == nil || !strings.Contains(err.Error(), "different batches") {
		t.Errorf("summaries of two batches merged: %v", err)
	}
}
