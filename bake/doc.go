// Package bake runs one bake job: it loads the cloth mesh and the scene,
// welds the mesh into simulation topology, builds the solver model with its
// pins, colliders and wind, steps the frames, scatters each frame back onto
// every render vertex, writes the outputs atomically, and reports what
// happened.
//
// bake owns all file-system access and all time measurement of a bake. It
// imports meshio, solver, sdf and render; nothing imports bake except
// cmd/drape.
package bake
