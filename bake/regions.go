package bake

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/solver"
)

// RegionInfo is a fabric region as the bake resolved it, for the report.
type RegionInfo struct {
	Name      string `json:"name"`
	Triangles int    `json:"triangles"`
	Fabric    Fabric `json:"fabric"`
}

// solverFabric converts a fabric to the solver's fields; compression
// stiffness is a tenth of the tensile (cloth buckles rather than
// compresses).
func solverFabric(f Fabric) solver.Fabric {
	return solver.Fabric{
		Density:              f.Density,
		StretchStiffness:     f.Stretch,
		CompressionStiffness: f.Stretch / 10,
		ShearStiffness:       f.Shear,
		BendingStiffness:     f.Bend,
		Damping:              f.Damping,
		AirDrag:              f.Drag,
	}
}

// selectRegions resolves the scene's fabric regions on the welded cloth:
// each region's triangles (by material, piece or box) and its fabric (its
// preset, or the scene's fabric, with its overrides). A region that names
// a material the input does not have, a piece it does not have, or that
// selects no triangle is an error naming the region and the fix.
func selectRegions(sc *Scene, m *meshio.Mesh, w *meshio.Welded, base Fabric) ([]solver.Region, []RegionInfo, error) {
	if len(sc.Regions) == 0 {
		return nil, nil, nil
	}
	input := sc.Resolve(sc.Input)
	// the primitive of every welded triangle (TriangleSource numbers the
	// render triangles over the primitives in order)
	var primOf func(t int) int
	{
		start := make([]int, len(m.Primitives)+1)
		for i, p := range m.Primitives {
			start[i+1] = start[i] + len(p.Indices)/3
		}
		primOf = func(t int) int {
			r := int(w.TriangleSource[t])
			lo, hi := 0, len(m.Primitives)
			for lo+1 < hi {
				mid := (lo + hi) / 2
				if start[mid] <= r {
					lo = mid
				} else {
					hi = mid
				}
			}
			return lo
		}
	}
	var topo *solver.Topology
	var regions []solver.Region
	var infos []RegionInfo
	for i, rs := range sc.Regions {
		key := fmt.Sprintf("regions[%d]", i)
		var sel func(t int) bool
		name := rs.Name
		switch {
		case rs.Material != nil:
			want := *rs.Material
			mat := -1
			for k, n := range m.MaterialNames {
				if n == want {
					mat = k
					break
				}
			}
			if mat < 0 {
				return nil, nil, badInput(fmt.Errorf("%s: %s.material = %q: the input has no material of that name (its materials: %s)",
					input, key, want, materialList(m.MaterialNames)), "use one of the names listed (drape inspect lists them too), or select the region by piece or box")
			}
			sel = func(t int) bool { return m.Primitives[primOf(t)].Material == mat }
			if name == "" {
				name = "material " + strconv.Quote(want)
			}
		case rs.Piece != nil:
			if topo == nil {
				var err error
				if topo, err = solver.NewTopology(len(w.Positions), w.Triangles); err != nil {
					return nil, nil, badInput(fmt.Errorf("%s: %w", input, err), "")
				}
			}
			piece := int32(*rs.Piece)
			if int(piece) >= topo.Pieces {
				return nil, nil, badInput(fmt.Errorf("%s: %s.piece = %d: the cloth has %d pieces (0..%d)", input, key, piece, topo.Pieces, topo.Pieces-1),
					"drape inspect lists the pieces with their sizes")
			}
			sel = func(t int) bool { return topo.Piece[w.Triangles[t][0]] == piece }
			if name == "" {
				name = fmt.Sprintf("piece %d", piece)
			}
		default:
			b := rs.Box
			lo, hi := vec.V(b[0], b[1], b[2]), vec.V(b[3], b[4], b[5])
			sel = func(t int) bool {
				tr := w.Triangles[t]
				c := w.Positions[tr[0]].Add(w.Positions[tr[1]]).Add(w.Positions[tr[2]]).Scale(1.0 / 3)
				return c.X >= lo.X && c.X <= hi.X && c.Y >= lo.Y && c.Y <= hi.Y && c.Z >= lo.Z && c.Z <= hi.Z
			}
			if name == "" {
				name = fmt.Sprintf("box %v", b)
			}
		}
		var tris []int32
		for t := range w.Triangles {
			if sel(t) {
				tris = append(tris, int32(t))
			}
		}
		if len(tris) == 0 {
			return nil, nil, badInput(fmt.Errorf("%s: %s (%s) selects no triangle of the cloth", input, key, name),
				"check the selection against drape inspect's materials, pieces and bounds (a box holds a triangle whose centre is inside it, in metres after scale, Y up)")
		}
		fab := rs.Fabric.resolveOn(base)
		regions = append(regions, solver.Region{Name: name, Fabric: solverFabric(fab), Tris: tris})
		infos = append(infos, RegionInfo{Name: name, Triangles: len(tris), Fabric: fab})
	}
	return regions, infos, nil
}

// materialList quotes material names for a message.
func materialList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
