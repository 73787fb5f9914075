package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// newtonSolvers are the cloth solvers of NVIDIA Newton the bench runs, by
// the name newton_cloth.py takes, and their table labels.
var newtonSolvers = []struct{ Name, Label string }{
	{"vbd", "Newton VBD"},
	{"xpbd", "Newton XPBD"},
	{"style3d", "Newton Style3D"},
}

// pinsStamp is the copy of bench/newton-requirements.txt a virtual
// environment keeps once those pins are installed in it (test.sh writes the
// same stamp).
const pinsStamp = ".drape-pins"

// ensureNewton makes the virtual environment venv hold the pinned newton,
// warp-lang and numpy of reqs, creating it with python3 and installing them
// with its pip when missing; pip's progress goes to log. It returns the
// venv's Python.
func ensureNewton(venv, reqs string, log io.Writer) (string, error) {
	want, err := os.ReadFile(reqs)
	if err != nil {
		return "", fmt.Errorf("the pinned Newton packages: %w", err)
	}
	py := filepath.Join(venv, "bin", "python")
	if have, err := os.ReadFile(filepath.Join(venv, pinsStamp)); err == nil && bytes.Equal(have, want) {
		if _, err := os.Stat(py); err == nil {
			return py, nil
		}
	}
	if _, err := os.Stat(py); err != nil {
		fmt.Fprintf(log, "creating the Python virtual environment %s for NVIDIA Newton\n", venv)
		cmd := exec.Command("python3", "-m", "venv", venv)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("python3 -m venv %s: %v (Debian needs the python3-venv package; ./test.sh installs it)", venv, err)
		}
	}
	fmt.Fprintf(log, "installing %s into %s (about 200 MB; warp-lang is most of it)\n", strings.Join(strings.Fields(string(want)), " "), venv)
	cmd := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "--disable-pip-version-check", "--progress-bar", "on", "-r", reqs)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("pip install -r %s into %s: %v", reqs, venv, err)
	}
	if err := os.WriteFile(filepath.Join(venv, pinsStamp), want, 0o644); err != nil {
		return "", err
	}
	return py, nil
}

// newtonEnv is the environment of a Newton child: Warp caches its compiled
// kernels in the virtual environment, so only the first run on a machine
// compiles them (minutes on two cores).
func newtonEnv(venv string) []string {
	return append(os.Environ(), "WARP_CACHE_PATH="+filepath.Join(venv, "warp-cache"))
}

// runNewton bakes sc with one of Newton's cloth solvers.
func runNewton(o options, py, script, solver, label, out, tag string, sc scene) run {
	r := run{Tool: label, PC2: filepath.Join(out, tag+"-newton-"+solver+".pc2")}
	if solver == "style3d" && sc.Body != "" {
		r.Err = notRun("Style3D takes a garment's rest shape as 2D sewing panels, which the OBJ does not have")
		return r
	}
	timing := filepath.Join(out, tag+"-newton-"+solver+".json")
	args := []string{script, "--cloth", sc.Cloth, "--scale", fmt.Sprint(sc.Scale), "--solver", solver,
		"--device", o.newtonDevice, "--frames", strconv.Itoa(sc.Frames), "--fps", strconv.Itoa(o.fps),
		"--out", r.PC2, "--timing", timing}
	if sc.Sphere > 0 {
		args = append(args, "--sphere", fmt.Sprint(sc.Sphere))
	} else {
		args = append(args, "--body", sc.Body)
	}
	if sc.Self {
		args = append(args, "--self-collision")
	}
	cmd := exec.Command(py, args...)
	cmd.Env = newtonEnv(o.venv)
	r.Wall, r.RSS, r.Err = child(cmd, filepath.Join(out, tag+"-newton-"+solver+".log"))
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

// newtonVersions names the pinned packages as the venv reports them.
func newtonVersions(py string) string {
	b, err := exec.Command(py, "-c", "import importlib.metadata as m; print('newton', m.version('newton') + ', warp-lang', m.version('warp-lang'))").Output()
	if err != nil {
		return "newton (version unknown)"
	}
	return strings.TrimSpace(string(b))
}
