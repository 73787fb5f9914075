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

// streams reports whether every output can be written frame by frame as
// the simulation produces it (PC2, MDD, OBJ sequence): then a bake holds
// no frames. glTF and USD outputs need all frames at once (a glTF's morph
// compression runs over all of them).
func (j *Job) streams() bool {
	for _, p := range j.outputPaths() {
		if k, err := ParseOutputKind(p); err != nil || !k.streams() {
			return false
		}
	}
	return true
}

// streams reports whether outputs of kind k are written frame by frame.
func (k OutputKind) streams() bool {
	return k == OutputPC2 || k == OutputMDD || k == OutputOBJSeq
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
				mi, err = j.writeGLTF(ctx, w, rec, render, kind == OutputGLB, j.Scene.Quantize, false)
				return err
			})
			morph = &mi
			if err == nil && j.Scene.Quantize {
				var cw countingWriter
				if _, err = j.writeGLTF(ctx, &cw, rec, render, kind == OutputGLB, false, false); err == nil {
					plain = cw.n
				}
			}
			if err == nil && mi.Compressed {
				var cw countingWriter
				if _, err = j.writeGLTF(ctx, &cw, rec, render, kind == OutputGLB, j.Scene.Quantize, true); err == nil {
					exact = cw.n
				}
				if !mi.BoundMet {
					j.warnf("%s: %d morph targets reach a max error of %.3g mm, above the bound of %.3g mm: allow more targets (--morph-targets, up to 1024), a larger --max-error, or exact targets with --morph-targets all",
						p, mi.Targets, 1e3*mi.MaxError, 1e3*mi.Bound)
				}
			}
		case OutputPC2, OutputMDD, OutputOBJSeq:
			var sk *frameSink
			if sk, err = j.openSink(p, kind, rec.Frames); err == nil {
				for k := range render {
					if err = sk.frame(rec.Frames[k], render[k]); err != nil {
						break
					}
				}
				if err == nil {
					s, err = sk.finish()
				} else {
					sk.abort()
				}
			}
		case OutputUSDA, OutputUSDC:
			s, err = stageFile(p, func(w io.Writer) error { return j.writeUSD(w, rec, kind == OutputUSDC) })
		}
		if err != nil {
			return fail(err)
		}
		st = append(st, s)
		infos = append(infos, OutputInfo{Path: strings.TrimSuffix(p, "/"), Kind: kind, UnquantizedBytes: plain, Morph: morph, ExactBytes: exact})
	}
	return j.commit(ctx, st, infos)
}

// commit renames every staged output into place (or, on a cancelled
// context, removes them all) and fills in the outputs' sizes.
func (j *Job) commit(ctx context.Context, st []*staged, infos []OutputInfo) ([]OutputInfo, error) {
	if err := commitAll(st, ctx.Err()); err != nil {
		return nil, err
	}
	for i := range infos {
		infos[i].Bytes = pathSize(infos[i].Path)
	}
	return infos, nil
}

// frameSink is an output written one stored frame at a time into its
// temporary file (PC2, MDD) or folder (OBJ sequence) beside the target.
// The bytes are the same whether the frames come from the running
// simulation or from a Recording.
type frameSink struct {
	j     *Job
	kind  OutputKind
	file  *stagedFile         // PC2, MDD
	cache *meshio.CacheWriter // PC2, MDD
	dir   *staged             // OBJ sequence
	mesh  meshio.Mesh         // OBJ sequence: the mesh with its unused vertices in the file's space
	base  string              // OBJ sequence: the frame files' name before _NNNN.obj
	buf   []vec.Vec3          // one frame in the output's order and space
}

// openSink stages output p of kind k (PC2, MDD or OBJ sequence) for the
// stored frames numbered frames, writing a point cache's header.
func (j *Job) openSink(p string, kind OutputKind, frames []int) (*frameSink, error) {
	s := &frameSink{j: j, kind: kind}
	if kind == OutputOBJSeq {
		d, err := openStagedDir(p)
		if err != nil {
			return nil, err
		}
		s.dir = d
		s.base = strings.TrimSuffix(filepath.Base(j.Scene.Input), filepath.Ext(j.Scene.Input))
		// WriteOBJ takes the positions of vertices no face uses from the
		// mesh, in the same space as the frames: the input file's.
		s.mesh = *j.Mesh
		s.mesh.SourcePositions = make([]vec.Vec3, len(j.Mesh.SourcePositions))
		for i, q := range j.Mesh.SourcePositions {
			s.mesh.SourcePositions[i] = j.toFile(q)
		}
		s.buf = make([]vec.Vec3, len(j.Welded.RenderToSim))
		return s, nil
	}
	f, err := openStaged(p)
	if err != nil {
		return nil, err
	}
	s.file = f
	s.buf = make([]vec.Vec3, max(j.Mesh.SourceVertices, 1))
	if kind == OutputPC2 {
		s.cache, err = meshio.NewPC2Writer(f.w, len(s.buf), len(frames), float64(frames[0]), float64(j.Scene.FrameStep))
	} else {
		s.cache, err = meshio.NewMDDWriter(f.w, len(s.buf), j.frameTimes(frames))
	}
	if err != nil {
		s.abort()
		return nil, f.fail(err)
	}
	return s, nil
}

// frame writes stored frame number k, given on the render vertices.
func (s *frameSink) frame(k int, render []vec.Vec3) error {
	j := s.j
	if s.kind == OutputOBJSeq {
		for i, p := range render {
			s.buf[i] = j.toFile(p)
		}
		err := j.writeOBJFrame(filepath.Join(s.dir.tmp, fmt.Sprintf("%s_%04d.obj", s.base, k)), &s.mesh, s.buf)
		if err != nil {
			return s.dir.fail(err)
		}
		return nil
	}
	j.sourceFrame(render, s.buf)
	if err := s.cache.WriteFrame(s.buf); err != nil {
		return s.file.fail(err)
	}
	return nil
}

// finish completes the output and readies it for commit.
func (s *frameSink) finish() (*staged, error) {
	if s.dir != nil {
		return s.dir.finishDir()
	}
	if err := s.cache.Close(); err != nil {
		s.file.abort()
		return nil, s.file.fail(err)
	}
	return s.file.finish()
}

// abort removes the output's temporary file or folder.
func (s *frameSink) abort() {
	if s.dir != nil {
		s.dir.discard()
	} else {
		s.file.abort()
	}
}

// writeOBJFrame writes one frame file of an OBJ sequence.
func (j *Job) writeOBJFrame(name string, m *meshio.Mesh, pos []vec.Vec3) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = meshio.WriteOBJ(f, m, pos)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
func (j *Job) times(rec *Recording) []float64 { return j.frameTimes(rec.Frames) }

// frameTimes returns the time [s] of every frame numbered in frames.
func (j *Job) frameTimes(frames []int) []float64 {
	t := make([]float64, len(frames))
	for i, f := range frames {
		t[i] = float64(f) / j.Scene.FPS
	}
	return t
}

// sourceFrames returns each render frame as sourceFrame writes it.
func (j *Job) sourceFrames(render [][]vec.Vec3) [][]vec.Vec3 {
	out := make([][]vec.Vec3, len(render))
	for k, r := range render {
		out[k] = make([]vec.Vec3, max(j.Mesh.SourceVertices, 1))
		j.sourceFrame(r, out[k])
	}
	return out
}

// sourceFrame writes the render frame r into dst (m.SourceVertices long,
// at least 1) in the input's own vertex order and units, in Blender's
// Z-up axes (x, -z, y), as point caches want it.
func (j *Job) sourceFrame(r, dst []vec.Vec3) {
	clear(dst)
	copy(dst, j.Mesh.SourcePositions) // vertices no face uses keep their rest position
	meshio.SourceOrder(j.Mesh, r, dst)
	for i, p := range dst {
		dst[i] = meshio.ToBlenderAxes(j.toFileYUp(p))
	}
}

// toFileYUp undoes the unit scale only: the result is the input's units in
// drape's Y-up axes, the frame ToBlenderAxes expects.
func (j *Job) toFileYUp(p vec.Vec3) vec.Vec3 { return p.Scale(1 / j.Scene.Scale) }

func (j *Job) normalsOn() bool { return j.Scene.Normals == nil || *j.Scene.Normals }

// writeGLTF writes the glTF output; exact forces one target per frame (to
// report the size compression saved). A cancelled ctx ends it within
// milliseconds, also while it compresses the morph targets.
func (j *Job) writeGLTF(ctx context.Context, w io.Writer, rec *Recording, render [][]vec.Vec3, binary, quantize, exact bool) (meshio.MorphInfo, error) {
	// The writer maps world positions back through node transforms and the
	// read scale itself.
	a := &meshio.Animation{FPS: j.Scene.FPS, Times: j.times(rec), Frames: render}
	if j.normalsOn() {
		a.Normals = make([][]vec.Vec3, len(rec.Pos))
		for k, sim := range rec.Pos {
			if err := ctx.Err(); err != nil {
				return meshio.MorphInfo{}, err
			}
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
		Cancelled: ctx.Err,
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

// streamSinks are the outputs of a streamed bake, each taking every stored
// frame as the simulation produces it.
type streamSinks struct {
	j      *Job
	sinks  []*frameSink
	infos  []OutputInfo
	render []vec.Vec3
}

// openSinks stages every output of a bake whose outputs all stream
// (streams), writing the point caches' headers.
func (j *Job) openSinks() (*streamSinks, error) {
	frames := storedFrameNumbers(j.Scene)
	ss := &streamSinks{j: j, render: make([]vec.Vec3, len(j.Welded.RenderToSim))}
	for _, p := range j.outputPaths() {
		kind, err := ParseOutputKind(p)
		if err != nil {
			ss.abort()
			return nil, badInput(fmt.Errorf("output %s: %w", p, err), "")
		}
		s, err := j.openSink(p, kind, frames)
		if err != nil {
			ss.abort()
			return nil, err
		}
		ss.sinks = append(ss.sinks, s)
		ss.infos = append(ss.infos, OutputInfo{Path: strings.TrimSuffix(p, "/"), Kind: kind})
	}
	return ss, nil
}

// frame writes stored frame k, the simulation positions sim, to every
// output.
func (ss *streamSinks) frame(k int, sim []vec.Vec3) error {
	ss.j.Welded.Scatter(ss.render, sim)
	for _, s := range ss.sinks {
		if err := s.frame(k, ss.render); err != nil {
			return err
		}
	}
	return nil
}

// close completes every output and renames them into place when the
// simulation ended without error (simErr) and the bake was not cancelled;
// otherwise it removes them all and no target changes.
func (ss *streamSinks) close(ctx context.Context, simErr error) ([]OutputInfo, error) {
	if simErr != nil {
		ss.abort()
		return nil, simErr
	}
	var st []*staged
	for i, s := range ss.sinks {
		f, err := s.finish()
		if err != nil {
			commitAll(st, context.Canceled)
			for _, r := range ss.sinks[i+1:] {
				r.abort()
			}
			return nil, err
		}
		st = append(st, f)
	}
	return ss.j.commit(ctx, st, ss.infos)
}

// abort removes every output's temporary file or folder.
func (ss *streamSinks) abort() {
	for _, s := range ss.sinks {
		s.abort()
	}
}
