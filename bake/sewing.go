package bake

import (
	"fmt"
	"math"
	"slices"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// selectSeams maps the input's loose edges (OBJ l lines by vertex number,
// glTF line primitives by position) to pairs of simulation vertices to sew
// (scene key sewing), in ascending order, each once; an edge whose ends
// welded into one vertex needs no seam. Without
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
	// the simulation vertex of every vertex of the file
	sim := make([]int32, m.SourceVertices)
	for i := range sim {
		sim[i] = -1
	}
	for i, p := range m.Primitives {
		for r, src := range p.Source {
			sim[src] = w.RenderToSim[int(w.PrimitiveStart[i])+r]
		}
	}
	var seams [][2]int32
	if len(m.LineSegments) > 0 {
		at := vertexAt(w)
		for i, l := range m.LineSegments {
			a, b := at(l[0]), at(l[1])
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

// vertexAt returns a lookup of the welded vertex at a position: the
// closest one within the weld tolerance (at least 1e-6 of the mesh's size
// and 1e-9 m), or -1.
func vertexAt(w *meshio.Welded) func(p vec.Vec3) int32 {
	lo, hi := w.Positions[0], w.Positions[0]
	for _, q := range w.Positions {
		lo, hi = lo.Min(q), hi.Max(q)
	}
	d := hi.Sub(lo)
	tol := max(w.Tolerance, 1e-6*max(d.X, d.Y, d.Z), 1e-9)
	type cell [3]int64
	at := func(p vec.Vec3) cell {
		return cell{int64(math.Floor(p.X / tol)), int64(math.Floor(p.Y / tol)), int64(math.Floor(p.Z / tol))}
	}
	grid := map[cell][]int32{}
	for i, q := range w.Positions {
		c := at(q)
		grid[c] = append(grid[c], int32(i))
	}
	return func(p vec.Vec3) int32 {
		c, best, bestD := at(p), int32(-1), tol*tol
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, v := range grid[cell{c[0] + dx, c[1] + dy, c[2] + dz}] {
						if dd := w.Positions[v].Sub(p).LenSq(); dd <= bestD && (best < 0 || dd < bestD || v < best) {
							best, bestD = v, dd
						}
					}
				}
			}
		}
		return best
	}
}
