package bake

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/drape-sim/drape/internal/vec"
	"github.com/drape-sim/drape/meshio"
)

// OutputInfo describes one written output.
type OutputInfo struct {
	Path  string     `json:"path"`
	Kind  OutputKind `json:"kind"`
	Bytes int64      `json:"bytes"`
	// UnquantizedBytes is the size the glTF would have without --quantize
	// (0 when not quantized), so the saving can be reported.
	UnquantizedBytes int64 `json:"unquantized_bytes,omitempty"`
	// Morph tells how a glTF output stored its frames: the morph target
	// count and, for a compressed basis, the measured error.
	Morph *meshio.MorphInfo `json:"morph,omitempty"`
	// ExactBytes is, for compressed targets, the size with one exact target
	// per frame.
	ExactBytes int64 `json:"exact_bytes,omitempty"`
}

// countingWriter counts bytes and discards them.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// toFile maps a position in drape's space (Y-up metres) back to the input
// file's own units and axes, for outputs that overlay the input (point
// caches, OBJ sequences): undo the scale and, for a Z-up input, the axis
// change.
func (j *Job) toFile(p vec.Vec3) vec.Vec3 {
	p = p.Scale(1 / j.Scene.Scale)
	if j.Scene.Up == AxisZ {
		return vec.V(p.X, -p.Z, p.Y)
	}
	return p
}

// renderFrames scatters every stored frame onto the render vertices.
func (j *Job) renderFrames(rec *Recording) [][]vec.Vec3 {
	out := make([][]vec.Vec3, len(rec.Pos))
	for k, sim := range rec.Pos {
		out[k] = make([]vec.Vec3, len(j.Welded.RenderToSim))
		j.Welded.Scatter(out[k], sim)
	}
	return out
}

// Write writes every output of the scene. All outputs are staged beside
// their targets first and renamed into place only when all succeeded and
// the bake was not cancelled, so a failure leaves every target untouched.
func (j *Job) Write(ctx context.Context, rec *Recording) ([]OutputInfo, error) {
	paths := j.outputPaths()
	render := j.renderFrames(rec)
	var st []*staged
	var infos []OutputInfo
	fail := func(err error) ([]OutputInfo, error) {
		commitAll(st, context.Canceled)
		return nil, err
	}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		kind, err := ParseOutputKind(p)
		if err != nil {
			return fail(badInput(fmt.Errorf("output %s: %w", p, err), ""))
		}
		var s *staged
		var plain, exact int64
		var morph *meshio.MorphInfo
		switch kind {
		case OutputGLB, OutputGLTF:
			var mi meshio.MorphInfo
			s, err = stageFile(p, func(w io.Writer) (err error) {
				mi, err = j.writeGLTF(w, rec, render, kind == OutputGLB, j.Scene.Quantize, false)
				return err
			})
			morph = &mi
			if err == nil && j.Scene.Quantize {
				var cw countingWriter
				if _, err = j.writeGLTF(&cw, rec, render, kind == OutputGLB, false, false); err == nil {
					plain = cw.n
				}
			}
			if err == nil && mi.Compressed {
				var cw countingWriter
				if _, err = j.writeGLTF(&cw, rec, render, kind == OutputGLB, j.Scene.Quantize, true); err == nil {
					exact = cw.n
				}
				if !mi.BoundMet {
					j.warnf("%s: %d morph targets reach a max error of %.3g mm, above the bound of %.3g mm: allow more targets (--morph-targets, up to 1024), a larger --max-error, or exact targets with --morph-targets all",
						p, mi.Targets, 1e3*mi.MaxError, 1e3*mi.Bound)
				}
			}
		case OutputPC2, OutputMDD:
			frames := j.sourceFrames(render)
			s, err = stageFile(p, func(w io.Writer) error {
				if kind == OutputPC2 {
					return meshio.WritePC2(w, frames, float64(rec.Frames[0]), float64(j.Scene.FrameStep))
				}
				return meshio.WriteMDD(w, frames, j.times(rec))
			})
		case OutputUSDA, OutputUSDC:
			s, err = stageFile(p, func(w io.Writer) error { return j.writeUSD(w, rec, kind == OutputUSDC) })
		case OutputOBJSeq:
			s, err = stageDir(p, func(dir string) error { return j.writeOBJSeq(dir, rec, render) })
		}
		if err != nil {
			return fail(err)
		}
		st = append(st, s)
		infos = append(infos, OutputInfo{Path: strings.TrimSuffix(p, "/"), Kind: kind, UnquantizedBytes: plain, Morph: morph, ExactBytes: exact})
	}
	if err := commitAll(st, ctx.Err()); err != nil {
		return nil, err
	}
	for i := range infos {
		infos[i].Bytes = pathSize(infos[i].Path)
	}
	return infos, nil
}

func pathSize(p string) int64 {
	var n int64
	filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// times returns the time [s] of every stored frame.
func (j *Job) times(rec *Recording) []float64 {
	t := make([]float64, len(rec.Frames))
	for i, f := range rec.Frames {
		t[i] = float64(f) / j.Scene.FPS
	}
	return t
}

// sourceFrames returns each frame in the input's own vertex order and
// units, in Blender's Z-up axes (x, -z, y), as point caches want them.
func (j *Job) sourceFrames(render [][]vec.Vec3) [][]vec.Vec3 {
	out := make([][]vec.Vec3, len(render))
	for k, r := range render {
		src := make([]vec.Vec3, max(j.Mesh.SourceVertices, 1))
		copy(src, j.Mesh.SourcePositions) // vertices no face uses keep their rest position
		meshio.SourceOrder(j.Mesh, r, src)
		for i, p := range src {
			src[i] = meshio.ToBlenderAxes(j.toFileYUp(p))
		}
		out[k] = src
	}
	return out
}

// toFileYUp undoes the unit scale only: the result is the input's units in
// drape's Y-up axes, the frame ToBlenderAxes expects.
func (j *Job) toFileYUp(p vec.Vec3) vec.Vec3 { return p.Scale(1 / j.Scene.Scale) }

func (j *Job) normalsOn() bool { return j.Scene.Normals == nil || *j.Scene.Normals }

// writeGLTF writes the glTF output; exact forces one target per frame (to
// report the size compression saved).
func (j *Job) writeGLTF(w io.Writer, rec *Recording, render [][]vec.Vec3, binary, quantize, exact bool) (meshio.MorphInfo, error) {
	// The writer maps world positions back through node transforms and the
	// read scale itself.
	a := &meshio.Animation{FPS: j.Scene.FPS, Times: j.times(rec), Frames: render}
	if j.normalsOn() {
		a.Normals = make([][]vec.Vec3, len(rec.Pos))
		for k, sim := range rec.Pos {
			a.Normals[k] = make([]vec.Vec3, len(j.Welded.RenderToSim))
			meshio.RenderNormals(j.Welded, sim, a.Normals[k])
		}
	}
	morph := meshio.MorphOptions{
		MaxTargets: int(j.Scene.MorphTargets),
		MaxError:   j.Scene.MaxError,
		Compress:   j.Scene.MaxError > 0,
	}
	if exact {
		morph = meshio.MorphOptions{MaxTargets: meshio.AllTargets}
	}
	return meshio.WriteGLTFInfo(w, j.Mesh, a, meshio.GLTFOptions{
		Binary:    binary,
		Quantize:  quantize,
		Normals:   j.normalsOn(),
		Generator: "drape " + Version,
		Morph:     morph,
	})
}

// warnf records a warning in the report and passes it to the caller's
// Warn hook.
func (j *Job) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	j.Warnings = append(j.Warnings, msg)
	if j.warn != nil {
		j.warn(msg)
	}
}

func (j *Job) writeOBJSeq(dir string, rec *Recording, render [][]vec.Vec3) error {
	base := strings.TrimSuffix(filepath.Base(j.Scene.Input), filepath.Ext(j.Scene.Input))
	// WriteOBJ takes the positions of vertices no face uses from the mesh,
	// in the same space as the frames: the input file's.
	m := *j.Mesh
	m.SourcePositions = make([]vec.Vec3, len(j.Mesh.SourcePositions))
	for i, p := range j.Mesh.SourcePositions {
		m.SourcePositions[i] = j.toFile(p)
	}
	for k, r := range render {
		pos := make([]vec.Vec3, len(r))
		for i, p := range r {
			pos[i] = j.toFile(p)
		}
		name := filepath.Join(dir, fmt.Sprintf("%s_%04d.obj", base, rec.Frames[k]))
		f, err := os.Create(name)
		if err != nil {
			return err
		}
		err = meshio.WriteOBJ(f, &m, pos)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
