package meshio

import (
	"strings"
	"testing"
)

// Messages for damaged OBJ files name the right line and the cause.
func TestOBJDamageMessages(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"huge index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 1000000000000\n", []string{"line 4", "1000000000000 is out of range"}},
		{"huge line index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nl 1 99999999999\n", []string{"line 5", "out of range"}},
		{"long first line", "v " + strings.Repeat("1", maxOBJLine+10) + "\n", []string{"line 1:", "longer than"}},
		{"long third line", "v 0 0 0\n# ok\nf " + strings.Repeat("1 ", maxOBJLine) + "\n", []string{"line 3:", "longer than"}},
	} {
		_, err := readBytes([]byte(c.text), "bad.obj", FormatOBJ, nil, DefaultReadOptions())
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}
