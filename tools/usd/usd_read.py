"""usd_read.py FILE TIMECODE,... -- read a USD file with Pixar's reference
implementation (usd-core, in tools/venv-usd) and print one JSON object:

  {"composition_errors": [...], "stage": {"timeCodesPerSecond", "framesPerSecond",
   "startTimeCode", "endTimeCode", "metersPerUnit", "upAxis", "defaultPrim"},
   "meshes": [{"path", "faceCounts", "faceIndices", "points", "normals",
               "st", "stInterpolation", "pointSamples", "normalSamples",
               "transformSamples", "materialBindFamily", "subsets": [{"name", "family",
               "faces"}], "frames": [{"time", "points": [x, y, z, ...],
               "world": [...]}]}],
   "checker": {"errors": [...], "warnings": [...], "failedChecks": [...]}}

"frames" hold each mesh's points at every requested time code, in the
mesh's own space ("points") and in world space ("world", through its
transforms). "layer_sha256" is the SHA-256 of the root layer exported as text, so
two files holding the same layer (.usda and .usdc) give the same hash.
"checker" lists what usdchecker reports: every validator of USD's
validation framework (UsdValidation, which usdchecker runs; usd-core ships
the framework but not the usdchecker binary) run on the stage.
"""
import hashlib
import json
import sys

from pxr import Gf, Sdf, Usd, UsdGeom, UsdValidation


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: usd_read.py FILE TIMECODE,...")
    path = sys.argv[1]
    codes = [float(t) for t in sys.argv[2].split(",") if t]
    stage = Usd.Stage.Open(path)
    if stage is None:
        raise SystemExit("usd_read.py: could not open %s" % path)
    out = {"composition_errors": [str(e) for e in stage.GetCompositionErrors()]}
    text = Sdf.Layer.FindOrOpen(path).ExportToString()
    out["layer_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    dp = stage.GetDefaultPrim()
    out["stage"] = {
        "timeCodesPerSecond": stage.GetTimeCodesPerSecond(),
        "framesPerSecond": stage.GetFramesPerSecond(),
        "startTimeCode": stage.GetStartTimeCode(),
        "endTimeCode": stage.GetEndTimeCode(),
        "metersPerUnit": UsdGeom.GetStageMetersPerUnit(stage),
        "upAxis": str(UsdGeom.GetStageUpAxis(stage)),
        "defaultPrim": str(dp.GetPath()) if dp else "",
    }
    meshes = []
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.Mesh):
            continue
        m = UsdGeom.Mesh(prim)
        st = UsdGeom.PrimvarsAPI(prim).GetPrimvar("st")
        xf = UsdGeom.Xformable(prim)
        ops = xf.GetOrderedXformOps()
        r = {
            "path": str(prim.GetPath()),
            "faceCounts": len(m.GetFaceVertexCountsAttr().Get() or []),
            "faceIndices": len(m.GetFaceVertexIndicesAttr().Get() or []),
            "points": len(m.GetPointsAttr().Get(Usd.TimeCode.EarliestTime()) or []),
            "normals": len(m.GetNormalsAttr().Get(Usd.TimeCode.EarliestTime()) or []),
            "st": len(st.Get() or []) if st else 0,
            "stInterpolation": st.GetInterpolation() if st else "",
            "pointSamples": m.GetPointsAttr().GetNumTimeSamples(),
            "normalSamples": m.GetNormalsAttr().GetNumTimeSamples(),
            "transformSamples": ops[0].GetAttr().GetNumTimeSamples() if ops else 0,
            "materialBindFamily": str(UsdGeom.Subset.GetFamilyType(m, "materialBind")),
            "subsets": [{"name": s.GetPrim().GetName(), "family": s.GetFamilyNameAttr().Get(),
                         "faces": len(s.GetIndicesAttr().Get() or [])}
                        for s in UsdGeom.Subset.GetAllGeomSubsets(m)],
            "frames": [],
        }
        for t in codes:
            tc = Usd.TimeCode(t)
            pts = m.GetPointsAttr().Get(tc) or []
            world = xf.ComputeLocalToWorldTransform(tc)
            flat, wflat = [], []
            for p in pts:
                flat.extend((p[0], p[1], p[2]))
                q = world.Transform(Gf.Vec3d(p[0], p[1], p[2]))
                wflat.extend((q[0], q[1], q[2]))
            r["frames"].append({"time": t, "points": flat, "world": wflat})
        meshes.append(r)
    out["meshes"] = meshes
    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    errors = UsdValidation.ValidationContext(validators).Validate(stage)
    out["checker"] = {
        "validators": len(validators),
        "errors": ["%s %s: %s" % (e.GetType(), e.GetName(), e.GetMessage()) for e in errors],
    }
    sys.stdout.write(json.dumps(out) + "\n")


main()
