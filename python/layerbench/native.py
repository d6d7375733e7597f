"""The `layerbench` command of an installed package: the native binary that `pip install` put inside
the package (pyproject.toml: CMake's install prefix is layerbench/_prefix), run with this
interpreter as the one its Python layers embed and its reports tool runs ($LAYERBENCH_PYTHON,
common/python_interpreter.h), unless the caller chose another. The binary finds its labs, kernel
texts and Python layers from its own path (_prefix/share/layerbench, common/data_root.h).

A package built where there was no CUDA compiler has no binary (cmake/NativeHarness.cmake): it holds
_prefix/native-left-out.txt, one line saying what was left out and why. Then the commands of the
Python side (report, compare, csv, merge, db) run here, as the binary would hand them over, `lab
list` lists the labs the package ships (lab/listing.py), and every other command says in one line
that it needs the native harness, and why there is none.

`layerbench ARGS` (the console script) and `python -m layerbench ARGS` both come here.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

PREFIX = Path(__file__).resolve().parent / "_prefix"
# What pip's build writes where it left the native harness out (cmake/NativeHarness.cmake).
LEFT_OUT = PREFIX / "native-left-out.txt"
# The commands the binary hands over to the reports tool (app/cli.cpp): they need no binary.
PYTHON_COMMANDS = ("report", "compare", "csv", "merge", "db")


class NotInstalledError(RuntimeError):
    """This layerbench package has no native binary: a package built without CUDA (the Python side
    alone), or the source tree's python/ folder, not an installed package."""


def left_out() -> str | None:
    """Why this install has no native harness (pip's build found no CUDA compiler, ...), or None."""
    try:
        return LEFT_OUT.read_text().strip() or None
    except OSError:
        return None


def executable() -> Path:
    """The native layerbench: the installed package's own, else $LAYERBENCH_EXE (a build tree's
    binary, for the package used from the source tree)."""
    exe = PREFIX / "bin" / "layerbench"
    if exe.is_file():
        return exe
    chosen = os.environ.get("LAYERBENCH_EXE")
    if chosen:
        return Path(chosen)
    why = left_out()
    if why:
        raise NotInstalledError(f"this install {why}. Install where the CUDA toolkit is (nvcc on PATH) "
                                "for the harness, or set LAYERBENCH_EXE to a built binary")
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


def _version_line(why: str) -> str:
    from . import __version__
    return f"layerbench {__version__} (Python side only: {why})"


def _help(why: str) -> str:
    return (f"{_version_line(why)}\n\n"
            "Commands here (the reports tool; `layerbench COMMAND --help`):\n"
            "  report   Make report.md, report.html and plots from a results file\n"
            "  compare  Compare two results files case by case, with a regression verdict\n"
            "  csv      Write a results file as CSV, one row per case\n"
            "  merge    Merge results files of several GPUs, hosts or tasks into one\n"
            "  db       A results database with history: add, list, compare\n"
            "  lab list The coursework labs (checking and grading them need the harness and a GPU)\n\n"
            "Left out (they need the native harness): run, list, ladder, lab start|check|grade|profile.\n"
            "From Python: import layerbench; layerbench.load, compare, report (docs/python-api.md).\n")


def python_side(args: list[str], error: NotInstalledError) -> int:
    """The command line of an install without the native harness: the reports tool's commands, or
    one line saying that the command needs the harness (exit 2)."""
    why = left_out()
    word = args[0] if args else ""
    if word == "help" and len(args) == 2 and args[1] in PYTHON_COMMANDS:
        args, word = [args[1], "--help"], args[1]
    if word in PYTHON_COMMANDS:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, "-m", "layerbench.reports", *args])
    if why and word == "--version" and len(args) == 1:
        print(_version_line(why))
        return 0
    if why and word in ("", "help", "--help", "-h") and len(args) <= 1:
        print(_help(why), end="", file=sys.stdout if word else sys.stderr)
        return 0 if word else 2
    sub = _lab_command(args[1:]) if word == "lab" else None
    if sub is not None and sub[0] == "list":
        from .lab import listing
        return listing.main(sub[1], f"this install {why}" if why else str(error), PREFIX)
    if sub is not None:
        word = f"lab {sub[0]}"
    what = f"`{word}` needs the native harness: " if word else ""
    print(f"layerbench: {what}{error}", file=sys.stderr)
    return 2


def _lab_command(args: list[str]) -> tuple[str, list[str]] | None:
    """`lab`'s subcommand and its other arguments (`lab --labs DIR list` as `lab list --labs DIR`),
    or None where it names none."""
    skip = False
    for i, word in enumerate(args):
        if skip:
            skip = False
        elif word == "--labs":
            skip = True
        elif not word.startswith("-"):
            return word, args[:i] + args[i + 1:]
    return None


def main(argv: list[str] | None = None) -> int:
    """Replaces this process with the native binary (its exit status is the command's)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        exe = executable()
    except NotInstalledError as e:
        return python_side(args, e)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(exe, [str(exe), *args], environment())
    return 0  # not reached: execve replaces the process or raises
