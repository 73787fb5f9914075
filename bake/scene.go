package bake

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/drape-sim/drape/meshio"
	"github.com/drape-sim/drape/solver"
)

// Scene is every setting of one bake, as docs/scene.md documents it. Start
// from DefaultScene, decode a scene file over it with LoadScene, then let
// flags override single fields: flag > scene file > default.
type Scene struct {
	Input         string         `json:"input"`
	Mesh          string         `json:"mesh,omitempty"`
	Up            Axis           `json:"up,omitempty"`
	Scale         float64        `json:"scale,omitempty"`
	Output        Outputs        `json:"output,omitempty"`
	Frames        int            `json:"frames,omitempty"`
	FPS           float64        `json:"fps,omitempty"`
	FrameStep     int            `json:"frame_step,omitempty"`
	Quantize      bool           `json:"quantize,omitempty"`
	Normals       *bool          `json:"normals,omitempty"`
	MorphTargets  MorphTargets   `json:"morph_targets,omitempty"`
	MaxError      float64        `json:"max_error,omitempty"`
	Solver        string         `json:"solver,omitempty"`
	Substeps      int            `json:"substeps,omitempty"`
	Iterations    int            `json:"iterations,omitempty"`
	BendInterval  int            `json:"bending_interval,omitempty"`
	Threads       int            `json:"threads,omitempty"`
	Gravity       *[3]float64    `json:"gravity,omitempty"`
	Fabric        FabricSpec     `json:"fabric,omitempty"`
	Thickness     float64        `json:"thickness,omitempty"`
	Friction      *float64       `json:"friction,omitempty"`
	SelfCollision bool           `json:"self_collision,omitempty"`
	Tethers       bool           `json:"tethers,omitempty"`
	Retry         int            `json:"retry,omitempty"`
	Sleep         bool           `json:"sleep,omitempty"`
	Volume        float64        `json:"volume,omitempty"`
	Sewing        float64        `json:"sewing,omitempty"`
	Regions       []RegionSpec   `json:"regions,omitempty"`
	Pins          []PinSpec      `json:"pins,omitempty"`
	Colliders     []ColliderSpec `json:"colliders,omitempty"`
	Wind          *WindSpec      `json:"wind,omitempty"`
	Seed          int64          `json:"seed,omitempty"`
	Weld          float64        `json:"weld,omitempty"`
	Require       *Requirements  `json:"require,omitempty"`
	file          string         // the scene file, "" for a flags-only bake
	dir           string         // paths in the scene are relative to this folder
}

// Outputs is one output path or several; in JSON a string or an array.
type Outputs []string

// UnmarshalJSON accepts "out.glb" as well as ["out.glb", "out.pc2"].
func (o *Outputs) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*o = Outputs{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("must be a path or a list of paths")
	}
	*o = many
	return nil
}

// MorphTargets is the most morph targets a glTF output gets (scene key
// morph_targets, flag --morph-targets): 0 for the default (64), or
// AllMorphTargets for one exact target per frame; "all" in JSON.
type MorphTargets int

// AllMorphTargets asks for one exact morph target per frame.
const AllMorphTargets MorphTargets = meshio.AllTargets

// ParseMorphTargets parses "all" or a target count.
func ParseMorphTargets(s string) (MorphTargets, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return AllMorphTargets, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q: must be a target count >= 1 or all", s)
	}
	return MorphTargets(n), nil
}

// UnmarshalJSON accepts a count or "all".
func (m *MorphTargets) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := ParseMorphTargets(s)
		if err != nil {
			return fmt.Errorf("morph_targets %v", err)
		}
		*m = v
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New(`morph_targets must be a target count or "all"`)
	}
	*m = MorphTargets(n)
	return nil
}

// MarshalJSON writes "all" or the count.
func (m MorphTargets) MarshalJSON() ([]byte, error) {
	if m == AllMorphTargets {
		return []byte(`"all"`), nil
	}
	return json.Marshal(int(m))
}

// FabricSpec picks a fabric preset and overrides single fields of it.
type FabricSpec struct {
	Preset   string   `json:"preset,omitempty"`
	Density  *float64 `json:"density,omitempty"`
	Stretch  *float64 `json:"stretch,omitempty"`
	Shear    *float64 `json:"shear,omitempty"`
	Bend     *float64 `json:"bend,omitempty"`
	Damping  *float64 `json:"damping,omitempty"`
	Drag     *float64 `json:"drag,omitempty"`
	Friction *float64 `json:"friction,omitempty"`
}

// RegionSpec gives part of the cloth a fabric of its own (the jeans of a
// suit whose shirt is cotton); see docs/scene.md. Exactly one of Material,
// Piece and Box selects its triangles.
type RegionSpec struct {
	Name     string     `json:"name,omitempty"`
	Material *string    `json:"material,omitempty"`
	Piece    *int       `json:"piece,omitempty"`
	Box      []float64  `json:"box,omitempty"`
	Fabric   FabricSpec `json:"fabric"`
}

// PinSpec selects vertices to hold; see docs/scene.md.
type PinSpec struct {
	Top       bool      `json:"top,omitempty"`
	Indices   []int     `json:"indices,omitempty"`
	Weights   []float64 `json:"weights,omitempty"`
	Box       []float64 `json:"box,omitempty"`
	Attribute string    `json:"attribute,omitempty"`
	Stiffness *float64  `json:"stiffness,omitempty"`
	Keys      []KeySpec `json:"keys,omitempty"`
	Cache     string    `json:"cache,omitempty"`
	Attach    string    `json:"attach,omitempty"`
}

// KeySpec is one keyframe of a rigid motion (plus scale) at Time [s].
type KeySpec struct {
	Time        float64     `json:"time"`
	Translation *[3]float64 `json:"translation,omitempty"`
	Rotation    *[4]float64 `json:"rotation,omitempty"`
	Scale       *[3]float64 `json:"scale,omitempty"`
}

// ColliderSpec describes one collider; which shape keys apply depends on
// Type (colliderkinds.go).
type ColliderSpec struct {
	Type      ColliderKind `json:"type"`
	Center    *[3]float64  `json:"center,omitempty"`
	Radius    float64      `json:"radius,omitempty"`
	A         *[3]float64  `json:"a,omitempty"`
	B         *[3]float64  `json:"b,omitempty"`
	RA        float64      `json:"ra,omitempty"`
	RB        float64      `json:"rb,omitempty"`
	Normal    *[3]float64  `json:"normal,omitempty"`
	Offset    float64      `json:"offset,omitempty"`
	Half      *[3]float64  `json:"half,omitempty"`
	Rounding  float64      `json:"rounding,omitempty"`
	Path      string       `json:"path,omitempty"`
	Cache     string       `json:"cache,omitempty"`
	Up        Axis         `json:"up,omitempty"`
	Scale     float64      `json:"scale,omitempty"`
	Friction  *float64     `json:"friction,omitempty"`
	Thickness float64      `json:"thickness,omitempty"`
	Keys      []KeySpec    `json:"keys,omitempty"`
	Name      string       `json:"name,omitempty"`
}

// WindSpec is a wind field over time.
type WindSpec struct {
	Direction  [3]float64    `json:"direction"`
	Speed      float64       `json:"speed"`
	Gust       float64       `json:"gust,omitempty"`
	GustPeriod float64       `json:"gust_period,omitempty"`
	Turbulence float64       `json:"turbulence,omitempty"`
	Drag       float64       `json:"drag,omitempty"`
	Keys       []WindKeySpec `json:"keys,omitempty"`
}

// WindKeySpec sets the wind speed [m/s] at Time [s]; speeds between keys
// are interpolated linearly.
type WindKeySpec struct {
	Time  float64 `json:"time"`
	Speed float64 `json:"speed"`
}

// DefaultScene returns the settings of a bake given no scene file and no
// flags beyond the input.
func DefaultScene() *Scene {
	return &Scene{
		Up:        AxisY,
		Scale:     1,
		Frames:    120,
		FPS:       24,
		FrameStep: 1,
		Solver:    "xpbd",
		Seed:      1,
		dir:       ".",
	}
}

// File returns the scene file the settings came from, or "".
func (s *Scene) File() string { return s.file }

// Resolve returns path relative to the scene file's folder (absolute paths
// and paths of flags-only bakes are returned as given).
func (s *Scene) Resolve(path string) string {
	if path == "" || filepath.IsAbs(path) || s.dir == "" {
		return path
	}
	return filepath.Join(s.dir, path)
}

// LoadScene reads a scene file over the defaults. Unknown keys, wrong types
// and impossible values are errors naming the file and the key path, and so
// is a path outside the scene file's folder.
func LoadScene(path string) (*Scene, error) {
	return LoadSceneWithin(path, "")
}

// LoadSceneWithin is LoadScene for a scene listed by a batch manifest whose
// folder is root: the scene's paths may also name files anywhere below root.
func LoadSceneWithin(path, root string) (*Scene, error) {
	data, err := meshio.ReadFile(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("read scene %s: %w", path, err), "check the path")
	}
	s, err := ParseScene(data, path)
	if err != nil {
		return nil, err
	}
	if err := s.checkConfined(root); err != nil {
		return nil, err
	}
	return s, nil
}

// checkConfined refuses a scene file that names a path outside its own
// folder (or below manifest, the folder of the batch manifest that listed
// it, when not ""): its input, outputs, collider meshes and point caches,
// after resolving symlinks. A scene file may come with an untrusted asset; it must
// not make drape read, or write over, files elsewhere on the machine. Paths
// given as flags are the user's own and are not confined.
func (s *Scene) checkConfined(manifest string) error {
	real := func(dir string) string {
		a, err := filepath.Abs(dir)
		if err != nil {
			return dir
		}
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		return a
	}
	root := real(s.dir)
	roots := []string{root}
	if manifest != "" {
		roots = append(roots, real(manifest))
	}
	inside := func(p string) bool {
		for _, r := range roots {
			rel, err := filepath.Rel(r, p)
			if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	check := func(key, path string) error {
		if path == "" {
			return nil
		}
		p := path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		// Resolve symlinks of the longest part that exists (an output may not
		// exist yet).
		resolved, rest := p, ""
		for {
			if r, err := filepath.EvalSymlinks(resolved); err == nil {
				resolved = filepath.Join(r, rest)
				break
			}
			parent := filepath.Dir(resolved)
			if parent == resolved {
				resolved = p
				break
			}
			rest = filepath.Join(filepath.Base(resolved), rest)
			resolved = parent
		}
		if inside(resolved) {
			return nil
		}
		where := "the scene file's folder " + root
		if manifest != "" {
			where += " and the batch folder " + roots[1]
		}
		return badInput(fmt.Errorf("scene %s: %s = %q is outside %s", s.file, key, path, where),
			"a scene file may name only files in its own folder or below it (in a batch, also below the folder or list file that lists it): copy the file there, or give the path as a flag on the command line (flags may name any path)")
	}
	if err := check("input", s.Input); err != nil {
		return err
	}
	for i, o := range s.Output {
		if err := check(fmt.Sprintf("output[%d]", i), o); err != nil {
			return err
		}
	}
	for i, c := range s.Colliders {
		if err := check(fmt.Sprintf("colliders[%d].path", i), c.Path); err != nil {
			return err
		}
		if err := check(fmt.Sprintf("colliders[%d].cache", i), c.Cache); err != nil {
			return err
		}
	}
	for i, p := range s.Pins {
		if err := check(fmt.Sprintf("pins[%d].cache", i), p.Cache); err != nil {
			return err
		}
	}
	return nil
}

// ParseScene decodes scene JSON as LoadScene does; name is used in errors
// and its folder anchors relative paths.
func ParseScene(data []byte, name string) (*Scene, error) {
	s := DefaultScene()
	s.file = name
	s.dir = filepath.Dir(name)
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark (Windows editors)
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, sceneSyntaxError(name, data, err)
	}
	if dec.More() {
		return nil, badInputf("scene %s: extra data after the JSON object", name)
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, badInputf("scene %s: must be a JSON object ({...})", name)
	}
	if key, off, ok := duplicateKey(data); ok {
		line, col := lineCol(data, off)
		return nil, badInput(fmt.Errorf("scene %s: line %d column %d: key %q appears twice in one object", name, line, col, key),
			"keep one of them: JSON readers silently keep only the last")
	}
	if err := checkKeys(raw, reflect.TypeOf(Scene{}), ""); err != nil {
		return nil, badInput(fmt.Errorf("scene %s: %w", name, err), "see docs/scene.md for the keys a scene may have")
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, badInputf("scene %s: %s: got %s, want %s", name, te.Field, te.Value, jsonTypeName(te.Type))
		}
		return nil, badInputf("scene %s: %v", name, err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// duplicateKey finds the first key that appears twice in one object of
// the JSON text data (valid JSON), and the offset just after it.
func duplicateKey(data []byte) (string, int64, bool) {
	type frame struct {
		obj       bool
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", 0, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{obj: true, keys: map[string]bool{}, expectKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].obj {
					stack[len(stack)-1].expectKey = true
				}
			}
		default:
			if top == nil || !top.obj {
				continue
			}
			if top.expectKey {
				k, _ := v.(string)
				if top.keys[k] {
					return k, dec.InputOffset(), true
				}
				top.keys[k], top.expectKey = true, false
			} else {
				top.expectKey = true
			}
		}
	}
}

// sceneSyntaxError names the line and column of a JSON syntax error.
func sceneSyntaxError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, se.Offset)
		return badInputf("scene %s: line %d column %d: invalid JSON: %v", name, line, col, se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return badInputf("scene %s: empty or truncated JSON", name)
	}
	return badInputf("scene %s: invalid JSON: %v", name, err)
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// checkKeys walks decoded JSON against the Go type it will decode into and
// reports the first unknown key with its full path ("colliders[1].raduis"),
// in sorted key order so the message is stable, and the first value a
// typed kind refuses ("colliders[0].up": "x").
func checkKeys(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := v.(string); ok && reflect.PointerTo(t).Implements(textUnmarshaler) {
		// a typed kind ("up": "z"): name the key of a value it refuses
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return fmt.Errorf("%s = %q: %v", path, s, err)
		}
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		if t.Kind() == reflect.Map {
			return nil
		}
		if t.Kind() != reflect.Struct {
			return nil // a type mismatch; the decoder names it
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("json"), ",")[0]
			if tag == "" || tag == "-" || !f.IsExported() {
				continue
			}
			fields[tag] = f.Type
			names = append(names, tag)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			ft, ok := fields[k]
			if !ok {
				sort.Strings(names)
				return fmt.Errorf("unknown key %q%s (allowed here: %s)", p, suggest(k, names), strings.Join(names, ", "))
			}
			if err := checkKeys(x[k], ft, p); err != nil {
				return err
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		if t.Kind() == reflect.Array && len(x) != t.Len() {
			return fmt.Errorf("%s: got a list of %d, want %s", path, len(x), jsonTypeName(t))
		}
		for i, e := range x {
			if err := checkKeys(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// suggest returns ` (did you mean "x"?)` for a near miss of an allowed key.
func suggest(k string, names []string) string {
	best, bd := "", 3
	for _, n := range names {
		if d := EditDistance(k, n); d < bd {
			best, bd = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// EditDistance is the Levenshtein distance between a and b in bytes: the
// fewest insertions, deletions and substitutions that turn one into the
// other. It ranks "did you mean" suggestions for keys, flags and names.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Array {
			return fmt.Sprintf("a list of %d %ss", t.Len(), strings.TrimPrefix(jsonTypeName(t.Elem()), "a "))
		}
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

// rangeError names a key, its value and the allowed range.
func (s *Scene) rangeError(key string, value any, allowed string) error {
	where := "settings"
	if s.file != "" {
		where = "scene " + s.file
	}
	return badInputf("%s: %s = %v: %s", where, key, value, allowed)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func finite3(a [3]float64) bool { return finite(a[0]) && finite(a[1]) && finite(a[2]) }

// Validate checks every value against its allowed range and names the first
// that is off.
func (s *Scene) Validate() error {
	if s.Input == "" {
		return s.rangeError("input", `""`, "required: the cloth mesh (.glb, .gltf, .obj or .stl)")
	}
	if s.Up != AxisY && s.Up != AxisZ {
		return s.rangeError("up", s.Up, `must be "y" or "z"`)
	}
	if !(s.Scale > 0) || !finite(s.Scale) {
		return s.rangeError("scale", s.Scale, "must be a number > 0 (0.01 for centimetres, 0.1 for decimetres)")
	}
	if s.Frames < 1 || s.Frames > 100000 {
		return s.rangeError("frames", s.Frames, "must be in 1..100000")
	}
	if !(s.FPS >= 1) || s.FPS > 1000 {
		return s.rangeError("fps", s.FPS, "must be in 1..1000 frames per second")
	}
	if s.FrameStep < 1 || s.FrameStep > s.Frames {
		return s.rangeError("frame_step", s.FrameStep, fmt.Sprintf("must be in 1..%d (frames)", s.Frames))
	}
	switch s.Solver {
	case "xpbd", "verlet", "euler", "implicit":
	default:
		return s.rangeError("solver", strconv.Quote(s.Solver), `must be "xpbd", "verlet", "euler" or "implicit"`)
	}
	if s.Substeps < 0 || s.Substeps > 1000 {
		return s.rangeError("substeps", s.Substeps, "must be in 1..1000 (0 = the solver's default)")
	}
	if s.Iterations < 0 || s.Iterations > 100 {
		return s.rangeError("iterations", s.Iterations, "must be in 1..100")
	}
	if s.BendInterval < 0 || s.BendInterval > 100 {
		return s.rangeError("bending_interval", s.BendInterval, "must be in 1..100 (0 = automatic, 1 = bending in every substep)")
	}
	if s.Threads < 0 || s.Threads > solver.MaxThreads {
		return s.rangeError("threads", s.Threads, fmt.Sprintf("must be in 0..%d (0 = all cores)", solver.MaxThreads))
	}
	if s.Retry < 0 || s.Retry > 6 {
		return s.rangeError("retry", s.Retry, "must be in 0..6 (doublings of substeps on divergence)")
	}
	if s.Gravity != nil && (!finite3(*s.Gravity) || (vecLen(*s.Gravity) > 1000)) {
		return s.rangeError("gravity", *s.Gravity, "must be finite with magnitude <= 1000 m/s²")
	}
	if s.Thickness != 0 && !(s.Thickness >= solver.MinThickness && s.Thickness <= solver.MaxThickness) {
		return s.rangeError("thickness", s.Thickness, fmt.Sprintf("must be in [%g, %g] m (0 = scaled to the mesh)", solver.MinThickness, solver.MaxThickness))
	}
	if s.Sewing != 0 && !(s.Sewing > 0 && s.Sewing <= 100) {
		return s.rangeError("sewing", s.Sewing, "must be in (0, 100] m/s (the speed seams close at; 0 = off)")
	}
	if s.Sewing != 0 && s.Solver != "" && s.Solver != "xpbd" {
		return s.rangeError("sewing", s.Sewing, fmt.Sprintf("seams close with the xpbd solver only (solver is %q)", s.Solver))
	}
	if s.Volume != 0 && !(s.Volume > 0 && s.Volume <= 10) {
		return s.rangeError("volume", s.Volume, "must be in (0, 10] (times each closed piece's rest volume; 0 = off)")
	}
	if s.Volume != 0 && s.Solver != "" && s.Solver != "xpbd" {
		return s.rangeError("volume", s.Volume, fmt.Sprintf("closed pieces hold a volume with the xpbd solver only (solver is %q)", s.Solver))
	}
	if s.Friction != nil && (!(*s.Friction >= 0) || *s.Friction > 10) {
		return s.rangeError("friction", *s.Friction, "must be in 0..10")
	}
	if s.Weld < 0 || s.Weld > 0.01 || !finite(s.Weld) {
		return s.rangeError("weld", s.Weld, "must be in [0, 0.01] (relative to the mesh's size; 0 = default 1e-6)")
	}
	if s.MorphTargets != AllMorphTargets && (s.MorphTargets < 0 || s.MorphTargets > 1024) {
		return s.rangeError("morph_targets", int(s.MorphTargets), `must be in 1..1024 or "all" (0 = the default, 64)`)
	}
	if s.MaxError < 0 || s.MaxError > 1 || !finite(s.MaxError) {
		return s.rangeError("max_error", s.MaxError, "must be in (0, 1] m (0 = the default, 0.0005)")
	}
	if s.MaxError > 0 && s.MorphTargets == AllMorphTargets {
		return s.rangeError("max_error", s.MaxError, `exact targets (morph_targets "all") have no error to bound: drop one of the two`)
	}
	for i, o := range s.Output {
		if _, err := ParseOutputKind(o); err != nil {
			return s.rangeError(fmt.Sprintf("output[%d]", i), strconv.Quote(o), err.Error())
		}
	}
	if err := s.Fabric.validate(s, "fabric"); err != nil {
		return err
	}
	for i, r := range s.Regions {
		if err := r.validate(s, fmt.Sprintf("regions[%d]", i)); err != nil {
			return err
		}
	}
	for i, p := range s.Pins {
		if err := p.validate(s, fmt.Sprintf("pins[%d]", i)); err != nil {
			return err
		}
	}
	for i, c := range s.Colliders {
		if err := c.validate(s, fmt.Sprintf("colliders[%d]", i)); err != nil {
			return err
		}
	}
	if s.Wind != nil {
		if err := s.Wind.validate(s, "wind"); err != nil {
			return err
		}
	}
	if s.Require != nil {
		if err := s.Require.validate(s, "require"); err != nil {
			return err
		}
	}
	return nil
}

func vecLen(a [3]float64) float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2]) }

func (f *FabricSpec) validate(s *Scene, key string) error {
	if f.Preset != "" {
		if _, ok := LookupPreset(f.Preset); !ok {
			return s.rangeError(key+".preset", strconv.Quote(f.Preset), "must be one of "+strings.Join(PresetNames(), ", "))
		}
	}
	for _, c := range []struct {
		name   string
		v      *float64
		lo, hi float64
		unit   string
	}{
		{"density", f.Density, 1e-4, 100, "kg/m²"},
		{"stretch", f.Stretch, 1e-3, 1e9, "N/m"},
		{"shear", f.Shear, 0, 1e9, "N/m"},
		{"bend", f.Bend, 0, 10, "N·m"},
		{"damping", f.Damping, 0, 1000, "1/s"},
		{"drag", f.Drag, 0, 100, ""},
		{"friction", f.Friction, 0, 10, ""},
	} {
		if c.v != nil && (!finite(*c.v) || *c.v < c.lo || *c.v > c.hi) {
			return s.rangeError(key+"."+c.name, *c.v, fmt.Sprintf("must be in [%g, %g] %s", c.lo, c.hi, c.unit))
		}
	}
	return nil
}

func (r *RegionSpec) validate(s *Scene, key string) error {
	n := 0
	if r.Material != nil {
		n++
		if *r.Material == "" {
			return s.rangeError(key+".material", `""`, "must name a material of the input (drape inspect lists them)")
		}
	}
	if r.Piece != nil {
		n++
		if *r.Piece < 0 {
			return s.rangeError(key+".piece", *r.Piece, "must be a piece number >= 0 (drape inspect lists the pieces)")
		}
	}
	if r.Box != nil {
		n++
		if len(r.Box) != 6 {
			return s.rangeError(key+".box", r.Box, "must be [x0,y0,z0,x1,y1,z1]")
		}
		for i := range 3 {
			if !finite(r.Box[i]) || !finite(r.Box[i+3]) || r.Box[i] > r.Box[i+3] {
				return s.rangeError(key+".box", r.Box, "must be finite with x0 <= x1, y0 <= y1, z0 <= z1")
			}
		}
	}
	if n != 1 {
		return s.rangeError(key, n, "a region needs exactly one of material, piece, box")
	}
	if r.Fabric.Friction != nil {
		return s.rangeError(key+".fabric.friction", *r.Fabric.Friction, "friction is the whole cloth's: set the top-level friction, or a collider's")
	}
	return r.Fabric.validate(s, key+".fabric")
}

func (p *PinSpec) validate(s *Scene, key string) error {
	n := 0
	if p.Top {
		n++
	}
	if len(p.Indices) > 0 {
		n++
	}
	if p.Box != nil {
		n++
	}
	if p.Attribute != "" {
		n++
	}
	if n != 1 {
		return s.rangeError(key, n, "a pin needs exactly one of top, indices, box, attribute")
	}
	for i, ix := range p.Indices {
		if ix < 0 {
			return s.rangeError(fmt.Sprintf("%s.indices[%d]", key, i), ix, "must be >= 0")
		}
	}
	if p.Weights != nil && len(p.Weights) != len(p.Indices) {
		return s.rangeError(key+".weights", fmt.Sprintf("%d entries", len(p.Weights)), fmt.Sprintf("must have one weight per index (%d)", len(p.Indices)))
	}
	for i, w := range p.Weights {
		if !(w >= 0 && w <= 1) {
			return s.rangeError(fmt.Sprintf("%s.weights[%d]", key, i), w, "must be in [0, 1]")
		}
	}
	if p.Box != nil {
		if len(p.Box) != 6 {
			return s.rangeError(key+".box", p.Box, "must be [x0,y0,z0,x1,y1,z1]")
		}
		for i := 0; i < 3; i++ {
			if !finite(p.Box[i]) || !finite(p.Box[i+3]) || p.Box[i] > p.Box[i+3] {
				return s.rangeError(key+".box", p.Box, "must be finite with x0<=x1, y0<=y1, z0<=z1")
			}
		}
	}
	if p.Stiffness != nil && !(*p.Stiffness > 0 && *p.Stiffness <= 1) {
		return s.rangeError(key+".stiffness", *p.Stiffness, "must be in (0, 1]")
	}
	follows := 0
	for _, on := range []bool{len(p.Keys) > 0, p.Cache != "", p.Attach != ""} {
		if on {
			follows++
		}
	}
	if follows > 1 {
		return s.rangeError(key, describePin(*p), "a pin follows one of keys, cache and attach: drop the others")
	}
	return validateKeys(s, key+".keys", p.Keys)
}

func validateKeys(s *Scene, key string, keys []KeySpec) error {
	for i, k := range keys {
		kk := fmt.Sprintf("%s[%d]", key, i)
		if !finite(k.Time) || k.Time < 0 {
			return s.rangeError(kk+".time", k.Time, "must be a time >= 0 [s]")
		}
		if i > 0 && k.Time <= keys[i-1].Time {
			return s.rangeError(kk+".time", k.Time, fmt.Sprintf("must be after the previous key's time %g", keys[i-1].Time))
		}
		if k.Translation != nil && !finite3(*k.Translation) {
			return s.rangeError(kk+".translation", *k.Translation, "must be finite")
		}
		if k.Rotation != nil {
			r := *k.Rotation
			l := math.Sqrt(r[0]*r[0] + r[1]*r[1] + r[2]*r[2] + r[3]*r[3])
			if !(l > 1e-6) || !finite(l) {
				return s.rangeError(kk+".rotation", r, "must be a non-zero quaternion [x,y,z,w]")
			}
		}
		if k.Scale != nil {
			sc := *k.Scale
			if !(sc[0] > 0 && sc[1] > 0 && sc[2] > 0) || !finite3(sc) {
				return s.rangeError(kk+".scale", sc, "must be positive and finite")
			}
		}
	}
	return nil
}

// firstErr unpacks errors.Join to its first error so messages stay short.
func firstErr(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if es := j.Unwrap(); len(es) > 0 {
			return es[0]
		}
	}
	return err
}

func (w *WindSpec) validate(s *Scene, key string) error {
	if !finite3(w.Direction) || vecLen(w.Direction) < 1e-9 {
		return s.rangeError(key+".direction", w.Direction, "must be a non-zero direction [x,y,z]")
	}
	if !(w.Speed >= 0) || w.Speed > 200 {
		return s.rangeError(key+".speed", w.Speed, "must be in 0..200 m/s")
	}
	if !(w.Gust >= 0) || w.Gust > 10 {
		return s.rangeError(key+".gust", w.Gust, "must be in 0..10 (relative variation)")
	}
	if w.GustPeriod < 0 || !finite(w.GustPeriod) {
		return s.rangeError(key+".gust_period", w.GustPeriod, "must be >= 0 s")
	}
	if !(w.Turbulence >= 0) || w.Turbulence > 10 {
		return s.rangeError(key+".turbulence", w.Turbulence, "must be in 0..10")
	}
	if w.Drag < 0 || !finite(w.Drag) || w.Drag > 100 {
		return s.rangeError(key+".drag", w.Drag, "must be in 0..100")
	}
	for i, k := range w.Keys {
		kk := fmt.Sprintf("%s.keys[%d]", key, i)
		if !finite(k.Time) || k.Time < 0 || (i > 0 && k.Time <= w.Keys[i-1].Time) {
			return s.rangeError(kk+".time", k.Time, "must be >= 0 and after the previous key")
		}
		if !(k.Speed >= 0) || k.Speed > 200 {
			return s.rangeError(kk+".speed", k.Speed, "must be in 0..200 m/s")
		}
	}
	return nil
}
