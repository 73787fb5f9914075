"""The modal bake in Blender with a UI (run under Xvfb by addon_test.go):

  xvfb-run -a -s '-screen 0 1280x800x24' blender --factory-startup --python addon/tests/ui_check.py -- \
      --zip drape_cloth.zip --fake addon/tests/fake_drape.py --work DIR

Installs the add-on, makes a cloth plane the active object, opens
Properties > Physics, starts drape.bake with INVOKE_DEFAULT (the modal
operator on its 0.1 s timer) against a slow fake CLI, takes a screenshot
mid-bake, cancels with drape.cancel and checks that nothing changed and no
file is left, then bakes to the end a cloth whose strain bound is missed
(the fake's certificate says so, or with --drape the real drape at Quality 2)
and takes a second screenshot, of the panel with the quality warning. Writes
DIR/ui_result.json ({"ok": bool, "log": [...]}) and quits.
"""

import argparse
import json
import os
import shutil
import stat
import sys
import time
import traceback

import bpy

MOD = "drape_cloth"
argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
ap = argparse.ArgumentParser()
ap.add_argument("--zip", required=True)
ap.add_argument("--fake", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--drape", default="", help="a real drape binary for the second (completed) bake")
ap.add_argument("--quit-mid-bake", action="store_true",
                help="quit Blender (File > Quit) while the slow bake runs, after writing drape's pid and the "
                     "staging folder to the result; addon_test.go checks that neither is left")
ARGS = ap.parse_args(argv)
os.makedirs(ARGS.work, exist_ok=True)
LOG = []
STATE = {"step": "open", "t": time.monotonic()}


def log(msg):
    LOG.append(msg)
    print("ui_check: " + msg, flush=True)


def done(ok, **extra):
    with open(os.path.join(ARGS.work, "ui_result.json"), "w") as f:
        json.dump(dict({"ok": ok, "log": LOG}, **extra), f, indent=1)
    bpy.ops.wm.quit_blender()


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def props_area():
    win = bpy.context.window_manager.windows[0]
    for area in win.screen.areas:
        if area.type == 'PROPERTIES':
            return win, area
    raise AssertionError("no Properties editor in the default layout")


def ops():
    return sys.modules[MOD + ".operators"]


def cache_root():
    return bpy.path.abspath("//drape_cache")


def screenshot(name, area=None):
    """Saves the window, and the Properties editor (or area) cropped from it."""
    win, props = props_area()
    area = area or props
    region = next(r for r in area.regions if r.type == 'WINDOW')
    path = os.path.join(ARGS.work, name)
    with bpy.context.temp_override(window=win, area=area, region=region):
        bpy.ops.screen.screenshot(filepath=path)
    img = bpy.data.images.load(path)
    try:
        import numpy as np
        w, h = img.size
        px = np.array(img.pixels[:], dtype=np.float32).reshape(h, w, 4)
        crop = px[area.y:area.y + area.height, area.x:area.x + area.width].copy()
        out = bpy.data.images.new("panel", area.width, area.height, alpha=True)
        out.pixels.foreach_set(crop.ravel())
        out.filepath_raw = path.replace(".png", "_panel.png")
        out.file_format = 'PNG'
        out.save()
        bpy.data.images.remove(out)
    finally:
        bpy.data.images.remove(img)
    log("screenshot " + path)


def setup():
    bpy.ops.preferences.addon_install(filepath=os.path.abspath(ARGS.zip), overwrite=True)
    bpy.ops.preferences.addon_enable(module=MOD)
    fake = os.path.join(ARGS.work, "drape")
    with open(ARGS.fake) as f:
        src = f.read().replace("#!/usr/bin/env python3", "#!" + (shutil.which("python3") or sys.executable), 1)
    with open(fake, "w") as f:
        f.write(src)
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    bpy.context.preferences.addons[MOD].preferences.drape_path = fake
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.4, location=(0, 0, 0.4))
    bpy.context.active_object.name = "Ball"
    bpy.context.active_object.drape.role = 'COLLIDER'
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=12, y_subdivisions=12, size=1.6, location=(0, 0, 1))
    cloth = bpy.context.active_object
    cloth.name = "Cloth"
    cloth.drape.role = 'CLOTH'
    g = cloth.vertex_groups.new(name="Pins")
    g.add([0, 1, 2], 1.0, 'REPLACE')
    cloth.drape.pin_group = "Pins"
    bpy.context.scene.frame_end = 40
    win, area = props_area()
    area.spaces.active.context = 'PHYSICS'
    STATE["cloth"] = cloth.name
    STATE["before"] = [tuple(v.co) for v in cloth.data.vertices]


def invoke_bake():
    win, area = props_area()
    region = next(r for r in area.regions if r.type == 'WINDOW')
    cloth = bpy.data.objects["Cloth"]
    with bpy.context.temp_override(window=win, area=area, region=region, object=cloth, active_object=cloth):
        res = bpy.ops.drape.bake('INVOKE_DEFAULT')
    check(res == {'RUNNING_MODAL'}, "drape.bake INVOKE_DEFAULT returned %r, want RUNNING_MODAL" % res)


def tick():
    try:
        return step()
    except Exception:
        log(traceback.format_exc())
        done(False)
        return None


def step():
    s = STATE["step"]
    cloth = bpy.data.objects.get("Cloth")
    waited = time.monotonic() - STATE["t"]
    if waited > 60:
        raise AssertionError("step %s timed out" % s)
    if s == "open":
        path = os.path.join(ARGS.work, "ui.blend")
        bpy.ops.wm.save_as_mainfile(filepath=path)
        STATE.update(step="setup", t=time.monotonic())
        bpy.ops.wm.open_mainfile(filepath=path)  # closes the splash screen
        return 0.5
    if s == "setup":
        setup()
        os.environ["FAKE_DRAPE_MODE"] = "slow"
        invoke_bake()
        STATE.update(step="baking_slow", t=time.monotonic())
        log("modal bake started (slow fake)")
    elif s == "baking_slow":
        job = ops()._jobs.get("Cloth")
        check(job is not None, "no running job after invoke")
        frame, frames = job.job.frame()
        if frame < 4:
            return 0.1
        check(bpy.context.window_manager.drape_progress > 0, "panel progress still 0 at frame %d" % frame)
        log("progress %d/%d, panel %.0f%%, status %r" % (frame, frames, bpy.context.window_manager.drape_progress,
                                                          job.status))
        if ARGS.quit_mid_bake:
            log("quitting Blender mid-bake")
            done(True, pid=job.job.process.proc.pid, staging=job.job.staging)
            return None
        screenshot("baking.png")
        res = bpy.ops.drape.cancel()
        check(res == {'FINISHED'}, "drape.cancel returned %r" % res)
        STATE.update(step="cancelled", t=time.monotonic())
    elif s == "cancelled":
        if ops()._jobs:
            return 0.1
        check([m.type for m in cloth.modifiers] == [], "cancel left modifiers %r" % [m.type for m in cloth.modifiers])
        check(cloth.drape.cache_dir == "", "cancel set cache_dir %r" % cloth.drape.cache_dir)
        check([tuple(v.co) for v in cloth.data.vertices] == STATE["before"], "cancel changed the mesh")
        left = os.listdir(cache_root()) if os.path.isdir(cache_root()) else []
        check(left == [], "cancel left files in %s: %r" % (cache_root(), left))
        log("cancel left the object and the disk unchanged")
        os.environ["FAKE_DRAPE_MODE"] = "ok"
        os.environ["FAKE_DRAPE_QUALITY"] = "fail"
        if ARGS.drape:
            bpy.context.preferences.addons[MOD].preferences.drape_path = os.path.abspath(ARGS.drape)
            cloth.drape.substeps = 2  # too few for cotton: the bake stretches past its strain bound
        invoke_bake()
        STATE.update(step="baking_ok", t=time.monotonic())
    elif s == "baking_ok":
        if ops()._jobs:
            return 0.1
        mods = [m for m in cloth.modifiers if m.type == 'MESH_CACHE']
        check(len(mods) == 1, "no Mesh Cache after the modal bake")
        check(os.path.isfile(bpy.path.abspath(mods[0].filepath)), "cache file %s missing" % mods[0].filepath)
        log("modal bake attached %s" % mods[0].filepath)
        s_ = cloth.drape
        log("quality: ok %s, warning %r, summary %r" % (s_.quality_ok, s_.quality_warning, s_.quality_summary))
        check(not s_.quality_ok and "exceeds its bound" in s_.quality_warning,
              "the panel has no warning for the missed strain bound: %r" % s_.quality_warning)
        bpy.context.scene.frame_set(40)
        win = bpy.context.window_manager.windows[0]
        for area in win.screen.areas:
            if area.type == 'VIEW_3D':
                region = next(r for r in area.regions if r.type == 'WINDOW')
                with bpy.context.temp_override(window=win, area=area, region=region):
                    bpy.ops.view3d.view_all()
        STATE.update(step="shot", t=time.monotonic())
        return 0.5
    elif s == "shot":
        screenshot("baked.png")
        # the 3D view becomes a wide Properties editor on the Physics tab:
        # the panel's lines as an artist who widens the editor reads them
        win = bpy.context.window_manager.windows[0]
        big = max(win.screen.areas, key=lambda a: a.width * a.height)
        big.type = 'PROPERTIES'
        STATE.update(step="physics_tab", t=time.monotonic(), area=big)
        return 0.5
    elif s == "physics_tab":
        STATE["area"].spaces.active.context = 'PHYSICS'  # its tabs exist once it has been drawn
        STATE.update(step="shot_panel", t=time.monotonic())
        return 0.5
    elif s == "shot_panel":
        screenshot("quality_panel.png", STATE["area"])
        done(True)
        return None
    return 0.1


bpy.app.timers.register(tick, first_interval=1.0, persistent=True)
