// Command gridgen writes the generated cloth meshes of the examples (the
// tablecloth, curtain, cape, sheet and blanket grids), the cape scene, whose
// walking-leg keyframes are computed here, and the knee example's leg and
// its point cache. Run it from the module root:
//
//	go run ./examples/gridgen
//
// The output is deterministic, so rerunning it changes no file.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// grid is a rectangular sheet of nu x nv vertices spanning origin + s·U + t·V
// for s, t in [0, 1]; Offset, if set, displaces each vertex (s, t).
type grid struct {
	Name   string
	Origin vec.Vec3
	U, V   vec.Vec3
	NU, NV int
	Offset func(s, t float64) vec.Vec3
	Header string
}

func main() {
	dir := "examples"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	grids := []grid{
		{
			// 1.6 m square, 30 cm above the table top (table top at y = 0.005).
			Name: "tablecloth/tablecloth.obj", Origin: vec.V(-0.8, 0.3, -0.8),
			U: vec.V(1.6, 0, 0), V: vec.V(0, 0, 1.6), NU: 64, NV: 64,
			Header: "1.6 m square tablecloth, 64 x 64 vertices, 30 cm above the table top",
		},
		{
			// 1.2 m wide, 1.6 m tall, hanging from a rod at y = 2.
			Name: "curtain/curtain.obj", Origin: vec.V(-0.6, 2.0, 0),
			U: vec.V(1.2, 0, 0), V: vec.V(0, -1.6, 0), NU: 40, NV: 54,
			Offset: func(s, t float64) vec.Vec3 {
				// gathered pleats along the rod, 2 cm deep
				return vec.V(0, 0, 0.02*math.Sin(2*math.Pi*6*s))
			},
			Header: "1.2 m x 1.6 m curtain, 40 x 54 vertices, top row on the rod at y = 2 m, 2 cm pleats",
		},
		{
			// 0.6 m wide, 0.9 m long, behind the shoulders.
			Name: "cape/cape.obj", Origin: vec.V(-0.3, 1.46, -0.2),
			U: vec.V(0.6, 0, 0), V: vec.V(0, -0.9, 0), NU: 24, NV: 36,
			Header: "0.6 m x 0.9 m cape, 24 x 36 vertices, top row at the shoulders (y = 1.46 m)",
		},
		{
			// 1.4 m square held upright just above the floor, with folds so it
			// collapses into a heap instead of balancing on its edge.
			Name: "sheet/sheet.obj", Origin: vec.V(-0.7, 0.05, 0),
			U: vec.V(1.4, 0, 0), V: vec.V(0, 1.4, 0), NU: 56, NV: 56,
			Offset: func(s, t float64) vec.Vec3 {
				return vec.V(0, 0, 0.04*math.Sin(2*math.Pi*4*t)+0.02*math.Sin(2*math.Pi*1.5*s))
			},
			Header: "1.4 m square sheet, 56 x 56 vertices, upright 5 cm above the floor with 4 cm folds",
		},
		{
			// 1.2 m x 0.8 m, 20 cm above the floor, over the leg lying
			// along X.
			Name: "knee/blanket.obj", Origin: vec.V(-0.6, 0.2, -0.4),
			U: vec.V(1.2, 0, 0), V: vec.V(0, 0, 0.8), NU: 48, NV: 32,
			Header: "1.2 m x 0.8 m blanket, 48 x 32 vertices, 20 cm above the floor",
		},
	}
	for _, g := range grids {
		if err := writeGrid(filepath.Join(dir, g.Name), g); err != nil {
			fmt.Fprintln(os.Stderr, "gridgen:", err)
			os.Exit(1)
		}
	}
	if err := writeCapeScene(filepath.Join(dir, "cape/scene.json")); err != nil {
		fmt.Fprintln(os.Stderr, "gridgen:", err)
		os.Exit(1)
	}
	if err := writeLeg(filepath.Join(dir, "knee/leg.obj"), filepath.Join(dir, "knee/leg.pc2")); err != nil {
		fmt.Fprintln(os.Stderr, "gridgen:", err)
		os.Exit(1)
	}
	if err := writeCushions(filepath.Join(dir, "cushions/cushions.obj")); err != nil {
		fmt.Fprintln(os.Stderr, "gridgen:", err)
		os.Exit(1)
	}
}

// The cushions example: two closed cushions lying on the floor (rounded
// boxes, |x/a|⁴ + |y/b|⁴ + |z/c|⁴ = 1 with half-sizes cushionHalf, each a
// cube of cushionN x cushionN vertices a face pushed out onto that
// surface), material "cushion", and a throw above them, material "throw".
const cushionN = 14

var cushionHalf = vec.V(0.22, 0.07, 0.22)

// cushion appends the vertices and outward triangles of a cushion centred
// at c. Vertices on the cube's edges repeat with identical coordinates
// (the bake welds them).
func cushion(pos []vec.Vec3, tris [][3]int, c vec.Vec3) ([]vec.Vec3, [][3]int) {
	for k := range 3 {
		for _, sg := range []float64{1, -1} {
			// face k·sg: u and v along the other two axes with u × v along
			// it, so the triangles (a, b, c), (a, c, d) face out
			i, j := (k+1)%3, (k+2)%3
			if sg < 0 {
				i, j = j, i
			}
			base := len(pos)
			for b := range cushionN {
				for a := range cushionN {
					var q [3]float64
					q[k] = sg
					q[i] = -1 + 2*float64(a)/(cushionN-1)
					q[j] = -1 + 2*float64(b)/(cushionN-1)
					d := vec.V(q[0], q[1], q[2])
					e := vec.V(d.X/cushionHalf.X, d.Y/cushionHalf.Y, d.Z/cushionHalf.Z)
					t := math.Pow(math.Pow(e.X, 4)+math.Pow(e.Y, 4)+math.Pow(e.Z, 4), -0.25)
					pos = append(pos, c.Add(d.Scale(t)))
				}
			}
			id := func(a, b int) int { return base + b*cushionN + a }
			for b := 0; b+1 < cushionN; b++ {
				for a := 0; a+1 < cushionN; a++ {
					p, q, r, s := id(a, b), id(a+1, b), id(a+1, b+1), id(a, b+1)
					tris = append(tris, [3]int{p, q, r}, [3]int{p, r, s})
				}
			}
		}
	}
	return pos, tris
}

// writeCushions writes the two cushions and the throw as one OBJ.
func writeCushions(path string) error {
	var pos []vec.Vec3
	var tris [][3]int
	for _, x := range []float64{-0.24, 0.24} {
		pos, tris = cushion(pos, tris, vec.V(x, 0.08, 0))
	}
	nc := len(tris)
	// the throw: 0.8 m square, 32 x 32, 30 cm above the floor, over the
	// right cushion and turned by 25 degrees about Y, diagonals alternating
	const n = 32
	base := len(pos)
	sn, cs := math.Sincos(25 * math.Pi / 180)
	for j := range n {
		for i := range n {
			u, v := -0.4+0.8*float64(i)/(n-1), -0.4+0.8*float64(j)/(n-1)
			pos = append(pos, vec.V(0.3+cs*u-sn*v, 0.3, 0.05+sn*u+cs*v))
		}
	}
	id := func(i, j int) int { return base + j*n + i }
	for j := 0; j+1 < n; j++ {
		for i := 0; i+1 < n; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			if (i+j)%2 == 0 {
				tris = append(tris, [3]int{a, d, c}, [3]int{a, c, b})
			} else {
				tris = append(tris, [3]int{a, d, b}, [3]int{b, d, c})
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("# two closed cushions (0.44 x 0.14 x 0.44 m) on the floor and a 0.8 m throw 30 cm up\n")
	b.WriteString("# generated by examples/gridgen (go run ./examples/gridgen); CC0-1.0\n")
	for _, p := range pos {
		fmt.Fprintf(&b, "v %.6f %.6f %.6f\n", p.X, p.Y, p.Z)
	}
	for k, t := range tris {
		switch k {
		case 0:
			b.WriteString("usemtl cushion\n")
		case nc:
			b.WriteString("usemtl throw\n")
		}
		fmt.Fprintf(&b, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// The knee example's leg lies along X on the floor: a tube of radius
// legRadius from x = -legHalf to legHalf with its axis at y = legRadius,
// hip at x = -0.5, knee at 0, ankle at 0.5. Over its point cache the knee
// rises: the thigh turns about the hip by θ(t), the shin follows the knee
// turned by -θ (the foot slides along the floor), and within kneeBlend of
// the knee the two blend linearly, as skinning bends a knee.
const (
	legRadius = 0.07
	legHalf   = 0.55
	legRings  = 45
	legSides  = 16
	kneeBlend = 0.1
	kneeMax   = 30 * math.Pi / 180
	legFrames = 96 // the scene's frames at 24 fps
)

// kneeAngle is θ at time t [s]: still for 0.25 s, then rising smoothly to
// kneeMax over 2 s.
func kneeAngle(t float64) float64 {
	u := math.Min(1, math.Max(0, (t-0.25)/2))
	return kneeMax * u * u * (3 - 2*u)
}

// legRest returns the leg's vertices at rest (rings, then the two cap
// centres) and its outward triangles.
func legRest() ([]vec.Vec3, [][3]int) {
	var pos []vec.Vec3
	for i := range legRings {
		x := -legHalf + 2*legHalf*float64(i)/float64(legRings-1)
		for j := range legSides {
			a := 2 * math.Pi * float64(j) / legSides
			pos = append(pos, vec.V(x, legRadius+legRadius*math.Cos(a), legRadius*math.Sin(a)))
		}
	}
	c0, c1 := len(pos), len(pos)+1
	pos = append(pos, vec.V(-legHalf, legRadius, 0), vec.V(legHalf, legRadius, 0))
	id := func(i, j int) int { return i*legSides + (j+legSides)%legSides }
	var tris [][3]int
	for i := range legRings - 1 {
		for j := range legSides {
			a, b, c, d := id(i, j), id(i, j+1), id(i+1, j+1), id(i+1, j)
			tris = append(tris, [3]int{a, b, c}, [3]int{a, c, d})
		}
	}
	for j := range legSides {
		tris = append(tris, [3]int{c0, id(0, j+1), id(0, j)}, [3]int{c1, id(legRings-1, j), id(legRings-1, j+1)})
	}
	return pos, tris
}

// legAt bends the rest vertices to the knee angle th.
func legAt(rest []vec.Vec3, th float64) []vec.Vec3 {
	hip, knee := vec.V(-0.5, legRadius, 0), vec.V(0, legRadius, 0)
	rot := func(p, c vec.Vec3, a float64) vec.Vec3 {
		s, co := math.Sincos(a)
		d := p.Sub(c)
		return c.Add(vec.V(co*d.X-s*d.Y, s*d.X+co*d.Y, d.Z))
	}
	kneeUp := rot(knee, hip, th)
	out := make([]vec.Vec3, len(rest))
	for i, p := range rest {
		thigh := rot(p, hip, th)
		shin := kneeUp.Add(rot(p, knee, -th).Sub(knee))
		w := math.Min(1, math.Max(0, (p.X+kneeBlend)/(2*kneeBlend)))
		out[i] = thigh.Lerp(shin, w)
	}
	return out
}

// writeLeg writes the leg mesh and its point cache (one sample per frame).
func writeLeg(objPath, pc2Path string) error {
	rest, tris := legRest()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# a leg lying along X, radius %g m, knee at x = 0; bent by leg.pc2\n", legRadius)
	b.WriteString("# generated by examples/gridgen (go run ./examples/gridgen); CC0-1.0\n")
	for _, p := range rest {
		fmt.Fprintf(&b, "v %.6f %.6f %.6f\n", p.X, p.Y, p.Z)
	}
	for _, t := range tris {
		fmt.Fprintf(&b, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	if err := os.WriteFile(objPath, b.Bytes(), 0o644); err != nil {
		return err
	}
	var frames [][]vec.Vec3
	for k := range legFrames {
		frames = append(frames, legAt(rest, kneeAngle(float64(k)/24)))
	}
	var pc bytes.Buffer
	if err := meshio.WritePC2(&pc, frames, 0, 1); err != nil {
		return err
	}
	return os.WriteFile(pc2Path, pc.Bytes(), 0o644)
}

// writeGrid writes g as an OBJ with triangles whose diagonals alternate in a
// checkerboard, so the sheet has no preferred shear direction.
func writeGrid(path string, g grid) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# %s\n# generated by examples/gridgen (go run ./examples/gridgen); CC0-1.0\n", g.Header)
	for j := 0; j < g.NV; j++ {
		for i := 0; i < g.NU; i++ {
			s, t := float64(i)/float64(g.NU-1), float64(j)/float64(g.NV-1)
			p := g.Origin.Add(g.U.Scale(s)).Add(g.V.Scale(t))
			if g.Offset != nil {
				p = p.Add(g.Offset(s, t))
			}
			fmt.Fprintf(w, "v %.6f %.6f %.6f\n", p.X, p.Y, p.Z)
		}
	}
	id := func(i, j int) int { return j*g.NU + i + 1 }
	for j := 0; j+1 < g.NV; j++ {
		for i := 0; i+1 < g.NU; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			if (i+j)%2 == 0 {
				fmt.Fprintf(w, "f %d %d %d\nf %d %d %d\n", a, b, c, a, c, d)
			} else {
				fmt.Fprintf(w, "f %d %d %d\nf %d %d %d\n", a, b, d, b, c, d)
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The cape scene's character walks along +Z at walkSpeed; its legs swing
// about the hips with amplitude swing [rad] at one stride per stridePeriod.
const (
	walkSpeed    = 0.8
	swing        = 0.45
	stridePeriod = 1.0
	walkTime     = 4.0
	keyStep      = 0.125
)

type key struct {
	Time        float64     `json:"time"`
	Translation [3]float64  `json:"translation"`
	Rotation    *[4]float64 `json:"rotation,omitempty"`
}

type collider struct {
	Type   string     `json:"type"`
	Name   string     `json:"name"`
	A      [3]float64 `json:"a"`
	B      [3]float64 `json:"b"`
	Radius float64    `json:"radius"`
	Keys   []key      `json:"keys"`
}

type pin struct {
	Box  []float64 `json:"box"`
	Keys []key     `json:"keys"`
}

type capeScene struct {
	Input         string     `json:"input"`
	Output        []string   `json:"output"`
	Frames        int        `json:"frames"`
	FPS           float64    `json:"fps"`
	Fabric        any        `json:"fabric"`
	SelfCollision bool       `json:"self_collision"`
	Pins          []pin      `json:"pins"`
	Colliders     []collider `json:"colliders"`
}

func r3(v vec.Vec3) [3]float64 {
	q := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	return [3]float64{q(v.X), q(v.Y), q(v.Z)}
}

// walkKeys returns the keys of a rigid part that walks along +Z and, if
// phase is not nil, swings about pivot around the X axis by
// swing·sin(2π t/stridePeriod + phase).
func walkKeys(pivot vec.Vec3, phase *float64) []key {
	var out []key
	for t := 0.0; t <= walkTime+1e-9; t += keyStep {
		// accelerate uniformly over the first half second so the cape
		// starts at rest: z = v t² for t < 0.5, v (t - 0.25) after
		ramp := math.Min(1, t/0.5)
		z := walkSpeed * (t - 0.25)
		if t < 0.5 {
			z = walkSpeed * t * t
		}
		walk := vec.V(0, 0, z)
		k := key{Time: math.Round(t*1e6) / 1e6, Translation: r3(walk)}
		if phase != nil {
			th := ramp * swing * math.Sin(2*math.Pi*t/stridePeriod+*phase)
			q := vec.Quat{X: math.Sin(th / 2), W: math.Cos(th / 2)}
			// rotate about pivot: x' = walk + pivot + R(x - pivot)
			k.Translation = r3(walk.Add(pivot).Sub(q.Rotate(pivot)))
			rot := [4]float64{math.Round(q.X*1e6) / 1e6, 0, 0, math.Round(q.W*1e6) / 1e6}
			k.Rotation = &rot
		}
		out = append(out, k)
	}
	return out
}

func writeCapeScene(path string) error {
	left, right := 0.0, math.Pi
	hipL, hipR := vec.V(0.1, 0.92, 0), vec.V(-0.1, 0.92, 0)
	sc := capeScene{
		Input:  "cape.obj",
		Output: []string{"cape_baked.glb"},
		Frames: 96, FPS: 24,
		Fabric:        map[string]string{"preset": "wool"},
		SelfCollision: true,
		Pins: []pin{{
			// the top row, at the shoulders, moves with the torso
			Box:  []float64{-0.31, 1.45, -0.21, 0.31, 1.47, -0.19},
			Keys: walkKeys(vec.Vec3{}, nil),
		}},
		Colliders: []collider{
			{Type: "capsule", Name: "torso", A: [3]float64{0, 0.95, 0}, B: [3]float64{0, 1.32, 0}, Radius: 0.17, Keys: walkKeys(vec.Vec3{}, nil)},
			{Type: "capsule", Name: "shoulders", A: [3]float64{-0.2, 1.38, 0}, B: [3]float64{0.2, 1.38, 0}, Radius: 0.08, Keys: walkKeys(vec.Vec3{}, nil)},
			{Type: "capsule", Name: "left leg", A: r3(hipL), B: [3]float64{0.1, 0.1, 0}, Radius: 0.08, Keys: walkKeys(hipL, &left)},
			{Type: "capsule", Name: "right leg", A: r3(hipR), B: [3]float64{-0.1, 0.1, 0}, Radius: 0.08, Keys: walkKeys(hipR, &right)},
		},
	}
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(compact(b), '\n'), 0o644)
}

var (
	numArray = regexp.MustCompile(`\[[-0-9.e,\s]*\]`)
	flatObj  = regexp.MustCompile(`\{[^{}\[\]]*(\[[^\[\]\n]*\][^{}\[\]]*)*\}`)
	space    = regexp.MustCompile(`\s*\n\s*`)
)

// compact puts every number array and every object holding only numbers
// and number arrays (the keyframes) on one line.
func compact(b []byte) []byte {
	one := func(m []byte) []byte {
		m = space.ReplaceAll(m, []byte(" "))
		m = bytes.ReplaceAll(m, []byte("[ "), []byte("["))
		m = bytes.ReplaceAll(m, []byte(" ]"), []byte("]"))
		return m
	}
	b = numArray.ReplaceAllFunc(b, one)
	return flatObj.ReplaceAllFunc(b, one)
}
