package bake

import (
	"fmt"
	"slices"

	"github.com/drape-sim/drape/meshio"
)

// selectSeams maps the input's loose edges (OBJ l lines by vertex number,
// glTF line primitives by position) to pairs of simulation vertices to sew
// (scene key sewing), in ascending order, each once; an edge whose ends
// welded into one vertex needs no seam. Ends given by position are those
// Weld found within its tolerance (Welded.LineEnds). Without
// sewing it returns none, with a note when the input has loose edges; with
// sewing and no loose edge, or a loose edge at a vertex no face uses, it
// returns an error naming the file and the fix.
func selectSeams(sc *Scene, m *meshio.Mesh, w *meshio.Welded) ([][2]int32, string, error) {
	input := sc.Resolve(sc.Input)
	loose := len(m.Lines) + len(m.LineSegments)
	if sc.Sewing == 0 {
		if loose > 0 {
			return nil, fmt.Sprintf("%s: %d loose edges (OBJ l lines, glTF line primitives) are not sewn; set sewing (the scene key, or --sewing V, a speed in m/s) to sew them", input, loose), nil
		}
		return nil, "", nil
	}
	if loose == 0 {
		return nil, "", badInputf("%s: sewing = %g but the input has no loose edges to sew: draw each seam as an edge between the panels (OBJ l lines; Blender: loose edges)", input, sc.Sewing)
	}
	sim := sourceToSim(m, w)
	var seams [][2]int32
	for i, l := range m.LineSegments {
		a, b := w.LineEnds[i][0], w.LineEnds[i][1]
		if a < 0 || b < 0 {
			p := l[0]
			if a >= 0 {
				p = l[1]
			}
			return nil, "", badInputf("%s: loose edge %d (a glTF line primitive) ends at %s, where the cloth has no vertex: a seam must join vertices of the cloth's triangles", input, i, fmt3(p))
		}
		if a != b {
			seams = append(seams, [2]int32{min(a, b), max(a, b)})
		}
	}
	for _, l := range m.Lines {
		a, b := sim[l[0]], sim[l[1]]
		if a < 0 || b < 0 {
			v := l[0]
			if a >= 0 {
				v = l[1]
			}
			return nil, "", badInputf("%s: loose edge %d-%d (OBJ vertex numbers): vertex %d is in no face, so a seam cannot join it; connect seams to the panels' vertices", input, l[0]+1, l[1]+1, v+1)
		}
		if a == b {
			continue
		}
		seams = append(seams, [2]int32{min(a, b), max(a, b)})
	}
	slices.SortFunc(seams, func(x, y [2]int32) int {
		if x[0] != y[0] {
			return int(x[0] - y[0])
		}
		return int(x[1] - y[1])
	})
	return slices.Compact(seams), "", nil
}
