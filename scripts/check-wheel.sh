#!/usr/bin/env bash
# `make dist-check`: wirelab as a user installs it. Builds the sdist and, from it, the wheel (of
# the files git tracks or would track, copied to a temporary directory: nothing ignored, no build
# left-overs, as a fresh clone); `twine check`; checks the wheel holds every file of src/wirelab;
# installs the wheel with the `ml` extra into a clean virtual environment (the CPU torch first,
# as `make install` does); then, from a directory outside the repository, runs `wirelab --help`,
# `wirelab --version`, a few calls into the API and the package docstrings' quickstarts
# (scripts/check_wheel.py). Exits non-zero on the first failure.
#
#   PYTHON   the interpreter that builds (needs build and twine, the `dev` extra): .venv/bin/python
#   TORCH    the torch requirement installed first: torch==2.13.0 (the Makefile's)
#   KEEP=1   keep the temporary directory (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
py=${PYTHON:-$repo/.venv/bin/python}
case $py in /*) ;; */*) py=$repo/$py ;; esac  # a relative path, from the repository root
torch_req=${TORCH:-torch==2.13.0}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wirelab-check-wheel.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "check-wheel: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
start=$(date +%s)
step() { echo "check-wheel: [$(( $(date +%s) - start )) s] $*"; }
export PIP_DISABLE_PIP_VERSION_CHECK=1
# The offline data (the larval connectome for the smoke calls), as .ci/run finds it.
if [ -z "${WIRELAB_DATA_DIR:-}" ] && [ -d ../shared/data ]; then
  export WIRELAB_DATA_DIR="$(cd ../shared/data && pwd)"
fi
unset PYTHONPATH

step "copying the source tree (git's files) to $tmp/src"
mkdir -p "$tmp/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$tmp/src"
else
  cp -a . "$tmp/src"
fi

step "python -m build (sdist, then the wheel from it)"
"$py" -m build --outdir "$tmp/dist" "$tmp/src" >"$tmp/build.log" 2>&1 \
  || { tail -30 "$tmp/build.log"; exit 1; }
ls -l "$tmp/dist"
step "twine check"
"$py" -m twine check --strict "$tmp"/dist/*
"$py" scripts/check_wheel.py contents "$tmp/dist" "$tmp/src/src"

step "a clean virtual environment: $torch_req, then the wheel with the ml extra"
"$py" -m venv "$tmp/venv"
vpy=$tmp/venv/bin/python
"$vpy" -m pip install -q "$torch_req"
wheel=$(ls "$tmp"/dist/*.whl)
"$vpy" -m pip install -q "$wheel[ml]"
version=$("$vpy" -c 'import importlib.metadata as m; print(m.version("wirelab"))')

step "wirelab $version, run from $tmp/user (outside the repository, an empty cache)"
mkdir -p "$tmp/user"
export WIRELAB_CACHE=$tmp/cache
cd "$tmp/user"
"$tmp/venv/bin/wirelab" --help
"$tmp/venv/bin/wirelab" --version
"$tmp/venv/bin/wirelab" logic train --help >/dev/null
"$vpy" "$repo/scripts/check_wheel.py" smoke "$version" "$repo"
step "passed: $(basename "$wheel")"
