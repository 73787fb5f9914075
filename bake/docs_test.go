package bake

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestSceneDocExamplesParse keeps docs/scene.md honest: every JSON example
// in it is a valid scene, or a valid fragment of one.
func TestSceneDocExamplesParse(t *testing.T) {
	doc, err := os.ReadFile("../docs/scene.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 10 {
		t.Fatalf("docs/scene.md has %d JSON examples, want at least 10", len(blocks))
	}
	for i, b := range blocks {
		js := strings.TrimSpace(b[1])
		switch {
		case strings.HasPrefix(js, `{"type"`):
			js = `{"input": "x.obj", "colliders": [` + js + `]}`
		case strings.HasPrefix(js, `"`):
			js = `{"input": "x.obj", ` + js + `}`
		}
		if _, err := ParseScene([]byte(js), "docs/example.json"); err != nil {
			t.Errorf("docs/scene.md example %d does not parse: %v\n%s", i+1, err, b[1])
		}
	}
}
