"""The cuda-compute layer's disk cache of built algorithms. cuda.compute (cuda-cccl 1.1+) turns a
built algorithm into bytes (cuda.compute.serialize: the CUBIN, its kernel names, the operator's
LTO-IR and the iterators' types) and back (cuda.compute.deserialize), so a later process loads
the CUBIN instead of running Numba, NVRTC and nvJitLink again (1 to 3 s an algorithm).

The entries sit in the run's kernel cache folder (an lb_native.KernelCache: --kernel-cache; off
with --no-kernel-cache, and None outside the harness) beside the C++ cache's CUBINs, and are
written and read the way variants/nvrtc/kernel_cache.cpp writes and reads those: a header with
the key and the payload's size and hash, written to a temporary file and renamed (atomic: a reader
sees the old entry or the new one, never half of one), and read back only when every check holds.
An entry that fails one (truncated, corrupt, another key's) or that cuda.compute refuses is never
used: the algorithm is built again and the entry rewritten. Writing is best effort, as in C++: a
folder that cannot be written costs the next run a build, not this one its case.

Standard library only: the tests of the key and the entry format run without cuda.compute."""
from __future__ import annotations

import enum
import hashlib
import os
import types
from pathlib import Path

MAGIC = b"layerbench-cuda-compute 1"  # the entry's first line; a new layout gets a new number


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def cache_key(parts: dict) -> str:
    """32 hex digits naming everything that makes the built algorithm: the same on every run and
    machine (no Python hash(), which changes per process), whatever order the parts come in."""
    return digest("".join(f"{name}={parts[name]}\n" for name in sorted(parts)).encode())[:32]


def entry_file(cache, algorithm: str, sm: int, key: str) -> Path | None:
    """The entry's path in the kernel cache folder, or None when the cache is off (no read, no
    write): --no-kernel-cache, or no cache outside the harness."""
    if cache is None or not cache.enabled:
        return None
    return Path(cache.dir) / f"cuda-compute-{algorithm}-sm{sm}-{key}.cccl"


def read_entry(path: Path, key: str) -> bytes | None:
    """The payload of the entry at `path`, or None unless it is whole and of this key. Layout:
    MAGIC, key, payload size, payload SHA-256, one line each, then the payload."""
    try:
        data = path.read_bytes()
    except OSError:  # missing or unreadable: a build
        return None
    fields = data.split(b"\n", 4)
    if len(fields) != 5:
        return None
    magic, stored_key, size, payload_hash, payload = fields
    if magic != MAGIC or stored_key != key.encode() or not payload or size != b"%d" % len(payload):
        return None  # another layout, another key's entry, or truncated / with trailing bytes
    return payload if payload_hash == digest(payload).encode() else None


def write_entry(path: Path, key: str, payload: bytes) -> str:
    """Writes the entry: a temporary file beside it, renamed over it. "" when written, else why not
    (the temporary file is removed then)."""
    temp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(temp, "wb") as out:
            out.write(b"\n".join([MAGIC, key.encode(), b"%d" % len(payload), digest(payload).encode(), payload]))
        os.replace(temp, path)
        return ""
    except OSError as e:
        try:
            temp.unlink(missing_ok=True)
        except OSError:  # the folder itself is the problem: nothing was written
            pass
        return f"{type(e).__name__}: {e}"


def load_or_build(cache, algorithm: str, sm: int, parts: dict, build, serialize, deserialize):
    """(the algorithm, how it was had): deserialize()d from its entry ("disk cache hit"), else
    build()'s ("built"), written as serialize() makes it unless the cache is off. A build that
    could not be saved says why in `how`; what build() raises goes through, and nothing is written."""
    key = cache_key(parts)
    path = entry_file(cache, algorithm, sm, key)
    payload = read_entry(path, key) if path else None
    if payload is not None:
        try:
            return deserialize(payload), "disk cache hit"
        except Exception:  # whole, but cuda.compute refuses it (its blob checks): build and rewrite
            pass
    built = build()
    if path is None:
        return built, "built"
    try:
        why = write_entry(path, key, serialize(built))
    except Exception as e:  # serialize failed: the build still serves this run
        why = f"{type(e).__name__}: {e}"
    return built, "built" if not why else f"built, not saved: {why.splitlines()[0]}"


# --- an operator's identity --------------------------------------------------------------------

def op_identity(op) -> str:
    """What names an operator in the key: "OpKind.PLUS" for a built-in (bare or as cuda.compute
    wraps it), else "python <hash>" of a Python function (or of cuda.compute's wrapper of one,
    which keeps it as .func): its bytecode, constants, names, and what its closure and the globals
    it reads hold. Never its address: the same `def` in another process has the same identity."""
    kind = getattr(op, "kind", op)  # cuda.compute's wrapper of an OpKind keeps it as .kind
    if isinstance(kind, enum.Enum):
        return f"OpKind.{kind.name}"
    function = getattr(op, "func", op)
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"no cache identity for the operator {op!r}: an OpKind or a Python function")
    return "python " + digest(describe(function).encode())[:32]


def describe(value, depth: int = 0) -> str:
    """A text that changes when what Numba would compile from `value` changes. A device array (a
    closure cell cuda.compute turns into state) counts by dtype and shape, as cuda.compute compiles
    it; a host array by its bytes too (Numba freezes it in as a constant)."""
    if depth > 6:  # a function that reaches itself: enough has been said
        return "..."
    inner = depth + 1
    if isinstance(value, types.FunctionType):
        cells = [describe(c.cell_contents, inner) for c in value.__closure__ or ()]
        used = [f"{n}: {describe(value.__globals__[n], inner)}" for n in sorted(_names(value.__code__))
                if n in value.__globals__]
        return f"function {value.__qualname__} {describe(value.__code__, inner)} closure {cells} globals {used}"
    if isinstance(value, types.CodeType):
        consts = [describe(c, inner) for c in value.co_consts]
        return f"code {value.co_code.hex()} {value.co_names} {value.co_varnames} {value.co_freevars} {consts}"
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    if hasattr(value, "__cuda_array_interface__"):
        return f"device array {value.dtype} {tuple(value.shape)}"
    if hasattr(value, "tobytes") and hasattr(value, "dtype"):  # NumPy arrays and scalars
        return f"host array {value.dtype} {getattr(value, 'shape', ())} {digest(value.tobytes())}"
    if isinstance(value, (tuple, list, frozenset)):
        return f"{type(value).__name__} {[describe(v, inner) for v in value]}"
    # numbers, strings, None, anything else: its type and repr (an object whose repr shows its
    # address misses the cache in every process: a build, never a wrong hit)
    return f"{type(value).__qualname__} {value!r}"


def _names(code: types.CodeType) -> set[str]:
    """The global names `code` and the functions nested in it read."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found
