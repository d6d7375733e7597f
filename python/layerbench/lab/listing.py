"""`layerbench lab list` where there is no native harness (a package pip built without a CUDA
compiler: native.py's Python side): every lab, read from labs/*/lab.json, with the columns of the
harness's `lab list` (app/lab_command.cpp: the lab's folder, its workload, its title) and two more,
its runner and what a check of it needs, then one line saying that checking and grading need the
harness and a GPU. Nothing here checks a lab's spec as the harness does (lab/spec/lab_spec.cpp):
it reads what the list shows, and a lab.json it cannot read is listed apart, with why.

The labs folder is the harness's (common/data_root.h): `--labs DIR`, else $LAYERBENCH_LABS, else
$LAYERBENCH_DATA_DIR/labs, else the package's own copy (layerbench/_prefix/share/layerbench/labs,
which cmake/NativeHarness.cmake installs where the harness is left out), else the source tree's labs/.

What a check needs is the runner's, and RUNNER_NEEDS mirrors the runners lab/runners/runners.cpp
registers (tests/api/test_native.py holds it to every registration), with the default
runner of a student file's extension where lab.json names none (the first registered for it).

Exit status: 0 when a lab is listed, or the folder holds none; 1 when every lab was left out; 2 bad
input (no labs folder, or one that cannot be read), one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

PROG = "layerbench lab list"
# What a check of a lab needs besides the harness, by runner (lab.json's "runner").
RUNNER_NEEDS = {
    "nvrtc": "a GPU",
    "numba": "a GPU, Numba",
    "triton": "a GPU, Triton",
    "pycuda": "a GPU, PyCUDA",
    "cuda-core": "a GPU, cuda.core",
    "host-trip": "a GPU, nvcc",
    "nvcc-host": "a GPU, nvcc",
}
# A lab.json without "runner": the first registered runner of its student file's extension.
DEFAULT_RUNNER = {".cu": "nvrtc", ".py": "numba"}
# A lab on a workload folder (lab.json's "workload_dir"): its reference and inputs are NumPy's.
FOLDER_NEEDS = "NumPy"


class ListError(Exception):
    """Bad input: one line, exit status 2."""


@dataclass(frozen=True)
class Lab:
    name: str  # its folder's name
    order: int
    workload: str
    runner: str
    needs: str  # what a check needs besides the harness
    title: str


PREFIX = Path(__file__).resolve().parents[1] / "_prefix"  # the package's install prefix (native.PREFIX)


def labs_dir(given: str | None = None, prefix: Path = PREFIX) -> Path:
    """The labs folder, as the harness finds it (the module's docstring); `prefix` is the package's
    install prefix (native.py's PREFIX)."""
    if given:
        return Path(given)
    for variable, below in (("LAYERBENCH_LABS", ""), ("LAYERBENCH_DATA_DIR", "labs")):
        value = os.environ.get(variable)
        if value:
            return Path(value) / below
    installed = prefix / "share" / "layerbench" / "labs"
    source = Path(__file__).resolve().parents[3] / "labs"  # python/layerbench/lab -> the source tree's labs/
    for candidate in (installed, source):
        if candidate.is_dir():
            return candidate
    raise ListError(f"no labs folder: neither {installed} nor {source} (give --labs DIR, or set LAYERBENCH_LABS)")


def _text(spec: dict, field: str) -> str:
    value = spec.get(field)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"lab.json: {field}: expected text")
    return value


def read_lab(lab_json: Path) -> Lab:
    """One lab's row; ValueError (one line) when its lab.json cannot give it."""
    try:
        spec = json.loads(lab_json.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"lab.json: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"lab.json: not JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(spec, dict):
        raise ValueError("lab.json: expected an object")
    title, student_file = _text(spec, "title"), _text(spec, "student_file")
    order = spec.get("order")
    if isinstance(order, bool) or not isinstance(order, int):
        raise ValueError("lab.json: order: expected an integer")
    runner = spec.get("runner") or DEFAULT_RUNNER.get(Path(student_file).suffix, "")
    if runner not in RUNNER_NEEDS:
        raise ValueError(f"lab.json: runner: unknown runner '{runner}' (runners: {', '.join(RUNNER_NEEDS)})")
    needs = RUNNER_NEEDS[runner]
    if "workload_dir" in spec:
        folder = lab_json.parent / _text(spec, "workload_dir")
        try:
            workload = _text(json.loads((folder / "workload.json").read_text(encoding="utf-8")), "name")
        except (OSError, ValueError) as e:
            raise ValueError(f"its workload folder {folder}: cannot read its workload.json's name ({e})") from None
        needs += f", {FOLDER_NEEDS}"
    else:
        workload = _text(spec, "workload")
    return Lab(lab_json.parent.name, order, workload, runner, needs, title)


def read_labs(folder: Path) -> tuple[list[Lab], list[tuple[str, str]]]:
    """Every lab under `folder` (a folder holding a lab.json), in order, and each one left out, by
    folder name, with why. ListError when the folder cannot be read."""
    try:
        entries = sorted(folder.iterdir())
    except OSError as e:
        raise ListError(f"cannot read the labs folder {folder}: {e.strerror or e}") from None
    labs, left_out = [], []
    for entry in entries:
        lab_json = entry / "lab.json"
        if not entry.is_dir() or not lab_json.is_file():
            continue
        try:
            labs.append(read_lab(lab_json))
        except ValueError as e:
            left_out.append((entry.name, " ".join(str(e).split())))
    labs.sort(key=lambda lab: (lab.order, lab.name))
    return labs, left_out


def listing(folder: Path, labs: list[Lab], left_out: list[tuple[str, str]], harness: str) -> str:
    """The list as printed: the harness's columns (folder, workload, title) with the runner and what
    a check needs before the title, each lab left out with why, and the line on the harness."""
    if not labs and not left_out:
        return f"No labs in {folder}\n"
    out = []
    if labs:
        width = max(len("a check needs"), *(len(lab.needs) for lab in labs))
        row = "  {:<20} {:<11} {:<10} {:<%d} {}" % width
        out += [f"Labs in {folder}:", row.format("lab", "workload", "runner", "a check needs", "title")]
        out += [row.format(lab.name, lab.workload, lab.runner, lab.needs, lab.title).rstrip() for lab in labs]
    if left_out:
        out += ([""] if labs else []) + [f"Left out here ({len(left_out)} of {len(labs) + len(left_out)} labs):"]
        out += [f"  {name:<20} {why}" for name, why in left_out]
    out += ["", f"Checking and grading (`layerbench lab check|grade`) need the native harness and a GPU: {harness}."]
    return "\n".join(out) + "\n"


class _Parser(argparse.ArgumentParser):
    """argparse with the project's one-line errors (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG, description="List the labs, in order, with their workload, runner, what a check needs and "
                               "title, and each lab left out here, with why (exit 0 while one is listed, 1 when "
                               "every lab was left out). This install has no native harness: starting, checking "
                               "and grading a lab need it, and a GPU.")
    p.add_argument("--labs", metavar="DIR", default=None,
                   help="folder of the labs ($LAYERBENCH_LABS, else this package's, else the source tree's labs/)")
    return p


def main(args: list[str], harness: str, prefix: Path = PREFIX) -> int:
    """`lab list ARGS` (args after `list`, with --labs DIR taken anywhere); `harness` says why there
    is no harness here, for the closing line; `prefix` is the package's install prefix."""
    p = parser()
    try:
        parsed, extra = p.parse_known_args(args)
    except SystemExit as e:  # --help (0), or a bad option (2, its line printed)
        return int(e.code or 0)
    if extra:
        print(f"{PROG}: error: unrecognized arguments: {' '.join(extra)} (see {PROG} --help)", file=sys.stderr)
        return 2
    try:
        folder = labs_dir(parsed.labs, prefix)
        labs, left_out = read_labs(folder)
    except ListError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(listing(folder, labs, left_out, harness))
    return 1 if left_out and not labs else 0
