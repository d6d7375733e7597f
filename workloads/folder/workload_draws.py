"""The harness's seeded generator (workloads/random_draw.h) in NumPy, bit for bit, and what a
workload folder's outputs start as (workload_folder.py)."""
from __future__ import annotations

import numpy as np

from workload_formula import Formula


# --- the harness's seeded generator (workloads/random_draw.h), in NumPy ---------------------------

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def stream_key(seed: int, stream: int) -> np.uint64:
    return _mix(np.uint64(seed) ^ _mix(np.uint64(stream + 0x51ED27)))


def draw_bits(seed: int, stream: int, count: int) -> np.ndarray:
    """mix(key + i) for i < count: random_draw::element's bits."""
    with np.errstate(over="ignore"):
        return _mix(stream_key(seed, stream) + np.arange(count, dtype=np.uint64))


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


def draw_buffer(buffer, size: dict, seed: int, stream: int) -> np.ndarray:
    shape = buffer.shape(size)
    count = int(np.prod(shape))
    bits = draw_bits(seed, stream, count)
    b = (bits >> np.uint64(40)).astype(np.uint32)
    negative = (bits & np.uint64(1)).astype(bool)
    kind = buffer.draw.get("kind", "unit" if buffer.is_float else "integers")
    if kind == "range":
        lo, hi = range_bounds(buffer, size)
        offsets = uniform_below(bits, hi - lo)
        # lo + offset in the buffer's type: the offset is below 2^64 and the sum fits the type
        # (range_bounds), so add in two's complement on 64 bits and reinterpret.
        with np.errstate(over="ignore"):
            values = (np.uint64(lo % (1 << 64)) + offsets).view(np.int64)
    elif kind == "integers":
        magnitude = 1 + (b % 255).astype(np.int64)
        values = np.where(negative, -magnitude, magnitude)
    else:  # unit: exactly random_draw::element's float, then widened
        magnitude = ((1 << 22) + ((np.uint64(3) * b.astype(np.uint64)) >> np.uint64(2))).astype(np.float64) * 2.0**-24
        values = np.where(negative, -magnitude, magnitude).astype(np.float32)
    return values.astype(buffer.dtype).reshape(shape)


def starting_contents(buffer, size: dict) -> np.ndarray:
    shape = buffer.shape(size)
    if buffer.starts_as == "zero":
        return np.zeros(shape, dtype=buffer.dtype)
    return np.full(shape, np.nan if buffer.is_float else -1, dtype=buffer.dtype)
