#!/usr/bin/env bash
# Installs what the Python layers need (variants/python/requirements.txt: pybind11, NumPy, CuPy,
# cuda-bindings, cuda-core, Numba, PyCUDA (built from its source with the local CUDA toolkit),
# cuda-cccl, Cython) into the interpreter they use, found as `layerbench report` finds it
# ($LAYERBENCH_PYTHON, else .venv, else python3). When the whole set cannot be installed, each
# package is tried alone, so that one that fails (PyCUDA's build, say) leaves only its layer
# unavailable.
# Packages go into .venv only (never into a system or user Python); when the interpreter in use is
# not .venv and lacks them, this says so in one line and goes on: the Python layers are then built
# unavailable, with the reason. Never fails the caller.
set -uo pipefail
cd "$(dirname "$0")/.."
say() { echo "install-python-deps: $*" >&2; }

python="${LAYERBENCH_PYTHON:-}"
[ -z "$python" ] && [ -x .venv/bin/python3 ] && python=.venv/bin/python3
[ -z "$python" ] && python=python3
"$python" -c 'import pybind11, numpy, cupy, cuda.bindings, cuda.core, cuda.pathfinder, numba.cuda, pycuda, cuda.compute, Cython; from cuda.compute import serialize' 2>/dev/null && exit 0
if [ "$python" = .venv/bin/python3 ]; then
  pip=(.venv/bin/python3 -m pip install -q --disable-pip-version-check)
  if ! "${pip[@]}" -r variants/python/requirements.txt; then
    say "pip could not install all of variants/python/requirements.txt; trying each package alone"
    grep -E '^[A-Za-z]' variants/python/requirements.txt | while read -r requirement; do
      "${pip[@]}" -c variants/python/requirements.txt "$requirement" ||
        say "could not install $requirement into .venv; the layers that need it will be unavailable"
    done
  fi
else
  say "$python lacks a package of variants/python/requirements.txt and is not the project's .venv; the Python layers will be unavailable"
fi
exit 0
