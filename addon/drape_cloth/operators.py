"""Operators: drape.bake (modal with a UI, synchronous without), drape.cancel,
drape.clear (Free Bake), drape.to_shape_keys, drape.export_gltf and drape.export_usd.

bpy is touched only on the main thread: the reader threads of runner.Process
only fill a queue, which the modal timer empties."""

import os
import shutil
import time

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper

from . import meshcheck
from . import quality
from . import runner
from . import scene_export as sx

LOCAL_PC2_NAME = "cloth_local.pc2"

# The running bakes by object name; read and written on the main thread only.
_jobs = {}


class BakeState:
    """BakeState is one bake in flight: its job, and what finish() needs."""

    def __init__(self, obj, job, scene_data, parts, start, end, stored_dir):
        self.obj_name = obj.name
        self.job = job
        self.data = scene_data
        # per baked object in cache order (obj first, then the cloth objects
        # baked with it): name, first vertex, vertex count, world matrix per
        # baked frame (scene_export.export)
        self.parts = parts
        self.nverts = sum(p["nverts"] for p in parts)
        self.start = start
        self.end = end
        self.stored_dir = stored_dir
        self.cancel_requested = False
        self.status = "starting drape"
        self.warnings = []
        self.drape_warnings = []  # drape's own, from its report (finish)
        self.quality_failed = []  # the bounds the bake missed, in the panel's words (finish)


def addon_prefs(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon else None


def binary(context):
    """Returns the path of a usable drape; raises runner.BinaryError."""
    prefs = addon_prefs(context)
    pref = prefs.drape_path if prefs else ""
    return runner.find_binary(bpy.path.abspath(pref) if pref else "", os.path.dirname(os.path.abspath(__file__)))[0]


_found = {}  # preference path -> the drape found for it


def cached_binary(context):
    """Returns binary(context), looked up once per preference path (for
    panels and property updates, which run often); None when there is no
    usable drape."""
    prefs = addon_prefs(context)
    pref = prefs.drape_path if prefs else ""
    if pref not in _found:
        try:
            _found[pref] = binary(context)
        except runner.BinaryError:
            return None  # not remembered: the user may fix it
    return _found[pref]


def bake_refusal(obj):
    """Returns why drape.bake cannot bake obj (the operator's tooltip and
    the error a script gets), or "" when it can."""
    if obj is None:
        return "No active object: select the cloth mesh"
    if obj.type != 'MESH':
        return "%r is a %s: drape bakes mesh objects" % (obj.name, obj.type.lower())
    if obj.drape.role != 'CLOTH':
        role = {'NONE': "None", 'COLLIDER': "Collider"}.get(obj.drape.role, obj.drape.role)
        return ("%r has Drape Role %s, not Cloth: set it to Cloth in Properties > Physics > Drape Cloth"
                % (obj.name, role))
    if _jobs:
        return "A drape bake is running: wait for it or cancel it"
    return ""


def job_of(obj):
    return _jobs.get(obj.name) if obj is not None else None


def any_job():
    return next(iter(_jobs.values()), None)


def prepare(context, obj):
    """Checks the settings and the binary, writes the bake's inputs into a
    staging folder and returns (BakeState, argv). Raises sx.ExportError or
    runner.BinaryError, leaving nothing behind."""
    sx.validate(context, obj)
    exe = binary(context)
    try:
        meshcheck.check(context, obj)  # for the panel; drape's own preflight goes to the warnings
    except (RuntimeError, ValueError, ReferenceError):
        pass
    final_abs, stored = sx.cache_dir(obj)
    job = runner.BakeJob(final_abs)
    warnings = []
    try:
        scene_path, data, parts = sx.export(context, obj, job.staging, warnings, drape=exe)
    except BaseException:
        job.discard()
        raise
    start, end = sx.frame_range(context.scene, obj.drape)
    job.frames = data["frames"]
    state = BakeState(obj, job, data, parts, start, end, stored)
    state.warnings = warnings
    return state, runner.bake_argv(exe, scene_path)


def _check_pc2(state):
    path = os.path.join(state.job.staging, sx.PC2_NAME)
    try:
        nverts, _start, _rate, nsamples = runner.pc2_header(path)
    except (OSError, ValueError) as e:
        raise OSError("drape's point cache is unreadable: %s" % e)
    if nverts != state.nverts:
        what = "%r has" % state.obj_name if len(state.parts) == 1 else "the %d cloth objects have" % len(state.parts)
        raise OSError("drape wrote %d vertices but %s %d after their modifiers. Fix: report this with the "
                      ".blend (the vertex order must be kept)" % (nverts, what, state.nverts))
    if nsamples < 1:
        raise OSError("drape wrote no frames")
    return nsamples


def _write_local_pc2(src, dst, invs, offset=0, count=None):
    """Writes the points offset..offset+count of src (all by default) to dst,
    mapped by invs, the 4x4 matrices from world to object space per sample
    (the last one for any further samples), so the Mesh Cache modifier gets
    object coordinates of a moving object, and one object's points of a
    bake of several."""
    import struct
    import numpy as np
    nverts = runner.pc2_header(src)[0]
    with open(src, "rb") as f:
        head = f.read(32)
        pts = np.fromfile(f, dtype="<f4")
    if count is None:
        count = nverts - offset
    p = pts.reshape(-1, nverts, 3)[:, offset:offset + count].astype(np.float64)
    q = np.empty_like(p)
    for k in range(p.shape[0]):
        m = np.array([list(r) for r in invs[min(k, len(invs) - 1)]], dtype=np.float64)
        q[k] = p[k] @ m[:3, :3].T + m[:3, 3]
    head = head[:16] + struct.pack("<i", count) + head[20:]
    with open(dst + ".tmp", "wb") as f:
        f.write(head)
        q.astype("<f4").tofile(f)
    os.replace(dst + ".tmp", dst)


def _is_identity(m, tol=1e-9):
    return all(abs(m[i][j] - (1.0 if i == j else 0.0)) <= tol for i in range(4) for j in range(4))


def finish(context, state, code):
    """Ends a bake: on exit 0 swaps the files in and attaches the cache to the
    object. Returns (ok, message)."""
    job = state.job
    stderr = job.process.stderr_text() if job.process else ""
    if code != runner.EXIT_OK:
        job.discard()
        return False, runner.exit_message(code, stderr)
    objs = [bpy.data.objects.get(p["name"]) for p in state.parts]
    for p, o in zip(state.parts, objs):
        if o is None:
            job.discard()
            return False, "object %r was deleted or renamed during the bake; nothing was attached" % p["name"]
    # every object but the first gets its points in a folder of its own,
    # swapped in after the first's
    others = []
    try:
        nsamples = _check_pc2(state)
        src = os.path.join(job.staging, sx.PC2_NAME)
        pc2s = []
        for k, p in enumerate(state.parts):
            folder = job.staging
            if k > 0:
                final, stored = sx.cache_dir(objs[k])
                others.append((runner.BakeJob(final), stored))
                folder = others[-1][0].staging
                for name in (sx.GLB_NAME, sx.USD_NAME):
                    shutil.copyfile(os.path.join(job.staging, name), os.path.join(folder, name))
            if len(state.parts) == 1 and all(_is_identity(m) for m in p["matrices"]):
                pc2s.append(sx.PC2_NAME)
                continue
            _write_local_pc2(src, os.path.join(folder, LOCAL_PC2_NAME), [m.inverted_safe() for m in p["matrices"]],
                             p["offset"], p["nverts"])
            pc2s.append(LOCAL_PC2_NAME)
        for pj, _stored in others:
            pj.commit([LOCAL_PC2_NAME, sx.GLB_NAME, sx.USD_NAME])
        job.commit([sx.PC2_NAME, sx.GLB_NAME, sx.USD_NAME])
    except (OSError, ValueError) as e:
        job.discard()
        for pj, _stored in others:
            pj.discard()
        return False, str(e)
    state.drape_warnings = [w for w in drape_warnings(job)
                            if w not in state.warnings and not quality.is_quality_warning(w)]
    state.warnings = state.warnings + state.drape_warnings
    rep = drape_report(job)
    q_ok, q_summary, state.quality_failed = quality.certificate(rep, state.start)
    substeps = rep.get("substeps") if isinstance(rep.get("substeps"), int) else 0
    stored = [state.stored_dir] + [st for _pj, st in others]
    for k, o in enumerate(objs):
        attach(context, o, state, pc2s[k], stored[k])
        o.drape.baked_frames = nsamples
        o.drape.bake_warning = "; ".join(state.warnings)
        o.drape.baked_substeps = substeps
        o.drape.quality_ok = q_ok
        o.drape.quality_summary = q_summary
        o.drape.quality_warning = "\n".join(state.quality_failed)
    names = ", ".join(repr(o.name) for o in objs)
    return True, "baked %d frames of %s in %.1f s" % (nsamples, names, time.monotonic() - job.started)


def drape_report(job):
    """Returns the report of drape's --json result, or {}."""
    res = getattr(job.process, "result", None) if job.process else None
    rep = res.get("report") if isinstance(res, dict) else None
    return rep if isinstance(rep, dict) else {}


def drape_warnings(job):
    """Returns the warnings drape's --json result lists in its report (a
    bending stiffness the substeps cannot resolve, pins attached to a
    collider that does not move, ...), or [] without one."""
    res = getattr(job.process, "result", None) if job.process else None
    rep = res.get("report") if isinstance(res, dict) else None
    ws = rep.get("warnings") if isinstance(rep, dict) else None
    return [w for w in ws if isinstance(w, str)] if isinstance(ws, list) else []


def attach(context, obj, state, pc2_name, stored_dir):
    """Points obj's Drape Cache modifier (Mesh Cache) at the bake's pc2_name
    in stored_dir, and sets the scene's frame range to the bake. A new one
    goes at the end of the stack; one from an earlier bake stays where it is,
    so modifiers after it (left out of the bake's input, see
    scene_export.input_muted) still apply to the result."""
    m = sx.drape_modifier(obj)
    if m is None:
        m = obj.modifiers.new(sx.MODIFIER_NAME, 'MESH_CACHE')
    m.show_viewport = m.show_render = True
    m.cache_format = 'PC2'
    m.filepath = stored_dir + "/" + pc2_name
    m.time_mode = 'FRAME'
    m.play_mode = 'SCENE'
    m.frame_start = float(state.start)
    m.frame_scale = 1.0
    m.deform_mode = 'OVERWRITE'
    m.interpolation = 'LINEAR'
    m.forward_axis = 'POS_Y'
    m.up_axis = 'POS_Z'
    try:
        m.flip_axis = set()  # Blender 3.x: an enum set
    except (TypeError, ValueError):
        m.flip_axis = (False, False, False)  # 4.x and newer: three booleans
    m.factor = 1.0
    obj.drape.cache_dir = stored_dir
    scene = context.scene
    scene.frame_start = state.start
    scene.frame_end = state.end
    fps = state.data["fps"]
    if abs(fps - sx.scene_fps(scene)) > 1e-6:
        scene.render.fps = max(1, round(fps))
        scene.render.fps_base = scene.render.fps / fps


def _report_error(op, msg):
    op.report({'ERROR'}, "Drape: " + msg)


def _report_done(op, state, msg):
    """Reports a finished bake: drape's warnings, each quality bound it
    missed, then what it baked."""
    for w in state.drape_warnings:
        op.report({'WARNING'}, "Drape: " + w)
    for line in state.quality_failed:
        op.report({'WARNING'}, "Drape: quality: " + line)
    op.report({'INFO'}, "Drape: " + msg)


def _status(context, text):
    ws = getattr(context, "workspace", None)
    if ws is not None:
        try:
            ws.status_text_set(text)
        except (AttributeError, RuntimeError, TypeError):
            pass


def _redraw(context):
    wm = context.window_manager
    for win in wm.windows:
        for area in win.screen.areas:
            if area.type in {'PROPERTIES', 'STATUSBAR', 'VIEW_3D'}:
                area.tag_redraw()


class DRAPE_OT_bake(bpy.types.Operator):
    """Bake the active mesh as cloth with drape (Esc cancels)"""
    bl_idname = "drape.bake"
    bl_label = "Bake Cloth"
    bl_options = {'REGISTER'}

    _timer = None
    _state = None

    @classmethod
    def poll(cls, context):
        why = bake_refusal(context.object)
        if why and hasattr(cls, "poll_message_set"):
            cls.poll_message_set(why)
        return not why

    def _prepare(self, context):
        obj = context.object
        try:
            state, argv = prepare(context, obj)
        except (sx.ExportError, runner.BinaryError, OSError) as e:
            _report_error(self, str(e))
            return None, None
        for w in state.warnings:
            self.report({'WARNING'}, "Drape: " + w)
        return state, argv

    def execute(self, context):
        """Bakes synchronously (headless, or when called from a script)."""
        state, argv = self._prepare(context)
        if state is None:
            return {'CANCELLED'}
        _jobs[state.obj_name] = state

        def on_line(stream, line):
            obj = runner.parse_json_line(line)
            if runner.is_progress(obj):
                print("drape: %s frame %s/%s" % (state.obj_name, obj.get("frame"), obj.get("frames", "?")),
                      flush=True)
            elif stream == "stderr" and bpy.app.background:
                print(line, flush=True)
        try:
            code = runner.run_sync(state.job, argv, on_line=on_line)
        except KeyboardInterrupt:
            state.job.cancel()
            raise
        finally:
            _jobs.pop(state.obj_name, None)
        if state.job.cancelled_by:
            self.report({'WARNING'}, "Drape: bake of %r cancelled by %s; the object is unchanged"
                        % (state.obj_name, state.job.cancelled_by))
            print("drape: bake of %r cancelled by %s; drape stopped, its files removed"
                  % (state.obj_name, state.job.cancelled_by), flush=True)
            return {'CANCELLED'}
        ok, msg = finish(context, state, code)
        if not ok:
            _report_error(self, msg)
            return {'CANCELLED'}
        _report_done(self, state, msg)
        return {'FINISHED'}

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        state, argv = self._prepare(context)
        if state is None:
            return {'CANCELLED'}
        try:
            state.job.start(argv)
        except OSError as e:
            state.job.discard()
            _report_error(self, "could not start drape: %s" % e)
            return {'CANCELLED'}
        _jobs[state.obj_name] = state
        self._state = state
        wm = context.window_manager
        wm.drape_progress = 0.0
        wm.progress_begin(0, 100)
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        _status(context, "Drape: baking %s (Esc to cancel)" % state.obj_name)
        return {'RUNNING_MODAL'}

    def _end(self, context):
        wm = context.window_manager
        if self._timer is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()
        wm.drape_progress = 0.0
        _status(context, None)
        _jobs.pop(self._state.obj_name, None)
        _redraw(context)

    def cancel(self, context):
        """Called by Blender when the window closes mid-bake."""
        if self._state is not None:
            self._state.job.cancel()
            self._end(context)

    def modal(self, context, event):
        try:
            return self._modal(context, event)
        except Exception as e:  # never leave drape running or files behind
            self._state.job.cancel()
            self._end(context)
            _report_error(self, "bake of %r stopped by an add-on error: %r" % (self._state.obj_name, e))
            raise

    def _modal(self, context, event):
        state = self._state
        if (event.type == 'ESC' and event.value == 'PRESS') or state.cancel_requested:
            state.job.cancel()
            self._end(context)
            self.report({'WARNING'}, "Drape: bake of %r cancelled; the object is unchanged" % state.obj_name)
            return {'CANCELLED'}
        if event.type != 'TIMER':
            return {'PASS_THROUGH'}
        proc = state.job.process
        proc.poll()
        frame, frames = state.job.frame()
        pct = 100.0 * frame / frames if frames else 0.0
        wm = context.window_manager
        wm.drape_progress = pct
        wm.progress_update(int(pct))
        p = proc.progress or {}
        eta = p.get("eta_s")
        state.status = "frame %d/%d%s" % (frame, frames, ", %.0f s left" % eta if isinstance(eta, (int, float)) else "")
        _status(context, "Drape: baking %s, %s (Esc to cancel)" % (state.obj_name, state.status))
        _redraw(context)
        if not proc.finished():
            return {'PASS_THROUGH'}
        code = proc.wait()
        self._end(context)
        ok, msg = finish(context, state, code)
        if not ok:
            _report_error(self, msg)
            return {'CANCELLED'}
        _report_done(self, state, msg)
        return {'FINISHED'}


class DRAPE_OT_cancel(bpy.types.Operator):
    """Stop the running drape bake; the object stays as it was"""
    bl_idname = "drape.cancel"
    bl_label = "Cancel Bake"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        return bool(_jobs)

    def execute(self, context):
        state = job_of(context.object) or any_job()
        if state is None:
            return {'CANCELLED'}
        state.cancel_requested = True
        return {'FINISHED'}


def free_bake(obj):
    """Removes obj's drape modifier and cache folder. Returns the removed
    folder or ""."""
    m = sx.drape_modifier(obj)
    if m is not None:
        obj.modifiers.remove(m)
    folder = ""
    if obj.drape.cache_dir:
        folder = os.path.normpath(bpy.path.abspath(obj.drape.cache_dir))
        runner.remove_tree(folder)
    obj.drape.cache_dir = ""
    obj.drape.baked_frames = 0
    obj.drape.bake_warning = ""
    obj.drape.baked_substeps = 0
    obj.drape.quality_ok = True
    obj.drape.quality_summary = ""
    obj.drape.quality_warning = ""
    return folder


class DRAPE_OT_clear(bpy.types.Operator):
    """Free the drape bake: remove its Mesh Cache modifier and its files"""
    bl_idname = "drape.clear"
    bl_label = "Free Bake"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and job_of(obj) is None and (bool(obj.drape.cache_dir) or
                                                             sx.drape_modifier(obj) is not None)

    def execute(self, context):
        folder = free_bake(context.object)
        self.report({'INFO'}, "Drape: freed the bake%s" % (" and deleted " + folder if folder else ""))
        return {'FINISHED'}


def read_pc2_numpy(path):
    """Returns (nverts, nsamples, array of shape (nsamples, nverts, 3))."""
    import warnings
    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not hasattr(np, "bool"):
            np.bool = bool  # Blender 3.4's bundled modules still use numpy.bool (removed in numpy 1.24)
    nverts, _start, _rate, nsamples = runner.pc2_header(path)
    with open(path, "rb") as f:
        f.seek(32)
        arr = np.fromfile(f, dtype="<f4", count=nverts * nsamples * 3)
    return nverts, nsamples, arr.reshape(nsamples, nverts, 3)


class DRAPE_OT_to_shape_keys(bpy.types.Operator):
    """Turn the baked cache into one shape key per frame (for exporters that need shape keys); slow for long bakes"""
    bl_idname = "drape.to_shape_keys"
    bl_label = "Convert to Shape Keys"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and sx.drape_modifier(obj) is not None and not _jobs

    def execute(self, context):
        obj = context.object
        m = sx.drape_modifier(obj)
        path = bpy.path.abspath(m.filepath)
        try:
            nverts, nsamples, arr = read_pc2_numpy(path)
        except (OSError, ValueError) as e:
            _report_error(self, "cannot read %s: %s" % (path, e))
            return {'CANCELLED'}
        if nverts != len(obj.data.vertices):
            _report_error(self, "the cache has %d vertices, the mesh %d (modifiers above Drape Cache change the "
                          "count). Fix: apply those modifiers and bake again" % (nverts, len(obj.data.vertices)))
            return {'CANCELLED'}
        start = int(round(m.frame_start))
        if obj.data.shape_keys is None:
            obj.shape_key_add(name="Basis", from_mix=False)
        keys = obj.data.shape_keys
        keys.use_relative = True
        for i in range(nsamples):
            sk = obj.shape_key_add(name="drape_%04d" % (start + i), from_mix=False)
            sk.data.foreach_set("co", arr[i].ravel())
            f = start + i
            for fr, val in ((f - 1, 0.0), (f, 1.0), (f + 1, 0.0)):
                if fr < start or fr >= start + nsamples:
                    continue
                sk.value = val
                sk.keyframe_insert("value", frame=fr)
        obj.modifiers.remove(m)
        self.report({'INFO'}, "Drape: %d shape keys on %r; the Mesh Cache modifier was removed" % (nsamples, obj.name))
        return {'FINISHED'}


def _export_baked(op, context, name, what):
    """Copy the baked file name from the active object's cache to op.filepath."""
    src = os.path.join(bpy.path.abspath(context.object.drape.cache_dir), name)
    if not os.path.isfile(src):
        _report_error(op, "no baked %s at %s. Fix: bake again" % (what, src))
        return {'CANCELLED'}
    try:
        shutil.copyfile(src, op.filepath)
    except OSError as e:
        _report_error(op, "cannot write %s: %s" % (op.filepath, e))
        return {'CANCELLED'}
    op.report({'INFO'}, "Drape: saved %s" % op.filepath)
    return {'FINISHED'}


class DRAPE_OT_export_gltf(bpy.types.Operator, ExportHelper):
    """Save drape's own baked .glb for game engines (morph-target animation, Y-up; at most 64 targets)"""
    bl_idname = "drape.export_gltf"
    bl_label = "Export glTF for Engines"
    filename_ext = ".glb"
    filter_glob: StringProperty(default="*.glb", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and bool(obj.drape.cache_dir)

    def execute(self, context):
        return _export_baked(self, context, sx.GLB_NAME, "glTF")


class DRAPE_OT_export_usd(bpy.types.Operator, ExportHelper):
    """Save drape's own baked USD point cache for pipelines (.usdc: cloth and colliders per frame)"""
    bl_idname = "drape.export_usd"
    bl_label = "Export USD"
    filename_ext = ".usdc"
    filter_glob: StringProperty(default="*.usdc", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and bool(obj.drape.cache_dir)

    def execute(self, context):
        return _export_baked(self, context, sx.USD_NAME, "USD")


class DRAPE_OT_check_binary(bpy.types.Operator):
    """Run `drape version` with the chosen binary and show the result"""
    bl_idname = "drape.check_binary"
    bl_label = "Check drape"

    def execute(self, context):
        try:
            path, version = runner.find_binary(
                bpy.path.abspath(addon_prefs(context).drape_path) if addon_prefs(context).drape_path else "",
                os.path.dirname(os.path.abspath(__file__)))
        except runner.BinaryError as e:
            addon_prefs(context).status = str(e)
            _report_error(self, str(e))
            return {'CANCELLED'}
        addon_prefs(context).status = "drape %s at %s" % (".".join(map(str, version)), path)
        self.report({'INFO'}, "Drape: " + addon_prefs(context).status)
        return {'FINISHED'}


class DRAPE_OT_check_mesh(bpy.types.Operator):
    """Look for non-manifold edges and vertices and for vertices that start inside a collider (every bake also does)"""
    bl_idname = "drape.check_mesh"
    bl_label = "Check Mesh"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH'

    def execute(self, context):
        obj = context.object
        edges, verts, ins = meshcheck.check(context, obj)
        s = obj.drape
        msg = "%d non-manifold edges, %d non-manifold vertices, %d vertices inside colliders%s" % (
            len(edges), len(verts), s.inside_verts, " (%s)" % s.inside_colliders if s.inside_colliders else "")
        self.report({'WARNING'} if edges or verts or ins else {'INFO'}, "Drape: %s: %s" % (obj.name, msg))
        _redraw(context)
        return {'FINISHED'}


class DRAPE_OT_select_problems(bpy.types.Operator):
    """Select the non-manifold edges and vertices and the vertices inside colliders in Edit Mode"""
    bl_idname = "drape.select_problems"
    bl_label = "Select Them"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and not _jobs

    def execute(self, context):
        obj = context.object
        edges, verts, ins = meshcheck.check(context, obj)
        nv, ne = meshcheck.select(context, obj, edges, verts, ins)
        self.report({'INFO'}, "Drape: selected %d vertices and %d edges of %r" % (nv, ne, obj.name))
        return {'FINISHED'}


classes = (DRAPE_OT_bake, DRAPE_OT_cancel, DRAPE_OT_clear, DRAPE_OT_to_shape_keys, DRAPE_OT_export_gltf,
           DRAPE_OT_export_usd, DRAPE_OT_check_binary, DRAPE_OT_check_mesh, DRAPE_OT_select_problems)
