package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestMistypedFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"bake", "x.obj", "--frame", "10"}, []string{"unknown flag --frame", "did you mean --frames?", "drape bake --help"}},
		{[]string{"bake", "x.obj", "--self-colision"}, []string{"unknown flag --self-colision", "did you mean --self-collision?"}},
		{[]string{"bake", "x.obj", "--frames", "ten"}, []string{`invalid value "ten" for flag --frames`, "drape bake --help"}},
		{[]string{"report", "merge", "s.json", "--markdwn", "m.md"}, []string{"unknown flag --markdwn", "did you mean --markdown?", "drape report merge --help"}},
		{[]string{"bake", "x.obj", "--zzzzzz"}, []string{"unknown flag --zzzzzz (drape bake --help for more)"}},
		{[]string{"--verison"}, []string{"unknown flag --verison; did you mean --version? (drape --help for more)"}},
	} {
		code, out, errOut := runIn(t, c.args...)
		if code != 2 {
			t.Errorf("drape %v: exit %d, want 2", c.args, code)
		}
		if out != "" || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "OPTIONS") || strings.Contains(errOut, " -frame ") {
			t.Errorf("drape %v: want one line on stderr and nothing on stdout, got stdout %q stderr %q", c.args, out, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("drape %v: stderr %q lacks %q", c.args, errOut, w)
			}
		}
	}
}

// jsonLines parses every line of out as a JSON object; a line that is not
// one fails the test.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %d is not a JSON object: %q", i+1, l)
		}
		objs = append(objs, m)
	}
	return objs
}

func TestJSONModesWriteOnlyJSON(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 8, 1, 1)

	// --progress json: frame objects, then the result object (no path line)
	code, out, errOut := runBin(t, dir, "bake", "cloth.obj", "--frames", "4", "--pin", "top", "--progress", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	objs := jsonLines(t, out)
	last := objs[len(objs)-1]
	if len(objs) != 5 || last["status"] != "ok" || last["outputs"] == nil {
		t.Errorf("--progress json: %d lines, last %v; want 4 frames and a result object", len(objs), last)
	}

	// errors in JSON mode are JSON: bad input, a usage mistake, a bad scene
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"input": "cloth.obj", "frames": -3}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"bake", "nothere.obj", "--json"}, 3},
		{[]string{"bake", "cloth.obj", "--frames", "x", "--json"}, 2},
		{[]string{"bake", "cloth.obj", "--progress", "json", "--pin", "nowhere:1"}, 2},
		{[]string{"bake", "bad.json", "--json"}, 3},
		{[]string{"bake", "cloth.obj", "--json", "--shard", "3/3"}, 2},
	} {
		code, out, errOut := runBin(t, dir, c.args...)
		objs := jsonLines(t, out)
		last := objs[len(objs)-1]
		if code != c.code || len(objs) != 1 || last["ok"] != false || last["exit_code"] != float64(c.code) || last["error"] == "" {
			t.Errorf("drape %v: exit %d, stdout %q; want exit %d and one JSON error object (stderr %q)", c.args, code, out, c.code, errOut)
		}
	}
}

// writeScenes writes n small scenes into dir/scenes (some in a subfolder),
// baking meshes of three sizes for 4 to 4+n frames.
func writeScenes(t *testing.T, dir string, n int) {
	t.Helper()
	for _, g := range []int{6, 8, 10} {
		os.MkdirAll(filepath.Join(dir, "scenes", "meshes"), 0o755)
		writeGrid(t, filepath.Join(dir, "scenes", "meshes", fmt.Sprintf("grid%d.obj", g)), g, 1, 1)
	}
	for k := 0; k < n; k++ {
		sub, up := "scenes", "meshes/"
		if k >= n-3 {
			sub, up = "scenes/more", "../meshes/"
		}
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		body := fmt.Sprintf(`{"input": "%sgrid%d.obj", "frames": %d, "output": ["s%d.pc2", "s%d.glb"], "pins": [{"box": [-1, 0.9, -0.6, 1, 1.1, -0.49]}]}`,
			up, []int{6, 8, 10}[k%3], 4+k, k, k)
		os.WriteFile(filepath.Join(dir, sub, fmt.Sprintf("s%d.json", k)), []byte(body), 0o644)
	}
}

// outputsOf reads every output file below dir (the .pc2 and .glb files).
func outputsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && (strings.HasSuffix(p, ".pc2") || strings.HasSuffix(p, ".glb")) {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func TestBatchShardsResumeMerge(t *testing.T) {
	dir := t.TempDir()
	writeScenes(t, dir, 8)
	ref := t.TempDir()
	writeScenes(t, ref, 8)
	if code, _, errOut := runBin(t, ref, "bake", "scenes", "-r", "-j", "1"); code != 0 {
		t.Fatalf("one-machine bake: exit %d: %s", code, errOut)
	}
	// three shards, as three array tasks would run them; the last through
	// a list file naming the same scenes in another order
	var list strings.Builder
	list.WriteString("# the same batch, listed by hand\n")
	for k := 7; k >= 0; k-- {
		if k >= 5 {
			fmt.Fprintf(&list, "scenes/more/s%d.json\n", k)
		} else {
			fmt.Fprintf(&list, "scenes/s%d.json\n", k)
		}
	}
	os.WriteFile(filepath.Join(dir, "batch.txt"), []byte(list.String()), 0o644)
	for i := 0; i < 3; i++ {
		args := []string{"bake", "scenes", "-r", "--shard", fmt.Sprintf("%d/3", i), "--summary", fmt.Sprintf("sum%d.json", i), "--json"}
		code, out, errOut := runBin(t, dir, args...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		objs := jsonLines(t, out)
		if last := objs[len(objs)-1]; last["summary"] != true || last["shard"] != float64(i) {
			t.Errorf("shard %d: --json does not end with the summary object: %v", i, last)
		}
	}
	// the list names its jobs scenes/... as the folder does: same keys
	code, out, errOut := runBin(t, dir, "report", "merge", "sum0.json", "sum1.json", "sum2.json", "-o", "merged.json", "--markdown", "merged.md")
	if code != 0 {
		t.Fatalf("merge: exit %d: %s%s", code, out, errOut)
	}
	var m struct {
		Total   int
		Baked   int
		Missing []string
		Jobs    []struct {
			Job     string
			Shard   int
			Status  string
			Quality *struct{ Checks []any }
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "merged.json"))
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	perShard := map[int]int{}
	for _, j := range m.Jobs {
		perShard[j.Shard]++
		if j.Status != "ok" || j.Quality == nil || len(j.Quality.Checks) != 4 {
			t.Errorf("merged job %s: status %s, quality %v", j.Job, j.Status, j.Quality)
		}
	}
	if m.Total != 8 || m.Baked != 8 || len(m.Jobs) != 8 || len(m.Missing) != 0 || len(perShard) != 3 {
		t.Errorf("merged: %d jobs, %d baked, %d listed, missing %q, per shard %v; want 8 baked once over 3 shards", m.Total, m.Baked, len(m.Jobs), m.Missing, perShard)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "merged.md"))
	if !strings.Contains(string(md), "| scenes/more/s7.json |") {
		t.Errorf("Markdown table lacks a job row:\n%s", md)
	}
	got, want := outputsOf(t, filepath.Join(dir, "scenes")), outputsOf(t, filepath.Join(ref, "scenes"))
	if len(got) != 16 || len(got) != len(want) {
		t.Errorf("sharded bake wrote %d outputs, one machine %d; want 16", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs between the sharded and the one-machine bake", k)
		}
	}

	// a list of the same scenes gives the same shards: all skipped now
	code, out, errOut = runBin(t, dir, "bake", "batch.txt", "--shard", "2/3", "--summary", "sum2.json", "--progress", "json")
	if code != 0 {
		t.Fatalf("list shard: exit %d: %s", code, errOut)
	}
	objs := jsonLines(t, out)
	last := objs[len(objs)-1]
	if last["summary"] != true || last["skipped"] != float64(perShard[2]) || last["baked"] != float64(0) {
		t.Errorf("shard 2 again through a list: summary %v; want all %d jobs skipped", last, perShard[2])
	}
	for _, j := range last["jobs"].([]any) {
		if s := j.(map[string]any)["seconds"].(float64); s > 0.5 {
			t.Errorf("a skipped job took %.3f s", s)
		}
	}
	// a missing summary fails the merge and names the jobs
	code, _, errOut = runBin(t, dir, "report", "merge", "sum0.json", "sum2.json", "-o", "partial.json")
	if code != 1 || !strings.Contains(errOut, "MISSING") {
		t.Errorf("merge without shard 1: exit %d, want 1 with MISSING rows:\n%s", code, errOut)
	}
}

// TestBatchKilledResumes kills a batch mid-way (SIGKILL: no clean-up) and
// runs it again: the jobs done before the kill are skipped, the rest bake,
// and the outputs equal an uninterrupted bake's.
func TestBatchKilledResumes(t *testing.T) {
	dir := t.TempDir()
	writeGrid(t, filepath.Join(dir, "cloth.obj"), 16, 1, 1)
	ref := t.TempDir()
	writeGrid(t, filepath.Join(ref, "cloth.obj"), 16, 1, 1)
	for k := 0; k < 5; k++ {
		body := fmt.Sprintf(`{"input": "cloth.obj", "frames": %d, "output": ["j%d.glb", "j%d.pc2"], "pins": [{"box": [-1, 0.9, -0.6, 1, 1.1, -0.49]}]}`, 150+k, k, k)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("j%d.json", k)), []byte(body), 0o644)
		os.WriteFile(filepath.Join(ref, fmt.Sprintf("j%d.json", k)), []byte(body), 0o644)
	}
	if code, _, errOut := runBin(t, ref, "bake", ".", "-j", "1"); code != 0 {
		t.Fatalf("reference bake: exit %d: %s", code, errOut)
	}
	cmd := exec.Command(drapeBin, "bake", ".", "-j", "1")
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := 0
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), ": done in") {
			done++
			if done == 2 {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
	}
	cmd.Wait()
	if done != 2 {
		t.Fatalf("the batch finished %d jobs before the kill, want 2", done)
	}
	var errb bytes.Buffer
	code, out, errOut := runBin(t, dir, "bake", ".", "-j", "2", "--json")
	errb.WriteString(errOut)
	if code != 0 {
		t.Fatalf("resumed batch: exit %d: %s", code, errOut)
	}
	objs := jsonLines(t, out)
	last := objs[len(objs)-1]
	if last["skipped"] != float64(2) || last["baked"] != float64(3) {
		t.Errorf("resumed batch: %v skipped, %v baked; want the 2 done before the kill skipped and 3 baked\n%s", last["skipped"], last["baked"], errOut)
	}
	got, want := outputsOf(t, dir), outputsOf(t, ref)
	if len(got) != 10 {
		t.Errorf("%d outputs after the resume, want 10", len(got))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs from the uninterrupted bake's", k)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left after the resume: %s", e.Name())
		}
	}
}

// TestBatchJobsShareMemoryBudget bakes four jobs with -j 4 under a
// --max-memory that two of them fit at once and four do not: every job
// bakes, the outputs are those of -j 1, and the summary shows that the
// jobs never reserved more than the budget at once.
func TestBatchJobsShareMemoryBudget(t *testing.T) {
	const jobs = 4
	setup := func() string {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "scenes"), 0o755)
		writeGrid(t, filepath.Join(dir, "scenes", "grid.obj"), 16, 1, 1)
		for k := 0; k < jobs; k++ {
			body := fmt.Sprintf(`{"input": "grid.obj", "frames": 12, "output": ["s%d.glb", "s%d.pc2"], "pins": [{"box": [-1, 0.9, -0.6, 1, 1.1, -0.45]}]}`, k, k)
			os.WriteFile(filepath.Join(dir, "scenes", fmt.Sprintf("s%d.json", k)), []byte(body), 0o644)
		}
		return dir
	}
	type summary struct {
		Budget int64 `json:"memory_budget"`
		Peak   int64 `json:"memory_reserved_peak"`
		Jobs   []struct {
			Job      string
			Status   string
			Reserved int64   `json:"memory_reserved"`
			Wait     float64 `json:"memory_wait_s"`
		}
	}
	readSummary := func(dir string) summary {
		var s summary
		data, err := os.ReadFile(filepath.Join(dir, "sum.json"))
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err != nil {
			t.Fatalf("summary: %v", err)
		}
		return s
	}
	ref := setup()
	if code, _, errOut := runBin(t, ref, "bake", "scenes", "-j", "1", "--summary", "sum.json"); code != 0 {
		t.Fatalf("-j 1: exit %d: %s", code, errOut)
	}
	s1 := readSummary(ref)
	est := s1.Jobs[0].Reserved
	if len(s1.Jobs) != jobs || est <= 0 {
		t.Fatalf("-j 1 summary: %d jobs, first reserved %d bytes; want %d jobs with their estimates", len(s1.Jobs), est, jobs)
	}
	budget := est * 5 / 2
	dir := setup()
	code, out, errOut := runBin(t, dir, "bake", "scenes", "-j", fmt.Sprint(jobs), "--max-memory", fmt.Sprint(budget), "--summary", "sum.json", "--progress", "json")
	if code != 0 {
		t.Fatalf("-j %d --max-memory %d: exit %d: %s", jobs, budget, code, errOut)
	}
	s := readSummary(dir)
	var sum int64
	for _, j := range s.Jobs {
		sum += j.Reserved
		if j.Status != "ok" || j.Reserved != est {
			t.Errorf("%s: %s, reserved %d; want ok with %d", j.Job, j.Status, j.Reserved, est)
		}
	}
	if s.Budget != budget || s.Peak > budget || s.Peak < est || sum <= budget {
		t.Errorf("budget %d, peak reserved %d, jobs' sum %d; want the budget %d, a peak in [%d, budget], a sum over the budget",
			s.Budget, s.Peak, sum, budget, est)
	}
	// a job that waited for memory (not only for its turn) said so on its
	// own progress line first
	waitLines := 0
	for _, o := range jsonLines(t, out) {
		if o["waiting_for_memory"] != nil {
			waitLines++
			if o["waiting_for_memory"] != float64(est) || o["memory_budget"] != float64(budget) || o["job"] == nil {
				t.Errorf("waiting line %v; want the job, its %d bytes and the %d budget", o, est, budget)
			}
		}
	}
	waited := 0
	for _, j := range s.Jobs {
		if j.Wait > 0 {
			waited++
		}
	}
	if waitLines > waited {
		t.Errorf("%d waiting lines, but %d jobs with memory_wait_s", waitLines, waited)
	}
	got, want := outputsOf(t, filepath.Join(dir, "scenes")), outputsOf(t, filepath.Join(ref, "scenes"))
	if len(got) != 2*jobs || len(got) != len(want) {
		t.Errorf("-j %d wrote %d outputs, -j 1 %d; want %d", jobs, len(got), len(want), 2*jobs)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs between -j %d and -j 1", k, jobs)
		}
	}

	// a job over the whole budget on its own, between two others, is
	// refused (exit 3) and passes its turn: the others bake
	big := `{"input": "grid.obj", "frames": 2000, "output": ["s1b.glb"], "pins": [{"box": [-1, 0.9, -0.6, 1, 1.1, -0.45]}]}`
	os.WriteFile(filepath.Join(dir, "scenes", "s1b.json"), []byte(big), 0o644)
	code, _, errOut = runBin(t, dir, "bake", "scenes", "-j", fmt.Sprint(jobs), "--max-memory", fmt.Sprint(budget), "--summary", "sum.json", "--force")
	s = readSummary(dir)
	if code != 3 || len(s.Jobs) != jobs+1 {
		t.Fatalf("with an over-budget job: exit %d, %d jobs; want 3 and %d jobs: %s", code, len(s.Jobs), jobs+1, errOut)
	}
	for _, j := range s.Jobs {
		if want := (j.Job == "scenes/s1b.json"); (j.Status == "failed") != want || (want && j.Reserved != 0) {
			t.Errorf("%s: %s, reserved %d; want only s1b.json failed, reserving nothing", j.Job, j.Status, j.Reserved)
		}
	}
	if !strings.Contains(errOut, "more than its budget") {
		t.Errorf("the over-budget job's message lacks the budget: %s", errOut)
	}
}
