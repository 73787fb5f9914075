"""Unit tests of drape_cloth/runner.py (no Blender): python3 -m unittest
discover -s addon/tests -p 'test_runner.py'. They drive tests/fake_drape.py,
a stand-in CLI that follows docs/scene.md."""

import json
import os
import shutil
import stat
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "drape_cloth"))

import quality  # noqa: E402
import runner  # noqa: E402


def make_fake(dirpath, version=None):
    """Copies the fake CLI into dirpath as an executable `drape`, optionally
    wrapped to print another version."""
    path = os.path.join(dirpath, "drape")
    with open(os.path.join(HERE, "fake_drape.py")) as f:
        src = f.read()
    if version:
        src = src.replace('os.environ.get("FAKE_DRAPE_VERSION", "0.1.0")', repr(version))
    src = src.replace("#!/usr/bin/env python3", "#!" + sys.executable, 1)
    with open(path, "w") as f:
        f.write(src)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def write_scene(dirpath, frames=5):
    """Writes a 2-triangle quad OBJ (Y-up) and a scene pinning vertex 0."""
    with open(os.path.join(dirpath, "cloth.obj"), "w") as f:
        f.write("v 0 1 0\nv 1 1 0\nv 1 1 -1\nv 0 1 -1\nf 1 2 3\nf 1 3 4\n")
    scene = {"input": "cloth.obj", "up": "y", "output": ["cloth.pc2", "cloth.glb"], "frames": frames,
             "fps": 24, "pins": [{"indices": [0], "weights": [1.0]}]}
    path = os.path.join(dirpath, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    return path


class Env:
    """Sets FAKE_DRAPE_MODE for one test."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.old = os.environ.get("FAKE_DRAPE_MODE")
        os.environ["FAKE_DRAPE_MODE"] = self.mode

    def __exit__(self, *a):
        if self.old is None:
            os.environ.pop("FAKE_DRAPE_MODE", None)
        else:
            os.environ["FAKE_DRAPE_MODE"] = self.old


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="drape_runner_")
        self.bin = make_fake(self.tmp)
        self.final = os.path.join(self.tmp, "cache", "Plane_0123abcd")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start_job(self, frames=5):
        job = runner.BakeJob(self.final)
        scene = write_scene(job.staging, frames)
        job.frames = frames
        return job, runner.bake_argv(self.bin, scene)

    def test_cli_json(self):
        # the real drape (FAKE_DRAPE_REAL, which go test ./addon builds) fits
        # a box to a tetrahedron; the fake alone cannot, and says so
        obj = os.path.join(self.tmp, "tet.obj")
        with open(obj, "w") as f:
            f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 2\nf 1 2 3\nf 1 2 4\n")
        real = os.environ.pop("FAKE_DRAPE_REAL", None)
        try:
            with self.assertRaises(runner.CLIError) as cm:
                runner.cli_json(self.bin, ["fit-collider", "box", obj, "--json"])
            self.assertIn("FAKE_DRAPE_REAL", str(cm.exception))
        finally:
            if real is not None:
                os.environ["FAKE_DRAPE_REAL"] = real
        if real is None:
            self.skipTest("FAKE_DRAPE_REAL unset: run through go test ./addon, which builds drape")
        box = runner.cli_json(self.bin, ["fit-collider", "box", obj, "--json"])
        self.assertEqual(box, {"type": "box", "center": [0.5, 0.5, 1], "half": [0.5, 0.5, 1]})
        with self.assertRaises(runner.CLIError) as cm:
            runner.cli_json(self.bin, ["fit-collider", "torus", obj, "--json"])
        self.assertIn("exit 2", str(cm.exception))
        listing = runner.cli_json(self.bin, ["presets", "--json"])
        self.assertIn("cotton", [p["name"] for p in listing["presets"]])
        self.assertEqual(listing["defaults"]["fabric"], "cotton")

    def test_parse_json_line(self):
        cases = [
            ('{"frame": 3, "frames": 10}', True, False),
            ('{"ok": true, "outputs": []}', False, True),
            ("drape: error", False, False),
            ("{not json}", False, False),
            ("[1,2]", False, False),
        ]
        for line, prog, res in cases:
            with self.subTest(line=line):
                obj = runner.parse_json_line(line)
                self.assertEqual(runner.is_progress(obj), prog, "is_progress(%r)" % line)
                self.assertEqual(runner.is_result(obj), res, "is_result(%r)" % line)

    def test_exit_message(self):
        cases = [
            (1, "internal error"),
            (2, "usage"),
            (3, "rejected the scene"),
            (4, "diverged"),
            (130, "cancelled"),
            (7, "exit code 7"),
            (-9, "SIGKILL"),
        ]
        for code, want in cases:
            with self.subTest(code=code):
                msg = runner.exit_message(code, '{"frame": 1}\ndrape: scene s.json: frames = 0: must be in 1..100000\n')
                self.assertIn(want, msg, "exit_message(%d) = %r" % (code, msg))
                self.assertIn("frames = 0: must be in 1..100000", msg, "exit_message(%d) = %r" % (code, msg))
                self.assertNotIn('"frame"', msg, "exit_message(%d) kept a progress line: %r" % (code, msg))

    def test_parse_version(self):
        cases = [("drape 0.1.0\n", (0, 1, 0)), ("drape version v1.12.3 (go1.26)", (1, 12, 3)), ("nothing", None)]
        for text, want in cases:
            with self.subTest(text=text):
                self.assertEqual(runner.parse_version(text), want)

    def test_find_binary(self):
        os.makedirs(os.path.join(self.tmp, "old"))
        old = make_fake(os.path.join(self.tmp, "old"), version="0.0.9")
        notexe = os.path.join(self.tmp, "notexe")
        open(notexe, "w").close()
        cases = [
            ("ok", self.bin, None),
            ("dir", self.tmp, None),
            ("missing", os.path.join(self.tmp, "nope", "drape"), "not found"),
            ("too old", old, "too old"),
            ("not executable", notexe, "not executable"),
        ]
        for name, pref, want in cases:
            with self.subTest(name=name):
                if want is None:
                    path, version = runner.find_binary(pref, None)
                    self.assertEqual(version, (0, 1, 0), "find_binary(%s) version" % name)
                    continue
                with self.assertRaises(runner.BinaryError) as cm:
                    runner.find_binary(pref, None)
                self.assertIn(want, str(cm.exception))
                self.assertIn("Fix:", str(cm.exception))

    def test_bundled_binary_first(self):
        """The drape in the add-on's bin/ wins over the preference, gets its
        executable bit back (Blender's extension install drops it), and one
        that does not run (another platform's) gives way to the preference."""
        addon = os.path.join(self.tmp, "addon")
        os.makedirs(os.path.join(addon, "bin"))
        inner = make_fake(os.path.join(addon, "bin"), version="0.2.0")
        os.chmod(inner, 0o644)
        path, version = runner.find_binary(self.bin, addon)
        self.assertEqual((path, version), (inner, (0, 2, 0)), "the bundled drape was not chosen first")
        self.assertTrue(os.access(inner, os.X_OK), "the bundled drape did not get its executable bit back")
        with open(inner, "w") as f:
            f.write("#!/bin/sh\necho 'exec format error' >&2\nexit 126\n")
        path, version = runner.find_binary(self.bin, addon)
        self.assertEqual((path, version), (self.bin, (0, 1, 0)), "a broken bundled drape did not give way")
        with self.assertRaises(runner.BinaryError) as cm:
            runner.find_binary(os.path.join(self.tmp, "nope", "drape"), addon)
        self.assertIn("not found", str(cm.exception), "a missing preference was replaced silently")

    def test_bake_commits_outputs(self):
        os.makedirs(self.final)
        with open(os.path.join(self.final, "old.pc2"), "w") as f:
            f.write("previous bake")
        job, argv = self.start_job(frames=6)
        seen = []
        with Env("ok"):
            code = runner.run_sync(job, argv, on_line=lambda s, l: seen.append((s, l)))
        self.assertEqual(code, 0, "exit code; stderr: %s" % job.process.stderr_text())
        self.assertEqual(job.frame(), (6, 6), "last progress")
        self.assertEqual(job.process.result["ok"], True)
        job.commit(["cloth.pc2", "cloth.glb"])
        self.assertFalse(os.path.exists(job.staging), "staging folder left after commit")
        self.assertFalse(os.path.exists(os.path.join(self.final, "old.pc2")), "old bake kept after commit")
        start, rate, frames = runner.read_pc2(os.path.join(self.final, "cloth.pc2"))
        self.assertEqual((len(frames), len(frames[0])), (6, 4), "pc2 samples x verts")
        self.assertEqual(frames[-1][0], (0.0, 0.0, 1.0), "pinned vertex 0 in Blender axes")
        self.assertLess(frames[-1][1][2], 1.0, "free vertex 1 did not fall")

    def test_noisy_stderr_does_not_block(self):
        job, argv = self.start_job()
        with Env("noisy"):
            code = runner.run_sync(job, argv)
        self.assertEqual(code, 0)
        self.assertEqual(len(job.process.stderr_lines), 4000, "stderr lines drained")
        job.discard()

    def test_errors(self):
        cases = [("bad", 3, "fabric.density = -1"), ("diverge", 4, "diverged at frame 3"), ("usage", 2, "--frobnicate")]
        for mode, want_code, want_msg in cases:
            with self.subTest(mode=mode):
                job, argv = self.start_job()
                with Env(mode):
                    code = runner.run_sync(job, argv)
                self.assertEqual(code, want_code)
                msg = runner.exit_message(code, job.process.stderr_text())
                self.assertIn(want_msg, msg)
                job.discard()
                self.assertFalse(os.path.exists(job.staging), "staging left after discard")
                self.assertFalse(os.path.exists(os.path.dirname(self.final)), "empty cache root left")

    def test_cancel_leaves_nothing(self):
        os.makedirs(self.final)
        keep = os.path.join(self.final, "cloth.pc2")
        with open(keep, "w") as f:
            f.write("previous bake")
        job, argv = self.start_job(frames=100)
        with Env("slow"):
            proc = job.start(argv)
        deadline = time.monotonic() + 20
        while job.frame()[0] < 2:
            proc.poll()
            self.assertLess(time.monotonic(), deadline, "no progress from the slow fake")
            time.sleep(0.02)
        code = job.cancel()
        self.assertEqual(code, 130, "exit code after SIGTERM")
        self.assertFalse(os.path.exists(job.staging), "staging folder left after cancel")
        with open(keep) as f:
            self.assertEqual(f.read(), "previous bake", "previous bake changed by a cancel")

    def test_signal_cancels_a_synchronous_bake(self):
        """SIGINT or SIGTERM to this process while run_sync bakes stops
        drape and removes the staging folder, and puts back the handler
        that was there before."""
        import signal
        import threading
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(sig=sig.name):
                # the handler's address leads struct sigaction
                before = bytes(runner._sigaction_get(sig))[:8]
                job, argv = self.start_job(frames=100)

                def send():
                    deadline = time.monotonic() + 20
                    while job.frame()[0] < 2 and time.monotonic() < deadline:
                        time.sleep(0.02)
                    os.kill(os.getpid(), sig)
                t = threading.Thread(target=send)
                t.start()
                with Env("slow"):
                    code = runner.run_sync(job, argv)
                t.join()
                self.assertEqual(job.cancelled_by, sig.name, "run_sync did not record the signal")
                self.assertIn(code, (130, -9), "drape's exit code after the cancel")
                self.assertIsNotNone(job.process.returncode, "drape still running after the cancel")
                self.assertFalse(os.path.exists(job.staging), "staging folder left after a signal")
                self.assertEqual(bytes(runner._sigaction_get(sig))[:8], before, "%s handler not restored" % sig.name)

    def test_stale_staging_is_swept(self):
        """A staging folder left by a Blender that died mid-bake (its owner
        pid no longer runs) goes when the next bake starts, in the same
        cache folder and in a dead Blender's temp folder; one whose owner
        runs, or that names no owner, stays."""
        import subprocess
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        root = os.path.join(self.tmp, "drape_cache")
        mine = os.path.join(root, "blender_%d" % os.getpid())
        other = os.path.join(root, "blender_%d" % dead.pid)

        def left(folder, name, pid):
            path = os.path.join(folder, name + ".baking")
            os.makedirs(path)
            with open(os.path.join(path, "scene.json"), "w") as f:
                f.write("{}")
            if pid is not None:
                with open(os.path.join(path, runner.OWNER), "w") as f:
                    f.write("%d %s\n" % (pid, runner._host()))
            return path

        stale_here = left(mine, "Old_1", dead.pid)
        stale_there = left(other, "Old_2", dead.pid)
        running = left(mine, "Live_3", os.getppid())
        unknown = left(mine, "Unknown_4", None)
        job = runner.BakeJob(os.path.join(mine, "Plane_0123abcd"))
        self.assertFalse(os.path.exists(stale_here), "a dead Blender's staging folder was kept")
        self.assertFalse(os.path.exists(other), "a dead Blender's temp folder was kept")
        for kept in (running, unknown, job.staging):
            self.assertTrue(os.path.isdir(kept), "%s was removed" % kept)
        with open(os.path.join(job.staging, "cloth.pc2"), "w") as f:
            f.write("x")
        job.commit(["cloth.pc2"])
        self.assertFalse(os.path.exists(os.path.join(job.final_dir, runner.OWNER)), "the owner file was committed")
        self.assertFalse(os.path.exists(stale_there))

    def test_cancel_kills_stubborn_process(self):
        job = runner.BakeJob(self.final)
        proc = job.start([sys.executable, "-c",
                          "import signal,time,sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                          "print('ready', flush=True); time.sleep(60)"])
        deadline = time.monotonic() + 20
        while not proc.stdout_lines:
            proc.poll()
            self.assertLess(time.monotonic(), deadline, "child never started")
            time.sleep(0.02)
        proc_code = proc.terminate(grace=0.5)
        self.assertEqual(proc_code, -9, "a process ignoring SIGTERM must be killed")
        job.discard()


class QualityTest(unittest.TestCase):
    """quality.certificate turns drape's report into the panel's lines."""

    # the certificate of a real bake: examples/curtain at 2 substeps, 24 frames
    REPORT = {"substeps": 2, "quality": {"ok": False, "checks": [
        {"key": "max_strain", "value": 1.30536759, "bound": 0.02, "ok": False, "frame": 3, "vertices": [2150, 2151],
         "position": [0.33, 0.40, -0.01], "note": "bound of the fabric cotton"},
        {"key": "last_strain", "value": 0.897419829, "bound": 0.01, "ok": False, "frame": 23},
        {"key": "penetration_m", "value": 0, "bound": 0.0005, "ok": True},
        {"key": "self_intersections", "value": 15, "bound": 0, "ok": True, "frame": 23,
         "note": "self-collision is off: the last frame's pairs are reported, not checked"}],
        "required": [], "failed": []}}

    def test_missed_bounds(self):
        ok, summary, failed = quality.certificate(self.REPORT, start=10)
        self.assertFalse(ok)
        self.assertEqual(failed, [
            "Strain 131 % exceeds its bound 2 % at frame 13: the cloth stretches like rubber, raise Quality",
            "Strain at the last frame 89.7 % exceeds its bound 1 % at frame 33: the cloth rests stretched, "
            "raise Quality"])
        self.assertEqual(summary, "strain 131 % (bound 2 %), strain at the last frame 89.7 % (bound 1 %), "
                                  "penetration 0 mm (bound 0.5 mm), intersecting triangle pairs 15 (bound 0)")

    def test_within_bounds_and_requirements(self):
        rep = json.loads(json.dumps(self.REPORT))
        for c in rep["quality"]["checks"]:
            c["value"], c["ok"] = 0.001 if c["key"] != "self_intersections" else 0, True
        rep["quality"]["ok"] = True
        self.assertEqual(quality.certificate(rep)[::2], (True, []))
        rep["quality"]["ok"] = False
        rep["quality"]["failed"] = ["max_strain<=0.0005 (measured 0.001 at frame 3, vertices 1-2)"]
        ok, _summary, failed = quality.certificate(rep)
        self.assertEqual((ok, failed), (False, ["Requirement missed: max_strain<=0.0005 (measured 0.001 at frame 3, "
                                               "vertices 1-2)"]))

    def test_older_drape_and_garbage(self):
        old = {"max_stretch": 0.0123, "max_penetration_m": 0.0004, "self_intersections": 2}
        self.assertEqual(quality.certificate(old), (True, "strain 1.23 %, penetration 0.4 mm, "
                                                          "intersecting triangle pairs 2", []))
        for rep in (None, {}, {"quality": "yes"}, {"quality": {"checks": [None, {"key": "max_strain"}, 3]}}):
            with self.subTest(rep=rep):
                ok, _summary, failed = quality.certificate(rep)
                self.assertEqual((ok, failed), (True, []))
        self.assertTrue(quality.is_quality_warning("quality: largest edge strain 131 % ..."))
        self.assertFalse(quality.is_quality_warning("pins hold still"))


if __name__ == "__main__":
    unittest.main()
