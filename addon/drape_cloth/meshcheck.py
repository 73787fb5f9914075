"""The cloth's mesh check before a bake: non-manifold edges and vertices,
and vertices that start inside a collider. Shown in the panel, run by Check
Mesh and by every bake; Select Them selects what it found in Edit Mode.

It reads the object's own mesh (the vertices Edit Mode selects) placed by its
world matrix at the current frame. Colliders are tested against their own
evaluated meshes (a Plane collider: below its plane, which is infinite);
drape fits its analytic shapes to the same objects and reports, in the bake's
warnings, how many vertices start inside those shapes."""

import bmesh
from mathutils.bvhtree import BVHTree

from . import scene_export as sx


def nonmanifold(mesh):
    """Returns (edge indices, vertex indices) of mesh's non-manifold parts:
    edges with more than two faces, and vertices where faces meet only at the
    vertex (two fans joined at a tip). Boundary edges (a sheet's border) and
    loose edges (sewing seams) are normal for cloth and not reported."""
    bm = bmesh.new()
    try:
        bm.from_mesh(mesh)
        edges = [e.index for e in bm.edges if len(e.link_faces) > 2]
        verts = [v.index for v in bm.verts
                 if v.link_faces and not v.is_manifold
                 and not any(e.is_wire or len(e.link_faces) > 2 for e in v.link_edges)]
        return edges, verts
    finally:
        bm.free()


def _visible(context, obj):
    try:
        return obj.visible_get(view_layer=context.view_layer)
    except (TypeError, RuntimeError):
        return not obj.hide_get()


def inside(context, obj, points):
    """Returns {collider name: [indices of points inside it]} for the
    visible mesh colliders of the scene; points are world positions."""
    dg = context.evaluated_depsgraph_get()
    out = {}
    for col in sx.colliders(context, obj):
        if col.type != 'MESH' or not _visible(context, col):
            continue
        to_local = col.matrix_world.inverted_safe()
        hits = []
        if col.drape.collider_shape == 'PLANE':
            for i, p in enumerate(points):
                if (to_local @ p).z < 0.0:
                    hits.append(i)
        else:
            tree = BVHTree.FromObject(col.evaluated_get(dg), dg)
            for i, p in enumerate(points):
                q = to_local @ p
                loc, normal, _idx, _dist = tree.find_nearest(q)
                if loc is not None and (q - loc).dot(normal) < 0.0:
                    hits.append(i)
        if hits:
            out[col.name] = hits
    return out


def check(context, obj):
    """Runs the check on obj, stores its counts on obj.drape for the panel
    and returns (edge indices, vertex indices, {collider: vertex indices})."""
    if obj.mode == 'EDIT':
        obj.update_from_editmode()
    mesh = obj.data
    edges, verts = nonmanifold(mesh)
    mw = obj.matrix_world
    ins = inside(context, obj, [mw @ v.co for v in mesh.vertices])
    s = obj.drape
    s.check_done = True
    s.nonmanifold_edges = len(edges)
    s.nonmanifold_verts = len(verts)
    s.inside_verts = len(set(i for hits in ins.values() for i in hits))
    s.inside_colliders = ", ".join("%s (%d)" % (name, len(hits)) for name, hits in sorted(ins.items()))
    return edges, verts, ins


def select(context, obj, edges, verts, ins):
    """Selects the found edges and vertices of obj's mesh (and nothing
    else) and enters Edit Mode in vertex and edge select mode."""
    import bpy
    if obj.mode == 'EDIT':
        bpy.ops.object.mode_set(mode='OBJECT')
    mesh = obj.data
    vsel = set(verts)
    for hits in ins.values():
        vsel.update(hits)
    esel = set(edges)
    for e in mesh.edges:
        if e.index in esel:
            vsel.update(e.vertices)
    mesh.polygons.foreach_set("select", [False] * len(mesh.polygons))
    mesh.edges.foreach_set("select", [e.index in esel for e in mesh.edges])
    mesh.vertices.foreach_set("select", [i in vsel for i in range(len(mesh.vertices))])
    mesh.update()
    context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    context.tool_settings.mesh_select_mode = (True, True, False)
    return len(vsel), len(esel)
