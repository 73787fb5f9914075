package sdf_test

import (
	"fmt"
	"math"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/sdf"
)

// Every shape answers Dist, Grad, DistGrad, DistGradWithin and Bounds.
func Example() {
	ball := sdf.Sphere{Center: vec.V(0, 1, 0), Radius: 0.5}
	d, g := ball.DistGrad(vec.V(0, 2, 0))
	fmt.Printf("sphere: d = %.2f m, grad = %v\n", d, g)

	floor := sdf.Plane{Normal: vec.V(0, 1, 0), Offset: 0} // y >= 0 is outside
	fmt.Printf("plane: d = %.2f m\n", floor.Dist(vec.V(3, -0.25, 1)))

	cone := sdf.CappedCone{A: vec.V(0, 0, 0), B: vec.V(0, 1, 0), RA: 0.3, RB: 0.1}
	fmt.Printf("cone: d = %.2f m\n", cone.Dist(vec.V(0, 1.5, 0)))

	lo, hi := sdf.Box{Half: vec.V(1, 0.5, 0.25), Rounding: 0.05}.Bounds()
	fmt.Println("box bounds:", lo, hi)
	// Output:
	// sphere: d = 0.50 m, grad = {0 1 0}
	// plane: d = -0.25 m
	// cone: d = 0.50 m
	// box bounds: {-1 -0.5 -0.25} {1 0.5 0.25}
}

// A closed triangle mesh (here a tetrahedron) becomes an exact signed
// distance; open or non-manifold meshes are rejected with an error.
func ExampleNewMesh() {
	pos := []vec.Vec3{vec.V(0, 0, 0), vec.V(1, 0, 0), vec.V(0, 1, 0), vec.V(0, 0, 1)}
	tris := [][3]int32{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}
	m, err := sdf.NewMesh(pos, tris)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("inside: %.2f, below: %.2f\n", m.Dist(vec.V(0.1, 0.1, 0.1)), m.Dist(vec.V(0.2, -0.3, 0.2)))

	_, err = sdf.NewMesh(pos, tris[:3])
	fmt.Println(err)
	// Output:
	// inside: -0.10, below: 0.30
	// mesh is not closed: edge (1, 2) of triangle 0 has no neighbour: close the hole (or use a closed collider mesh)
}

// Transformed moves, rotates and scales any shape.
func ExampleNewTransformed() {
	m := vec.TRS(vec.V(0, 1, 0), vec.AxisAngle(vec.V(0, 0, 1), math.Pi/2), vec.V(2, 2, 2))
	t, err := sdf.NewTransformed(sdf.Capsule{A: vec.V(0, 0, 0), B: vec.V(1, 0, 0), Radius: 0.1}, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	// the capsule now runs from (0,1,0) to (0,3,0) with radius 0.2.
	fmt.Printf("d = %.2f\n", t.Dist(vec.V(1, 2, 0)))
	// Output:
	// d = 0.80
}

// The solver evaluates each collider once per substep with PoseAt (no
// allocation), then asks the pose for the distance within a band around
// every cloth vertex and for the surface velocity under it.
func ExampleCollider() {
	c := sdf.NewCollider(sdf.Capsule{A: vec.V(-0.5, 0, 0), B: vec.V(0.5, 0, 0), Radius: 0.1})
	c.Keys = []sdf.Key{
		{Time: 0, Translation: vec.V(0, 1, 0), Rotation: vec.QuatIdentity(), Scale: vec.V(1, 1, 1)},
		{Time: 2, Translation: vec.V(0, 1, 1), Rotation: vec.QuatIdentity(), Scale: vec.V(1, 1, 1)},
	}
	if err := c.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	var pose sdf.Pose
	thickness := 0.005
	for _, t := range []float64{0, 1} {
		if err := c.PoseAt(t, &pose); err != nil {
			fmt.Println(err)
			return
		}
		p := vec.V(0, 1.1, 0.5) // a cloth vertex
		if d, g, ok := pose.DistGradWithin(p, thickness); ok {
			fmt.Printf("t=%v: contact d = %.3f grad = %.2v velocity = %v\n", t, d, g, pose.Velocity(p))
		} else {
			fmt.Printf("t=%v: no contact\n", t)
		}
	}
	// Output:
	// t=0: no contact
	// t=1: contact d = 0.000 grad = {0 1 0} velocity = {0 0 0.5}
}
