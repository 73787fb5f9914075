package contact

import (
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

func TestIntersections(t *testing.T) {
	// Two triangles: one in the z=0 plane, one vertical crossing it.
	flat := []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0)}
	cases := []struct {
		name  string
		other []vec.Vec3
		want  int
	}{
		{"piercing", []vec.Vec3{vec.V(0.2, 0.2, -0.5), vec.V(0.2, 0.2, 0.5), vec.V(0.3, 0.25, 0.5)}, 1},
		{"above", []vec.Vec3{vec.V(0.2, 0.2, 0.1), vec.V(0.2, 0.2, 0.5), vec.V(0.3, 0.25, 0.5)}, 0},
		{"parallel close", []vec.Vec3{vec.V(0, 0, 1e-4), vec.V(1, 0, 1e-4), vec.V(0, 1, 1e-4)}, 0},
		{"beside", []vec.Vec3{vec.V(2, 2, -0.5), vec.V(2, 2, 0.5), vec.V(2.1, 2, 0.5)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pos := append(append([]vec.Vec3{}, flat...), c.other...)
			got := Intersections(pos, [][3]int32{{0, 1, 2}, {3, 4, 5}})
			if got != c.want {
				t.Errorf("SelfIntersections = %d, want %d", got, c.want)
			}
		})
	}
	// Adjacent triangles (sharing a vertex) are never counted, even when
	// folded through each other.
	pos := []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0), vec.V(0.3, 0.3, -1), vec.V(0.3, 0.3, 1)}
	if got := Intersections(pos, [][3]int32{{0, 1, 2}, {0, 3, 4}}); got != 0 {
		t.Errorf("adjacent pair counted: %d, want 0", got)
	}
}
