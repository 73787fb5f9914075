"""Writing a drape scene from Blender: the evaluated cloth mesh as OBJ (glTF's
Y-up axes, Blender's vertex order), colliders fitted to objects (by the CLI,
`drape fit-collider`), and the scene JSON of docs/scene.md.

Axes: Blender is Z-up, drape is Y-up; a Blender point (x, y, z) is (x, z, -y)
for drape. The PC2 drape writes comes back in Blender's axes and vertex order.
"""

import hashlib
import json
import os
import re
import tempfile

import bpy
from mathutils import Quaternion, Vector

from . import runner

CACHE_FOLDER = "drape_cache"
PC2_NAME = "cloth.pc2"
GLB_NAME = "cloth.glb"
USD_NAME = "cloth.usdc"
OBJ_NAME = "cloth.obj"
PINS_PC2_NAME = "pins.pc2"
SCENE_NAME = "scene.json"
MODIFIER_NAME = "Drape Cache"


class ExportError(Exception):
    """ExportError is a setting that cannot be baked; its message says why and
    how to fix it."""


def to_gltf(v):
    """Returns a Blender vector (x, y, z) in glTF axes: (x, z, -y)."""
    return [float(v[0]), float(v[2]), -float(v[1])]


def quat_to_gltf(q):
    """Returns a Blender rotation quaternion (w, x, y, z) in glTF axes as
    drape's [x, y, z, w]. The axis change is a proper rotation, so the vector
    part maps like a point."""
    q = q.normalized()
    return [float(q.x), float(q.z), -float(q.y), float(q.w)]


def scale_to_gltf(s):
    """Returns a per-axis scale in glTF axes (Y and Z swap, no sign)."""
    return [float(s[0]), float(s[2]), float(s[1])]


def _r(x):
    return round(float(x), 7)


def _rl(v):
    return [_r(x) for x in v]


def sanitize(name):
    """Returns name reduced to [A-Za-z0-9_-] (at most 40 characters)."""
    s = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")
    return (s or "object")[:40]


def cache_key(name):
    """Returns the folder name of an object's bake: its sanitized name plus a
    short hash of the full name, so "Cloth.001" and "Cloth_001" never clash."""
    return "%s_%s" % (sanitize(name), hashlib.sha1(name.encode("utf-8")).hexdigest()[:8])


def cache_dir(obj):
    """Returns (absolute folder, folder as stored on the object) of obj's bake:
    //drape_cache/<key> beside a saved .blend, else <temp>/drape_cache/
    blender_<pid>/<key>, one folder per running Blender, so two unsaved files
    open at once never share a bake."""
    key = cache_key(obj.name)
    if bpy.data.filepath:
        stored = "//" + CACHE_FOLDER + "/" + key
        return os.path.normpath(bpy.path.abspath(stored)), stored
    path = os.path.join(tempfile.gettempdir(), CACHE_FOLDER, "blender_%d" % os.getpid(), key)
    return path, path


def frame_range(scene, settings):
    """Returns (start, end) of the bake: the scene's or the object's own."""
    if settings.use_scene_range:
        return scene.frame_start, scene.frame_end
    return settings.frame_start, settings.frame_end


def scene_fps(scene):
    return scene.render.fps / scene.render.fps_base


def drape_modifier(obj):
    """Returns the Mesh Cache modifier of obj's drape bake, or None."""
    for m in obj.modifiers:
        if m.type == 'MESH_CACHE' and m.name.startswith(MODIFIER_NAME):
            return m
    return None


def input_muted(obj):
    """Returns the modifiers of obj that the export hides while it reads the
    cloth: its Drape Cache and every modifier after it that is shown in the
    viewport. The bake's input is the mesh as the stack before the Drape
    Cache makes it, never the last bake's output nor what is stacked on it
    (those modifiers apply to the baked result as they did before)."""
    d = drape_modifier(obj)
    if d is None:
        return []
    mods = list(obj.modifiers)
    i = next(k for k, m in enumerate(mods) if m.name == d.name)
    return [m for m in mods[i:] if m.show_viewport]


def pin_target_problem(context, cloth):
    """Returns why the Pin To target of cloth cannot carry its pinned
    vertices in a bake in context's scene, as (what is wrong with it, how to
    fix that), or None when it can or cloth pins nothing to a target. The
    target must be a collider the bake exports: a mesh of this scene whose
    Drape Role is Collider, and visible (Blender does not evaluate an object
    disabled in viewports or in an excluded collection, so the motion its
    pins are to follow would be lost)."""
    s = cloth.drape
    t = s.pin_target
    if t is None or not s.pin_group:
        return None
    if context.scene.objects.get(t.name) != t:
        return ("is not in scene %r" % context.scene.name, "link %r into this scene" % t.name)
    if t.type != 'MESH':
        return ("is a %s, not a mesh" % t.type.lower(), "pick a mesh collider")
    if t.drape.role != 'COLLIDER':
        role = t.drape.bl_rna.properties["role"].enum_items[t.drape.role].name
        return ("has Drape Role %s, not Collider" % role, "set the Drape Role of %r to Collider" % t.name)
    if not t.visible_get():
        return ("is hidden", "show %r (unhide it, enable it in viewports, include its collection)" % t.name)
    return None


def pin_attach(obj):
    """Returns the name of the collider that obj's pinned vertices ride on
    (its Pin To, given a Pin Group), or None."""
    s = obj.drape
    return s.pin_target.name if s.pin_group and s.pin_target is not None else None


def validate(context, obj):
    """Raises ExportError when obj cannot be baked as it is set up."""
    if obj is None:
        raise ExportError("no active object. Fix: select the mesh to bake as cloth")
    if obj.type != 'MESH':
        raise ExportError("%r is a %s, not a mesh. Fix: bake a mesh object as cloth" % (obj.name, obj.type.lower()))
    s = obj.drape
    scene = context.scene
    start, end = frame_range(scene, s)
    if end < start:
        raise ExportError("frame range %d..%d of %r is empty. Fix: set End >= Start" % (start, end, obj.name))
    if end - start + 1 > 100000:
        raise ExportError("frame range %d..%d is %d frames: drape bakes at most 100000" % (start, end, end - start + 1))
    if scene_fps(scene) <= 0:
        raise ExportError("scene frame rate is %g. Fix: set a positive frame rate in Output Properties"
                          % scene_fps(scene))
    if s.pin_group and s.pin_group not in obj.vertex_groups:
        names = ", ".join(repr(g.name) for g in obj.vertex_groups) or "none"
        raise ExportError("pin group %r is not a vertex group of %r (it has: %s). Fix: pick an existing group "
                          "in Drape Cloth > Pin Group, or clear it" % (s.pin_group, obj.name, names))
    if s.use_wind and Vector(s.wind_direction).length < 1e-9:
        raise ExportError("wind direction of %r is zero. Fix: give the wind a direction" % obj.name)
    if not obj.data.polygons:
        raise ExportError("%r has no faces. Fix: bake a mesh with faces" % obj.name)
    for o in cloth_partners(context, obj):
        if o.drape.pin_group and o.drape.pin_group not in o.vertex_groups:
            raise ExportError("pin group %r is not a vertex group of %r, a cloth baked with %r. Fix: pick an existing "
                              "group in its Drape Cloth > Pin Group, clear it, or set its Drape Role to None"
                              % (o.drape.pin_group, o.name, obj.name))
        if not o.data.polygons:
            raise ExportError("%r, a cloth baked with %r, has no faces. Fix: give it faces or set its Drape Role "
                              "to None" % (o.name, obj.name))
    for o in [obj] + cloth_partners(context, obj):
        problem = pin_target_problem(context, o)
        if problem is not None:
            what, fix = problem
            baked = "" if o == obj else ", a cloth baked with %r," % obj.name
            raise ExportError("Pin To of %r%s is %r, which %s: pinned vertices ride only on a visible mesh collider "
                              "of the bake. Fix: %s, or clear Pin To" % (o.name, baked, o.drape.pin_target.name, what,
                                                                         fix))
    for c in colliders(context, obj):
        if c.drape.collider_shape != 'MESH' and c.type not in ('MESH', 'CURVE', 'SURFACE', 'META', 'FONT'):
            raise ExportError("collider %r is a %s without a size. Fix: use a mesh object as collider, or set its "
                              "Drape Role to None" % (c.name, c.type.lower()))


def colliders(context, cloth):
    """Returns the scene's objects with the Collider role, in name order."""
    return sorted((o for o in context.scene.objects if o.drape.role == 'COLLIDER' and o != cloth),
                  key=lambda o: o.name)


def write_obj(path, parts, loose=False):
    """Writes cloth meshes as one OBJ in glTF axes. parts lists (mesh, matrix,
    name, groups, default) per object, in order: its v lines in Blender
    vertex order (transformed by matrix) after the previous parts', vt per
    distinct UV of its active layer, and its f lines, each face under the
    usemtl group of its material slot (groups[slot], see slot_groups), or
    under default (None: no usemtl) where the mesh has no such slot. With
    loose, its loose edges become l lines (the seams drape sews). Returns
    the set of groups some face was written under."""
    lines = ["# drape cloth export from Blender (Y-up: Blender (x, y, z) -> (x, z, -y))"]
    voff, uv_index, used = 0, {}, set()
    for mesh, matrix, name, groups, default in parts:
        lines.append("o " + name)
        for v in mesh.vertices:
            lines.append("v %.7g %.7g %.7g" % tuple(to_gltf(matrix @ v.co)))
        uv_layer = mesh.uv_layers.active
        corner_uv = []
        if uv_layer is not None:
            data = uv_layer.data
            for li in range(len(mesh.loops)):
                uv = data[li].uv
                key = (round(uv[0], 7), round(uv[1], 7))
                ix = uv_index.get(key)
                if ix is None:
                    ix = len(uv_index) + 1
                    uv_index[key] = ix
                    lines.append("vt %.7g %.7g" % key)
                corner_uv.append(ix)
        polys = sorted(mesh.polygons, key=lambda p: (p.material_index, p.index))
        current = ""
        for p in polys:
            g = groups[p.material_index] if p.material_index < len(groups) else default
            if g is not None and g != current:
                current = g
                used.add(g)
                lines.append("usemtl " + g)
            if corner_uv:
                corners = ["%d/%d" % (mesh.loops[li].vertex_index + 1 + voff, corner_uv[li]) for li in p.loop_indices]
            else:
                corners = [str(mesh.loops[li].vertex_index + 1 + voff) for li in p.loop_indices]
            lines.append("f " + " ".join(corners))
        if loose:
            for e in mesh.edges:
                if e.is_loose:
                    lines.append("l %d %d" % (e.vertices[0] + 1 + voff, e.vertices[1] + 1 + voff))
        voff += len(mesh.vertices)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return used


def cloth_group(k, obj):
    """Returns the OBJ material group of the k-th cloth object of a bake of
    several (its faces without a material), the prefix of its slots'."""
    return "cloth%d_%s" % (k, sanitize(obj.name))


def slot_groups(k, obj, mesh, many):
    """Returns the OBJ usemtl group of each material slot of mesh, the k-th
    cloth object obj's, and the group of its faces without a material: the
    material's name (slotN without one) in a bake of one object, prefixed
    with cloth_group in a bake of several (so each object's faces are its
    own, and regions can give them the object's fabric)."""
    groups = []
    for j, mat in enumerate(mesh.materials):
        base = sanitize(mat.name) if mat else "slot%d" % j
        groups.append(cloth_group(k, obj) + "_" + base if many else base)
    return groups, (cloth_group(k, obj) if many else None)


def fabric_regions(cloths, meshes, slots, used):
    """Returns the scene's regions for cloths (their evaluated meshes in
    meshes, each one's slot_groups in slots), in OBJ group order, for the
    groups in used (those some face was written under, see write_obj): in a
    bake of several objects each other object's groups take its fabric; any
    group whose material has its own Drape Fabric takes that preset."""
    regions, seen = [], set()
    for k, (o, me, (groups, default)) in enumerate(zip(cloths, meshes, slots)):
        for g, mat in list(zip(groups, me.materials)) + [(default, None)]:
            if g is None or g in seen or g not in used:
                continue
            if mat is not None:
                mat = mat.original  # the evaluated copy may predate a setting changed since
            seen.add(g)
            own = mat is not None and mat.drape_fabric != 'CLOTH'
            if own:
                fabric = {"preset": mat.drape_fabric}
            elif k > 0:
                fabric = fabric_of(o.drape)
            else:
                continue
            regions.append({"name": o.name + (" / " + mat.name if mat is not None else ""), "material": g,
                            "fabric": fabric})
    return regions


def cloth_partners(context, cloth):
    """Returns the scene's other visible mesh objects with the Cloth role, in
    name order: a bake of cloth bakes them with it, so that they collide
    (a hidden one, such as a spare copy, is left out)."""
    return sorted((o for o in context.scene.objects
                   if o.drape.role == 'CLOTH' and o.type == 'MESH' and o != cloth and o.visible_get()),
                  key=lambda o: o.name)


def fabric_of(s):
    """Returns the fabric entry of an object's drape settings."""
    fabric = {"preset": s.fabric}
    for key in ("density", "stretch", "shear", "bend", "damping", "drag"):
        if getattr(s, "use_" + key):
            fabric[key] = _r(getattr(s, key))
    return fabric


def pins(obj, mesh, group_name):
    """Returns the pin entry of the vertices of group_name with weight > 0, or
    None. mesh is the evaluated mesh, whose vertex order the OBJ has."""
    group = obj.vertex_groups.get(group_name)
    if group is None:
        return None
    gi = group.index
    indices, weights = [], []
    for v in mesh.vertices:
        for g in v.groups:
            if g.group == gi and g.weight > 0:
                indices.append(v.index)
                weights.append(_r(min(1.0, g.weight)))
    if not indices:
        raise ExportError("pin group %r of %r has no vertex with weight > 0. Fix: assign the vertices to hold "
                          "(Edit Mode > Object Data > Vertex Groups > Assign), or clear Pin Group"
                          % (group_name, obj.name))
    return {"indices": indices, "weights": weights}


def _decompose(m):
    loc, rot, scale = m.decompose()
    return loc, rot, scale


def _local_points(obj_eval, scale):
    """Returns the evaluated mesh vertices of a collider in its scaled local
    frame (object scale applied, rotation and location not)."""
    me = obj_eval.to_mesh()
    try:
        return [Vector((v.co.x * scale.x, v.co.y * scale.y, v.co.z * scale.z)) for v in me.vertices]
    finally:
        obj_eval.to_mesh_clear()


def from_gltf(v):
    """Returns a glTF-axes point [x, y, z] as a Blender Vector (x, -z, y)."""
    return Vector((float(v[0]), -float(v[2]), float(v[1])))


def fit_shape(obj, obj_eval, shape, scale, drape, folder):
    """Returns the collider dict of shape fitted to the evaluated object, in
    its scaled local frame, with points as Blender Vectors (converted later).
    drape fits it (`drape fit-collider`, as it fits a glTF input's collider
    nodes; `drape colliders` says how) to the object's mesh written into
    folder for the call; MESH is the mesh itself."""
    pts = _local_points(obj_eval, scale)
    if not pts:
        raise ExportError("collider %r has no vertices. Fix: give it geometry or set its Drape Role to None" % obj.name)
    if shape == 'MESH':
        return {"type": "mesh", "points": pts}
    path = os.path.join(folder, "fit_%s.obj" % cache_key(obj.name))
    _write_points_obj(path, obj, obj_eval, lambda co: Vector((co.x * scale.x, co.y * scale.y, co.z * scale.z)))
    try:
        spec = runner.cli_json(drape, ["fit-collider", shape.lower(), path, "--json"])
    except runner.CLIError as e:
        raise ExportError("collider %r (%s): %s" % (obj.name, shape.lower(), e))
    finally:
        try:
            os.remove(path)
        except OSError:
            pass
    t = spec.get("type")
    if t == "sphere":
        return {"type": "sphere", "center": from_gltf(spec["center"]), "radius": spec["radius"]}
    if t == "capsule":
        return {"type": "capsule", "a": from_gltf(spec["a"]), "b": from_gltf(spec["b"]), "radius": spec["radius"]}
    if t == "cone":
        return {"type": "cone", "a": from_gltf(spec["a"]), "b": from_gltf(spec["b"]),
                "ra": spec.get("ra", 0.0), "rb": spec.get("rb", 0.0)}
    if t == "plane":
        n = from_gltf(spec["normal"])
        length = n.length
        return {"type": "plane", "point": n * (spec.get("offset", 0.0) / (length * length)),
                "normal_local": n / length}
    if t == "box":
        h = spec["half"]
        return {"type": "box", "center": from_gltf(spec["center"]), "half": Vector((h[0], h[2], h[1]))}
    raise ExportError("collider %r: drape fit-collider %s returned %r" % (obj.name, shape.lower(), t))


def _place(fit, loc, rot):
    """Returns the fitted shape moved to world space by (loc, rot), as drape
    JSON in glTF axes; None when the shape cannot be expressed in world
    coordinates alone (a rotated box)."""
    rm = rot.to_matrix()

    def pt(v):
        return _rl(to_gltf(loc + rm @ v))
    t = fit["type"]
    if t == "sphere":
        return {"type": "sphere", "center": pt(fit["center"]), "radius": _r(fit["radius"])}
    if t == "capsule":
        return {"type": "capsule", "a": pt(fit["a"]), "b": pt(fit["b"]), "radius": _r(fit["radius"])}
    if t == "cone":
        return {"type": "cone", "a": pt(fit["a"]), "b": pt(fit["b"]), "ra": _r(fit["ra"]), "rb": _r(fit["rb"])}
    if t == "plane":
        n = (rm @ fit["normal_local"]).normalized()
        p = loc + rm @ fit["point"]
        return {"type": "plane", "normal": _rl(to_gltf(n)), "offset": _r(n.dot(p))}
    if t == "box":
        if rot.rotation_difference(Quaternion()).angle > 1e-6:
            return None
        return {"type": "box", "center": pt(fit["center"]), "half": _rl(to_gltf_abs(fit["half"]))}
    raise ValueError(t)


def to_gltf_abs(v):
    return [abs(x) for x in to_gltf(v)]


def _local(fit):
    """Returns the fitted shape in its scaled local frame as drape JSON."""
    t = fit["type"]
    if t == "sphere":
        return {"type": "sphere", "center": _rl(to_gltf(fit["center"])), "radius": _r(fit["radius"])}
    if t == "capsule":
        return {"type": "capsule", "a": _rl(to_gltf(fit["a"])), "b": _rl(to_gltf(fit["b"])),
                "radius": _r(fit["radius"])}
    if t == "cone":
        return {"type": "cone", "a": _rl(to_gltf(fit["a"])), "b": _rl(to_gltf(fit["b"])), "ra": _r(fit["ra"]),
                "rb": _r(fit["rb"])}
    if t == "plane":
        n = fit["normal_local"]
        return {"type": "plane", "normal": _rl(to_gltf(n)), "offset": _r(n.dot(fit["point"]))}
    if t == "box":
        return {"type": "box", "center": _rl(to_gltf(fit["center"])), "half": _rl(to_gltf_abs(fit["half"]))}
    raise ValueError(t)


def _write_points_obj(path, obj, obj_eval, transform):
    """Writes a collider's evaluated mesh as OBJ, points mapped by transform
    (a function of a local Vector) then to glTF axes."""
    me = obj_eval.to_mesh()
    try:
        lines = ["# drape collider %s (Y-up)" % obj.name, "o " + sanitize(obj.name)]
        for v in me.vertices:
            lines.append("v %.7g %.7g %.7g" % tuple(to_gltf(transform(v.co))))
        for p in me.polygons:
            lines.append("f " + " ".join(str(i + 1) for i in p.vertices))
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
    finally:
        obj_eval.to_mesh_clear()


def may_move(obj):
    """Reports whether obj's transform can change over time: it or a parent
    has animation data (actions, drivers) or constraints."""
    o = obj
    while o is not None:
        if o.animation_data is not None or len(o.constraints) > 0:
            return True
        o = o.parent
    return False


def sample_matrices(context, objs, start, end):
    """Returns {name: [matrix_world per frame start..end]} sampled with
    frame_set (only for objects that may move; a still one gets its matrix
    at start once), restoring the current frame."""
    scene = context.scene
    cur, sub = scene.frame_current, scene.frame_subframe
    out = {o.name: [] for o in objs}
    moving = [o for o in objs if may_move(o)]
    try:
        scene.frame_set(start)
        for o in objs:
            out[o.name].append(o.matrix_world.copy())
        for f in range(start + 1, end + 1) if moving else ():
            scene.frame_set(f)
            for o in moving:
                out[o.name].append(o.matrix_world.copy())
    finally:
        scene.frame_set(cur, subframe=sub)
    return out


# DEFORM_SAMPLES frames, evenly spread over the bake, are compared to find
# colliders whose mesh deforms; DEFORM_TOL is the movement (relative to the
# object's size) that counts.
DEFORM_SAMPLES = 9
DEFORM_TOL = 1e-3


def _coords(obj, depsgraph):
    """The evaluated mesh vertices of obj in object space (modifiers and
    shape keys applied) as an n x 3 numpy array, or None for an object
    without mesh data."""
    import numpy as np
    obj_eval = obj.evaluated_get(depsgraph)
    try:
        me = obj_eval.to_mesh()
    except RuntimeError:
        return None
    try:
        if me is None:
            return None
        co = np.empty(3 * len(me.vertices), dtype=np.float64)
        me.vertices.foreach_get("co", co)
        return co.reshape(-1, 3)
    finally:
        obj_eval.to_mesh_clear()


def deforming_meshes(context, objs, start, end):
    """Returns {name: (largest movement [m] or inf for a changing vertex
    count, its frame)} for each mesh in objs whose evaluated mesh changes
    shape between frames start and end (an armature, animated shape keys or
    modifiers; a rigid motion of the object does not count). Only objects
    with a modifier shown in the viewport or shape keys are sampled, at
    DEFORM_SAMPLES frames; the current frame is restored."""
    import numpy as np
    cands = [o for o in objs if o.type == 'MESH' and (any(m.show_viewport for m in o.modifiers) or
                                                      o.data.shape_keys is not None)]
    if not cands or end <= start:
        return {}
    scene = context.scene
    cur, sub = scene.frame_current, scene.frame_subframe
    frames = sorted({start + round(k * (end - start) / (DEFORM_SAMPLES - 1)) for k in range(DEFORM_SAMPLES)})
    worst = {}
    try:
        scene.frame_set(start)
        dg = context.evaluated_depsgraph_get()
        first = {o.name: _coords(o, dg) for o in cands}
        for f in frames[1:]:
            scene.frame_set(f)
            dg = context.evaluated_depsgraph_get()
            for o in cands:
                ref = first[o.name]
                now = _coords(o, dg)
                if ref is None or now is None:
                    continue
                if len(now) != len(ref):
                    worst[o.name] = max(worst.get(o.name, (0, f)), (float("inf"), f))
                    continue
                d = float(np.max(np.linalg.norm((now - ref) * np.array(o.matrix_world.to_scale()), axis=1))) if len(ref) else 0.0
                worst[o.name] = max(worst.get(o.name, (0, f)), (d, f))
    finally:
        scene.frame_set(cur, subframe=sub)
    out = {}
    for o in cands:
        d, f = worst.get(o.name, (0, start))
        size = max(o.dimensions) if max(o.dimensions) > 0 else 1.0
        if d > DEFORM_TOL * size:
            out[o.name] = (d, f)
    return out


def deform_warning(obj, d, f, start):
    """The warning for a collider that deforms but cannot follow it."""
    moved = "changes its vertex count" if d == float("inf") else "moves its surface %.3g m" % d
    if d == float("inf"):
        fix = "keep its vertex count constant (apply or drop the modifier that changes it)"
    else:
        fix = "set its shape to Mesh, which follows the deformation, or parent capsule or sphere colliders to the bones"
    return ("collider %r deforms during the bake (frame %d %s from frame %d): as a %s drape moves it as a rigid "
            "shape, so it keeps the shape of frame %d. Fix: %s"
            % (obj.name, f, moved, start, obj.drape.collider_shape.lower(), start, fix))


def _count_error(obj, n0, f0, n, f):
    """The ExportError of a point-cached object whose vertex count changes."""
    if obj.drape.role == 'COLLIDER':
        what, why = "collider", "a mesh collider must keep its vertex count"
        fix = "apply or drop the modifier that changes it"
    else:
        what, why = "cloth", "a cloth whose pins follow its deformation must keep its vertex count"
        fix = "apply or drop the modifier before Drape Cache that changes it, or clear its Pin Group"
    return ExportError("%s %r has %d vertices at frame %d and %d at frame %d: %s. Fix: %s"
                       % (what, obj.name, n0, f0, n, f, why, fix))


def _world_gltf(co, matrix):
    """Returns object-space points co (n x 3 numpy) moved to world space by
    matrix (a 4x4 Blender matrix), in glTF axes, as an n x 3 array."""
    import numpy as np
    m = np.array([list(r) for r in matrix], dtype=np.float64)
    p = co @ m[:3, :3].T + m[:3, 3]
    return np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=1)


def write_pc2(path, samples):
    """Writes samples (one flat array of x, y, z per sample, all of the same
    length) as a PC2 point cache starting at sample 0, one sample a frame."""
    import struct
    with open(path, "wb") as fh:
        fh.write(b"POINTCACHE2\0" + struct.pack("<iiffi", 1, len(samples[0]) // 3, 0.0, 1.0, len(samples)))
        for smp in samples:
            smp.astype("<f4").tofile(fh)


def write_point_caches(context, caches, start, end):
    """Writes, for each (objs, path) of caches, the evaluated meshes of objs
    in world space (glTF axes), one after the other in the vertex order of
    their OBJ, at every frame start..end as a PC2 point cache (sample k =
    frame start + k): one pass over the frames for all of them, restoring
    the current frame. A deforming mesh collider's cache holds its own mesh;
    the pin cache holds every cloth object of the bake, as the cloth OBJ.
    Raises ExportError when a vertex count changes."""
    if not caches:
        return
    import numpy as np
    scene = context.scene
    cur, sub = scene.frame_current, scene.frame_subframe
    samples = {path: [] for _, path in caches}
    counts = {}
    try:
        for f in range(start, end + 1):
            scene.frame_set(f)
            dg = context.evaluated_depsgraph_get()
            for objs, path in caches:
                pts = []
                for obj in objs:
                    co = _coords(obj, dg)
                    n0 = counts.setdefault(obj.name, len(co))
                    if len(co) != n0:
                        raise _count_error(obj, n0, start, len(co), f)
                    pts.append(_world_gltf(co, obj.matrix_world))
                samples[path].append(np.concatenate(pts).ravel())
    finally:
        scene.frame_set(cur, subframe=sub)
    for _, path in caches:
        write_pc2(path, samples[path])


def _same(ms, tol=1e-6):
    m0 = ms[0]
    return all(all(abs(m[i][j] - m0[i][j]) <= tol for i in range(4) for j in range(4)) for m in ms[1:])


def export_collider(depsgraph, obj, mats, fps, folder, drape, cache=None):
    """Returns the drape collider dict of obj, writing a mesh collider's OBJ
    into folder; drape is the CLI that fits the other shapes. mats are obj's world matrices per baked frame. A mesh
    collider that deforms names its point cache of world positions per frame
    (cache, see write_point_caches) instead of keys."""
    s = obj.drape
    obj_eval = obj.evaluated_get(depsgraph)
    loc0, rot0, scale0 = _decompose(mats[0])
    if min(abs(x) for x in scale0) < 1e-12:
        raise ExportError("collider %r has zero scale. Fix: give it a size" % obj.name)
    fit = fit_shape(obj, obj_eval, s.collider_shape, scale0, drape, folder)
    animated = not _same(mats)
    out = None
    if cache is not None:
        name = "collider_%s.obj" % cache_key(obj.name)
        _write_points_obj(os.path.join(folder, name), obj, obj_eval, lambda co: mats[0] @ co)
        out = {"type": "mesh", "path": name, "up": "y", "cache": cache}
        animated = False
    elif fit["type"] == "mesh":
        name = "collider_%s.obj" % cache_key(obj.name)
        if animated:
            _write_points_obj(os.path.join(folder, name), obj, obj_eval,
                              lambda co: Vector((co.x * scale0.x, co.y * scale0.y, co.z * scale0.z)))
        else:
            _write_points_obj(os.path.join(folder, name), obj, obj_eval, lambda co: mats[0] @ co)
        out = {"type": "mesh", "path": name, "up": "y"}
    elif not animated:
        out = _place(fit, loc0, rot0)
    static_keys = out is None  # a rotated box: local shape and one key
    if out is None:
        out = _local(fit)
    if animated or static_keys:
        keys = []
        for i, m in enumerate(mats if animated else mats[:1]):
            loc, rot, scale = _decompose(m)
            key = {"time": _r(i / fps), "translation": _rl(to_gltf(loc)), "rotation": _rl(quat_to_gltf(rot))}
            ratio = [scale[k] / scale0[k] for k in range(3)]
            if any(abs(r - 1) > 1e-6 for r in ratio):
                key["scale"] = _rl(scale_to_gltf(ratio))
            keys.append(key)
        out["keys"] = keys
    out["name"] = obj.name
    if s.use_collider_friction:
        out["friction"] = _r(s.collider_friction)
    if s.collider_thickness > 0:
        out["thickness"] = _r(s.collider_thickness)
    return out


def follow_keys(mats, fps):
    """Returns the drape keys (glTF axes) of the rigid motion that takes the
    first of mats (world matrices, one per frame) to each of the others: the
    motion a pinned vertex makes when it rides on the moving object."""
    inv0 = mats[0].inverted_safe()
    keys = []
    for i, m in enumerate(mats):
        loc, rot, scale = (m @ inv0).decompose()
        key = {"time": _r(i / fps), "translation": _rl(to_gltf(loc)), "rotation": _rl(quat_to_gltf(rot))}
        if any(abs(x - 1) > 1e-6 for x in scale):
            key["scale"] = _rl(scale_to_gltf(scale))
        keys.append(key)
    return keys


def pins_deform(cloths, deforming, start):
    """Returns whether the pins of the bake must follow a point cache: some
    cloth object with a Pin Group and no Pin To is in deforming (see
    deforming_meshes, sampled with the Drape Cache modifiers hidden). Raises
    ExportError when such an object changes its vertex count."""
    out = False
    for o in cloths:
        if not o.drape.pin_group or pin_attach(o) or o.name not in deforming:
            continue
        d, f = deforming[o.name]
        if d == float("inf"):
            raise ExportError("cloth %r has another vertex count at frame %d than at frame %d: its pinned vertices "
                              "cannot follow its deformation. Fix: apply or drop the modifier before Drape Cache that "
                              "changes the vertex count, or clear its Pin Group" % (o.name, f, start))
        out = True
    return out


def export(context, obj, folder, warnings=None, drape=None):
    """Writes the cloth OBJ, collider OBJs and the scene JSON of obj into
    folder, evaluating everything at the first baked frame. The scene's
    other Cloth objects (cloth_partners) are baked with obj, after it in the
    OBJ, each a fabric region of its own with its own pins, so that the
    garments collide (with obj's Self Collision). Returns (scene_path, scene
    dict, parts): per baked object in OBJ order a dict of its name, first
    vertex ("offset"), vertex count and world matrix per baked frame; and
    appends to warnings (a list) what the bake will not follow (deforming
    colliders; partners without self-collision). A cloth object with a Pin
    To (pin_attach) has its pin entry ride on that collider ("attach"),
    whatever the object itself does. Otherwise a cloth object that moves
    (animated, parented, constrained) takes its pinned vertices along; when
    one with a Pin Group deforms (an armature, animated shape keys, hooks
    before its Drape Cache), each pin entry without a Pin To follows the
    cloth meshes' world positions per frame instead, a point cache of the
    whole OBJ (PINS_PC2_NAME). The cloth is read without its Drape Cache
    modifier and those after it (input_muted). drape is the CLI, which fits
    the colliders' shapes (fit_shape). Changes nothing in the .blend: those
    modifiers are hidden only during evaluation and the frame is restored."""
    validate(context, obj)
    s = obj.drape
    scene = context.scene
    start, end = frame_range(scene, s)
    fps = scene_fps(scene)
    cols = colliders(context, obj)
    cloths = [obj] + cloth_partners(context, obj)
    mats = sample_matrices(context, cols + cloths, start, end)
    cloth_mats = []
    for o in cloths:
        m = mats.pop(o.name)
        cloth_mats.append(m * (end - start + 1) if len(m) == 1 else m)

    cur, sub = scene.frame_current, scene.frame_subframe
    muted = [m for o in cloths for m in input_muted(o)]
    parts, pin_entries, regions = [], [], []
    try:
        for m in muted:
            m.show_viewport = False
        deforming = deforming_meshes(context, cols + [o for o in cloths if o.drape.pin_group and not pin_attach(o)],
                                     start, end)
        caches = {}  # collider name: its point cache's file name
        for c in cols:
            if c.name not in deforming:
                continue
            d, f = deforming[c.name]
            if c.drape.collider_shape == 'MESH' and d != float("inf"):
                caches[c.name] = "collider_%s.pc2" % cache_key(c.name)
            elif warnings is not None:
                warnings.append(deform_warning(c, d, f, start))
        if len(cloths) > 1 and not s.self_collision and warnings is not None:
            warnings.append("%s baked with %r: they pass through each other unless %r has Self Collision on"
                            % (", ".join(repr(o.name) for o in cloths[1:]), obj.name, obj.name))
        pin_cache = PINS_PC2_NAME if pins_deform(cloths, deforming, start) else None
        scene.frame_set(start)
        depsgraph = context.evaluated_depsgraph_get()
        evals, meshes = [], []
        try:
            for o in cloths:
                oe = o.evaluated_get(depsgraph)
                evals.append(oe)
                meshes.append(oe.to_mesh())
            many = len(cloths) > 1
            slots = [slot_groups(k, o, me, many) for k, (o, me) in enumerate(zip(cloths, meshes))]
            used = write_obj(os.path.join(folder, OBJ_NAME),
                             [(me, cloth_mats[k][0], sanitize(o.name)) + slots[k]
                              for k, (o, me) in enumerate(zip(cloths, meshes))], loose=s.use_sewing)
            regions = fabric_regions(cloths, meshes, slots, used)
            off = 0
            for k, (o, me) in enumerate(zip(cloths, meshes)):
                parts.append({"name": o.name, "offset": off, "nverts": len(me.vertices), "matrices": cloth_mats[k]})
                if o.drape.pin_group:
                    pin = pins(o, me, o.drape.pin_group)
                    if off:
                        pin["indices"] = [i + off for i in pin["indices"]]
                    if pin_attach(o):
                        pin["attach"] = pin_attach(o)
                    elif pin_cache:
                        pin["cache"] = pin_cache
                    elif not _same(cloth_mats[k]):
                        pin["keys"] = follow_keys(cloth_mats[k], fps)
                    pin_entries.append(pin)
                off += len(me.vertices)
        finally:
            for oe in evals:
                oe.to_mesh_clear()
        point_caches = [([c], os.path.join(folder, caches[c.name])) for c in cols if c.name in caches]
        if pin_cache:
            point_caches.append((cloths, os.path.join(folder, pin_cache)))
        write_point_caches(context, point_caches, start, end)
        collider_json = [export_collider(depsgraph, c, mats[c.name], fps, folder, drape, caches.get(c.name)) for c in cols]
    finally:
        for m in muted:
            m.show_viewport = True
        scene.frame_set(cur, subframe=sub)

    data = {
        "input": OBJ_NAME,
        "up": "y",
        "output": [PC2_NAME, GLB_NAME, USD_NAME],
        "frames": end - start + 1,
        "fps": _r(fps),
        "fabric": fabric_of(s),
        "self_collision": bool(s.self_collision),
    }
    if regions:
        data["regions"] = regions
    if s.substeps > 0:
        data["substeps"] = int(s.substeps)
    if s.sleep:
        data["sleep"] = True
    if s.use_thickness:
        data["thickness"] = _r(s.thickness)
    if s.use_friction:
        data["friction"] = _r(s.friction)
    if s.use_volume:
        data["volume"] = _r(s.volume)
    if s.use_sewing:
        data["sewing"] = _r(s.sewing_speed)
    if pin_entries:
        data["pins"] = pin_entries
    if collider_json:
        data["colliders"] = collider_json
    if s.use_wind:
        d = Vector(s.wind_direction).normalized()
        data["wind"] = {"direction": _rl(to_gltf(d)), "speed": _r(s.wind_speed), "gust": _r(s.wind_gust),
                        "turbulence": _r(s.wind_turbulence)}
    path = os.path.join(folder, SCENE_NAME)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    return path, data, parts
