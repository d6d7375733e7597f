"""Writing an output without destroying what its path points at, as layerbench's own writer does
(harness/record.h, write_output): "-" is standard output; a symlink is followed (through every
link) and its target written; a device, FIFO or socket is written straight through; a regular
file, or a path with nothing there yet, gets a temporary file beside it renamed over it, so that a
reader never sees half a file."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

STANDARD_OUTPUT = "-"


def landing(path: str | os.PathLike) -> Path:
    """Where a write to `path` lands: a symlink's target, followed through every link (one that does
    not exist yet too), else the path itself."""
    at = Path(path)
    for _ in range(40):
        if not at.is_symlink():
            break
        target = Path(os.readlink(at))
        at = target if target.is_absolute() else at.parent / target
    return at


def write_output(path: str | os.PathLike, text: str) -> None:
    """Writes `text` to what `path` names (module docstring). Raises OSError on failure."""
    if str(path) == STANDARD_OUTPUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = landing(path)
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        with open(target, "w", encoding="utf-8") as out:  # a rename would put a file in the node's place
            out.write(text)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f"{target.name}.tmp.{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
