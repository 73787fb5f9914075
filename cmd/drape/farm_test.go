package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The farm tests run docs/farm's ready files on this machine: the Slurm
// array script on a real one-node Slurm cluster (Debian's slurm-wlm and
// munge, which ./test.sh installs), the Open Job Description template with
// openjd-cli (./test.sh puts it in tools/venv-openjd), and, as far as a
// machine without the engine allows, the Kubernetes Indexed Job and the
// Flamenco job type. Each checks with drape report merge that every scene
// baked exactly once, and that the outputs equal a one-machine bake's.

// farmDir is docs/farm of this checkout.
var farmDir = filepath.Join("..", "..", "docs", "farm")

// writeFarmScenes writes 9 small scenes into dir/scenes (three in a
// subfolder): cloths of 16² to 32² vertices hanging from one edge for 30 to
// 110 frames times long, each baking in about a second or less at long 1.
func writeFarmScenes(t *testing.T, dir string, long int) {
	t.Helper()
	sizes := []int{16, 24, 32}
	for _, g := range sizes {
		os.MkdirAll(filepath.Join(dir, "scenes", "meshes"), 0o755)
		writeGrid(t, filepath.Join(dir, "scenes", "meshes", fmt.Sprintf("grid%d.obj", g)), g, 1, 1)
	}
	for k := 0; k < 9; k++ {
		sub, up := "scenes", "meshes/"
		if k >= 6 {
			sub, up = "scenes/more", "../meshes/"
		}
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		body := fmt.Sprintf(`{"input": "%sgrid%d.obj", "frames": %d, "output": ["s%d.pc2", "s%d.mdd"], "threads": 1,
 "pins": [{"box": [-1, 0.9, -0.6, 1, 1.1, -0.49]}]}`, up, sizes[k%3], long*(30+10*k), k, k)
		if err := os.WriteFile(filepath.Join(dir, sub, fmt.Sprintf("s%d.json", k)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// farmReference bakes the farm scenes on one machine, -j 1, and returns
// their outputs.
func farmReference(t *testing.T, long int) map[string]string {
	t.Helper()
	ref := t.TempDir()
	writeFarmScenes(t, ref, long)
	if code, _, errOut := runBin(t, ref, "bake", "scenes", "-r", "-j", "1"); code != 0 {
		t.Fatalf("one-machine bake: exit %d: %s", code, errOut)
	}
	out := outputsOfExt(t, filepath.Join(ref, "scenes"), ".pc2", ".mdd")
	if len(out) != 18 {
		t.Fatalf("one-machine bake wrote %d outputs, want 18", len(out))
	}
	return out
}

// outputsOfExt reads the files below dir with the given extensions.
func outputsOfExt(t *testing.T, dir string, exts ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				out[rel] = string(b)
			}
		}
		return nil
	})
	return out
}

// sameOutputs checks that the farm's outputs below dir equal want.
func sameOutputs(t *testing.T, what, dir string, want map[string]string) {
	t.Helper()
	got := outputsOfExt(t, dir, ".pc2", ".mdd")
	if len(got) != len(want) {
		t.Errorf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %s differs from the one-machine bake's (present %v)", what, k, ok)
		}
	}
}

// mergedReport is what the tests read of drape report merge's JSON.
type mergedReport struct {
	OK         bool
	Total      int
	Baked      int
	Skipped    int
	Failed     int
	Missing    []string
	Duplicates []string
	Jobs       []struct {
		Job     string
		Shard   int
		Status  string
		Skipped bool
	}
}

// mergeSummaries runs drape report merge over files and returns its exit
// code and report.
func mergeSummaries(t *testing.T, dir string, files ...string) (int, mergedReport) {
	t.Helper()
	args := append([]string{"report", "merge"}, files...)
	args = append(args, "-o", "merged.json", "--markdown", "merged.md")
	code, _, errOut := runBin(t, dir, args...)
	var m mergedReport
	data, err := os.ReadFile(filepath.Join(dir, "merged.json"))
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		t.Fatalf("drape report merge: exit %d, no report: %v\n%s", code, err, errOut)
	}
	return code, m
}

// checkComplete checks that a merged report has every one of the 9 scenes
// exactly once and nothing failed or missing.
func checkComplete(t *testing.T, what string, code int, m mergedReport) {
	t.Helper()
	if code != 0 || !m.OK || m.Total != 9 || len(m.Jobs) != 9 || m.Failed != 0 || len(m.Missing) != 0 || len(m.Duplicates) != 0 {
		t.Errorf("%s: merge exit %d, ok %v, %d of %d jobs, %d failed, missing %q, duplicates %q; want all 9 once",
			what, code, m.OK, len(m.Jobs), m.Total, m.Failed, m.Missing, m.Duplicates)
	}
}

// daemon is a server the test started; stop ends it.
type daemon struct {
	name string
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

func startDaemon(t *testing.T, env []string, name string, args ...string) *daemon {
	t.Helper()
	d := &daemon{name: name, cmd: exec.Command(name, args...), log: &bytes.Buffer{}}
	d.cmd.Env = env
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	return d
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// slurmCluster is a one-node Slurm cluster on localhost with its own munge.
type slurmCluster struct {
	t   *testing.T
	env []string
}

func (c *slurmCluster) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startSlurm starts munged, slurmctld and slurmd with a configuration in a
// temporary folder, on free ports, and stops them when the test ends.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("%s is not installed: run ./test.sh, which installs Debian's slurm-wlm and munge", b)
		}
	}
	// the daemons run as the test's user, root or not: slurmd then starts
	// only that user's jobs, which is all the test submits
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "drape-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"state", "spool"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge.sock")
	conf := filepath.Join(dir, "slurm.conf")
	cfg := fmt.Sprintf(`ClusterName=drapetest
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=%s
SlurmdUser=%s
AuthType=auth/munge
AuthInfo=socket=%s
StateSaveLocation=%s/state
SlurmdSpoolDir=%s/spool
SlurmctldPidFile=%s/slurmctld.pid
SlurmdPidFile=%s/slurmd.pid
SlurmctldLogFile=%s/slurmctld.log
SlurmdLogFile=%s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=drape Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`, freePort(t), freePort(t), me.Username, me.Username, sock, dir, dir, dir, dir, dir, dir)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{t: t, env: append(os.Environ(), "SLURM_CONF="+conf)}
	munged := startDaemon(t, c.env, "munged", "-F", "-f", "--socket="+sock, "--key-file="+filepath.Join(dir, "munge.key"),
		"--log-file="+filepath.Join(dir, "munged.log"), "--pid-file="+filepath.Join(dir, "munged.pid"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	t.Cleanup(munged.stop)
	ctld := startDaemon(t, c.env, "slurmctld", "-D", "-i", "-f", conf)
	t.Cleanup(ctld.stop)
	slurmd := startDaemon(t, c.env, "slurmd", "-D", "-N", "localhost", "-f", conf)
	t.Cleanup(slurmd.stop)
	t.Cleanup(func() { c.run("scancel", "--partition=drape") })
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := c.run("sinfo", "-h", "-o", "%T")
		if strings.TrimSpace(out) == "idle" {
			break
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(filepath.Join(dir, "slurmctld.log"))
			t.Fatalf("the Slurm node is not idle after 60 s (sinfo: %q)\nslurmctld: %s\nslurmd: %s\nmunged: %s", out, logs, slurmd.log, munged.log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return c
}

// submit sends the farm's Slurm script as a 3-task array and returns the
// job id.
func (c *slurmCluster) submit(dir string) string {
	c.t.Helper()
	out, err := c.run("sbatch", "--parsable", "--array=0-2", "--cpus-per-task=1", "--chdir="+dir,
		"--output="+filepath.Join(dir, "task-%a.log"), "--export=ALL,DRAPE="+drapeBin,
		filepath.Join(absFarm(c.t), "slurm.sh"), "scenes", "summaries")
	if err != nil {
		c.t.Fatalf("sbatch: %v: %s", err, out)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	return id
}

// wait waits until no task of job id is queued or running.
func (c *slurmCluster) wait(id string) {
	c.t.Helper()
	deadline := time.Now().Add(150 * time.Second)
	for time.Now().Before(deadline) {
		out, err := c.run("squeue", "-h", "-j", id, "-o", "%i %T")
		if err == nil && strings.TrimSpace(out) == "" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("Slurm job %s still running after 150 s", id)
}

func absFarm(t *testing.T) string {
	p, err := filepath.Abs(farmDir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func summaryFiles(dir string) []string {
	return []string{"summaries/summary-0.json", "summaries/summary-1.json", "summaries/summary-2.json"}
}

// TestSlurmArray submits docs/farm/slurm.sh as a 3-task array over 9
// scenes to a real Slurm cluster, checks the merged report and the outputs
// against a one-machine bake, then cancels one task mid-bake, resubmits the
// array, and checks that only the jobs the cancelled task had not finished
// bake again.
func TestSlurmArray(t *testing.T) {
	c := startSlurm(t)
	want := farmReference(t, 1)

	// round 1: the whole batch
	dir := t.TempDir()
	writeFarmScenes(t, dir, 1)
	c.wait(c.submit(dir))
	code, m := mergeSummaries(t, dir, summaryFiles(dir)...)
	checkComplete(t, "first array", code, m)
	perShard := map[int]int{}
	for _, j := range m.Jobs {
		perShard[j.Shard]++
		if j.Status != "ok" {
			t.Errorf("first array: %s %s, want ok", j.Job, j.Status)
		}
	}
	if len(perShard) != 3 {
		t.Errorf("first array: jobs per shard %v, want all three shards used", perShard)
	}
	sameOutputs(t, "first array", filepath.Join(dir, "scenes"), want)

	// round 2: cancel task 1 once it finished its first job; the scenes
	// bake 4 times as many frames, so the cancel lands mid-bake (about a
	// second per job on a fast machine, far more than scancel takes)
	want = farmReference(t, 4)
	dir = t.TempDir()
	writeFarmScenes(t, dir, 4)
	id := c.submit(dir)
	log := filepath.Join(dir, "task-1.log")
	deadline := time.Now().Add(120 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		if strings.Count(string(b), ": done in") >= 1 {
			break
		}
		if strings.Contains(string(b), "jobs baked") || time.Now().After(deadline) {
			t.Fatalf("task 1 ended or stalled before it could be cancelled mid-bake:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out, err := c.run("scancel", id+"_1"); err != nil {
		t.Fatalf("scancel %s_1: %v %s", id, err, out)
	}
	c.wait(id)
	b, _ := os.ReadFile(log)
	doneAtKill := strings.Count(string(b), ": done in")
	t.Logf("task 1 cancelled after %d of its %d jobs; jobs per shard %v", doneAtKill, perShard[1], perShard)
	if doneAtKill >= perShard[1] {
		t.Fatalf("task 1 finished before scancel (%d of its %d jobs done):\n%s", doneAtKill, perShard[1], b)
	}
	// a cancelled task stops within a frame and still writes its summary:
	// its unfinished jobs failed with exit code 130
	code, m = mergeSummaries(t, dir, summaryFiles(dir)...)
	cancelled := 0
	for _, j := range m.Jobs {
		if j.Status == "failed" {
			cancelled++
		}
	}
	if code != 1 || m.Failed != perShard[1]-doneAtKill || cancelled != m.Failed {
		t.Errorf("merge after the cancel: exit %d, %d failed; want 1 and the %d jobs task 1 had not finished", code, m.Failed, perShard[1]-doneAtKill)
	}

	// round 3: resubmit; only the cancelled task's unfinished jobs bake
	c.wait(c.submit(dir))
	code, m = mergeSummaries(t, dir, summaryFiles(dir)...)
	checkComplete(t, "resubmitted array", code, m)
	if m.Baked != perShard[1]-doneAtKill || m.Skipped != 9-m.Baked {
		t.Errorf("resubmitted array baked %d and skipped %d; want %d baked (task 1's unfinished jobs) and the other %d skipped",
			m.Baked, m.Skipped, perShard[1]-doneAtKill, 9-(perShard[1]-doneAtKill))
	}
	for _, j := range m.Jobs {
		if j.Shard != 1 && !j.Skipped {
			t.Errorf("resubmitted array baked %s of shard %d again, which finished before", j.Job, j.Shard)
		}
	}
	sameOutputs(t, "resubmitted array", filepath.Join(dir, "scenes"), want)
}

// openjdCLI is the openjd command ./test.sh installs.
func openjdCLI(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("..", "..", "tools", "venv-openjd", "bin", "openjd"))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("openjd-cli is not installed (%s missing): run ./test.sh, which installs it into tools/venv-openjd", p)
	}
	return p
}

// TestOpenJDTemplate runs docs/farm/openjd.yaml with openjd run: a task
// per shard, then the merge step; the merged report must be complete.
func TestOpenJDTemplate(t *testing.T) {
	openjd := openjdCLI(t)
	tmpl := filepath.Join(absFarm(t), "openjd.yaml")
	if out, err := exec.Command(openjd, "check", tmpl).CombinedOutput(); err != nil {
		t.Fatalf("openjd check: %v\n%s", err, out)
	}
	want := farmReference(t, 1)
	dir := t.TempDir()
	writeFarmScenes(t, dir, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, openjd, "run", tmpl, "--step", "Merge", "--run-dependencies",
		"-p", "Batch="+filepath.Join(dir, "scenes"), "-p", "Shards=3", "-p", "Summaries="+filepath.Join(dir, "summaries"), "-p", "Drape="+drapeBin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("openjd run: %v\n%s", err, out)
	}
	var m mergedReport
	data, err := os.ReadFile(filepath.Join(dir, "summaries", "report.json"))
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		t.Fatalf("the Merge step wrote no report: %v\n%s", err, out)
	}
	checkComplete(t, "openjd run", 0, m)
	if md, err := os.ReadFile(filepath.Join(dir, "summaries", "report.md")); err != nil || strings.Count(string(md), "| ok |") != 9 {
		t.Errorf("report.md lacks 9 ok rows: %v\n%s", err, md)
	}
	sameOutputs(t, "openjd run", filepath.Join(dir, "scenes"), want)
}

// TestKubernetesIndexedJob parses docs/farm/kubernetes.yaml, checks the
// fields an Indexed Job needs, and runs its container command once per
// index with drape on the PATH and the volume at a temporary folder (no
// cluster: the machine has none).
func TestKubernetesIndexedJob(t *testing.T) {
	py, _ := filepath.Abs(filepath.Join("..", "..", "tools", "venv-openjd", "bin", "python"))
	openjdCLI(t) // the venv's PyYAML parses the file
	out, err := exec.Command(py, "-c", "import sys, json, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
		filepath.Join(farmDir, "kubernetes.yaml")).CombinedOutput()
	if err != nil {
		t.Fatalf("kubernetes.yaml does not parse: %v\n%s", err, out)
	}
	var job struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Spec       struct {
			CompletionMode string `json:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					RestartPolicy string `json:"restartPolicy"`
					Containers    []struct {
						Command []string
						Args    []string
						Env     []struct{ Name, Value string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(out, &job); err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions < 2 ||
		s.Template.Spec.RestartPolicy != "Never" || len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("kubernetes.yaml is not an Indexed Job of one container: %+v", job)
	}
	ctr := s.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range ctr.Env {
		env[e.Name] = e.Value
	}
	script := strings.Join(ctr.Args, " ")
	if env["SHARDS"] != fmt.Sprint(s.Completions) || !strings.Contains(script, `--shard "$JOB_COMPLETION_INDEX/$SHARDS"`) ||
		len(ctr.Command) != 2 || ctr.Command[0] != "sh" {
		t.Fatalf("the container does not bake shard $JOB_COMPLETION_INDEX of SHARDS = completions (%d): env %v, command %q %q", s.Completions, env, ctr.Command, script)
	}
	want := farmReference(t, 1)
	data := t.TempDir()
	writeFarmScenes(t, data, 1)
	script = strings.ReplaceAll(script, "/data/", data+"/")
	for i := 0; i < s.Completions; i++ {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(drapeBin)+":"+os.Getenv("PATH"), "SHARDS="+env["SHARDS"],
			"BATCH="+filepath.Join(data, "scenes"), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("index %d: %v\n%s", i, err, out)
		}
	}
	var sums []string
	for i := 0; i < s.Completions; i++ {
		sums = append(sums, fmt.Sprintf("summaries/summary-%d.json", i))
	}
	code, m := mergeSummaries(t, data, sums...)
	checkComplete(t, "Indexed Job", code, m)
	sameOutputs(t, "Indexed Job", filepath.Join(data, "scenes"), want)
}

// flamencoStub loads a Flamenco job type in Node with a stub of Flamenco's
// author API (author.Task, author.Command, task.addCommand,
// task.addDependency, job.addTask, path.join) and prints the tasks
// compileJob makes.
const flamencoStub = `
const fs = require("fs"), vm = require("vm"), nodePath = require("path");
const [file, settingsJSON] = process.argv.slice(-2);
const settings = JSON.parse(settingsJSON);
const tasks = [];
const author = {
  Task(name, type) {
    const t = {name, type, commands: [], deps: [],
      addCommand(c) { this.commands.push(c); },
      addDependency(d) { this.deps.push(d.name); }};
    return t;
  },
  Command(name, params) { return {name, params}; },
};
const job = {settings, addTask(t) { tasks.push(t); }};
const ctx = vm.createContext({author, path: {join: nodePath.posix.join}, print: console.log});
vm.runInContext(fs.readFileSync(file, "utf8") + "\n;this.JOB_TYPE = JOB_TYPE; this.compileJob = compileJob;", ctx, {filename: file});
if (!ctx.JOB_TYPE.label || !Array.isArray(ctx.JOB_TYPE.settings)) throw new Error("JOB_TYPE lacks label or settings");
ctx.compileJob(job);
console.log(JSON.stringify({settings: ctx.JOB_TYPE.settings.map(s => s.key),
  tasks: tasks.map(t => ({name: t.name, type: t.type, deps: t.deps, commands: t.commands}))}));
`

// TestFlamencoJobType loads docs/farm/flamenco/drape-bake.js in Node with
// a stub of Flamenco's author API and runs the commands of the tasks it
// compiles, in dependency order (no Flamenco Manager: the machine has none).
func TestFlamencoJobType(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: ./test.sh needs Node.js (npm) for the glTF validator too")
	}
	want := farmReference(t, 1)
	dir := t.TempDir()
	writeFarmScenes(t, dir, 1)
	settings := fmt.Sprintf(`{"batch": %q, "shards": 3, "summaries": %q, "drape": %q}`,
		filepath.Join(dir, "scenes"), filepath.Join(dir, "summaries"), drapeBin)
	out, err := exec.Command(node, "-e", flamencoStub, "--", filepath.Join(farmDir, "flamenco", "drape-bake.js"), settings).CombinedOutput()
	if err != nil {
		t.Fatalf("the job type does not load and compile in Node: %v\n%s", err, out)
	}
	var compiled struct {
		Settings []string
		Tasks    []struct {
			Name     string
			Deps     []string
			Commands []struct {
				Name   string
				Params struct {
					Exe  string
					Args []string
				}
			}
		}
	}
	if err := json.Unmarshal(out, &compiled); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(compiled.Tasks) != 4 || len(compiled.Tasks[3].Deps) != 3 {
		t.Fatalf("compileJob made %d tasks (last depends on %d); want 3 shards and a merge depending on them: %s", len(compiled.Tasks), len(compiled.Tasks[len(compiled.Tasks)-1].Deps), out)
	}
	for i, task := range compiled.Tasks {
		for _, c := range task.Commands {
			if c.Name != "exec" || c.Params.Exe != drapeBin {
				t.Fatalf("task %s: command %s %s, want exec of drape", task.Name, c.Name, c.Params.Exe)
			}
			if i < 3 && !strings.Contains(strings.Join(c.Params.Args, " "), fmt.Sprintf("--shard %d/3", i)) {
				t.Errorf("task %s does not bake shard %d/3: %q", task.Name, i, c.Params.Args)
			}
			cmd := exec.Command(c.Params.Exe, c.Params.Args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("task %s: %v\n%s", task.Name, err, out)
			}
		}
	}
	var m mergedReport
	data, err := os.ReadFile(filepath.Join(dir, "summaries", "report.json"))
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		t.Fatalf("the merge task wrote no report: %v", err)
	}
	checkComplete(t, "Flamenco job", 0, m)
	sameOutputs(t, "Flamenco job", filepath.Join(dir, "scenes"), want)
}
