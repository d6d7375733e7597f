#!/usr/bin/env bash
# The tools' one launcher: tools/NAME (a link to this file) runs tools/NAME.py (- as _) with the
# interpreter layerbench uses ($LAYERBENCH_PYTHON, else the project's .venv, else python3:
# common/python_interpreter.h) and the `layerbench` package's source root, python/, first on
# PYTHONPATH, which is how the tools import the reports' reader and formatter (python/README.md).
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
name="$(basename "$0")"
python="${LAYERBENCH_PYTHON:-}"
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python3" ]; then python="$root/.venv/bin/python3"; else python=python3; fi
fi
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" exec "$python" "$root/tools/${name//-/_}.py" "$@"
