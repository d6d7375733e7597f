"""The `layerbench` command of an installed package: the native binary that `pip install` put inside
the package (pyproject.toml: CMake's install prefix is layerbench/_prefix), run with this
interpreter as the one its Python layers embed and its reports tool runs ($LAYERBENCH_PYTHON,
common/python_interpreter.h), unless the caller chose another. The binary finds its labs, kernel
texts and Python layers from its own path (_prefix/share/layerbench, common/data_root.h).

`layerbench ARGS` (the console script) and `python -m layerbench ARGS` both come here.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

PREFIX = Path(__file__).resolve().parent / "_prefix"


class NotInstalledError(RuntimeError):
    """This layerbench package has no native binary: it is the source tree's python/ folder, not
    an installed package."""


def executable() -> Path:
    """The native layerbench: the installed package's own, else $LAYERBENCH_EXE (a build tree's
    binary, for the package used from the source tree)."""
    exe = PREFIX / "bin" / "layerbench"
    if exe.is_file():
        return exe
    chosen = os.environ.get("LAYERBENCH_EXE")
    if chosen:
        return Path(chosen)
    raise NotInstalledError(
        f"no native layerbench at {exe}: install the package (pip install <checkout>) or set "
        "LAYERBENCH_EXE to a built binary (build/layerbench)")


def environment() -> dict[str, str]:
    """The binary's environment: this one, with this interpreter for its Python parts unless
    LAYERBENCH_PYTHON already names one."""
    env = dict(os.environ)
    if not env.get("LAYERBENCH_PYTHON"):
        env["LAYERBENCH_PYTHON"] = sys.executable
    return env


def main(argv: list[str] | None = None) -> int:
    """Replaces this process with the native binary (its exit status is the command's)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        exe = executable()
    except NotInstalledError as e:
        print(f"layerbench: {e}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(exe, [str(exe), *args], environment())
    return 0  # not reached: execve replaces the process or raises
