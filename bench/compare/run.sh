#!/usr/bin/env bash
# isobar side by side with Drake and MuJoCo: one command, from any directory.
#
#   bash bench/compare/run.sh
#
# Sets up bench/compare/.venv (pinned drake, mujoco, matplotlib, numpy from PyPI), builds isobar
# (Release, build-release/) and bench/compare/out/iso_probe, then runs compare.py, which writes
# bench/compare/RESULTS.md (jointed scenes too: bench/compare/joints.py), results.json,
# trajectories.png and speed.png. Downloads ~300 MB the
# first time; about 8 minutes on 2 cores after that (more when another job shares the machine:
# each timing waits for idle CPUs, 150 s at most in all). COMPARE_REPS=N sets the repetitions
# (default 3), COMPARE_QUICK=1 makes a short smoke run. COMPARE_ONLY=deformables runs only the
# deformable bodies (bench/compare/deformables.py; the cantilever, the soft ball and the soft
# grasp, about a quarter of an hour) and merges their
# section into RESULTS.md; it needs only drake. COMPARE_VENV=DIR uses another virtual environment
# that holds the pinned drake instead of bench/compare/.venv.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

DRAKE_VERSION=1.51.1
MUJOCO_VERSION=3.3.7
MATPLOTLIB_VERSION=3.10.8
NUMPY_VERSION=2.4.6   # the versions this comparison was run with

say() { printf '\n== %s\n' "$*"; }

# ---- Python environment ------------------------------------------------------------------------
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  say "installing python3-venv (Debian)"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -q && $SUDO apt-get install -y -q python3-venv
fi
VENV="${COMPARE_VENV:-$HERE/.venv}"
if [[ ! -x "$VENV/bin/python" ]]; then
  say "creating $VENV"
  python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
ONLY_DRAKE=False; [[ "${COMPARE_ONLY:-}" == deformables ]] && ONLY_DRAKE=True
if ! "$PY" - <<EOF >/dev/null 2>&1
from importlib.metadata import version as v
import matplotlib, numpy
assert v("drake") == "$DRAKE_VERSION"
assert $ONLY_DRAKE or v("mujoco") == "$MUJOCO_VERSION"
assert $ONLY_DRAKE or (v("matplotlib") == "$MATPLOTLIB_VERSION" and v("numpy") == "$NUMPY_VERSION")
EOF
then
  say "installing drake $DRAKE_VERSION, mujoco $MUJOCO_VERSION, matplotlib $MATPLOTLIB_VERSION"
  "$PY" -m pip install -q --upgrade pip
  "$PY" -m pip install -q "drake==$DRAKE_VERSION" "mujoco==$MUJOCO_VERSION" \
    "matplotlib==$MATPLOTLIB_VERSION" "numpy==$NUMPY_VERSION"
fi

# ---- isobar (Release) and the probe --------------------------------------------------------------
say "building isobar (Release, build-release/)"
# shellcheck disable=SC1091
source scripts/env.sh
mkdir -p "$HERE/out"
if ! { cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DISO_TESTS=OFF &&
       cmake --build build-release -j 2; } >"$HERE/out/build.log" 2>&1; then
  tail -40 "$HERE/out/build.log"
  echo "run.sh: the isobar build failed (bench/compare/out/build.log)" >&2
  exit 1
fi
# the static library's own link line (OpenMP, libxml2, LAPACK, and CUDA when it was built)
LIBS=$(sed -n 's/^Libs.private: //p' build-release/isobar.pc)
CUDA_LIB=""
[[ -d /usr/local/cuda/lib64 ]] && CUDA_LIB="-L/usr/local/cuda/lib64"
gcc -O2 -std=c17 -Wall -Wextra -Wshadow -Iinclude "$HERE/iso_probe.c" build-release/libisobar.a \
  $LIBS $CUDA_LIB -o "$HERE/out/iso_probe"

# ---- the comparison ----------------------------------------------------------------------------
say "comparing (the build is finished; nothing else of ours runs during the timings)"
"$PY" "$HERE/compare.py"
