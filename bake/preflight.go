package bake

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/sdf"
	"github.com/drape-sim/drape/solver"
)

// preflight looks for trouble before the first step: cloth vertices that
// start inside a collider and triangles that already intersect each other.
// The solver pushes vertices out in its first substeps; the user is told
// how many and where, so a surprise is never silent.
func preflight(j *Job) string {
	var msgs []string
	var pose sdf.Pose
	for ci := range j.Colliders {
		c := &j.Colliders[ci]
		if err := c.PoseAt(0, &pose); err != nil {
			continue
		}
		inside, deepest, at := 0, 0.0, -1
		for v, p := range j.Welded.Positions {
			d, _, ok := pose.DistGradWithin(p, 0)
			if ok && d < 0 {
				inside++
				if -d > deepest {
					deepest, at = -d, v
				}
			}
		}
		if inside > 0 {
			msgs = append(msgs, fmt.Sprintf("%d cloth vertices start inside collider %d (%s), deepest %.1f mm at vertex %d %s; a settle phase pushes them out with zero velocity before frame 1",
				inside, ci, j.colliderNames[ci], 1000*deepest, at, fmt3(j.Welded.Positions[at])))
		}
	}
	pos, tris := j.Welded.Positions, j.Model.SewnTriangles()
	near := func(t int32) string {
		c := tris[t]
		return fmt3(pos[c[0]].Add(pos[c[1]]).Add(pos[c[2]]).Scale(1.0 / 3))
	}
	chk := solver.CheckSelfIntersections(pos, tris)
	if chk.Duplicates > 0 {
		msgs = append(msgs, fmt.Sprintf("%d cloth triangles repeat the corners of another (the first: triangle %d repeats %d, near %s); they were checked once (fix the mesh: remove the duplicate faces)",
			chk.Duplicates, chk.FirstDuplicate[1], chk.FirstDuplicate[0], near(chk.FirstDuplicate[0])))
	}
	if !chk.Complete {
		msgs = append(msgs, fmt.Sprintf("%d cloth triangles crowd one place (triangles %d and %d, near %s): overlapping copies or a huge polygon; the intersection check stopped there instead of comparing them all (fix the mesh: separate the overlapping faces)",
			chk.Crowded, chk.FirstCrowded[0], chk.FirstCrowded[1], near(chk.FirstCrowded[0])))
	}
	if pairs := chk.Pairs; len(pairs) > 0 {
		what := "the bake leaves them crossed"
		if j.Params.SelfCollision {
			what = "self-collision cannot separate them"
		}
		count := fmt.Sprint(len(pairs))
		if !chk.Complete {
			count = "at least " + count
		}
		msgs = append(msgs, fmt.Sprintf("%s pairs of cloth triangles intersect in the input mesh, the first near %s; %s (fix the mesh there: the surfaces must not pass through each other)",
			count, near(pairs[0][0]), what))
	}
	out := ""
	for i, m := range msgs {
		if i > 0 {
			out += "; "
		}
		out += m
	}
	return out
}

// applyCollisionParams passes thickness [m], friction and self-collision
// to the solver's parameters, and turns the settle phase on: vertices that
// start inside a collider are pushed out in the first substep with zero
// velocity (solver.Params.Settle) instead of being ejected.
func applyCollisionParams(p *solver.Params, thickness, friction float64, self bool) {
	p.Thickness = thickness
	p.Friction = math.Max(0, friction)
	p.SelfCollision = self
	p.Settle = true
}
