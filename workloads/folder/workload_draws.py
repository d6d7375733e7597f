"""The harness's seeded generator (workloads/random_draw.h) in NumPy, bit for bit, and what a
workload folder's outputs start as (workload_folder.py)."""
from __future__ import annotations

import numpy as np

from workload_formula import Formula


# --- the harness's seeded generator (workloads/random_draw.h), in NumPy ---------------------------

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
# splitmix64's constants (random_draw::mix)
_MIX_ADD = np.uint64(0x9E3779B97F4A7C15)
_MIX_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_MUL2 = np.uint64(0x94D049BB133111EB)


def _mix_in_place(x: np.ndarray, scratch: np.ndarray) -> None:
    """random_draw::mix of each element of x, into x, with `scratch` (x's shape and dtype) for the
    shifted copies: no allocation (draw_buffer's chunks)."""
    with np.errstate(over="ignore"):
        x += _MIX_ADD
        np.right_shift(x, np.uint64(30), out=scratch)
        x ^= scratch
        x *= _MIX_MUL1
        np.right_shift(x, np.uint64(27), out=scratch)
        x ^= scratch
        x *= _MIX_MUL2
        np.right_shift(x, np.uint64(31), out=scratch)
        x ^= scratch


def _mix(x) -> np.ndarray:
    """random_draw::mix of a key or of each element of an array, as a new value."""
    mixed = np.array(x, dtype=np.uint64)  # a copy, at least 0-d
    _mix_in_place(mixed, np.empty_like(mixed))
    return mixed if mixed.ndim else mixed[()]


def stream_key(seed: int, stream: int) -> np.uint64:
    return _mix(np.uint64(seed) ^ _mix(np.uint64(stream + 0x51ED27)))


def range_bounds(buffer, size: dict) -> tuple[int, int]:
    """A range draw's [lo, hi) at `size`; ValueError (naming the field) unless lo < hi and every
    integer of it is one the buffer's type holds."""
    lo, hi = Formula(buffer.draw["lo"]).exact(**size), Formula(buffer.draw["hi"]).exact(**size)
    if lo.denominator != 1 or hi.denominator != 1:
        raise ValueError(f"draw: lo = {lo}, hi = {hi} at {size_text(size)}: a range's ends are whole numbers")
    lo, hi = int(lo), int(hi)
    info = np.iinfo(buffer.dtype)
    if not lo < hi:
        raise ValueError(f"draw: [lo, hi) = [{lo}, {hi}) at {size_text(size)} is empty")
    if lo < info.min or hi - 1 > info.max:
        raise ValueError(f"draw: [lo, hi) = [{lo}, {hi}) at {size_text(size)} holds integers a {buffer.type} does not "
                         f"(it holds [{info.min}, {info.max}])")
    return lo, hi


def size_text(size: dict) -> str:
    return f"m={size['m']}, n={size['n']}, k={size['k']}"


def uniform_below(bits: np.ndarray, width: int) -> np.ndarray:
    """Each element's integer in [0, width), uniform for any width up to 2^64: its 64-bit draw
    modulo width, redrawn (mix of the rejected draw, a chain per element, so still a function of
    the seed, the stream and the index alone) while it falls in the top 2^64 mod width values,
    which would favour the small remainders. Rejection takes fewer than one redraw in 2^64 /
    (2^64 mod width) elements: none for a power of two."""
    if width == 1 << 64:
        return bits.astype(np.uint64)
    limit = (1 << 64) - (1 << 64) % width   # a multiple of width; draws at or above it are redrawn
    bits = bits.copy()
    if limit < 1 << 64:
        rejected = np.flatnonzero(bits >= np.uint64(limit))
        while rejected.size:
            bits[rejected] = _mix(bits[rejected])
            rejected = rejected[bits[rejected] >= np.uint64(limit)]
    return bits % np.uint64(width)


# Elements drawn at a time: the temporaries of a chunk (a few arrays of 2^20 eight-byte values) stay
# in the CPU's caches, where whole-buffer temporaries went to memory and back for every operation.
# At 64M elements that made a draw take 7.6 s on a 2-core machine, and a graded sample of lab 10
# draws its inputs afresh (lab/child/fresh_inputs.h): the grade ran past its time limit.
_CHUNK = 1 << 20


def _unit_into(bits: np.ndarray, out: np.ndarray) -> None:
    """random_draw::element's kUnit float of each draw, into float32 `out`: (2^22 + floor(3b/4))
    2^-24 with b the top 24 bits, negative where the lowest bit is set. Every step is exact: 3b/4
    and 2^22 + it are whole numbers below 2^24, exact in float32, and 2^-24 a power of two."""
    b = (bits >> np.uint64(40)).astype(np.uint32)
    b *= np.uint32(3)
    b >>= np.uint32(2)
    b += np.uint32(1 << 22)
    np.multiply(b, np.float32(2.0**-24), out=out, dtype=np.float32)
    np.negative(out, out=out, where=(bits & np.uint64(1)).astype(bool))


def draw_buffer(buffer, size: dict, seed: int, stream: int) -> np.ndarray:
    shape = buffer.shape(size)
    count = int(np.prod(shape))
    kind = buffer.draw.get("kind", "unit" if buffer.is_float else "integers")
    if kind == "range":
        lo, hi = range_bounds(buffer, size)
    key = stream_key(seed, stream)
    values = np.empty(count, dtype=np.float32 if kind == "unit" else np.int64)
    bits = np.empty(min(count, _CHUNK), dtype=np.uint64)
    scratch = np.empty_like(bits)
    for start in range(0, count, _CHUNK):
        end = min(count, start + _CHUNK)
        chunk, spare, target = bits[:end - start], scratch[:end - start], values[start:end]
        # random_draw::element's bits for this chunk: mix(key + i), i from start
        np.add(np.arange(start, end, dtype=np.uint64), key, out=chunk)
        _mix_in_place(chunk, spare)
        if kind == "unit":
            _unit_into(chunk, target)
        elif kind == "range":
            # lo + offset in the buffer's type: the offset is below 2^64 and the sum fits the type
            # (range_bounds), so add in two's complement on 64 bits and reinterpret.
            with np.errstate(over="ignore"):
                target[:] = (np.uint64(lo % (1 << 64)) + uniform_below(chunk, hi - lo)).view(np.int64)
        else:  # integers: 1 + b mod 255, b the top 24 bits; negative where the lowest bit is set
            magnitude = 1 + ((chunk >> np.uint64(40)) % np.uint64(255)).astype(np.int64)
            target[:] = np.where((chunk & np.uint64(1)).astype(bool), -magnitude, magnitude)
    return values.astype(buffer.dtype, copy=False).reshape(shape)


def starting_contents(buffer, size: dict) -> np.ndarray:
    shape = buffer.shape(size)
    if buffer.starts_as == "zero":
        return np.zeros(shape, dtype=buffer.dtype)
    return np.full(shape, np.nan if buffer.is_float else -1, dtype=buffer.dtype)
