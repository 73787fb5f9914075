// Package testtool runs the real clients drape's output must satisfy, for the
// tests of every package: the Khronos glTF validator and three.js (Node
// scripts in tools/node) and headless Blender (scripts in tools/blender).
//
// A missing tool fails the test with a message saying to run ./test.sh,
// which installs them; nothing here skips. testtool is imported only by
// _test.go files.
package testtool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Timeouts for one run of a client. Blender starts in about two seconds; a
// run that takes minutes is stuck.
const (
	nodeTimeout    = 3 * time.Minute
	blenderTimeout = 5 * time.Minute
)

// blenderMarker starts the one stdout line of a tools/blender script that
// carries its JSON result.
const blenderMarker = "DRAPE_JSON "

// Root returns the module root: the nearest directory at or above the test's
// working directory that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testtool: working directory: %v", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("testtool: no go.mod at or above %s", dir)
		}
	}
}

// Message is one issue the validator found.
type Message struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	Severity int    `json:"severity"` // 0 error, 1 warning, 2 info, 3 hint
	Pointer  string `json:"pointer"`
	Offset   *int   `json:"offset"`
}

func (m Message) String() string {
	sev := [...]string{"error", "warning", "info", "hint"}
	s := "severity " + strconv.Itoa(m.Severity)
	if m.Severity >= 0 && m.Severity < len(sev) {
		s = sev[m.Severity]
	}
	where := m.Pointer
	if m.Offset != nil {
		where = fmt.Sprintf("byte %d", *m.Offset)
	}
	return fmt.Sprintf("%s %s at %s: %s", s, m.Code, where, m.Message)
}

// Report is the part of the validator's report the tests use.
type Report struct {
	ValidatorVersion string `json:"validatorVersion"`
	Issues           struct {
		NumErrors   int       `json:"numErrors"`
		NumWarnings int       `json:"numWarnings"`
		NumInfos    int       `json:"numInfos"`
		NumHints    int       `json:"numHints"`
		Messages    []Message `json:"messages"`
		Truncated   bool      `json:"truncated"`
	} `json:"issues"`
	Info struct {
		Generator          string   `json:"generator"`
		ExtensionsUsed     []string `json:"extensionsUsed"`
		ExtensionsRequired []string `json:"extensionsRequired"`
		AnimationCount     int      `json:"animationCount"`
		MaterialCount      int      `json:"materialCount"`
		HasMorphTargets    bool     `json:"hasMorphTargets"`
		HasTextures        bool     `json:"hasTextures"`
		DrawCallCount      int      `json:"drawCallCount"`
		TotalVertexCount   int      `json:"totalVertexCount"`
		TotalTriangleCount int      `json:"totalTriangleCount"`
		MaxUVs             int      `json:"maxUVs"`
	} `json:"info"`
}

// Validate runs the Khronos glTF validator (npm gltf-validator, through
// tools/node/validate.mjs) on the .gltf or .glb at path and fails t on any
// error or warning, listing every message. Infos and hints are allowed. It
// returns the report for further checks.
func Validate(t testing.TB, path string) *Report {
	t.Helper()
	root := Root(t)
	needNode(t, root, "gltf-validator", "the Khronos glTF validator")
	out := run(t, nodeTimeout, "node", filepath.Join(root, "tools/node/validate.mjs"), path)
	var r Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("testtool: validator output for %s is not JSON: %v\n%s", path, err, clip(out))
	}
	if r.Issues.NumErrors > 0 || r.Issues.NumWarnings > 0 {
		var b strings.Builder
		for _, m := range r.Issues.Messages {
			if m.Severity <= 1 {
				b.WriteString("\n\t" + m.String())
			}
		}
		t.Errorf("glTF validator %s on %s: %d errors, %d warnings, want 0 and 0:%s",
			r.ValidatorVersion, filepath.Base(path), r.Issues.NumErrors, r.Issues.NumWarnings, b.String())
	}
	return &r
}

// ThreeMesh describes one three.js Mesh object (one glTF primitive of one
// node) after loading.
type ThreeMesh struct {
	Node         int    `json:"node"`
	Mesh         int    `json:"mesh"`
	Primitive    int    `json:"primitive"`
	Name         string `json:"name"`
	Vertices     int    `json:"vertices"`
	MorphTargets int    `json:"morphTargets"`
	MorphNormals int    `json:"morphNormals"`
	UV           bool   `json:"uv"`
	Material     int    `json:"material"`
	MaterialName string `json:"materialName"`
	Texture      bool   `json:"texture"`
}

// ThreeFrame holds, for one playback time, the world-space positions of every
// mesh of ThreeResult.Meshes, flat [x0, y0, z0, x1, ...] (glTF axes).
type ThreeFrame struct {
	Time      float64     `json:"time"`
	Positions [][]float64 `json:"positions"`
}

// ThreeResult is what three.js made of a file.
type ThreeResult struct {
	Clips []struct {
		Name     string  `json:"name"`
		Duration float64 `json:"duration"`
		Tracks   int     `json:"tracks"`
	} `json:"clips"`
	Meshes []ThreeMesh  `json:"meshes"`
	Frames []ThreeFrame `json:"frames"`
}

// Three loads the .glb or .gltf at path with three.js's GLTFLoader in Node
// (tools/node/three_playback.mjs), plays every clip with an AnimationMixer
// and returns, for each time [s], every vertex as three.js evaluates it
// (Mesh.getVertexPosition with the mixer's morph influences, then the
// object's world matrix).
func Three(t testing.TB, path string, times ...float64) *ThreeResult {
	t.Helper()
	root := Root(t)
	needNode(t, root, "three", "three.js")
	args := []string{filepath.Join(root, "tools/node/three_playback.mjs"), path}
	for _, x := range times {
		args = append(args, strconv.FormatFloat(x, 'g', -1, 64))
	}
	out := run(t, nodeTimeout, "node", args...)
	var r ThreeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("testtool: three_playback output for %s is not JSON: %v\n%s", path, err, clip(out))
	}
	if len(r.Frames) != len(times) {
		t.Fatalf("testtool: three_playback gave %d frames for %d times", len(r.Frames), len(times))
	}
	return &r
}

// Blender runs `blender -b --factory-startup --python SCRIPT -- ARGS` and
// returns its stdout. script is a path relative to the module root (such as
// "tools/blender/gltf_frames.py") or absolute. A non-zero exit fails t with
// Blender's stderr.
func Blender(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	root := Root(t)
	if _, err := exec.LookPath("blender"); err != nil {
		t.Fatalf("testtool: blender is not installed: run ./test.sh, which installs Blender 3.4 and numpy (apt-get install -y blender python3-numpy)")
	}
	if !filepath.IsAbs(script) {
		script = filepath.Join(root, script)
	}
	a := append([]string{"-b", "--factory-startup", "--python-exit-code", "1", "--python", script, "--"}, args...)
	return run(t, blenderTimeout, "blender", a...)
}

// BlenderJSON runs a tools/blender script like Blender and decodes the JSON
// line it prints (after the "DRAPE_JSON " marker) into v.
func BlenderJSON(t testing.TB, v any, script string, args ...string) {
	t.Helper()
	out := Blender(t, script, args...)
	for _, line := range bytes.Split(out, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte(blenderMarker)); ok {
			if err := json.Unmarshal(rest, v); err != nil {
				t.Fatalf("testtool: %s printed bad JSON: %v", filepath.Base(script), err)
			}
			return
		}
	}
	t.Fatalf("testtool: %s printed no %q line; stdout:\n%s", filepath.Base(script), blenderMarker, clip(out))
}

// BlenderResult is what tools/blender/gltf_frames.py and pc2_frames.py
// print: one BlenderFile per input file, in argument order.
type BlenderResult struct {
	Files []BlenderFile `json:"files"`
}

// BlenderFile is one imported file evaluated at the requested frames.
type BlenderFile struct {
	File    string          `json:"file"`
	FPS     int             `json:"fps"`
	Objects []BlenderObject `json:"objects"`
	Frames  []struct {
		Frame float64 `json:"frame"`
		// Positions holds, per object, world-space positions flat [x0, y0,
		// z0, x1, ...] in Blender's Z-up axes.
		Positions [][]float64 `json:"positions"`
	} `json:"frames"`
}

// BlenderObject describes one imported mesh object.
type BlenderObject struct {
	Name      string `json:"name"`
	Parent    string `json:"parent"`
	Vertices  int    `json:"vertices"`
	Materials []struct {
		Name   string   `json:"name"`
		Images []string `json:"images"`
	} `json:"materials"`
	UVLayers  []string `json:"uv_layers"`
	ShapeKeys int      `json:"shape_keys"`
	Modifiers []string `json:"modifiers"`
}

// needNode fails t unless node and the npm package pkg are installed.
func needNode(t testing.TB, root, pkg, what string) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("testtool: node is not installed, so %s cannot run: install Node.js, then run ./test.sh", what)
	}
	if _, err := os.Stat(filepath.Join(root, "tools/node/node_modules", pkg)); err != nil {
		t.Fatalf("testtool: %s is not installed (tools/node/node_modules/%s missing): run ./test.sh, which runs npm install --prefix tools/node", what, pkg)
	}
}

// run runs name with args and returns stdout, failing t with stderr on a
// non-zero exit or a timeout.
func run(t testing.TB, timeout time.Duration, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w after %v", ctx.Err(), timeout)
		}
		t.Fatalf("testtool: %s %s: %v\nstderr:\n%s", name, strings.Join(args, " "), err, clip(stderr.Bytes()))
	}
	return stdout.Bytes()
}

// clip shortens tool output for a failure message, keeping the end where the
// error usually is.
func clip(b []byte) string {
	const max = 4000
	if len(b) > max {
		return "..." + string(b[len(b)-max:])
	}
	return string(b)
}
