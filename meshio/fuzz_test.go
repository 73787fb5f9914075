package meshio

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/drape-sim/drape/internal/vec"
)

// fuzzSeeds adds every corpus file with one of the endings as a seed.
func fuzzSeeds(f *testing.F, endings ...string) {
	f.Helper()
	for _, pat := range []string{"*/*", "*/*/*", "*/*/*/*"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "corpus", pat))
		for _, p := range files {
			for _, e := range endings {
				if filepath.Ext(p) != e {
					continue
				}
				data, err := os.ReadFile(p)
				if err != nil {
					f.Fatal(err)
				}
				if len(data) <= 64<<10 {
					f.Add(data)
				}
			}
		}
	}
}

// validMesh returns what is wrong with a mesh Read returned without error:
// every index in range, every position finite, Source in range.
func validMesh(m *Mesh) error {
	if m == nil {
		return fmt.Errorf("nil mesh without error")
	}
	if m.NumTriangles() == 0 {
		return fmt.Errorf("mesh without triangles and no error")
	}
	for _, l := range m.LineSegments {
		if !l[0].IsFinite() || !l[1].IsFinite() {
			return fmt.Errorf("loose edge %v not finite", l)
		}
	}
	for _, l := range m.Lines {
		if l[0] < 0 || l[1] < 0 || int(l[0]) >= m.SourceVertices || int(l[1]) >= m.SourceVertices || l[0] == l[1] {
			return fmt.Errorf("loose edge %v out of range (%d vertices) or from a vertex to itself", l, m.SourceVertices)
		}
	}
	for pi, p := range m.Primitives {
		nv := int32(len(p.Positions))
		if len(p.Indices)%3 != 0 {
			return fmt.Errorf("primitive %d: %d indices", pi, len(p.Indices))
		}
		for _, ix := range p.Indices {
			if ix < 0 || ix >= nv {
				return fmt.Errorf("primitive %d: index %d out of range (%d)", pi, ix, nv)
			}
		}
		for i, q := range p.Positions {
			if !q.IsFinite() {
				return fmt.Errorf("primitive %d: vertex %d = %v", pi, i, q)
			}
		}
		if len(p.Source) != len(p.Positions) {
			return fmt.Errorf("primitive %d: %d Source for %d vertices", pi, len(p.Source), nv)
		}
		for _, s := range p.Source {
			if s < 0 || int(s) >= m.SourceVertices {
				return fmt.Errorf("primitive %d: source %d out of range (%d)", pi, s, m.SourceVertices)
			}
		}
		if p.Normals != nil && len(p.Normals) != len(p.Positions) || p.UVs != nil && len(p.UVs) != len(p.Positions) {
			return fmt.Errorf("primitive %d: attribute count differs from %d vertices", pi, nv)
		}
	}
	return nil
}

// validWelded returns what is wrong with a Welded.
func validWelded(m *Mesh, w *Welded) error {
	if len(w.RenderToSim) != m.NumVertices() {
		return fmt.Errorf("RenderToSim has %d entries for %d render vertices", len(w.RenderToSim), m.NumVertices())
	}
	ns := int32(len(w.Positions))
	for r, s := range w.RenderToSim {
		if s < 0 || s >= ns {
			return fmt.Errorf("RenderToSim[%d] = %d out of range (%d)", r, s, ns)
		}
	}
	for i, t := range w.Triangles {
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return fmt.Errorf("triangle %d = %v degenerate", i, t)
		}
		for _, s := range t {
			if s < 0 || s >= ns {
				return fmt.Errorf("triangle %d = %v out of range", i, t)
			}
		}
	}
	if len(w.Triangles)+w.Degenerate != m.NumTriangles() {
		return fmt.Errorf("%d triangles + %d degenerate != %d", len(w.Triangles), w.Degenerate, m.NumTriangles())
	}
	return nil
}

// fuzzRead reads data as the given format and checks the result, welding
// it too.
func fuzzRead(t *testing.T, data []byte, name string, format Format) {
	for _, opt := range []ReadOptions{DefaultReadOptions(), {Up: AxisZ, Scale: 0.1, AllMeshes: true}} {
		m, err := readBytes(data, name, format, nil, opt)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("empty error message")
			}
			continue
		}
		if err := validMesh(m); err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		w, err := Weld(m, DefaultWeldOptions())
		if err != nil {
			continue
		}
		if err := validWelded(m, w); err != nil {
			t.Fatalf("weld %s: %v", name, err)
		}
	}
}

func FuzzReadOBJ(f *testing.F) {
	fuzzSeeds(f, ".obj")
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"))
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\nl 1 2 4 -1\nl 3/1 1\n"))
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 3/1/1 4/1/1\nf 1//9 2/7 \\\n 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, "fuzz.obj", FormatOBJ) })
}

func FuzzReadSTL(f *testing.F) {
	fuzzSeeds(f, ".stl")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, "fuzz.stl", FormatSTL) })
}

func FuzzReadGLB(f *testing.F) {
	fuzzSeeds(f, ".glb", ".gltf")
	for _, path := range []string{writeAnimatedColliders(f, false), writeAnimatedColliders(f, true), writeSkinnedBox(f, f.TempDir())} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, "fuzz.gltf", FormatGLTF) })
}

// FuzzWeld welds meshes built from raw bytes: coordinates on a coarse
// lattice (so that many coincide) and arbitrary triangles.
func FuzzWeld(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 2, 1, 3, 2}, 1e-6)
	f.Add([]byte{5, 5, 5, 5, 5, 5, 5, 5, 5, 0, 1, 2}, 0.0)
	f.Add([]byte{0, 0, 0, 0, 0, 1, 255, 255, 255, 0, 1, 2, 2, 1, 0}, 0.01)
	f.Fuzz(func(t *testing.T, data []byte, tol float64) {
		if len(data) < 9 {
			return
		}
		nv := min(len(data)/6, 200)
		p := Primitive{Material: -1}
		for i := 0; i < nv; i++ {
			b := data[3*i : 3*i+3]
			p.Positions = append(p.Positions, vec.Vec3{X: float64(int8(b[0])) / 7, Y: float64(int8(b[1])) / 7, Z: float64(int8(b[2])) / 7})
			p.Source = append(p.Source, int32(i))
		}
		rest := data[3*nv:]
		for i := 0; i+2 < len(rest); i += 3 {
			p.Indices = append(p.Indices, int32(int(rest[i])%nv), int32(int(rest[i+1])%nv), int32(int(rest[i+2])%nv))
		}
		m := &Mesh{Path: "fuzz", Format: FormatOBJ, Primitives: []Primitive{p, p}, SourceVertices: nv}
		w, err := Weld(m, WeldOptions{Tolerance: tol})
		if err != nil {
			// with tolerance 0 only triangles that are already degenerate drop
			if tol == 0 && len(p.Indices) > 0 && !allDegenerate(m) {
				t.Fatalf("Weld: %v", err)
			}
			return
		}
		if err := validWelded(m, w); err != nil {
			t.Fatal(err)
		}
		// within tolerance, and deterministic
		r := 0
		for _, q := range append(p.Positions, p.Positions...) {
			if d := q.Sub(w.Positions[w.RenderToSim[r]]).Len(); d > w.Tolerance*(1+1e-12) {
				t.Fatalf("render vertex %d is %g from its sim vertex (tolerance %g)", r, d, w.Tolerance)
			}
			r++
		}
		w2, _ := Weld(m, WeldOptions{Tolerance: tol})
		if fmt.Sprint(w2.RenderToSim, w2.Triangles) != fmt.Sprint(w.RenderToSim, w.Triangles) {
			t.Fatalf("Weld is not deterministic")
		}
	})
}

// allDegenerate reports whether every triangle of m has a repeated index
// or zero area before welding (a weld can only make more degenerate).
func allDegenerate(m *Mesh) bool {
	for _, p := range m.Primitives {
		for t := 0; t+2 < len(p.Indices); t += 3 {
			a, b, c := p.Positions[p.Indices[t]], p.Positions[p.Indices[t+1]], p.Positions[p.Indices[t+2]]
			if b.Sub(a).Cross(c.Sub(a)).Len() > 1e-9 {
				return false
			}
		}
	}
	return true
}
