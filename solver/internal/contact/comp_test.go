package contact

import "testing"

// TestSplitComponents drapes a 48 x 48 cloth over a sphere until it folds
// and checks every split of the list into components: each listed pair is
// in exactly one group, in ascending order; a group's vertices
// (startGroup) are exactly those of its pairs; and no vertex is in two
// groups, so the groups' rounds cannot touch each other's vertices.
func TestSplitComponents(t *testing.T) {
	tc := sphereDrape(t, 48, 2)
	sc := tc.c
	checked := 0
	for k := range 36 {
		tc.frame(true)
		if !sc.split() {
			continue
		}
		checked++
		n := len(sc.vt) + len(sc.ee)
		pairSeen := make([]int, n)
		vertGroup := make(map[int32]int)
		for gi := range sc.comps.groups {
			g := &sc.comps.groups[gi]
			sc.startGroup(g)
			own := make(map[int32]bool)
			for _, v := range g.verts {
				if h, ok := vertGroup[v]; ok {
					t.Fatalf("frame %d: vertex %d in groups %d and %d", k, v, h, gi)
				}
				vertGroup[v] = gi
				own[v] = true
			}
			used := make(map[int32]bool)
			for i, q := range g.pairs {
				if i > 0 && q <= g.pairs[i-1] {
					t.Fatalf("frame %d: group %d's pairs not ascending at %d", k, gi, i)
				}
				pairSeen[q]++
				for _, v := range sc.pv[q] {
					if !own[v] {
						t.Fatalf("frame %d: pair %d's vertex %d is not in its group %d", k, q, v, gi)
					}
					used[v] = true
				}
			}
			if len(used) != len(own) {
				t.Fatalf("frame %d: group %d lists %d vertices, its pairs use %d", k, gi, len(own), len(used))
			}
		}
		for q, c := range pairSeen {
			if c != 1 {
				t.Fatalf("frame %d: pair %d is in %d groups", k, q, c)
			}
		}
	}
	if checked == 0 {
		t.Fatal("the list never split into components: the test checks nothing")
	}
	t.Logf("%d splits checked; %d substeps ran component by component", checked, sc.stats.Split)
}
