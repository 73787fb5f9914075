package meshio

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/qmuntal/gltf"

	"github.com/drape-sim/drape/internal/vec"
)

// NodeKey is a collider node's pose at one time of the glTF animation that
// moves it (ColliderNode.Motion).
type NodeKey struct {
	// Time is the animation's time [s]; the bake's time 0 is its time 0.
	Time float64
	// World maps the node's space to drape's world at Time [m], the read
	// scale included.
	World vec.Mat4
}

// animSampleStep is the longest time [s] between two samples of an
// animated collider node's pose. The bake interpolates between samples
// (translation and scale linearly, rotation by slerp), which is exact for
// linear channels of the node alone under a still parent; the samples
// follow cubic splines, steps and moving parents within 1/240 s.
const animSampleStep = 1.0 / 240

// maxAnimSamples bounds the samples of one collider node's motion (about
// 4.5 minutes of animation at animSampleStep).
const maxAnimSamples = 1 << 16

// trsCurve is one animation channel's keyframes: a translation, rotation
// or scale over time.
type trsCurve struct {
	times  []float64
	values [][4]float64 // per key; CUBICSPLINE: in-tangent, value, out-tangent
	interp gltf.Interpolation
	rot    bool
}

// at evaluates the curve at time t, holding the first and last values
// outside its keys (glTF 2.0 section 3.11).
func (c *trsCurve) at(t float64) [4]float64 {
	n := len(c.times)
	stride, mid := 1, 0
	if c.interp == gltf.InterpolationCubicSpline {
		stride, mid = 3, 1
	}
	val := func(k, part int) [4]float64 { return c.values[k*stride+part] }
	if t <= c.times[0] {
		return val(0, mid)
	}
	if t >= c.times[n-1] {
		return val(n-1, mid)
	}
	i := max(0, sort.Search(n, func(k int) bool { return c.times[k] > t })-1)
	t0, t1 := c.times[i], c.times[i+1]
	dt := t1 - t0
	u := (t - t0) / dt
	var out [4]float64
	switch c.interp {
	case gltf.InterpolationStep:
		return val(i, mid)
	case gltf.InterpolationCubicSpline:
		u2, u3 := u*u, u*u*u
		h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
		v0, b0, v1, a1 := val(i, 1), val(i, 2), val(i+1, 1), val(i+1, 0)
		for j := range out {
			out[j] = h00*v0[j] + h10*dt*b0[j] + h01*v1[j] + h11*dt*a1[j]
		}
	default:
		v0, v1 := val(i, 0), val(i+1, 0)
		if c.rot {
			q := quat(v0).Slerp(quat(v1), u)
			return [4]float64{q.X, q.Y, q.Z, q.W}
		}
		for j := range out {
			out[j] = v0[j] + u*(v1[j]-v0[j])
		}
	}
	return out
}

func quat(v [4]float64) vec.Quat { return vec.Quat{X: v[0], Y: v[1], Z: v[2], W: v[3]} }

// nodeCurves are the channels of one animation that move one node.
type nodeCurves struct{ t, r, s *trsCurve }

// animateColliders gives each collider node that an animation moves (the
// node itself or an ancestor; chains[i] lists collider i's nodes, root
// first) its sampled motion, from the first animation that moves it. It
// returns a warning for each collider more than one animation moves.
func (r *gltfReader) animateColliders(cols []ColliderNode, chains [][]int) ([]string, error) {
	doc := r.doc
	inChain := map[int]bool{}
	for _, ch := range chains {
		for _, n := range ch {
			inChain[n] = true
		}
	}
	var warnings []string
	for ai, a := range doc.Animations {
		if a == nil {
			continue
		}
		curves, err := r.channelCurves(a, ai, func(n int) bool { return inChain[n] })
		if err != nil {
			return nil, err
		}
		name := a.Name
		if name == "" {
			name = fmt.Sprintf("animations[%d]", ai)
		}
		for i := range cols {
			moved := false
			for _, n := range chains[i] {
				moved = moved || curves[n] != nil
			}
			if !moved {
				continue
			}
			if cols[i].Motion != nil {
				warnings = append(warnings, fmt.Sprintf("collider node %q is moved by animations %q and %q: drape follows the first", cols[i].Name, cols[i].Animation, name))
				continue
			}
			keys, err := r.sampleMotion(chains[i], curves)
			if err != nil {
				return nil, r.errf(fmt.Sprintf("animations[%d] (%s)", ai, name), "collider node %q: %v", cols[i].Name, err)
			}
			cols[i].Motion, cols[i].Animation = keys, name
		}
	}
	return warnings, nil
}

// channelCurves reads the translation, rotation and scale channels of
// animation a (number ai) that target the nodes include accepts.
func (r *gltfReader) channelCurves(a *gltf.Animation, ai int, include func(node int) bool) (map[int]*nodeCurves, error) {
	doc := r.doc
	curves := map[int]*nodeCurves{}
	for ci, ch := range a.Channels {
		if ch == nil || ch.Target.Node == nil || *ch.Target.Node < 0 || *ch.Target.Node >= len(doc.Nodes) ||
			!include(*ch.Target.Node) || ch.Target.Path == gltf.TRSWeights {
			continue
		}
		place := fmt.Sprintf("animations[%d].channels[%d]", ai, ci)
		ni := *ch.Target.Node
		if n := doc.Nodes[ni]; n != nil && n.Matrix != gltf.DefaultMatrix && n.Matrix != ([16]float64{}) {
			return nil, r.errf(place, "animates nodes[%d] (%s), which has a matrix: glTF animates only nodes given by translation, rotation and scale", ni, n.Name)
		}
		c, err := r.readCurve(a, ai, ch.Sampler, ch.Target.Path, place)
		if err != nil {
			return nil, err
		}
		nc := curves[ni]
		if nc == nil {
			nc = &nodeCurves{}
			curves[ni] = nc
		}
		switch ch.Target.Path {
		case gltf.TRSTranslation:
			nc.t = c
		case gltf.TRSRotation:
			nc.r = c
		case gltf.TRSScale:
			nc.s = c
		default:
			return nil, r.errf(place, "target path %q: want translation, rotation, scale or weights", ch.Target.Path)
		}
	}
	return curves, nil
}

// readCurve reads sampler si of animation a for a channel of path p.
func (r *gltfReader) readCurve(a *gltf.Animation, ai, si int, p gltf.TRSProperty, place string) (*trsCurve, error) {
	if si < 0 || si >= len(a.Samplers) || a.Samplers[si] == nil {
		return nil, r.errf(place, "sampler %d does not exist (%d samplers)", si, len(a.Samplers))
	}
	s := a.Samplers[si]
	place = fmt.Sprintf("animations[%d].samplers[%d]", ai, si)
	_, in, err := r.readAccessor(s.Input, place+" input", gltf.AccessorScalar)
	if err != nil {
		return nil, err
	}
	times, ok := in.([]float32)
	if !ok || len(times) == 0 {
		return nil, r.errf(place, "input must hold one or more float times")
	}
	c := &trsCurve{interp: s.Interpolation, rot: p == gltf.TRSRotation}
	for k, t := range times {
		tf := float64(t)
		if math.IsNaN(tf) || math.IsInf(tf, 0) || k > 0 && !(tf > c.times[k-1]) {
			return nil, r.errf(place, "input time %d = %v: times must be finite and increase strictly", k, t)
		}
		c.times = append(c.times, tf)
	}
	want := gltf.AccessorVec3
	if c.rot {
		want = gltf.AccessorVec4
	}
	acr, out, err := r.readAccessor(s.Output, place+" output", want)
	if err != nil {
		return nil, err
	}
	switch d := out.(type) {
	case [][3]float32:
		for _, v := range d {
			c.values = append(c.values, [4]float64{float64(v[0]), float64(v[1]), float64(v[2])})
		}
	case [][4]float32:
		for _, v := range d {
			c.values = append(c.values, [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])})
		}
	case [][4]int8:
		c.values = normQuats(d, 127)
	case [][4]uint8:
		c.values = normQuats(d, 255)
	case [][4]int16:
		c.values = normQuats(d, 32767)
	case [][4]uint16:
		c.values = normQuats(d, 65535)
	default:
		return nil, r.errf(place, "output of component type %s is not allowed for %s", acr.ComponentType, p)
	}
	n := len(c.times)
	if c.interp == gltf.InterpolationCubicSpline {
		n *= 3
	}
	if len(c.values) != n {
		return nil, r.errf(place, "%s interpolation over %d times needs %d output values, the output holds %d", c.interp, len(c.times), n, len(c.values))
	}
	for k, v := range c.values {
		if !finite4(v) || c.rot && (c.interp != gltf.InterpolationCubicSpline || k%3 == 1) && quat(v).Dot(quat(v)) < 1e-12 {
			return nil, r.errf(place, "output value %d = %v: must be finite (and a non-zero quaternion for a rotation)", k, v)
		}
	}
	return c, nil
}

func normQuats[T int8 | uint8 | int16 | uint16](d [][4]T, scale float64) [][4]float64 {
	out := make([][4]float64, len(d))
	for i, v := range d {
		for j := range v {
			out[i][j] = math.Max(float64(v[j])/scale, -1)
		}
	}
	return out
}

func finite4(v [4]float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// sampleMotion samples the world transform of the last node of chain (its
// ancestors first) at every key time of the curves that move the chain and
// at most animSampleStep apart between them.
func (r *gltfReader) sampleMotion(chain []int, curves map[int]*nodeCurves) ([]NodeKey, error) {
	var keyTimes []float64
	for _, n := range chain {
		if nc := curves[n]; nc != nil {
			for _, c := range []*trsCurve{nc.t, nc.r, nc.s} {
				if c != nil {
					keyTimes = append(keyTimes, c.times...)
				}
			}
		}
	}
	slices.Sort(keyTimes)
	keyTimes = slices.Compact(keyTimes)
	if span := keyTimes[len(keyTimes)-1] - keyTimes[0]; span/animSampleStep > float64(maxAnimSamples-len(keyTimes)) {
		return nil, fmt.Errorf("its keys span %.4g s, longer than drape samples (%d samples %.4g s apart)", span, maxAnimSamples, animSampleStep)
	}
	times := keyTimes[:1:1]
	for i := 1; i < len(keyTimes); i++ {
		t0, t1 := keyTimes[i-1], keyTimes[i]
		parts := int(math.Ceil((t1 - t0) / animSampleStep))
		for k := 1; k < parts; k++ {
			times = append(times, t0+(t1-t0)*float64(k)/float64(parts))
		}
		times = append(times, t1)
	}
	scale := vec.ScaleMat(vec.V(r.opt.Scale, r.opt.Scale, r.opt.Scale))
	keys := make([]NodeKey, len(times))
	for k, t := range times {
		w := scale
		for _, ni := range chain {
			w = w.Mul(animatedMatrix(r.doc.Nodes[ni], curves[ni], t))
		}
		keys[k] = NodeKey{Time: t, World: w}
	}
	return keys, nil
}

// animatedMatrix is nodeMatrix with the channels of nc (nil: none) in
// place of the node's translation, rotation and scale at time t.
func animatedMatrix(n *gltf.Node, nc *nodeCurves, t float64) vec.Mat4 {
	if nc == nil {
		return nodeMatrix(n)
	}
	tr, q, s := n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault()
	if nc.t != nil {
		v := nc.t.at(t)
		tr = [3]float64{v[0], v[1], v[2]}
	}
	if nc.r != nil {
		q = nc.r.at(t)
	}
	if nc.s != nil {
		v := nc.s.at(t)
		s = [3]float64{v[0], v[1], v[2]}
	}
	return trsMatrix(tr, q, s)
}
