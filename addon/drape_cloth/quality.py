"""What a bake's report says about its quality, in the panel's words (no bpy
here, so python3's unittest tests it).

drape's report (`"report"` of `drape bake --json`) holds the quality
certificate (docs/scene.md, "The quality certificate"): four checks, each a
measured value against the fabric's bound. Older drapes report the bare
measurements (max_stretch, max_penetration_m, self_intersections) without
bounds; certificate() then gives the measurements and no warning."""

LABELS = {
    "max_strain": "strain",
    "last_strain": "strain at the last frame",
    "penetration_m": "penetration",
    "self_intersections": "intersecting triangle pairs",
}

FIXES = {
    "max_strain": "the cloth stretches like rubber, raise Quality",
    "last_strain": "the cloth rests stretched, raise Quality",
    "penetration_m": "the cloth goes into a collider, raise Quality or Thickness",
    "self_intersections": "the cloth passes through itself, raise Quality",
}

# the report keys of drapes before the certificate
_BARE = (("max_strain", "max_stretch"), ("penetration_m", "max_penetration_m"),
         ("self_intersections", "self_intersections"))


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def fmt(key, v):
    """Returns a measurement in the unit a Blender user reads: strain in %,
    penetration in mm, pairs as a count."""
    if key in ("max_strain", "last_strain"):
        return "%.3g %%" % (100.0 * v)
    if key == "penetration_m":
        return "%.3g mm" % (1000.0 * v)
    return "%d" % v


def certificate(report, start=None):
    """Returns (ok, summary, failed) of a report: ok is False when a bound was
    missed; summary is one line of the measurements with their bounds;
    failed is one line per missed bound or requirement, saying which, by how
    much, where (the Blender frame, start being the bake's first frame) and
    the fix. A report without a certificate gives (True, measurements, [])."""
    if not isinstance(report, dict):
        return True, "", []
    q = report.get("quality")
    if not isinstance(q, dict) or not isinstance(q.get("checks"), list):
        parts = ["%s %s" % (LABELS[key], fmt(key, report[old])) for key, old in _BARE if _num(report.get(old))]
        return True, ", ".join(parts), []
    parts, failed = [], []
    for c in q["checks"]:
        if not isinstance(c, dict):
            continue
        key, v, bound = c.get("key"), c.get("value"), c.get("bound")
        if key not in LABELS or not _num(v):
            continue
        part = "%s %s" % (LABELS[key], fmt(key, v))
        if _num(bound):
            part += " (bound %s)" % fmt(key, bound)
        parts.append(part)
        if c.get("ok") is False:
            line = "%s %s exceeds its bound %s" % (LABELS[key].capitalize(), fmt(key, v),
                                                   fmt(key, bound) if _num(bound) else "?")
            frame = c.get("frame")
            if isinstance(frame, int) and not isinstance(frame, bool):
                line += " at frame %d" % (frame + start if isinstance(start, int) else frame)
            failed.append(line + ": " + FIXES[key])
    for r in q.get("failed") or []:
        if isinstance(r, str):
            failed.append("Requirement missed: " + r)
    ok = q.get("ok") is not False and not failed
    return ok, ", ".join(parts), failed


def is_quality_warning(w):
    """Reports whether one of drape's report warnings is a quality line,
    which certificate() puts in the panel's words instead."""
    return isinstance(w, str) and w.startswith("quality:")
