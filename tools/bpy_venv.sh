#!/usr/bin/env bash
# Installs Blender as a Python module (bpy from PyPI) at a pinned version into
# tools/venv/bpy-VERSION, for the add-on's tests (addon/bpy_test.go).
# Idempotent: a complete venv (its .installed marker) is left as it is, so CI
# can cache tools/venv. bpy's wheels are cp311 only: this needs a Python 3.11
# (python3.11, or python3 when it is 3.11; on Debian the python3.11 and
# python3.11-venv packages are installed when missing). When no Python 3.11
# can be had, it writes tools/venv/bpy-VERSION.unavailable with the reason and
# the Go test skips saying so; any other failure (a download) fails loudly.
#   tools/bpy_venv.sh 4.5.15
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:?usage: tools/bpy_venv.sh BPY_VERSION}
venv=tools/venv/bpy-$version
mark=$venv/.installed
unavailable=tools/venv/bpy-$version.unavailable
mkdir -p tools/venv

if [ -f "$mark" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
rm -f "$unavailable"

py311() {
  for p in python3.11 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      command -v "$p"
      return 0
    fi
  done
  return 1
}

py=$(py311 || true)
if [ -z "$py" ] && command -v apt-get >/dev/null 2>&1 && apt-cache show python3.11 >/dev/null 2>&1; then
  echo "bpy_venv: installing python3.11 from Debian (bpy $version's wheels need CPython 3.11)" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3.11 python3.11-venv >/dev/null
  py=$(py311 || true)
fi
if [ -z "$py" ]; then
  echo "no Python 3.11 on this machine (bpy $version is published for CPython 3.11 only) and none installable with apt-get" >"$unavailable"
  echo "bpy_venv: $(cat "$unavailable"); the bpy $version tests will be skipped" >&2
  exit 0
fi
if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "bpy_venv: installing python3.11-venv from Debian" >&2
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3.11-venv >/dev/null
  fi
fi

echo "bpy_venv: installing bpy $version (Blender as a Python module, about 350 MB) into $venv with $py" >&2
rm -rf "$venv"
"$py" -m venv "$venv"
# pip prints each package as it downloads and installs it
"$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar on -c tools/bpy_constraints.txt \
  "bpy==$version" >&2
"$venv/bin/python" -c "import bpy; print('bpy_venv: bpy', bpy.app.version_string, 'ready in $venv')" >&2
echo "$version" >"$mark"
