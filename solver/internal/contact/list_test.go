package contact

import (
	"slices"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// TestNeighbourListComplete checks the neighbour list's promise while a 24
// x 24 cloth collapses into a heap: after every frame, every vertex-triangle
// and edge-edge pair closer than h + margin whose four vertices are within
// their allowances, and whose triangles are in no culled (flat) patch
// together, must be listed, however the list was last updated (full
// rebuilds, partial ones, and partial ones that dropped the culls of
// turned triangles, all of which must have happened). Pairs are found by brute force.
func TestNeighbourListComplete(t *testing.T) {
	tc := verticalDrop(t, 24, 2)
	tris, w := tc.mesh.Tris, tc.mesh.InvMass
	r := (1 + margin) * tc.h * 0.999
	checked := 0
	self := tc.c
	for k := range 40 {
		tc.frame(true)
		s := tc
		tt := self.tree
		// which vertices are within their allowances (around the mean of
		// the free vertices, as update measures them)
		var mean vec.Vec3
		nf := 0
		for v, q := range s.pos {
			if w[v] != 0 {
				mean, nf = mean.Add(q), nf+1
			}
		}
		mean = mean.Scale(1 / float64(nf))
		in := make([]bool, len(s.pos))
		for v, q := range s.pos {
			in[v] = q.Sub(mean).Sub(self.ref[v]).Len() <= self.skin[v]
		}
		vt := map[[2]int32]bool{}
		for _, q := range self.vt {
			vt[[2]int32{q.v, q.t}] = true
		}
		ee := map[[2]int32]bool{}
		for _, q := range self.ee {
			ee[[2]int32{q.e0, q.e1}] = true
		}
		for ti, tr := range tris {
			if !in[tr[0]] || !in[tr[1]] || !in[tr[2]] {
				continue
			}
			a, b, c := s.pos[tr[0]], s.pos[tr[1]], s.pos[tr[2]]
			for v, q := range s.pos {
				if !in[v] || int32(v) == tr[0] || int32(v) == tr[1] || int32(v) == tr[2] {
					continue
				}
				if PointTriangleDist(q, a, b, c) < r && !culled(tt, tris, tt.vOwn[v], int32(ti)) {
					checked++
					if !vt[[2]int32{int32(v), int32(ti)}] {
						t.Fatalf("frame %d: vertex %d is %.3f mm from triangle %d but not listed (%d full, %d partial rebuilds)",
							k, v, 1e3*PointTriangleDist(q, a, b, c), ti, self.stats.Rebuilds, self.stats.Partial)
					}
				}
			}
		}
		edges := self.edges
		for i, e := range edges {
			for j := i + 1; j < len(edges); j++ {
				f := edges[j]
				if e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1] ||
					!in[e[0]] || !in[e[1]] || !in[f[0]] || !in[f[1]] {
					continue
				}
				if d := SegmentDist(s.pos[e[0]], s.pos[e[1]], s.pos[f[0]], s.pos[f[1]]); d < r && !culled(tt, tris, tt.eOwn[i], tt.eOwn[j]) {
					checked++
					if !ee[[2]int32{int32(i), int32(j)}] {
						t.Fatalf("frame %d: edges %d and %d are %.3f mm apart but not listed (%d full, %d partial rebuilds)",
							k, i, j, 1e3*d, self.stats.Rebuilds, self.stats.Partial)
					}
				}
			}
		}
	}
	if self.stats.Rebuilds < 2 || self.stats.Partial < 10 || self.stats.Uncut < 10 || checked < 1000 {
		t.Fatalf("%d full and %d partial rebuilds (%d dropping culls), %d close pairs checked: the scene does not test the list", self.stats.Rebuilds, self.stats.Partial, self.stats.Uncut, checked)
	}
	t.Logf("%d close pairs listed over 40 frames; %d full and %d partial rebuilds (%d dropping culls)", checked, self.stats.Rebuilds, self.stats.Partial, self.stats.Uncut)
}

// culled reports whether triangles a and b lie in a flat node or a flat
// fan together, whose own pairs the traversal skips.
func culled(tt *triTree, tris [][3]int32, a, b int32) bool {
	for _, u := range tris[a] {
		if tt.ringFlat[u] && slices.Contains(tris[b][:], u) {
			return true
		}
	}
	la, lb := tt.leaf[a], tt.leaf[b]
	for id := tt.parent[la]; id >= 0; id = tt.parent[id] {
		if n := tt.nodes[id]; id <= lb && lb < id+2*n.size-1 && tt.flat(id) {
			return true
		}
	}
	return false
}
