"""A workload folder's own files (workload_folder.py re-exports these): the user's Python files
loaded as modules without writing into their folder, a call into them whose failure is one line
naming the file, the folder's content hash, and which Python implementation a folder has for which
layer. Split from workload_folder.py."""
from __future__ import annotations

import hashlib
import inspect
import types
from pathlib import Path
from typing import Callable

from workload_formula import WorkloadFolderError

# The Python layers a folder may implement itself, one file each: <layer>.py, "-" written "_".
PYTHON_LAYER_FILES = ("cupy", "numba", "numba-vectorize", "cuda-compute", "cython", "torch", "torch-compile", "triton", "jax")


def call_user(path: Path, what: str, fn: Callable, *args):
    """Calls a function of the user's file; what it raises becomes one line naming the file."""
    try:
        return fn(*args)
    except WorkloadFolderError:
        raise
    except Exception as e:  # the user's code: anything it raises is bad input, reported in one line
        raise WorkloadFolderError(path, f"{what}()", f"raised {type(e).__name__}: {e}") from None


def load_user_module(path: Path, name: str):
    """The user's file as a module, compiled from its text: no __pycache__ is written into their
    folder, and nothing is added to sys.path or sys.modules."""
    module = types.ModuleType(f"lb_workload_folder_{name}")
    module.__file__ = str(path)
    try:
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    except Exception as e:  # the user's file: anything it raises while importing is bad input
        raise WorkloadFolderError(path, "", f"cannot be imported: {type(e).__name__}: {e}") from None
    return module


def python_variant(w: "WorkloadFolder", layer: str):
    """A new Variant of the folder's implementation for Python layer `layer` (cupy.py, ...)."""
    path = w.python_layers[layer]
    variant = getattr(load_user_module(path, layer.replace("-", "_")), "Variant", None)
    if not callable(variant):
        raise WorkloadFolderError(path, "Variant", "not defined (a class with allocate, upload, run and download)")
    return call_user(path, "Variant", variant)


def content_hash(folder: Path) -> str:
    """sha256 over the folder's regular files (names and bytes, sorted): recorded in the results'
    context, so a run says exactly which version of the workload it measured."""
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        if file.suffix == ".pyc":
            continue
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def python_layer_files(folder: Path) -> dict[str, Path]:
    """The folder's own implementation per Python layer: `<layer>.py` (`-` written `_`) for each
    layer of PYTHON_LAYER_FILES it holds. The one place a folder's per-layer file is found."""
    return {layer: folder / f"{layer.replace('-', '_')}.py" for layer in PYTHON_LAYER_FILES
            if (folder / f"{layer.replace('-', '_')}.py").is_file()}


def positional_count(fn, path: Path) -> int:
    """How many positional parameters inputs() takes: 2 (size, rng) or 3 (size, rng, draw)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return 2
    if len(params) not in (2, 3):
        raise WorkloadFolderError(path, "inputs()", f"takes {len(params)} parameters: inputs(size, rng) or inputs(size, rng, draw)")
    return len(params)
