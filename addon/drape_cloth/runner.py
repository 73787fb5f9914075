"""Running the drape CLI: no bpy here, so python3's unittest can test it.

Process wraps subprocess.Popen. Two reader threads drain stdout and stderr
into one queue, so a chatty CLI can never block on a full pipe, and the
caller (Blender's main thread, from a modal timer) takes events off the queue
without ever waiting. BakeJob adds the files of one bake: drape writes into a
staging folder, which replaces the object's cache folder only on success, so
a cancel or a failure leaves the previous bake (or nothing) as it was.
"""

import atexit
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

MIN_VERSION = (0, 1, 0)

# Exit codes of drape (docs/scene.md), never repurposed.
EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_DIVERGED = 4
EXIT_REQUIREMENT = 5
EXIT_CANNOT_WRITE = 6
EXIT_CANCELLED = 130

_EXIT_MESSAGES = {
    EXIT_INTERNAL: ("drape failed with an internal error",
                    "please report it with the scene file"),
    EXIT_USAGE: ("drape was called wrongly (usage error)",
                 "the add-on and the drape binary may not match: update both"),
    EXIT_BAD_INPUT: ("drape rejected the scene",
                     "check the cloth settings and the collider objects"),
    EXIT_DIVERGED: ("the simulation diverged",
                    "raise Quality (substeps), lower stiffness, or check colliders that start inside the cloth"),
    EXIT_REQUIREMENT: ("the bake missed a quality requirement",
                       "raise Quality (substeps) or loosen the requirement"),
    EXIT_CANNOT_WRITE: ("drape cannot write its output",
                        "free disk space or make the cache folder writable"),
    EXIT_CANCELLED: ("the bake was cancelled", ""),
}


def exit_message(code, stderr_text=""):
    """Returns a one-paragraph message for a drape exit code, ending with the
    CLI's own error lines (the last few lines of stderr that are not progress)."""
    if code == EXIT_OK:
        return "drape finished"
    if code is None:
        head, fix = "drape did not finish", ""
    elif code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "signal %d" % -code
        head, fix = "drape was stopped by %s" % name, "it may have run out of memory"
    else:
        head, fix = _EXIT_MESSAGES.get(code, ("drape failed with exit code %d" % code, ""))
    msg = head
    if code not in (None, EXIT_CANCELLED) and code >= 0:
        msg += " (exit %d)" % code
    detail = error_lines(stderr_text)
    if detail:
        msg += ": " + detail
    if fix:
        msg += ". Fix: " + fix
    return msg


def error_lines(text, limit=5):
    """Returns the last non-empty, non-JSON lines of text joined by ' | '."""
    lines = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or parse_json_line(line) is not None:
            continue
        lines.append(line)
    return " | ".join(lines[-limit:])


def parse_json_line(line):
    """Returns the dict on a JSON line, or None for any other line."""
    line = line.strip()
    if not (line.startswith("{") and line.endswith("}")):
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def is_progress(obj):
    """Reports whether a JSON line is a progress line ({"frame": 12, ...})."""
    return isinstance(obj, dict) and "frame" in obj and "ok" not in obj


def is_result(obj):
    """Reports whether a JSON line is the --json result ({"ok": true, ...})."""
    return isinstance(obj, dict) and "ok" in obj


def parse_version(text):
    """Returns the first x.y.z in text as a tuple of ints, or None."""
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", text or "")
    if not m:
        return None
    return tuple(int(g) for g in m.groups())


def exe_name():
    return "drape.exe" if os.name == "nt" else "drape"


def bundled(addon_dir):
    """Returns the path of the drape an Extension zip carries (bin/drape
    beside the add-on's modules), or None without an add-on folder."""
    return os.path.join(addon_dir, "bin", exe_name()) if addon_dir else None


def candidates(pref_path, addon_dir):
    """Lists where to look for drape as (path, where) pairs, first usable one
    wins: the drape bundled with the add-on (bin/drape, then drape beside
    it), the preference, then PATH."""
    exe = exe_name()
    out = []
    if addon_dir:
        out.append((bundled(addon_dir), "bundled"))
        out.append((os.path.join(addon_dir, exe), "bundled"))
    if pref_path:
        p = os.path.expanduser(pref_path)
        if os.path.isdir(p):
            p = os.path.join(p, exe)
        out.append((p, "preference"))
    found = shutil.which(exe)
    if found:
        out.append((found, "PATH"))
    return out


class BinaryError(Exception):
    """BinaryError says why drape cannot be used and how to fix it."""


WHERE = "the Drape add-on preferences (Edit > Preferences > Add-ons > Drape Cloth > drape binary)"


def check_binary(path, timeout=10, ours=False):
    """Returns the version of the drape at path, or raises BinaryError with
    the fix. Our own (bundled) binary that lost its executable bit (Blender's
    extension install does not keep it) gets it back; a user's is left as is."""
    if ours and not os.access(path, os.X_OK):
        try:
            os.chmod(path, os.stat(path).st_mode | 0o111)
        except OSError:
            pass
    if not os.access(path, os.X_OK):
        raise BinaryError("drape binary %r is not executable. Fix: chmod +x it, or choose another in %s"
                          % (path, WHERE))
    try:
        cp = subprocess.run([path, "version"], capture_output=True, text=True, timeout=timeout,
                            stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BinaryError("could not run %r version: %s. Fix: choose a working drape in %s" % (path, e, WHERE))
    text = (cp.stdout or "") + "\n" + (cp.stderr or "")
    version = parse_version(text)
    if cp.returncode != 0 or version is None:
        raise BinaryError("%r is not a drape binary (`version` printed %r, exit %d). Fix: choose the drape "
                          "binary in %s" % (path, text.strip()[:200], cp.returncode, WHERE))
    if version < MIN_VERSION:
        raise BinaryError("drape %s at %r is too old: this add-on needs %s or newer. Fix: update drape "
                          "(`go install github.com/drape-sim/drape/cmd/drape@latest`) and set its path in %s"
                          % (".".join(map(str, version)), path, ".".join(map(str, MIN_VERSION)), WHERE))
    return version


def find_binary(pref_path, addon_dir, timeout=10):
    """Returns (path, version) of a usable drape, or raises BinaryError with
    the fix in its message. A bundled drape that does not run (another
    platform's zip) is passed over for the preference and PATH; a preference
    that is set but unusable is an error, not silently replaced by PATH."""
    problems = []
    for path, where in candidates(pref_path, addon_dir):
        if where == "preference" and not os.path.isfile(path):
            raise BinaryError("drape binary not found at %r. Fix: set its full path in %s, "
                              "or build it with `go build ./cmd/drape`" % (path, WHERE))
        if not os.path.isfile(path):
            continue
        try:
            return path, check_binary(path, timeout, ours=where == "bundled")
        except BinaryError as e:
            if where == "preference":
                raise
            problems.append(str(e))
    if problems:
        raise BinaryError(" ".join(problems))
    raise BinaryError("drape binary not found beside the add-on or on PATH. Fix: install the Extension zip "
                      "made for your platform (it carries drape), or build drape with `go build ./cmd/drape` "
                      "and set its path in %s" % WHERE)


class CLIError(Exception):
    """CLIError is a drape command that failed; its message is drape's."""


def cli_json(binary, args, timeout=60):
    """Runs `binary ARGS...` (a listing or fitting command that prints one
    JSON value, such as `fit-collider KIND MESH --json` or `presets --json`)
    and returns the parsed value; raises CLIError with drape's message."""
    try:
        cp = subprocess.run([binary] + list(args), capture_output=True, text=True, timeout=timeout,
                            stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CLIError("could not run drape %s: %s" % (" ".join(args[:1]), e))
    if cp.returncode != 0:
        raise CLIError(exit_message(cp.returncode, cp.stderr or ""))
    try:
        return json.loads(cp.stdout)
    except ValueError:
        raise CLIError("drape %s printed no JSON: %r" % (" ".join(args[:1]), (cp.stdout or "")[:200]))


_listings = {}


def _presets_listing(binary):
    """Returns `presets --json` of the drape at binary, asked once per path;
    {} when that drape cannot say (a failed run)."""
    if binary not in _listings:
        try:
            listing = cli_json(binary, ["presets", "--json"], timeout=10)
        except CLIError:
            listing = None
        _listings[binary] = listing if isinstance(listing, dict) else {}
    return _listings[binary]


def drape_defaults(binary):
    """Returns drape's defaults (`presets --json`'s "defaults": substeps,
    max_auto_substeps, the thickness rule, ...) of the drape at binary, or
    None when that drape cannot say."""
    d = _presets_listing(binary).get("defaults")
    return d if isinstance(d, dict) else None


def drape_preset(binary, name):
    """Returns the fabric preset name of the drape at binary (density,
    stretch, shear, bend, damping, drag, friction, ...), or None."""
    for p in _presets_listing(binary).get("presets") or []:
        if isinstance(p, dict) and p.get("name") == name:
            return p
    return None


def bake_argv(binary, scene_path):
    """Returns the command line of one bake."""
    return [binary, "bake", scene_path, "--progress", "json", "--json"]


class Process:
    """Process runs one CLI command with both pipes drained by reader threads.

    poll() never blocks: it returns the events read so far as (stream, line)
    pairs, stream being "stdout" or "stderr"."""

    def __init__(self, argv, cwd=None, env=None):
        self.argv = list(argv)
        self.events = queue.Queue()
        self.stdout_lines = []
        self.stderr_lines = []
        self.progress = None  # the last progress dict
        self.result = None  # the --json result dict
        kw = {}
        if os.name == "posix":
            # Ctrl-C in Blender's terminal is ours to forward (SignalCatcher):
            # drape stops when the add-on says, and the add-on cleans up.
            kw["start_new_session"] = True
            if _prctl() is not None:
                kw["preexec_fn"] = _die_with_parent
        self.proc = subprocess.Popen(self.argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, encoding="utf-8", errors="replace", bufsize=1, **kw)
        self._threads = [
            threading.Thread(target=self._drain, args=(self.proc.stdout, "stdout"), daemon=True),
            threading.Thread(target=self._drain, args=(self.proc.stderr, "stderr"), daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _drain(self, pipe, name):
        try:
            for line in pipe:
                self.events.put((name, line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass
            self.events.put((name, None))  # end of stream

    def poll(self):
        """Returns the events queued since the last call, and records
        progress, result and the lines of each stream."""
        out = []
        while True:
            try:
                stream, line = self.events.get_nowait()
            except queue.Empty:
                return out
            if line is None:
                continue
            (self.stdout_lines if stream == "stdout" else self.stderr_lines).append(line)
            obj = parse_json_line(line)
            if is_progress(obj):
                self.progress = obj
            elif is_result(obj):
                self.result = obj
            out.append((stream, line))

    def running(self):
        """Reports whether the process has not exited yet."""
        return self.proc.poll() is None

    def finished(self):
        """Reports whether the process has exited and both pipes are drained."""
        return self.proc.poll() is not None and not any(t.is_alive() for t in self._threads)

    @property
    def returncode(self):
        return self.proc.returncode

    def wait(self, timeout=None):
        """Waits for exit and for the reader threads; returns the exit code."""
        code = self.proc.wait(timeout)
        for t in self._threads:
            t.join(timeout=5)
        self.poll()
        return code

    def terminate(self, grace=3.0):
        """Asks the process to stop (SIGTERM), kills it after grace seconds,
        and returns its exit code."""
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
            except OSError:
                pass
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.wait()

    def stderr_text(self):
        return "\n".join(self.stderr_lines)


def _remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        try:
            os.remove(path)
        except OSError:
            pass


def remove_tree(path):
    """Removes a folder (or file) and then its parent if that is left empty."""
    _remove(path)
    parent = os.path.dirname(os.path.normpath(path))
    try:
        if parent and os.path.isdir(parent) and not os.listdir(parent):
            os.rmdir(parent)
    except OSError:
        pass


_PR_SET_PDEATHSIG = 1
_libc_prctl = []


def _prctl():
    """Returns libc's prctl on Linux, else None (looked up once, before any
    fork, so the child only calls it)."""
    if not _libc_prctl:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                fn = ctypes.CDLL(None, use_errno=True).prctl
            except (OSError, AttributeError):
                fn = None
        _libc_prctl.append(fn)
    return _libc_prctl[0]


def _die_with_parent():
    """Runs in the child before exec (Linux): drape gets SIGTERM when Blender
    dies, even by SIGKILL or a crash, instead of baking on unseen."""
    _prctl()(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class SignalCatcher:
    """SignalCatcher turns SIGINT and SIGTERM into a request to cancel while
    a synchronous bake runs (blender -b, or a script): `with SignalCatcher()
    as sc:` ... `sc.caught` is the first signal's number or None.

    Blender's own handlers (background Blender: the first Ctrl-C only sets a
    flag; SIGTERM: the default, which kills Blender and leaves drape and its
    staging folder behind) are put back on exit, byte for byte through
    sigaction where the platform has it, so a second Ctrl-C after the bake
    acts as Blender intends. Outside the main thread it catches nothing."""

    SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s)

    def __init__(self):
        self.caught = None
        self._saved = {}

    def _handler(self, signum, frame):
        if self.caught is None:
            self.caught = signum

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        for sig in self.SIGNALS:
            raw = _sigaction_get(sig)
            try:
                prev = signal.signal(sig, self._handler)
            except (ValueError, OSError, RuntimeError):
                continue
            self._saved[sig] = (prev, raw)
        return self

    def __exit__(self, *exc):
        for sig, (prev, raw) in self._saved.items():
            if raw is not None and _sigaction_set(sig, raw):
                continue
            try:
                signal.signal(sig, prev if prev is not None else signal.SIG_DFL)
            except (ValueError, OSError, RuntimeError, TypeError):
                pass
        self._saved.clear()
        return False

    def name(self):
        try:
            return signal.Signals(self.caught).name
        except (ValueError, TypeError):
            return "signal %s" % self.caught


_SIGACTION_SIZE = 1024  # larger than struct sigaction on every platform


def _sigaction():
    if os.name != "posix":
        return None
    try:
        import ctypes
        return ctypes, ctypes.CDLL(None, use_errno=True).sigaction
    except (OSError, AttributeError, ImportError):
        return None


def _sigaction_get(sig):
    """Returns the raw struct sigaction of sig (whoever installed it), or
    None where sigaction cannot be called."""
    sa = _sigaction()
    if sa is None:
        return None
    ctypes, fn = sa
    buf = ctypes.create_string_buffer(_SIGACTION_SIZE)
    if fn(sig, None, buf) != 0:
        return None
    return buf


def _sigaction_set(sig, buf):
    sa = _sigaction()
    if sa is None:
        return False
    return sa[1](sig, buf, None) == 0


# The bakes whose staging folder exists: stopped and removed when Python
# exits (Blender quitting, a script ending) so nothing is left behind.
_live_jobs = set()


@atexit.register
def _stop_live_jobs():
    for job in list(_live_jobs):
        job.cancel(grace=0.5)


# The file in a staging folder that names the Blender baking into it
# ("PID HOST"), so a later bake can remove what a Blender that died mid-bake
# (SIGKILL, a crash, a power cut) left behind.
OWNER = ".drape_owner"


def _host():
    import socket
    return socket.gethostname()


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _stale(staging):
    """Reports whether staging was left by a Blender of this machine that is
    no longer running (POSIX; elsewhere nothing is stale)."""
    if os.name != "posix":
        return False
    try:
        with open(os.path.join(staging, OWNER)) as f:
            pid, host = f.read().split(None, 1)
        pid = int(pid)
    except (OSError, ValueError):
        return False  # no owner (an older add-on's): leave it
    return host.strip() == _host() and pid != os.getpid() and not _pid_alive(pid)


def sweep_stale(cache_dir):
    """Removes the staging folders (*.baking) in cache_dir that Blenders no
    longer running left behind, and for the temp cache of unsaved files
    (<temp>/drape_cache/blender_<pid>/) those in the folders of the other,
    dead Blenders, with each such folder once it is empty."""
    folders = [cache_dir]
    root = os.path.dirname(cache_dir)
    if os.path.basename(cache_dir).startswith("blender_"):
        try:
            folders += [os.path.join(root, n) for n in os.listdir(root)
                        if n.startswith("blender_") and os.path.join(root, n) != cache_dir]
        except OSError:
            pass
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            path = os.path.join(folder, n)
            if n.endswith(".baking") and os.path.isdir(path) and _stale(path):
                _remove(path)
        if folder != cache_dir:
            try:
                os.rmdir(folder)  # only when empty
            except OSError:
                pass


class BakeJob:
    """BakeJob is one bake: the staging folder drape writes into, the
    process, and the swap into the final folder on success.

    The caller writes the inputs into job.staging, then calls start(argv)."""

    def __init__(self, final_dir):
        self.final_dir = os.path.normpath(final_dir)
        self.staging = self.final_dir + ".baking"
        _remove(self.staging)
        os.makedirs(self.staging)
        with open(os.path.join(self.staging, OWNER), "w") as f:
            f.write("%d %s\n" % (os.getpid(), _host()))
        _live_jobs.add(self)
        sweep_stale(os.path.dirname(self.final_dir))
        self.process = None
        self.cancelled_by = None  # the signal that cancelled a synchronous bake
        self.started = time.monotonic()
        self.frames = 0

    def start(self, argv, env=None):
        self.process = Process(argv, cwd=self.staging, env=env)
        return self.process

    def frame(self):
        """Returns (frame, frames) of the last progress line, or (0, frames)."""
        p = self.process.progress if self.process else None
        if not p:
            return 0, self.frames
        try:
            return int(p.get("frame", 0)), int(p.get("frames", p.get("of", self.frames)) or self.frames)
        except (TypeError, ValueError):
            return 0, self.frames

    def cancel(self, grace=3.0):
        """Stops drape (SIGTERM, SIGKILL after grace seconds) and deletes
        everything this job wrote."""
        code = None
        if self.process is not None:
            code = self.process.terminate(grace)
        self.discard()
        return code

    def discard(self):
        """Deletes the staging folder (and the cache root if left empty)."""
        _live_jobs.discard(self)
        remove_tree(self.staging)

    def commit(self, required=()):
        """Replaces the final folder with the staging folder after checking
        that every required file (names relative to the folder) exists and is
        not empty. Returns the final folder; raises OSError on a missing file."""
        for name in required:
            p = os.path.join(self.staging, name)
            if not os.path.isfile(p) or os.path.getsize(p) == 0:
                raise OSError("drape reported success but did not write %s" % name)
        _remove(os.path.join(self.staging, OWNER))
        old = self.final_dir + ".old"
        _remove(old)
        if os.path.exists(self.final_dir):
            os.replace(self.final_dir, old)
        os.replace(self.staging, self.final_dir)
        _live_jobs.discard(self)
        _remove(old)
        return self.final_dir


# How long drape gets to stop after SIGTERM when Blender itself was
# signalled, before SIGKILL: the whole stop stays under a second.
SIGNAL_GRACE = 0.5


def run_sync(job, argv, on_line=None, poll_interval=0.05, cancelled=None):
    """Runs a bake to the end without a UI. on_line(stream, line) sees every
    line; cancelled() is asked between polls. SIGINT or SIGTERM to this
    process (Ctrl-C in the terminal of `blender -b`, kill) cancels the bake:
    drape is stopped, the staging folder removed, job.cancelled_by set to
    the signal's name. Returns the exit code."""
    with SignalCatcher() as sc:
        proc = job.start(argv)
        while True:
            for stream, line in proc.poll():
                if on_line:
                    on_line(stream, line)
            if sc.caught is not None:
                job.cancelled_by = sc.name()
                return job.cancel(SIGNAL_GRACE)
            if cancelled is not None and cancelled():
                return job.cancel()
            if proc.finished():
                break
            try:
                time.sleep(poll_interval)
            except KeyboardInterrupt:  # a handler installed before ours in this thread
                job.cancelled_by = "SIGINT"
                return job.cancel(SIGNAL_GRACE)
    code = proc.wait()
    for stream, line in proc.poll():
        if on_line:
            on_line(stream, line)
    return code


def read_pc2(path):
    """Returns (start, sample_rate, frames) of a PC2 file, frames being a
    list of per-sample lists of (x, y, z) tuples. For tests and small files;
    the add-on uses numpy when it reads big caches."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 32 or data[:12] != b"POINTCACHE2\0":
        raise ValueError("%s is not a PC2 file (bad header)" % path)
    version, nverts, start, rate, nsamples = struct.unpack_from("<iiffi", data, 12)
    if version != 1 or nverts < 0 or nsamples < 0 or len(data) != 32 + 12 * nverts * nsamples:
        raise ValueError("%s: PC2 header says %d verts x %d samples, file has %d bytes"
                         % (path, nverts, nsamples, len(data)))
    frames = []
    off = 32
    for _ in range(nsamples):
        vals = struct.unpack_from("<%df" % (3 * nverts), data, off)
        off += 12 * nverts
        frames.append([vals[i:i + 3] for i in range(0, len(vals), 3)])
    return start, rate, frames


def pc2_header(path):
    """Returns (nverts, start, sample_rate, nsamples) of a PC2 file."""
    import struct
    with open(path, "rb") as f:
        head = f.read(32)
    if len(head) < 32 or head[:12] != b"POINTCACHE2\0":
        raise ValueError("%s is not a PC2 file (bad header)" % path)
    version, nverts, start, rate, nsamples = struct.unpack_from("<iiffi", head, 12)
    size = os.path.getsize(path)
    if version != 1 or size != 32 + 12 * nverts * nsamples:
        raise ValueError("%s: PC2 header says %d verts x %d samples, file has %d bytes"
                         % (path, nverts, nsamples, size))
    return nverts, start, rate, nsamples

