package solver

import (
	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/solver/internal/contact"
)

// newContact returns the self-contact of b's model (Params.SelfCollision,
// see package contact) with the options b.contactOpts.
func newContact(b *base) *contact.Contact {
	m := b.m
	edges := make([][2]int32, len(m.Topo.Edges))
	edgeTris := make([][2]int32, len(m.Topo.Edges))
	for i, e := range m.Topo.Edges {
		edges[i], edgeTris[i] = e.V, e.Tri
	}
	mesh := contact.Mesh{
		Rest:        m.Rest,
		Tris:        m.Topo.Tris,
		Edges:       edges,
		EdgeTris:    edgeTris,
		NonManifold: m.Topo.NonManifold,
		InvMass:     b.w,
		SeamStart:   m.seamStart,
		SeamAdj:     m.seamAdj,
	}
	return contact.New(mesh, m.Params.Thickness, m.Params.SelfFriction, b.pool, b.contactOpts)
}

// SelfIntersections counts the pairs of triangles that share no vertex and
// intersect: an edge of one passes through the other. Coplanar touching
// (measure zero) is not counted. It is the measure behind the
// self-collision tests and the bake report.
func SelfIntersections(pos []vec.Vec3, tris [][3]int32) int {
	return contact.Intersections(pos, tris)
}

// SelfIntersectingPairs returns the pairs of triangles SelfIntersections
// counts, each as (lower index, higher index), in increasing order.
func SelfIntersectingPairs(pos []vec.Vec3, tris [][3]int32) [][2]int32 {
	return contact.IntersectingPairs(pos, tris)
}

// IntersectionCheck is what CheckSelfIntersections finds: the
// intersecting pairs, duplicate triangles, and whether crowded triangles
// stopped the check (see contact.IntersectionCheck).
type IntersectionCheck = contact.IntersectionCheck

// CheckSelfIntersections finds the pairs SelfIntersectingPairs lists in
// O(n log n) time on any input, reporting duplicate and crowded triangles
// instead of comparing them pairwise.
func CheckSelfIntersections(pos []vec.Vec3, tris [][3]int32) IntersectionCheck {
	return contact.CheckIntersections(pos, tris)
}
