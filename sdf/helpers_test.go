package sdf

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// loadOBJ reads the positions and faces (fan-triangulated) of a simple OBJ
// file, scaled by scale. sdf cannot import meshio, so the tests parse the
// few lines they need themselves.
func loadOBJ(t testing.TB, path string, scale float64) ([]vec.Vec3, [][3]int32) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pos []vec.Vec3
	var tris [][3]int32
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "v":
			var c [3]float64
			for i := range c {
				c[i], err = strconv.ParseFloat(fs[1+i], 64)
				if err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
			}
			pos = append(pos, vec.V(c[0], c[1], c[2]).Scale(scale))
		case "f":
			var idx []int32
			for _, s := range fs[1:] {
				n, err := strconv.Atoi(strings.SplitN(s, "/", 2)[0])
				if err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
				idx = append(idx, int32(n-1))
			}
			for i := 1; i+1 < len(idx); i++ {
				tris = append(tris, [3]int32{idx[0], idx[i], idx[i+1]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pos, tris
}

var body struct {
	once sync.Once
	pos  []vec.Vec3
	tris [][3]int32
	m    *Mesh
	err  error
}

// bodyMesh returns the MakeHuman body in metres, built once per test
// binary (NewMesh on 27k triangles takes a few hundred milliseconds).
func bodyMesh(t testing.TB) ([]vec.Vec3, [][3]int32, *Mesh) {
	t.Helper()
	body.once.Do(func() {
		body.pos, body.tris = loadOBJ(t, "testdata/male_generic.obj", 0.1)
		body.m, body.err = NewMesh(body.pos, body.tris)
	})
	if body.err != nil {
		t.Fatal(body.err)
	}
	if body.m == nil {
		t.Fatal("testdata/male_generic.obj did not load")
	}
	return body.pos, body.tris, body.m
}

// cubeMesh returns the 12-triangle box of half extents h, outward wound.
func cubeMesh(h vec.Vec3) ([]vec.Vec3, [][3]int32) {
	var pos []vec.Vec3
	for i := 0; i < 8; i++ {
		p := vec.V(-h.X, -h.Y, -h.Z)
		if i&1 != 0 {
			p.X = h.X
		}
		if i&2 != 0 {
			p.Y = h.Y
		}
		if i&4 != 0 {
			p.Z = h.Z
		}
		pos = append(pos, p)
	}
	quads := [][4]int32{
		{0, 4, 6, 2}, // -x
		{1, 3, 7, 5}, // +x
		{0, 1, 5, 4}, // -y
		{2, 6, 7, 3}, // +y
		{0, 2, 3, 1}, // -z
		{4, 5, 7, 6}, // +z
	}
	var tris [][3]int32
	for _, q := range quads {
		tris = append(tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return pos, tris
}

// icosphere returns a unit sphere mesh: an icosahedron subdivided n times
// with vertices pushed onto the sphere.
func icosphere(n int) ([]vec.Vec3, [][3]int32) {
	g := (1 + math.Sqrt(5)) / 2
	pos := []vec.Vec3{
		{X: -1, Y: g}, {X: 1, Y: g}, {X: -1, Y: -g}, {X: 1, Y: -g},
		{Y: -1, Z: g}, {Y: 1, Z: g}, {Y: -1, Z: -g}, {Y: 1, Z: -g},
		{X: g, Z: -1}, {X: g, Z: 1}, {X: -g, Z: -1}, {X: -g, Z: 1},
	}
	for i := range pos {
		pos[i] = pos[i].Normalize()
	}
	tris := [][3]int32{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}
	for ; n > 0; n-- {
		mid := map[[2]int32]int32{}
		half := func(a, b int32) int32 {
			k := [2]int32{min(a, b), max(a, b)}
			if i, ok := mid[k]; ok {
				return i
			}
			pos = append(pos, pos[a].Add(pos[b]).Normalize())
			mid[k] = int32(len(pos) - 1)
			return mid[k]
		}
		var nt [][3]int32
		for _, t := range tris {
			a, b, c := half(t[0], t[1]), half(t[1], t[2]), half(t[2], t[0])
			nt = append(nt, [3]int32{t[0], a, c}, [3]int32{t[1], b, a}, [3]int32{t[2], c, b}, [3]int32{a, b, c})
		}
		tris = nt
	}
	return pos, tris
}

// bruteDist returns the unsigned distance from p to the triangles.
func bruteDist(p vec.Vec3, pos []vec.Vec3, tris [][3]int32) float64 {
	best := math.Inf(1)
	for _, t := range tris {
		g := triGeom{a: pos[t[0]], ab: pos[t[1]].Sub(pos[t[0]]), ac: pos[t[2]].Sub(pos[t[0]])}
		d2, _, _ := closestOnTri(p, &g)
		best = math.Min(best, d2)
	}
	return math.Sqrt(best)
}

// insideByParity reports whether p is inside the closed mesh by counting
// crossings of a ray in a fixed, irrational direction (Möller-Trumbore),
// independent of the pseudo-normals under test.
func insideByParity(p vec.Vec3, pos []vec.Vec3, tris [][3]int32) bool {
	dir := vec.V(0.5773, 0.6180, 0.5334).Normalize()
	n := 0
	for _, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		e1, e2 := b.Sub(a), c.Sub(a)
		h := dir.Cross(e2)
		det := e1.Dot(h)
		if math.Abs(det) < 1e-18 {
			continue
		}
		s := p.Sub(a)
		u := s.Dot(h) / det
		if u < 0 || u > 1 {
			continue
		}
		q := s.Cross(e1)
		v := dir.Dot(q) / det
		if v < 0 || u+v > 1 {
			continue
		}
		if e2.Dot(q)/det > 0 {
			n++
		}
	}
	return n%2 == 1
}

// randIn returns a uniformly random point in the box [lo, hi].
func randIn(r *rand.Rand, lo, hi vec.Vec3) vec.Vec3 {
	return vec.V(lo.X+r.Float64()*(hi.X-lo.X), lo.Y+r.Float64()*(hi.Y-lo.Y), lo.Z+r.Float64()*(hi.Z-lo.Z))
}

// randDir returns a uniformly random unit vector.
func randDir(r *rand.Rand) vec.Vec3 {
	for {
		v := vec.V(2*r.Float64()-1, 2*r.Float64()-1, 2*r.Float64()-1)
		if l := v.LenSq(); l > 1e-4 && l <= 1 {
			return v.Normalize()
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5df)) }

func fmtV(v vec.Vec3) string { return fmt.Sprintf("(%.6g, %.6g, %.6g)", v.X, v.Y, v.Z) }
