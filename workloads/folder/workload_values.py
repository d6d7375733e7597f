"""The values a workload folder gives, checked where they enter (workload_folder.py; split from it):
a scalar in its type's range, inputs.py's arrays in their buffer's type and of its kind, reference.py's
outputs in float64 without NaN or inf (NaN only in an output that declares `"may_be_nan": true`, and
then checked exactly: NaN where the reference has NaN), and a tolerance rule's bound and scales finite and positive. None of these
can be switched off by the folder; each failure is one line naming the file, the field and the value."""
from __future__ import annotations

import numpy as np

from workload_formula import WorkloadFolderError


def _int_range(type_name: str) -> tuple[int, int] | None:
    """An integer type's [min, max] (NumPy's, as the range draws read it: workload_draws.py); None
    for a float type."""
    dtype = np.dtype(type_name)
    return (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) if dtype.kind == "i" else None


def _float_max(type_name: str) -> float:
    return float(np.finfo(np.dtype(type_name)).max)


def _first(array: np.ndarray, bad: np.ndarray) -> str:
    """'VALUE at [i, j]' of the first element where `bad` holds."""
    at = np.unravel_index(int(np.argmax(bad)), array.shape) if array.ndim else ()
    return f"{array[at].item()!r} at [{', '.join(str(int(i)) for i in at)}]"


def scalar_value(s: dict, json_path, where: str):
    """workload.json's scalar value as its type holds it: a whole number in an integer type's range, a
    finite float in float32's or float64's."""
    value, kind = s["value"], s["type"]
    if isinstance(value, float) and not np.isfinite(value):
        raise WorkloadFolderError(json_path, where, f"{value} is not finite")
    if (limits := _int_range(kind)) is not None:
        if value != int(value):
            raise WorkloadFolderError(json_path, where, f"{value} is not a whole number ({kind})")
        lo, hi = limits
        if not lo <= int(value) <= hi:
            raise WorkloadFolderError(json_path, where, f"{int(value)} is outside {kind} ({lo} to {hi})")
        return int(value)
    if abs(float(value)) > _float_max(kind):
        raise WorkloadFolderError(json_path, where, f"{value} is outside {kind} (at most {_float_max(kind):.8g} in magnitude)")
    return float(value)


def input_array(b, array: np.ndarray, path, where: str) -> np.ndarray:
    """inputs.py's array for buffer `b`, in b's type: refused when a value would change on the way
    (an integer out of the type's range, a float into an integer buffer, a float beyond float32)."""
    kind = array.dtype.kind
    if kind not in "biuf":
        raise WorkloadFolderError(path, where, f"holds {array.dtype} values; {b.name} is {b.type}: give numbers")
    if (limits := _int_range(b.type)) is not None:
        if kind == "f":
            whole = np.isfinite(array) & (array == np.trunc(array))
            raise WorkloadFolderError(path, where, f"holds {array.dtype} values ({_first(array, ~whole if (~whole).any() else whole)}); "
                                      f"{b.name} is {b.type}: give an integer array, not floats")
        if array.size and kind in "iu":
            lo, hi = limits
            bad = (array < lo) | (array > hi)
            if bad.any():
                raise WorkloadFolderError(path, where, f"holds {_first(array, bad)}, outside {b.type} ({lo} to {hi})")
    elif array.size and kind == "f":
        bad = np.isfinite(array) & (np.abs(array) > _float_max(b.type))
        if bad.any():
            raise WorkloadFolderError(path, where, f"holds {_first(array, bad)}, outside {b.type} "
                                      f"(at most {_float_max(b.type):.8g} in magnitude)")
    return np.ascontiguousarray(array, dtype=b.dtype)


def reference_array(b, array: np.ndarray, path, where: str) -> None:
    """reference.py's result for a float output: float64, finite; NaN only where `b` declares it."""
    if not b.is_float:
        return
    if array.dtype.kind == "f" and array.dtype != np.float64:
        raise WorkloadFolderError(path, where, f"is {array.dtype}: a reference computes in float64 "
                                  "(np.float64 arrays), else the tolerance hides its own rounding")
    values = np.asarray(array, dtype=np.float64)
    bad = np.isinf(values) if b.may_be_nan else ~np.isfinite(values)
    if bad.any():
        hint = "" if b.may_be_nan or not np.isnan(values[bad]).all() else \
            " (an output whose elements may be NaN says \"may_be_nan\": true in workload.json)"
        raise WorkloadFolderError(path, where, f"holds {_first(values, bad)}: a reference's outputs are finite{hint}")


def tolerance_rule(b, scale: np.ndarray, bound: float, path, where: str) -> None:
    """The bound and every scale finite and positive: an infinite scale would pass any output."""
    if not (bound > 0 and np.isfinite(bound)):
        raise WorkloadFolderError(path, where, f"the bound is {bound!r}: the bound and every scale must be positive and finite")
    bad = ~(np.isfinite(scale) & (scale > 0))
    if bad.any():
        raise WorkloadFolderError(path, where, f"the scale is {_first(scale, bad)}: the bound and every scale must be positive and finite")
