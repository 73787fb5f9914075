package bake

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/drape-sim/drape/meshio"
)

// Axis is the up axis of an OBJ or STL file (meshio.Axis): AxisY or AxisZ.
// The zero value is invalid; in a collider it means "the scene's".
type Axis = meshio.Axis

// Up axes.
const (
	AxisY = meshio.AxisY
	AxisZ = meshio.AxisZ
)

// ParseAxis parses "y" or "z".
func ParseAxis(s string) (Axis, error) { return meshio.ParseAxis(s) }

// OutputKind is the format of an output path. The zero value is invalid.
type OutputKind int

// Output kinds.
const (
	_            OutputKind = iota
	OutputGLB               // binary glTF with morph targets
	OutputGLTF              // glTF JSON with an external buffer
	OutputPC2               // Blender/Maya point cache
	OutputMDD               // LightWave point cache
	OutputOBJSeq            // a folder of OBJ files, one per frame
	OutputUSDA              // a USD point cache in the text format
	OutputUSDC              // a USD point cache in the binary crate format
)

var outputNames = [...]string{"", "glb", "gltf", "pc2", "mdd", "objseq", "usda", "usdc"}

// String returns the kind's name in reports: "glb", "gltf", "pc2", "mdd",
// "objseq", "usda" or "usdc".
func (k OutputKind) String() string {
	if k <= 0 || int(k) >= len(outputNames) {
		return fmt.Sprintf("OutputKind(%d)", int(k))
	}
	return outputNames[k]
}

// MarshalText writes the kind's name.
func (k OutputKind) MarshalText() ([]byte, error) {
	if k <= 0 || int(k) >= len(outputNames) {
		return nil, fmt.Errorf("invalid output kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText parses a kind's name (as reports and resume records hold
// it).
func (k *OutputKind) UnmarshalText(b []byte) error {
	for i := OutputKind(1); int(i) < len(outputNames); i++ {
		if outputNames[i] == string(b) {
			*k = i
			return nil
		}
	}
	return fmt.Errorf("unknown output kind %q", b)
}

// ParseOutputKind classifies an output path by its ending: .glb, .gltf,
// .pc2, .mdd, .usda (or .usd holding the text format), .usdc, or a folder
// (a path ending in a separator or with no extension) for an OBJ sequence.
func ParseOutputKind(path string) (OutputKind, error) {
	if path == "" {
		return 0, errors.New("empty path")
	}
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return OutputOBJSeq, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".glb":
		return OutputGLB, nil
	case ".gltf":
		return OutputGLTF, nil
	case ".pc2":
		return OutputPC2, nil
	case ".mdd":
		return OutputMDD, nil
	case ".usda", ".usd":
		return OutputUSDA, nil
	case ".usdc":
		return OutputUSDC, nil
	case "":
		return OutputOBJSeq, nil
	}
	return 0, fmt.Errorf("unknown output type %q: use .glb, .gltf, .pc2, .mdd, .usda, .usd, .usdc or a folder/ for an OBJ sequence", filepath.Ext(path))
}
