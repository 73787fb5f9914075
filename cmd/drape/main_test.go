package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// drapeBin is the drape binary built once for the tests that run it as a
// user would (signals, exit codes, real stdout and stderr).
var drapeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "drape-cmd-test")
	if err != nil {
		panic(err)
	}
	drapeBin = filepath.Join(dir, "drape")
	if runtime.GOOS == "windows" {
		drapeBin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", drapeBin, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic("go build ./cmd/drape failed: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runIn runs drape in-process and returns its exit code, stdout and stderr.
func runIn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"drape"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// runBin runs the built binary in dir.
func runBin(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(drapeBin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run drape %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// writeGrid writes an OBJ grid of n x n vertices, size metres wide, lying
// in the XZ plane at height y.
func writeGrid(t *testing.T, path string, n int, size, y float64) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x := -size/2 + size*float64(j)/float64(n-1)
			z := -size/2 + size*float64(i)/float64(n-1)
			b.WriteString("v " + ftoa(x) + " " + ftoa(y) + " " + ftoa(z) + "\n")
		}
	}
	for i := 0; i+1 < n; i++ {
		for j := 0; j+1 < n; j++ {
			a := i*n + j + 1
			b.WriteString("f " + itoa(a) + " " + itoa(a+n) + " " + itoa(a+n+1) + " " + itoa(a+1) + "\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
