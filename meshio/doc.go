// Package meshio reads the render meshes artists hand us (glTF 2.0 and GLB,
// OBJ, STL), welds them into simulation topology while keeping the map back
// to every render vertex, and writes baked animation out again (glTF/GLB
// morph targets, PC2 and MDD point caches, OBJ sequences).
//
// meshio owns the third-party file-format libraries (qmuntal/gltf and
// hschendel/stl). It imports only internal/vec: never solver, sdf or bake.
// It does no simulation and keeps no global state.
package meshio
