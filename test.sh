#!/usr/bin/env bash
# Runs every drape test. Installs what the tests need when it is missing, so a
# fresh Debian machine with Go needs nothing else: Blender 3.4 and numpy
# (Debian packages, the real client of our glTF and of the add-on; Xvfb runs
# the add-on's interactive bake test in a real window), the
# Khronos glTF validator and three.js (npm, into tools/node), Blender as a
# Python module (bpy 4.5 LTS and 5.0 from PyPI, each in tools/venv/bpy-VERSION,
# for the add-on's Extension tests; tools/bpy_venv.sh), and NVIDIA Newton
# with warp-lang at the pins of bench/newton-requirements.txt (PyPI, into
# tools/venv-newton, for the benchmark's Newton test; python3-venv from
# Debian creates the virtual environments), Pixar's usd-core (PyPI, into
# tools/venv-usd, to check the USD outputs), and for the render-farm tests
# Slurm and munge (Debian's slurm-wlm and munge: a one-node cluster the test
# starts on localhost) and openjd-cli (PyPI, into tools/venv-openjd).
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")"

need_apt=()
command -v blender >/dev/null 2>&1 || need_apt+=(blender)
[ -d /usr/lib/python3/dist-packages/numpy ] || need_apt+=(python3-numpy)
command -v xvfb-run >/dev/null 2>&1 || need_apt+=(xvfb xauth)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need_apt+=(python3-venv)
# a one-node Slurm cluster for the farm test (cmd/drape TestSlurmArray starts and stops it)
{ command -v slurmctld && command -v slurmd && command -v sbatch; } >/dev/null 2>&1 || need_apt+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || need_apt+=(munge)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "test.sh: installing ${need_apt[*]} from Debian" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -d tools/node/node_modules/gltf-validator ] || [ ! -d tools/node/node_modules/three ]; then
  echo "test.sh: installing the glTF validator and three.js into tools/node" >&2
  npm install --prefix tools/node --no-audit --no-fund --loglevel=error >/dev/null
fi

# The bpy versions addon/bpy_test.go runs; keep the two lists equal.
for v in 4.5.15 5.0.1; do
  tools/bpy_venv.sh "$v"
done

# the same stamp bench/newton.go checks: the pins installed last
if ! cmp -s bench/newton-requirements.txt tools/venv-newton/.drape-pins 2>/dev/null; then
  echo "test.sh: installing $(tr '\n' ' ' <bench/newton-requirements.txt)into tools/venv-newton (about 200 MB)" >&2
  [ -x tools/venv-newton/bin/python ] || python3 -m venv tools/venv-newton
  tools/venv-newton/bin/pip install --disable-pip-version-check --progress-bar on -r bench/newton-requirements.txt >&2
  cp bench/newton-requirements.txt tools/venv-newton/.drape-pins
fi

# the Open Job Description CLI of the farm test (cmd/drape TestOpenJDTemplate),
# at the pins of tools/openjd-requirements.txt (pip freeze of openjd-cli 0.8.0)
if ! cmp -s tools/openjd-requirements.txt tools/venv-openjd/.drape-pins 2>/dev/null; then
  echo "test.sh: installing openjd-cli and its dependencies ($(tr '\n' ' ' <tools/openjd-requirements.txt)) into tools/venv-openjd" >&2
  [ -x tools/venv-openjd/bin/python ] || python3 -m venv tools/venv-openjd
  tools/venv-openjd/bin/pip install --disable-pip-version-check --progress-bar on -r tools/openjd-requirements.txt >&2
  cp tools/openjd-requirements.txt tools/venv-openjd/.drape-pins
fi

usd_core=26.11 # keep in step with internal/testtool/usd.go
if ! tools/venv-usd/bin/python -c "import pxr.Usd, importlib.metadata as m; assert m.version('usd-core') == '$usd_core'" >/dev/null 2>&1; then
  echo "test.sh: installing usd-core $usd_core into tools/venv-usd (about 60 MB)" >&2
  python3 -m venv tools/venv-usd
  tools/venv-usd/bin/pip install --disable-pip-version-check --progress-bar on "usd-core==$usd_core" >&2
fi

go vet ./...
go test -count=1 -timeout 30m "$@" ./...
