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


def draw_buffer(buffer, size: dict, seed: int, stream: int) -> np.ndarray:
    shape = buffer.shape(size)
    count = int(np.prod(shape))
    bits = draw_bits(seed, stream, count)
    b = (bits >> np.uint64(40)).astype(np.uint32)
    negative = (bits & np.uint64(1)).astype(bool)
    kind = buffer.draw.get("kind", "unit" if buffer.is_float else "integers")
    if kind == "range":
        lo, hi = Formula(buffer.draw["lo"]).whole(**size), Formula(buffer.draw["hi"]).whole(**size)
        values = lo + (b.astype(np.int64) % max(1, hi - lo))
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
