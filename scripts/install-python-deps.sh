#!/usr/bin/env bash
# Installs what the Python layers need (pybind11, NumPy, CuPy, cuda-bindings, cuda-core, cuda-pathfinder) into the interpreter they use, found as `layerbench report`
# finds it ($LAYERBENCH_PYTHON, else .venv, else python3): variants/python/requirements.txt.
# Packages go into .venv only (never into a system or user Python); when the interpreter in use is
# not .venv and lacks them, this says so in one line and goes on: the Python layers are then built
# unavailable, with the reason. Never fails the caller.
set -uo pipefail
cd "$(dirname "$0")/.."
say() { echo "install-python-deps: $*" >&2; }

python="${LAYERBENCH_PYTHON:-}"
[ -z "$python" ] && [ -x .venv/bin/python3 ] && python=.venv/bin/python3
[ -z "$python" ] && python=python3
"$python" -c 'import pybind11, numpy, cupy, cuda.bindings, cuda.core, cuda.pathfinder' 2>/dev/null && exit 0
if [ "$python" = .venv/bin/python3 ]; then
  .venv/bin/python3 -m pip install -q --disable-pip-version-check -r variants/python/requirements.txt ||
    say "pip could not install variants/python/requirements.txt into .venv; the Python layers will be unavailable"
else
  say "$python lacks a package of variants/python/requirements.txt and is not the project's .venv; the Python layers will be unavailable"
fi
exit 0
