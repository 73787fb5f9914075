package meshio

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// accessor returns accessor i or an error naming it.
func (r *gltfReader) accessor(i int, place string) (*gltf.Accessor, error) {
	if i < 0 || i >= len(r.doc.Accessors) || r.doc.Accessors[i] == nil {
		return nil, r.errf(place, "accessor %d does not exist (%d accessors)", i, len(r.doc.Accessors))
	}
	return r.doc.Accessors[i], nil
}

// checkAccessor verifies that accessor acr fits in its bufferView and that
// its buffer is loaded, before anything is allocated for it.
func (r *gltfReader) checkAccessor(acr *gltf.Accessor, ai int, place string) error {
	place = fmt.Sprintf("%s accessor %d", place, ai)
	elem := gltf.SizeOfElement(acr.ComponentType, acr.Type)
	if elem <= 0 {
		return r.errf(place, "invalid component type or type")
	}
	if acr.Count < 0 {
		return r.errf(place, "count %d is negative", acr.Count)
	}
	if acr.ByteOffset < 0 {
		return r.errf(place, "byteOffset %d is negative", acr.ByteOffset)
	}
	if acr.Sparse != nil && (acr.Sparse.Count < 0 || acr.Sparse.Count > acr.Count) {
		return r.errf(place, "sparse count %d outside 0..%d", acr.Sparse.Count, acr.Count)
	}
	if acr.BufferView == nil {
		if acr.Count > maxZeroAccessor {
			return r.errf(place, "count %d without a bufferView is too large", acr.Count)
		}
		return nil
	}
	bvi := *acr.BufferView
	if bvi < 0 || bvi >= len(r.doc.BufferViews) || r.doc.BufferViews[bvi] == nil {
		return r.errf(place, "bufferView %d does not exist (%d bufferViews)", bvi, len(r.doc.BufferViews))
	}
	bv := r.doc.BufferViews[bvi]
	if bv.Buffer < 0 || bv.Buffer >= len(r.doc.Buffers) || r.doc.Buffers[bv.Buffer] == nil {
		return r.errf(place, "bufferView %d: buffer %d does not exist", bvi, bv.Buffer)
	}
	buf := r.doc.Buffers[bv.Buffer]
	if bv.ByteOffset < 0 || bv.ByteLength < 0 || int64(bv.ByteOffset)+int64(bv.ByteLength) > int64(len(buf.Data)) {
		return r.errf(place, "bufferView %d (bytes %d..%d) lies outside buffer %d (%d bytes loaded)", bvi, bv.ByteOffset, int64(bv.ByteOffset)+int64(bv.ByteLength), bv.Buffer, len(buf.Data))
	}
	if acr.Count == 0 {
		return nil
	}
	stride := int64(bv.ByteStride)
	if stride < 0 {
		return r.errf(place, "bufferView %d: byteStride %d is negative", bvi, stride)
	}
	if stride == 0 {
		stride = int64(elem)
	}
	// Divide rather than multiply: a stride and a count from the JSON
	// multiply past int64 and wrap to a size that fits, and the reader
	// would then allocate for billions of elements.
	room := int64(bv.ByteLength) - int64(acr.ByteOffset) - int64(elem)
	if room < 0 || int64(acr.Count-1) > room/stride {
		need := new(big.Int).Mul(big.NewInt(stride), big.NewInt(int64(acr.Count-1)))
		need.Add(need, big.NewInt(int64(acr.ByteOffset)+int64(elem)))
		return r.errf(place, "%d elements need %s bytes but bufferView %d has %d", acr.Count, need, bvi, bv.ByteLength)
	}
	return nil
}

// checkedAccessor returns accessor i after checkAccessor, for the
// library's typed readers.
func (r *gltfReader) checkedAccessor(i int, place string) (*gltf.Accessor, error) {
	acr, err := r.accessor(i, place)
	if err != nil {
		return nil, err
	}
	if err := r.checkAccessor(acr, i, place); err != nil {
		return nil, err
	}
	return acr, nil
}

// readAccessor reads accessor ai with the library after checking it.
func (r *gltfReader) readAccessor(ai int, place string, want gltf.AccessorType) (*gltf.Accessor, any, error) {
	acr, err := r.accessor(ai, place)
	if err != nil {
		return nil, nil, err
	}
	if acr.Type != want {
		return nil, nil, r.errf(fmt.Sprintf("%s accessor %d", place, ai), "type %s, want %s", acr.Type, want)
	}
	if err := r.checkAccessor(acr, ai, place); err != nil {
		return nil, nil, err
	}
	data, err := modeler.ReadAccessor(r.doc, acr, nil)
	if err != nil {
		return nil, nil, r.errf(fmt.Sprintf("%s accessor %d", place, ai), "%v", strings.TrimPrefix(err.Error(), "gltf: "))
	}
	return acr, data, nil
}

// readVec3 reads a VEC3 accessor of floats or (KHR_mesh_quantization)
// integers, normalized or not, into float64 vectors.
func (r *gltfReader) readVec3(ai int, place string, isNormal bool) ([]vec.Vec3, error) {
	acr, data, err := r.readAccessor(ai, place, gltf.AccessorVec3)
	if err != nil {
		return nil, err
	}
	norm := acr.Normalized
	switch d := data.(type) {
	case [][3]float32:
		out := make([]vec.Vec3, len(d))
		for i, v := range d {
			out[i] = vec.Vec3{X: float64(v[0]), Y: float64(v[1]), Z: float64(v[2])}
		}
		return out, nil
	case [][3]int8:
		return conv3(d, norm, 127), nil
	case [][3]uint8:
		return conv3(d, norm, 255), nil
	case [][3]int16:
		return conv3(d, norm, 32767), nil
	case [][3]uint16:
		return conv3(d, norm, 65535), nil
	}
	what := "POSITION"
	if isNormal {
		what = "NORMAL"
	}
	return nil, r.errf(fmt.Sprintf("%s accessor %d", place, ai), "%s with component type %s is not allowed", what, acr.ComponentType)
}

// conv3 converts integer vectors to float64, normalizing to [-1, 1] or
// [0, 1] when norm is set (glTF 2.0 section 3.11: max(c / scale, -1)).
func conv3[T int8 | uint8 | int16 | uint16](d [][3]T, norm bool, scale float64) []vec.Vec3 {
	out := make([]vec.Vec3, len(d))
	f := func(c T) float64 {
		if !norm {
			return float64(c)
		}
		return math.Max(float64(c)/scale, -1)
	}
	for i, v := range d {
		out[i] = vec.Vec3{X: f(v[0]), Y: f(v[1]), Z: f(v[2])}
	}
	return out
}

// readVec2 reads TEXCOORD_0: floats, or normalized or plain integers.
func (r *gltfReader) readVec2(ai int, place string) ([][2]float32, error) {
	acr, data, err := r.readAccessor(ai, place, gltf.AccessorVec2)
	if err != nil {
		return nil, err
	}
	norm := acr.Normalized
	switch d := data.(type) {
	case [][2]float32:
		return d, nil
	case [][2]int8:
		return conv2(d, norm, 127), nil
	case [][2]uint8:
		return conv2(d, norm, 255), nil
	case [][2]int16:
		return conv2(d, norm, 32767), nil
	case [][2]uint16:
		return conv2(d, norm, 65535), nil
	}
	return nil, r.errf(fmt.Sprintf("%s accessor %d", place, ai), "TEXCOORD_0 with component type %s is not allowed", acr.ComponentType)
}

func conv2[T int8 | uint8 | int16 | uint16](d [][2]T, norm bool, scale float32) [][2]float32 {
	out := make([][2]float32, len(d))
	f := func(c T) float32 {
		if !norm {
			return float32(c)
		}
		return max(float32(c)/scale, -1)
	}
	for i, v := range d {
		out[i] = [2]float32{f(v[0]), f(v[1])}
	}
	return out
}

// customAttributes reads a primitive's scalar application-specific
// attributes (names starting with "_") into p.Attributes, in sorted name
// order; other types are ignored.
func (r *gltfReader) customAttributes(p *Primitive, prim *gltf.Primitive, place string, nv int) error {
	var names []string
	for name := range prim.Attributes {
		if strings.HasPrefix(name, "_") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		ai := prim.Attributes[name]
		acr, err := r.accessor(ai, place)
		if err != nil {
			return err
		}
		if acr.Type != gltf.AccessorScalar {
			continue
		}
		_, data, err := r.readAccessor(ai, place, gltf.AccessorScalar)
		if err != nil {
			return err
		}
		var vals []float32
		switch d := data.(type) {
		case []float32:
			vals = d
		case []uint8:
			vals = scalars(d, acr.Normalized, 255)
		case []int8:
			vals = scalars(d, acr.Normalized, 127)
		case []uint16:
			vals = scalars(d, acr.Normalized, 65535)
		case []int16:
			vals = scalars(d, acr.Normalized, 32767)
		case []uint32:
			vals = scalars(d, false, 1)
		default:
			continue
		}
		if len(vals) != nv {
			return r.errf(fmt.Sprintf("%s attribute %s", place, name), "%d values for %d vertices", len(vals), nv)
		}
		if p.Attributes == nil {
			p.Attributes = map[string][]float32{}
		}
		p.Attributes[name] = vals
	}
	return nil
}

func scalars[T uint8 | int8 | uint16 | int16 | uint32](d []T, norm bool, scale float32) []float32 {
	out := make([]float32, len(d))
	for i, v := range d {
		out[i] = float32(v)
		if norm {
			out[i] = max(out[i]/scale, -1)
		}
	}
	return out
}
