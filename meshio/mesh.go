package meshio

import (
	"errors"
	"fmt"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
)

// Format is the file format a mesh was read from.
type Format int

// Formats. The zero value is invalid so that an unset Format is caught.
const (
	FormatInvalid Format = iota
	FormatGLTF           // .gltf, JSON with external or data-URI buffers
	FormatGLB            // .glb, binary glTF
	FormatOBJ            // Wavefront .obj
	FormatSTL            // .stl, ASCII or binary
)

// String returns the format's usual file-name ending, without the dot.
func (f Format) String() string {
	switch f {
	case FormatGLTF:
		return "gltf"
	case FormatGLB:
		return "glb"
	case FormatOBJ:
		return "obj"
	case FormatSTL:
		return "stl"
	}
	return "invalid"
}

// Axis names the up axis of a file with no fixed convention (OBJ, STL).
type Axis int

// Up axes. The zero value is invalid.
const (
	AxisInvalid Axis = iota
	AxisY            // Y is up, as in glTF: coordinates are used as they are
	AxisZ            // Z is up, as in Blender and most CAD: (x, y, z) becomes (x, z, -y)
)

// String returns the axis' name in scene files and flags: "y" or "z"
// ("invalid" for the zero value).
func (a Axis) String() string {
	switch a {
	case AxisY:
		return "y"
	case AxisZ:
		return "z"
	}
	return "invalid"
}

// ParseAxis parses "y" or "z" (case-insensitive).
func ParseAxis(s string) (Axis, error) {
	switch strings.ToLower(s) {
	case "y":
		return AxisY, nil
	case "z":
		return AxisZ, nil
	}
	return AxisInvalid, errors.New(`must be "y" or "z"`)
}

// MarshalText writes the axis' name; the zero value is an error.
func (a Axis) MarshalText() ([]byte, error) {
	if a != AxisY && a != AxisZ {
		return nil, fmt.Errorf("invalid axis %d", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText parses "y" or "z".
func (a *Axis) UnmarshalText(b []byte) error {
	v, err := ParseAxis(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// ReadOptions says how to interpret a file. The zero value is not valid; start
// from DefaultReadOptions.
type ReadOptions struct {
	// Up is the file's up axis; ignored for glTF, which is always Y-up.
	Up Axis
	// Scale multiplies every coordinate, for files not in metres (0.1 for
	// decimetres, 0.01 for centimetres).
	Scale float64
	// MeshName selects the cloth mesh in a glTF file with several meshes.
	// Empty means "the only mesh"; several meshes and no name is an error that
	// lists the candidates.
	MeshName string
	// AllMeshes reads every mesh instance of the file instead of one cloth
	// mesh (drape inspect uses it).
	AllMeshes bool
}

// DefaultReadOptions returns Y-up, metres, the only mesh.
func DefaultReadOptions() ReadOptions { return ReadOptions{Up: AxisY, Scale: 1} }

// Mesh is the render mesh as read: one or more primitives in world space
// (Y-up metres, node transforms, up axis and scale applied), with normals,
// UVs and material references as the file had them.
type Mesh struct {
	// Path is the file the mesh was read from.
	Path string
	// Format is the file's format.
	Format Format
	// Name is the cloth mesh's name (glTF mesh name, OBJ object, or the file
	// name for STL).
	Name string
	// MeshNames lists the meshes read: glTF mesh names (or "mesh N") in
	// order of first instance; the OBJ object or file name otherwise.
	MeshNames []string
	// Primitives are the render pieces in file order. For glTF, one entry per
	// (node instance, primitive); for OBJ one per material group.
	Primitives []Primitive
	// Lines are the loose edges of the file (OBJ l lines; a polyline
	// gives one per segment) as pairs of vertex numbers in the file's own
	// order (see SourceVertices). A bake sews them (scene key sewing).
	Lines [][2]int32
	// LineSegments are loose edges given by their ends' positions [m] (glTF
	// LINES, LINE_STRIP and LINE_LOOP primitives of the cloth mesh, whose
	// vertices are not the triangles'); a bake sews them between the cloth
	// vertices at those places.
	LineSegments [][2]vec.Vec3
	// MaterialNames are the names of the materials Primitive.Material
	// numbers: glTF material names, OBJ usemtl names ("" where unnamed).
	MaterialNames []string
	// SourceVertices is the number of vertices as the file numbers them: OBJ
	// `v` lines, STL facet corners, glTF render vertices. Point caches are
	// written in this order.
	SourceVertices int
	// SourcePositions are the positions [m] of the file's own vertices in
	// the order SourceVertices counts them, for OBJ inputs (nil otherwise).
	// They carry the `v` lines no face uses, which point caches and OBJ
	// sequences must still write in place.
	SourcePositions []vec.Vec3
	// Colliders are the glTF nodes marked as colliders (see ColliderNode);
	// they are not part of the cloth.
	Colliders []ColliderNode
	// Warnings are non-fatal problems found while reading (dangling vt
	// references, missing material libraries, suspicious scale).
	Warnings []string

	// gltf keeps the source document of a glTF input so the writer can keep
	// every node, mesh, material and texture as it came in.
	gltf *gltfSource
}

// Primitive is one render piece: vertices, triangles, and what to draw them
// with.
type Primitive struct {
	// Name describes where the primitive came from ("Cloth/node 3/primitive 0",
	// "obj group shirt").
	Name string
	// Positions are the render vertices in world space [m].
	Positions []vec.Vec3
	// Normals are unit vertex normals in world space, or nil.
	Normals []vec.Vec3
	// UVs are the first texture coordinate set, or nil.
	UVs [][2]float32
	// Indices lists triangles, three indices into Positions each.
	Indices []int32
	// Material is the material's index in the source file (glTF materials,
	// OBJ usemtl order), or -1 for none.
	Material int
	// Attributes are custom scalar per-vertex attributes of a glTF primitive
	// (names starting with "_", such as _PIN for pin weights), or nil.
	Attributes map[string][]float32
	// Source maps each render vertex to its vertex number in the file's own
	// order (see Mesh.SourceVertices).
	Source []int32
}

// NumVertices returns the number of render vertices over all primitives.
func (m *Mesh) NumVertices() int {
	n := 0
	for i := range m.Primitives {
		n += len(m.Primitives[i].Positions)
	}
	return n
}

// NumTriangles returns the number of triangles over all primitives.
func (m *Mesh) NumTriangles() int {
	n := 0
	for i := range m.Primitives {
		n += len(m.Primitives[i].Indices) / 3
	}
	return n
}

// ParseError reports a problem at a place in a file: a line for text
// formats, a chunk, accessor or JSON path for binary and glTF ones.
type ParseError struct {
	Path  string // the file
	Place string // "line 412", "accessor 3", "chunk 1", "meshes[0].primitives[1]"
	Msg   string // what is wrong, and the fix where there is one
	// Err is an optional sentinel the error wraps (ErrUnsupported,
	// ErrVersion, ErrNoGeometry), or the file system's error for a file
	// that cannot be read (errors.Is(err, fs.ErrNotExist)).
	Err error
}

// Unwrap returns the wrapped sentinel, if any.
func (e *ParseError) Unwrap() error { return e.Err }

func (e *ParseError) Error() string {
	if e.Place == "" {
		return fmt.Sprintf("read %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("read %s: %s: %s", e.Path, e.Place, e.Msg)
}

// ErrUnsupported marks a valid file that uses something drape cannot decode
// (Draco, meshopt without fallback, glTF 1.0, an unknown required extension).
var ErrUnsupported = errors.New("unsupported")

// ErrVersion marks a glTF file of a version other than 2.0; it is also
// ErrUnsupported. Its fix is a conversion, not a re-export without an
// extension.
var ErrVersion = fmt.Errorf("%w: glTF version", ErrUnsupported)

// ErrNoGeometry marks a file with no usable triangles.
var ErrNoGeometry = errors.New("no triangles")
