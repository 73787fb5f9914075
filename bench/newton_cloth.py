"""Bake one benchmark scene with NVIDIA Newton's cloth, headless.

    python bench/newton_cloth.py --cloth grid64.obj [--scale 1] \
        (--sphere 0.5 | --body body.obj) [--self-collision] \
        --solver vbd|xpbd|style3d [--device cpu] [--frames 120] [--fps 24] \
        [--thickness M] --out newton.pc2 --timing newton.json

Runs in the virtual environment the bench creates (tools/venv-newton, the
pinned newton and warp-lang). The cloth and collider OBJs are drape's inputs
(Y-up, in the files' units times --scale = metres). Only their `v` and `f`
lines are read; polygons are split into fans. Vertices at the same position
are welded (as drape welds them), the welded mesh is simulated, and every
frame is written to a PC2 in the OBJ's vertex order, Y-up, in the OBJ's
units, as drape writes its PC2 (in drape's case in Blender's axes).

The physical setup follows drape's cotton preset (bench/README.md lists
what each solver can and cannot match and why each Newton-only parameter has
the value it has): 150 g/m², a membrane of 1e4 N/m Young's modulus times
thickness, bending rigidity 9.8e-6 N·m, friction 0.5, the cloth kept its
thickness (a fifth of the mean edge length, 1..5 mm, drape's default) off the
collider and, with --self-collision, off itself; gravity 9.81 m/s² along -y.
Substeps and iterations are those of Newton's own cloth examples (10 substeps
of a 60 fps frame, i.e. 1/600 s, and 10 iterations).

Only the solver's steps (collision detection included) are timed, after
Warp's kernels are compiled: a throw-away model of the same kind is stepped
once first, so that the first frame does not pay the compilation (which
Warp caches on disk between runs anyway). Writes --timing JSON with
seconds_per_frame = simulated time / (frames - 1).
"""

import argparse
import json
import math
import os
import struct
import sys
import time


def read_obj(path, scale):
    verts, tris = [], []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            s = line.split()
            if not s:
                continue
            if s[0] == "v":
                verts.append(tuple(float(t) * scale for t in s[1:4]))
            elif s[0] == "f":
                idx = []
                for t in s[1:]:
                    i = int(t.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(verts) + i)
                if len(idx) < 3:
                    raise ValueError("%s:%d: face with %d vertices" % (path, ln, len(idx)))
                for k in range(1, len(idx) - 1):
                    tris.append((idx[0], idx[k], idx[k + 1]))
    return verts, tris


def weld(verts, tris):
    """Welds vertices at the same position; returns the welded positions and
    triangles and the map from file vertex to welded vertex (-1: unused)."""
    used = sorted({i for t in tris for i in t})
    where, pos, fmap = {}, [], [-1] * len(verts)
    for i in used:
        k = where.setdefault(verts[i], len(pos))
        if k == len(pos):
            pos.append(verts[i])
        fmap[i] = k
    out = []
    for t in tris:
        w = tuple(fmap[i] for i in t)
        if len(set(w)) == 3:
            out.append(w)
    return pos, out, fmap


def mean_edge(pos, tris):
    s, n = 0.0, 0
    for t in tris:
        for k in range(3):
            a, b = pos[t[k]], pos[t[(k + 1) % 3]]
            s += math.dist(a, b)
            n += 1
    return s / max(1, n)


def write_pc2(path, frames, n):
    with open(path, "wb") as f:
        f.write(struct.pack("<12siiffi", b"POINTCACHE2\0", 1, n, 0.0, 1.0, len(frames)))
        for fr in frames:
            f.write(fr)


# drape's cotton preset (bake/presets.go)
DENSITY = 0.15  # kg/m²
STRETCH = 1.0e4  # N/m, Young's modulus times thickness
SHEAR = 0.6 * 56.19  # N/m
BEND = 0.10 * 9.80665e-5  # N·m
FRICTION = 0.5
# Newton's cloth examples: 10 substeps of a 60 fps frame, 10 iterations
SUBSTEP_DT = 1.0 / 600.0
ITERATIONS = 10
# penalty contact of VBD and Style3D (N/m, N·s/m): Newton's cloth-on-robot
# example (example_cloth_franka) uses 1e4 and 1e1
CONTACT_KE = 1.0e4
CONTACT_KD = 1.0e1
# largest ke dt² / m of Newton's XPBD springs kept (see build)
XPBD_STABLE = 0.1
# solver settings the timing JSON reports
NOTES = {}


def build(a, wp, newton, np, pos, tris, thickness, h, dt):
    """Builds the model and the stepping function for one solver."""
    builder = newton.ModelBuilder(up_axis=newton.Axis.Y, gravity=(0.0, -9.81, 0.0))
    cfg = builder.default_shape_cfg
    cfg.ke, cfg.kd, cfg.mu = CONTACT_KE, CONTACT_KD, FRICTION
    if a.solver == "style3d":
        newton.solvers.SolverStyle3D.register_custom_attributes(builder)
    flat = [i for t in tris for i in t]
    common = dict(pos=wp.vec3(0.0, 0.0, 0.0), rot=wp.quat_identity(), vel=wp.vec3(0.0, 0.0, 0.0),
                  vertices=[wp.vec3(*p) for p in pos], indices=flat, density=DENSITY, particle_radius=thickness)
    if a.solver == "vbd":
        # Lamé parameters of an isotropic membrane with Young's modulus x
        # thickness STRETCH and Poisson's ratio 1/3 (lambda = mu, as every
        # Newton cloth example sets tri_ka = tri_ke): E = 8 mu / 3.
        mu = 3.0 * STRETCH / 8.0
        # hinge energy 1/2 edge_ke L theta^2 against the continuous
        # 1/2 B kappa^2 over the hinge's strip (theta ~ kappa h): edge_ke = B / h
        builder.add_cloth_mesh(scale=1.0, tri_ke=mu, tri_ka=mu, tri_kd=1.5e-6 * mu,
                               edge_ke=BEND / h, edge_kd=0.1 * BEND / h, **common)
        builder.color(include_bending=True)
    elif a.solver == "xpbd":
        # Newton's XPBD cloth is a spring per mesh edge (its hanging-cloth
        # example); a spring of stiffness k along a grid row gives the sheet
        # k N/m, so cotton would be spring_ke = STRETCH. But Newton's XPBD
        # sums every constraint's full correction (Jacobi), which diverges
        # once a vertex's springs are stiff against its mass: ke dt² / m of
        # 0.44 blew the 32 x 32 grid up on touching the sphere, 0.04 did not,
        # and the hanging-cloth example runs at 0.03. So the springs get the
        # stiffest stable value, 0.1 m / dt² for the lightest vertex, or
        # cotton's if that is softer. Bending: compliance 1 / edge_ke per
        # hinge angle, energy 1/2 edge_ke theta^2 = 1/2 B kappa^2 L h: edge_ke = B.
        builder.add_cloth_mesh(scale=1.0, tri_ke=0.0, tri_ka=0.0, tri_kd=0.0, edge_ke=BEND, edge_kd=0.0,
                               add_springs=True, spring_ke=1.0, spring_kd=0.0, **common)
        m = np.array(builder.particle_mass)
        ke = min(STRETCH, XPBD_STABLE * m[m > 0].min() / dt**2)
        builder.spring_stiffness = [ke] * len(builder.spring_stiffness)
        NOTES["spring_ke"] = ke
    else:  # style3d: anisotropic membrane (weft, warp, shear) in the rest (panel) plane
        from newton.solvers import style3d

        # Style3D takes the rest shape as 2D sewing panels; the benchmark
        # grids are flat in the xz plane, a garment OBJ has no panels
        if any(abs(p[1] - pos[0][1]) > 1e-9 for p in pos):
            raise ValueError("Style3D needs the cloth's 2D sewing panels; %s is not flat" % a.cloth)
        panel = [(p[0], -p[2]) for p in pos]
        c = dict(common)
        style3d.add_cloth_mesh(builder, scale=1.0, panel_verts=panel, panel_indices=flat,
                               tri_aniso_ke=wp.vec3(STRETCH, STRETCH, SHEAR),
                               edge_aniso_ke=wp.vec3(BEND, BEND, BEND), **c)
    if a.sphere > 0:
        builder.add_shape_sphere(-1, xform=wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat_identity()), radius=a.sphere)
    else:
        bv, bt = read_obj(a.body, a.scale)
        mesh = newton.Mesh(bv, [i for t in bt for i in t])
        builder.add_shape_mesh(-1, mesh=mesh)
    model = builder.finalize(device=a.device)
    model.soft_contact_ke = CONTACT_KE
    model.soft_contact_kd = CONTACT_KD
    model.soft_contact_mu = FRICTION

    # contacts are looked for within a thickness of the surface
    pipeline = newton.CollisionPipeline(model, soft_contact_gap=thickness)
    contacts = pipeline.contacts()
    if a.solver == "vbd":
        kw = {}
        if a.self_collision:
            kw = dict(particle_enable_self_contact=True, particle_self_contact_margin=thickness,
                      particle_self_contact_gap=thickness)
        solver = newton.solvers.SolverVBD(model, iterations=ITERATIONS, **kw)
    elif a.solver == "xpbd":
        solver = newton.solvers.SolverXPBD(model, iterations=ITERATIONS)
    else:
        solver = newton.solvers.SolverStyle3D(model, config=newton.solvers.SolverStyle3D.Config(iterations=ITERATIONS))
        # Style3D's one contact model keeps cloth off colliders and off
        # itself (at twice this radius), so it has self-collision in every scene
        solver.collision.radius = thickness
    s0, s1 = model.state(), model.state()
    control = model.control()
    st = [s0, s1]

    def substep(dt):
        st[0].clear_forces()
        pipeline.collide(st[0], contacts)
        solver.step(st[0], st[1], control, contacts, dt)
        st[0], st[1] = st[1], st[0]

    return model, st, substep


def main(argv):
    ap = argparse.ArgumentParser(prog="newton_cloth.py")
    ap.add_argument("--cloth", required=True)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--sphere", type=float, default=0.0, help="radius of the sphere collider at the origin [m]")
    ap.add_argument("--body", default="", help="OBJ mesh collider, same units as the cloth")
    ap.add_argument("--self-collision", action="store_true")
    ap.add_argument("--solver", choices=["vbd", "xpbd", "style3d"], default="vbd")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--fps", type=int, default=24)
    ap.add_argument("--thickness", type=float, default=0.0, help="cloth thickness [m]; 0: drape's default")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timing", required=True)
    a = ap.parse_args(argv)
    if (a.sphere > 0) == bool(a.body):
        ap.error("give exactly one of --sphere and --body")
    if a.frames < 2:
        ap.error("--frames must be at least 2")

    t0 = time.perf_counter()
    import numpy as np
    import warp as wp

    import newton

    wp.config.quiet = True
    wp.init()
    try:
        wp.get_device(a.device)
    except RuntimeError as e:
        sys.stderr.write("newton_cloth.py: --device %s: %s (use --device cpu here)\n" % (a.device, e))
        sys.exit(2)
    verts, tris = read_obj(a.cloth, a.scale)
    pos, wtris, fmap = weld(verts, tris)
    h = mean_edge(pos, wtris)
    thickness = a.thickness if a.thickness > 0 else min(0.005, max(0.001, 0.2 * h))

    frame_dt = 1.0 / a.fps
    # an even count: a captured frame must end on the state it began with
    n_sub = 2 * max(1, math.ceil(frame_dt / SUBSTEP_DT / 2))
    dt = frame_dt / n_sub

    # compile every kernel on a throw-away copy of the scene, so the timed
    # frames do not include Warp's first-use compilation
    tc = time.perf_counter()
    _, _, warm = build(a, wp, newton, np, pos, wtris, thickness, h, dt)
    warm(dt)
    wp.synchronize()
    compile_s = time.perf_counter() - tc

    model, st, substep = build(a, wp, newton, np, pos, wtris, thickness, h, dt)

    def simulate():
        for _ in range(n_sub):
            substep(dt)

    # Newton's examples record a frame's substeps once and replay the
    # recording (a CUDA graph, or Warp's CPU API capture); Style3D makes host
    # calls a CPU capture cannot record, so it runs its steps directly there
    graph = None
    if a.solver != "style3d" or not wp.get_device(a.device).is_cpu:
        with wp.ScopedCapture(device=a.device) as cap:
            simulate()
        graph = cap.graph
    setup = time.perf_counter() - t0

    fidx = np.array([max(i, 0) for i in fmap], dtype=np.int64)
    unused = np.array([i < 0 for i in fmap])
    rest = np.array(verts, dtype=np.float64)

    def frame_bytes(q):
        out = q[fidx].astype(np.float64)
        out[unused] = rest[unused]
        return (out / a.scale).astype("<f4").tobytes()

    frames = [frame_bytes(st[0].particle_q.numpy())]
    sim = 0.0
    for f in range(1, a.frames):
        t = time.perf_counter()
        if graph is not None:
            wp.capture_launch(graph)
        else:
            simulate()
        q = st[0].particle_q.numpy()  # synchronizes
        sim += time.perf_counter() - t
        if not np.isfinite(q).all():
            raise RuntimeError("frame %d: non-finite particle positions (the solver blew up)" % (f + 1))
        frames.append(frame_bytes(q))
        if a.frames >= 10 and f % max(1, a.frames // 10) == 0:
            sys.stderr.write("newton_cloth.py: frame %d/%d, %.1f s\n" % (f + 1, a.frames, sim))
    write_pc2(a.out, frames, len(verts))
    info = {
        "newton": newton.__version__,
        "warp": wp.config.version,
        "device": str(wp.get_device(a.device)),
        "solver": a.solver,
        "vertices": len(pos),
        "triangles": len(wtris),
        "frames": a.frames,
        "substeps": n_sub,
        "iterations": ITERATIONS,
        "captured": graph is not None,
        "thickness_m": thickness,
        "mean_edge_m": h,
        "compile_s": compile_s,
        "setup_s": setup,
        "simulate_s": sim,
        "seconds_per_frame": sim / (a.frames - 1),
        **NOTES,
    }
    with open(a.timing, "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception:
        import traceback

        traceback.print_exc()
        sys.exit(1)
