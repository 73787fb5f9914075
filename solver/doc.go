// Package solver simulates cloth: it builds the simulation topology of a
// welded triangle mesh (unique edges, adjacent triangles, pieces, masses),
// holds the immutable Model and the per-step State, and advances the State
// with XPBD (Macklin, Müller, Chentanez 2016) in substeps (Macklin et al.
// 2019) or with mass-spring integrators (position Verlet, semi-implicit
// Euler, implicit Euler by projective dynamics with a prefactored global
// matrix).
//
// Self-collision is package solver/internal/contact (its package comment
// states the algorithm), and the worker goroutines every integrator runs
// its phases on are package solver/internal/pool.
//
// solver imports only internal/vec, sdf and those two. It does no I/O,
// keeps no global state and never exits the process: bake owns all of
// that. It reads the clock only in the pool, to pace spin-waits, never for
// a result. Output is deterministic: the same Model, State and Frame give
// byte-identical positions at any thread count.
package solver
