package testtool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// USDCoreVersion is the usd-core release (Pixar's reference implementation
// of USD, from PyPI) that ./test.sh installs into tools/venv-usd.
const USDCoreVersion = "26.11"

// USDResult is what tools/usd/usd_read.py reports about a USD file.
type USDResult struct {
	CompositionErrors []string `json:"composition_errors"`
	// LayerSHA256 hashes the root layer exported as text: the same for a
	// .usda and a .usdc holding the same layer.
	LayerSHA256 string `json:"layer_sha256"`
	Stage       struct {
		TimeCodesPerSecond float64 `json:"timeCodesPerSecond"`
		FramesPerSecond    float64 `json:"framesPerSecond"`
		StartTimeCode      float64 `json:"startTimeCode"`
		EndTimeCode        float64 `json:"endTimeCode"`
		MetersPerUnit      float64 `json:"metersPerUnit"`
		UpAxis             string  `json:"upAxis"`
		DefaultPrim        string  `json:"defaultPrim"`
	} `json:"stage"`
	Meshes  []USDMesh `json:"meshes"`
	Checker struct {
		Validators int      `json:"validators"`
		Errors     []string `json:"errors"`
	} `json:"checker"`
}

// USDMesh is one UsdGeomMesh as usd-core reads it.
type USDMesh struct {
	Path             string `json:"path"`
	FaceCounts       int    `json:"faceCounts"`
	FaceIndices      int    `json:"faceIndices"`
	Points           int    `json:"points"`
	Normals          int    `json:"normals"`
	ST               int    `json:"st"`
	STInterpolation  string `json:"stInterpolation"`
	PointSamples     int    `json:"pointSamples"`
	NormalSamples    int    `json:"normalSamples"`
	TransformSamples int    `json:"transformSamples"`
	// MaterialBindFamily is the family type of the materialBind subsets.
	MaterialBindFamily string `json:"materialBindFamily"`
	// Subsets are the mesh's GeomSubsets.
	Subsets []struct {
		Name   string `json:"name"`
		Family string `json:"family"`
		Faces  int    `json:"faces"`
	} `json:"subsets"`
	// Frames hold the points at each requested time code, in the mesh's
	// space and in world space, flat [x0, y0, z0, x1, ...].
	Frames []struct {
		Time   float64   `json:"time"`
		Points []float64 `json:"points"`
		World  []float64 `json:"world"`
	} `json:"frames"`
}

// USD opens the USD file at path with usd-core (tools/usd/usd_read.py in
// the tools/venv-usd virtual environment), reads every mesh at the given
// time codes and runs USD's validators on it.
func USD(t testing.TB, path string, timeCodes ...float64) *USDResult {
	t.Helper()
	root := Root(t)
	py := filepath.Join(root, "tools/venv-usd/bin/python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("testtool: usd-core is not installed (tools/venv-usd missing): run ./test.sh, which installs usd-core %s from PyPI into tools/venv-usd", USDCoreVersion)
	}
	codes := make([]string, len(timeCodes))
	for i, c := range timeCodes {
		codes[i] = strconv.FormatFloat(c, 'g', -1, 64)
	}
	out := run(t, nodeTimeout, py, filepath.Join(root, "tools/usd/usd_read.py"), path, strings.Join(codes, ","))
	var r USDResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("testtool: usd_read.py output for %s is not JSON: %v\n%s", path, err, clip(out))
	}
	return &r
}
