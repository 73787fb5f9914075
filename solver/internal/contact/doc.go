// Package contact keeps a cloth at least its thickness h away from itself
// (self-collision): every vertex that far from every triangle it does not
// belong to, and every edge that far from every edge it shares no vertex
// with, each on the side it came from (Bridson, Fedkiw, Anderson 2002;
// Müller et al. 2007 §4.4). The solver calls it once per substep, after
// its constraint projection: Update, then Project.
//
// # What is listed
//
// Candidate pairs (vertex-triangle and edge-edge) are kept in a neighbour
// list with a skin per vertex. Each vertex v has a reference position r_v
// (relative to the mean position of the free vertices, so a cloth that
// falls as a whole keeps its list) and an allowance s_v: how far it may
// move from r_v before its pairs must be searched again. A pair is listed
// when it is closer than h + margin + s_v + s_t at the references (s_t the
// largest allowance of the other side's vertices), so while every vertex
// stays within its allowance the list holds every pair that can come
// closer than h + margin. The search runs on a bounding volume hierarchy
// of the triangles with a normal cone per node (bvh.go): a patch whose
// normals stay within a narrow cone is a height field, cannot fold onto
// itself, and its own pairs are skipped. Pairs already closer than h in
// the rest mesh keep their rest distance instead; pairs a seam draws
// together are not listed.
//
// # When it is rebuilt
//
// Update measures every vertex against its allowance. A vertex that left
// it takes a new reference and allowance (from its position at the
// substep's start, ahead along its displacement, so a steadily moving
// vertex keeps its list for a few substeps) and only the pairs of its
// triangles are searched again (a partial rebuild). A triangle a cull
// relies on whose normal turned out of its cone drops that cull, and the
// pairs it skipped are searched too. When many vertices left, or many
// culls were dropped since, every vertex starts over and the whole list
// is rebuilt. A crumpling heap rebuilds every substep with allowances
// just wide enough for one substep; a resting drape keeps its list and
// searches again only around the few dozen vertices that creep out of
// their allowances each substep. Each tuning constant (tuning.go) says in one line what it
// trades; their measured effects are in docs/benchmarks.md ("Self-contact
// tuning history").
//
// # What is projected
//
// Each substep one parallel pass over the list refreshes every pair's side
// memory (the side of the triangle the vertex is on, or the direction
// between the edges, taken from the substep's start positions, which were
// resolved) and picks the pairs near contact now: closer than h + margin,
// or crossed. It passes over the pairs it found surely far from contact,
// or surely near it, while their vertices stay where they were then
// (Contact.keep). Project then runs numRounds rounds of numSweeps
// Gauss-Seidel sweeps over the near pairs, every other sweep backwards
// (Gauss-Seidel converges where Jacobi averaging leaves stacked layers
// interpenetrating), each pair's correction the PBD projection of
// C = distance - h along its remembered side (geom.go), with Coulomb
// friction in the last sweep; the colliders run between rounds for the
// vertices the sweeps moved (Colliders). A pair found out of contact by
// more than its vertices have moved since is skipped (Contact.budget);
// once the vertices a sweep still pushes are few, the sweeps and rounds
// narrow to their pairs (narrow). Pairs that share no vertex fall into
// components whose rounds run in parallel (comp.go); a heap's many near
// pairs are swept slab by slab in parallel (par.go).

// # Why no pair crosses
//
// Three things together. (1) Displacements relative to the cloth's mean
// motion are clamped to maxRel·h per substep (Ten Minute Physics'
// velocity clamp), so no pair can pass through the margin unseen between
// the substep's start and end, and side memories taken at the start stay
// valid. (2) A pair the list lacks is at least (1 + margin -
// 2·escLate)·h apart at the substep's start, at its end and along the
// straight path between, which the crossing tests interpolate, as long as
// no vertex is more than escLate·h beyond its allowance: Update rebuilds
// for vertices outside their allowance before the picks, and rescue
// searches again for vertices the rounds pushed that far before the
// substep ends. (3) A listed pair found crossed (it went through the
// triangle's plane inside the triangle, or the edges swapped sides)
// is pushed back to its remembered side; one still crossed after the
// rounds sends its vertices back to their positions at the substep's
// start (failSafe), which had no crossing, and so do the vertices of two
// triangles of a near pair that intersect now but did not then (untangle).
// Finally the speed the pushes give a vertex apart is capped (separate),
// so a pair squeezed below h is pushed apart in position without being
// thrown apart.
//
// Intersections measures the result: the pairs of triangles that
// intersect, which the tests and the bake report count.
//
// contact imports only internal/vec and the solver's worker pool. It
// keeps no global state: the test switches are Options given to New.
package contact
