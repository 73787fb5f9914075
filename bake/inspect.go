package bake

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/solver"
)

// InspectReport describes a mesh file as drape sees it: what was read, what
// welding made of it, and its topology. It is what `drape inspect` prints.
type InspectReport struct {
	// File is the path as given.
	File string `json:"file"`
	// Format is the file format: gltf, glb, obj or stl.
	Format string `json:"format"`
	// Meshes are the names of the meshes read (every mesh of the file).
	Meshes []string `json:"meshes"`
	// Primitives is the number of render primitives (glTF primitive
	// instances, OBJ material groups).
	Primitives int `json:"primitives"`
	// LooseEdges counts the file's loose edges (OBJ l lines, glTF line
	// primitives of the cloth), which a
	// bake sews with the scene key sewing.
	LooseEdges int `json:"loose_edges,omitempty"`
	// Materials are the names of the file's materials (glTF materials,
	// OBJ usemtl names), which scene regions select by.
	Materials []string `json:"materials,omitempty"`
	// SourceVertices is the number of vertices as the file numbers them
	// (OBJ v lines, STL facet corners, glTF render vertices).
	SourceVertices int `json:"source_vertices"`
	// RenderVertices is the number of render vertices (split at UV seams
	// and hard normals).
	RenderVertices int `json:"render_vertices"`
	// WeldedVertices is the number of simulation vertices after welding.
	WeldedVertices int `json:"welded_vertices"`
	// Triangles is the number of triangles kept after welding.
	Triangles int `json:"triangles"`
	// Edges is the number of unique edges.
	Edges int `json:"edges"`
	// BoundaryEdges counts edges with one triangle; 0 means closed.
	BoundaryEdges int `json:"boundary_edges"`
	// NonManifoldEdges counts edges with more than two triangles.
	NonManifoldEdges int `json:"non_manifold_edges"`
	// DegenerateDropped counts triangles dropped by welding (corners welded
	// together or zero area).
	DegenerateDropped int `json:"degenerate_dropped"`
	// WeldTolerance is the absolute weld distance used [m].
	WeldTolerance float64 `json:"weld_tolerance"`
	// Pieces is the number of connected pieces.
	Pieces int `json:"pieces"`
	// PieceStats describes each piece, in piece order.
	PieceStats []PieceStats `json:"piece_stats"`
	// BBoxMin and BBoxMax are the corners of the bounding box [m].
	BBoxMin [3]float64 `json:"bbox_min"`
	BBoxMax [3]float64 `json:"bbox_max"`
	// Extent is BBoxMax - BBoxMin [m].
	Extent [3]float64 `json:"extent"`
	// SurfaceArea is the total area of the welded triangles [m²].
	SurfaceArea float64 `json:"surface_area"`
	// Colliders are the glTF nodes marked as colliders (docs/scene.md),
	// which a bake of the file uses as colliders rather than as cloth.
	Colliders []InspectCollider `json:"colliders,omitempty"`
	// Warnings are the reader's warnings plus topology remarks.
	Warnings []string `json:"warnings"`
}

// InspectCollider is one collider node of a glTF file.
type InspectCollider struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Animation names the file's animation the node follows ("" for a
	// still node); its motion is sampled at Samples times from Start to
	// End [s].
	Animation string `json:"animation,omitempty"`
	// Skinned is set for a mesh node deformed by its skeleton (the
	// animation moves its joints; Samples is 0).
	Skinned bool    `json:"skinned,omitempty"`
	Samples int     `json:"samples,omitempty"`
	Start   float64 `json:"start_s,omitempty"`
	End     float64 `json:"end_s,omitempty"`
}

// PieceStats is the topology of one connected piece.
type PieceStats struct {
	Vertices  int `json:"vertices"`
	Edges     int `json:"edges"`
	Triangles int `json:"triangles"`
	// Euler is the Euler characteristic V - E + F.
	Euler int `json:"euler"`
	// BoundaryEdges counts the piece's edges with one triangle.
	BoundaryEdges int `json:"boundary_edges"`
	// Closed is true for a piece without boundary or non-manifold edges.
	Closed bool `json:"closed"`
	// Genus is (2 - Euler) / 2 for a closed piece, -1 otherwise.
	Genus int `json:"genus"`
}

// InspectOptions say how Inspect reads a mesh file.
type InspectOptions struct {
	// Up is the up axis of an OBJ or STL file.
	Up Axis
	// Scale multiplies every coordinate (0.01 for centimetres).
	Scale float64
	// Weld is the weld tolerance relative to the mesh's size (0 welds
	// exactly equal positions only).
	Weld float64
}

// DefaultInspectOptions returns Y-up, metres and the weld tolerance of a
// bake.
func DefaultInspectOptions() InspectOptions {
	return InspectOptions{Up: AxisY, Scale: 1, Weld: meshio.DefaultWeldOptions().Tolerance}
}

// Inspect reads every mesh of the file at path, welds it and builds its
// topology.
func Inspect(path string, o InspectOptions) (*InspectReport, error) {
	opt := meshio.DefaultReadOptions()
	opt.Up, opt.Scale, opt.AllMeshes = o.Up, o.Scale, true
	wopt := meshio.WeldOptions{Tolerance: o.Weld}
	m, err := meshio.Read(path, opt)
	if err != nil {
		return nil, err
	}
	w, err := meshio.Weld(m, wopt)
	if err != nil {
		return nil, fmt.Errorf("weld %s: %w", path, err)
	}
	tp, err := solver.NewTopology(len(w.Positions), w.Triangles)
	if err != nil {
		return nil, fmt.Errorf("topology of %s: %w", path, err)
	}
	r := &InspectReport{
		File:              path,
		Format:            m.Format.String(),
		Meshes:            append([]string{}, m.MeshNames...),
		Primitives:        len(m.Primitives),
		Materials:         m.MaterialNames,
		LooseEdges:        len(m.Lines) + len(m.LineSegments),
		SourceVertices:    m.SourceVertices,
		RenderVertices:    m.NumVertices(),
		WeldedVertices:    len(w.Positions),
		Triangles:         len(w.Triangles),
		Edges:             len(tp.Edges),
		BoundaryEdges:     tp.BoundaryEdges,
		NonManifoldEdges:  tp.NonManifoldEdges,
		DegenerateDropped: w.Degenerate,
		WeldTolerance:     round9(w.Tolerance),
		Pieces:            tp.Pieces,
		Warnings:          append([]string{}, m.Warnings...),
	}
	for _, c := range m.Colliders {
		ic := InspectCollider{Name: c.Name, Kind: c.Kind, Animation: c.Animation, Skinned: c.Skin != nil, Samples: len(c.Motion)}
		if n := len(c.Motion); n > 0 {
			ic.Start, ic.End = round9(c.Motion[0].Time), round9(c.Motion[n-1].Time)
		}
		r.Colliders = append(r.Colliders, ic)
	}
	lo, hi := m.Bounds()
	r.BBoxMin, r.BBoxMax, r.Extent = round3(lo), round3(hi), round3(hi.Sub(lo))
	area := 0.0
	for _, t := range w.Triangles {
		area += solver.TriangleArea(w.Positions, t)
	}
	r.SurfaceArea = round9(area)
	r.PieceStats = pieceStats(tp)
	if tp.NonManifoldEdges > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d non-manifold edges (more than two triangles): they keep their stretch but get no bending", tp.NonManifoldEdges))
	}
	if w.Degenerate > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d degenerate triangles dropped", w.Degenerate))
	}
	return r, nil
}

// pieceStats counts vertices, edges, triangles and boundary edges per piece.
func pieceStats(tp *solver.Topology) []PieceStats {
	ps := make([]PieceStats, tp.Pieces)
	nm := make([]bool, len(tp.Edges))
	pieceNM := make([]bool, tp.Pieces)
	for _, id := range tp.NonManifold {
		nm[id] = true
		pieceNM[tp.Piece[tp.Edges[id].V[0]]] = true
	}
	for _, p := range tp.Piece {
		if p >= 0 {
			ps[p].Vertices++
		}
	}
	for _, t := range tp.Tris {
		ps[tp.Piece[t[0]]].Triangles++
	}
	for i, e := range tp.Edges {
		p := tp.Piece[e.V[0]]
		ps[p].Edges++
		if e.Tri[1] < 0 && !nm[i] {
			ps[p].BoundaryEdges++
		}
	}
	for i := range ps {
		ps[i].Euler = ps[i].Vertices - ps[i].Edges + ps[i].Triangles
		ps[i].Closed = ps[i].BoundaryEdges == 0 && !pieceNM[i]
		ps[i].Genus = -1
		if ps[i].Closed {
			ps[i].Genus = (2 - ps[i].Euler) / 2
		}
	}
	return ps
}

// round9 rounds x to 9 significant digits so that reports are stable
// across platforms.
func round9(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 9, 64), 64)
	return v
}

func round3(v vec.Vec3) [3]float64 { return [3]float64{round9(v.X), round9(v.Y), round9(v.Z)} }

// WriteText writes the report for people, with units.
func (r *InspectReport) WriteText(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "file:               %s (%s)\n", r.File, r.Format)
	fmt.Fprintf(&b, "meshes:             %s\n", strings.Join(r.Meshes, ", "))
	fmt.Fprintf(&b, "primitives:         %d\n", r.Primitives)
	if r.LooseEdges > 0 {
		fmt.Fprintf(&b, "loose edges:        %d (sewn with the scene key sewing)\n", r.LooseEdges)
	}
	if len(r.Materials) > 0 {
		fmt.Fprintf(&b, "materials:          %s\n", materialList(r.Materials))
	}
	fmt.Fprintf(&b, "source vertices:    %d\n", r.SourceVertices)
	fmt.Fprintf(&b, "render vertices:    %d\n", r.RenderVertices)
	fmt.Fprintf(&b, "welded vertices:    %d (tolerance %.3g m)\n", r.WeldedVertices, r.WeldTolerance)
	fmt.Fprintf(&b, "triangles:          %d (%d degenerate dropped)\n", r.Triangles, r.DegenerateDropped)
	fmt.Fprintf(&b, "edges:              %d (%d boundary, %d non-manifold)\n", r.Edges, r.BoundaryEdges, r.NonManifoldEdges)
	fmt.Fprintf(&b, "pieces:             %d\n", r.Pieces)
	for i, p := range r.PieceStats {
		shape := fmt.Sprintf("open, %d boundary edges", p.BoundaryEdges)
		if p.Closed {
			shape = fmt.Sprintf("closed, genus %d", p.Genus)
		}
		fmt.Fprintf(&b, "  piece %d:          %d V, %d E, %d F, Euler %d (%s)\n", i, p.Vertices, p.Edges, p.Triangles, p.Euler, shape)
	}
	fmt.Fprintf(&b, "bounding box:       [%.4g, %.4g, %.4g] .. [%.4g, %.4g, %.4g] m\n", r.BBoxMin[0], r.BBoxMin[1], r.BBoxMin[2], r.BBoxMax[0], r.BBoxMax[1], r.BBoxMax[2])
	fmt.Fprintf(&b, "extent:             %.4g x %.4g x %.4g m\n", r.Extent[0], r.Extent[1], r.Extent[2])
	fmt.Fprintf(&b, "surface area:       %.4g m²\n", r.SurfaceArea)
	for _, c := range r.Colliders {
		motion := "still"
		switch {
		case c.Skinned && c.Animation != "":
			motion = fmt.Sprintf("skinned, animation %q", c.Animation)
		case c.Skinned:
			motion = "skinned, its skeleton at rest"
		case c.Animation != "":
			motion = fmt.Sprintf("animation %q, %.4g..%.4g s (%d samples)", c.Animation, c.Start, c.End, c.Samples)
		}
		fmt.Fprintf(&b, "collider node:      %s (%s), %s\n", c.Name, c.Kind, motion)
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", s)
	}
	io.WriteString(w, b.String())
}
