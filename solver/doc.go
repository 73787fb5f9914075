// Package solver simulates cloth: it builds the simulation topology of a
// welded triangle mesh (unique edges, adjacent triangles, pieces, masses),
// holds the immutable Model and the per-step State, and advances the State
// with XPBD (Macklin, Müller, Chentanez 2016) in substeps (Macklin et al.
// 2019) or with the seeds' mass-spring integrators (Verlet, semi-implicit
// Euler, implicit Euler by Jacobi/Chebyshev optimisation).
//
// solver imports only internal/vec and sdf. It does no I/O, never reads the
// clock, keeps no global state and never exits the process: bake owns all of
// that. Output is deterministic: the same Model, State and Frame give
// byte-identical positions at any thread count.
package solver
