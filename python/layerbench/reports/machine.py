"""What the results file says about the machine that the report states in words: why no GPU was
used, and which BLAS the cpu layer linked."""
from __future__ import annotations

import re
from typing import Any

from .results import Results

# Reasons a layer gives for itself rather than for the GPU (variants/python/, their CMake): a
# Python module that did not import, an interpreter that cannot be used, a build without the
# Python layers. The harness writes the first of all the run's reasons, in sorted order, as
# context.gpu_unavailable_reason, so on a machine without a GPU that can be PyCUDA's ImportError
# (it loads libcuda.so.1 at import) instead of the GPU probe's reason.
_LAYER_OWN = (
    re.compile(r"^import \S+ failed"),
    re.compile(r"^cannot run the Python interpreter"),
    re.compile(r"is Python [\d.]+, but layerbench was built with Python"),
    re.compile(r"^built with(out)? "),
    re.compile(r"\b\w*(Error|Exception): "),
)
# A Python layer in a build without Python puts the GPU's reason first and its own after this.
_ALSO = "; the Python layers also unavailable: "
# What the harness's GPU probe says when libcuda.so.1 cannot be loaded (common/gpu.cpp).
NO_DRIVER = "no CUDA driver (libcuda.so.1 not found)"


def is_layer_reason(reason: str) -> bool:
    return any(rule.search(reason) for rule in _LAYER_OWN)


def no_gpu_reason(r: Results) -> str | None:
    """Why no GPU was used, as the harness's GPU probe put it ('no CUDA driver (libcuda.so.1 not
    found)', 'no CUDA device', ...): context.gpu_unavailable_reason, else the reason most layers
    were left out for (context.layers_unavailable); never a layer's own reason. Files written before
    the harness recorded the probe's reason there may hold a layer's instead (PyCUDA's ImportError,
    which says that libcuda.so.1 could not be loaded: the probe's NO_DRIVER); otherwise None."""
    recorded = r.ctx("gpu_unavailable_reason")
    candidates = [recorded] if isinstance(recorded, str) else []
    left_out = r.ctx("layers_unavailable")
    if isinstance(left_out, dict):
        reasons = [v for v in left_out.values() if isinstance(v, str)]
        candidates += sorted(set(reasons), key=lambda v: (-reasons.count(v), v))
    candidates = [c.split(_ALSO)[0].strip() for c in candidates if c.strip()]
    for reason in candidates:
        if not is_layer_reason(reason):
            return reason
    for reason in candidates:
        if re.search(r"libcuda\.so(\.1)?: cannot open shared object file", reason):
            return NO_DRIVER
    return None


def layers_left_out(r: Results) -> list[tuple[str, list[str]]]:
    """(reason, layers) for the layers the run left out (context.layers_unavailable), grouped by
    reason, the most layers first."""
    left_out = r.ctx("layers_unavailable")
    if not isinstance(left_out, dict):
        return []
    grouped: dict[str, list[str]] = {}
    for layer, reason in left_out.items():
        grouped.setdefault(str(reason), []).append(layer)
    return sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def no_gpu_sentence(r: Results) -> str:
    reason = no_gpu_reason(r)
    if reason:
        return f"**no GPU: {reason}.** Only the CPU layers ran."
    recorded = r.ctx("gpu_unavailable_reason")
    why = (" (the file's `gpu_unavailable_reason` holds a layer's own error, not the GPU probe's)"
           if isinstance(recorded, str) and recorded.strip() else "")
    return f"**no GPU**: this results file does not record why{why}. Only the CPU layers ran."


def cpu_blas(r: Results) -> str:
    """The BLAS the cpu layer linked, as the results file states it: context.layers.cpu.blas where
    the harness writes it ({name, version, threads, library: the file loaded, linked: the file the
    build linked, config}; {name: "none", why}), else what the cpu layer records it runs its
    GFLOP/s workloads with (context.layers.cpu.<workload>, Results.cpu_backends: e.g. for matmul
    'OpenBLAS cblas_sgemm (OpenBLAS 0.3.26 ...)' or 'cache-blocked OpenMP loop nest (no CBLAS ...)');
    '' when the file says neither."""
    cpu = r.layer_info("cpu")
    if "blas" in cpu:
        return _blas_text(cpu["blas"], r) + " (`context.layers.cpu.blas`)"
    for workload, text in r.cpu_backends()[:1]:
        if re.search(r"no c?blas", text, re.I):
            return f"none: {workload} runs a {text} (`context.layers.cpu.{workload}`)"
        return f"{text} (`context.layers.cpu.{workload}`)"
    return ""


def _blas_text(blas: Any, r: Results) -> str:
    if not isinstance(blas, dict):
        return "none" if blas in (None, False, "", "none") else str(blas)
    name = str(blas.get("name") or "")
    if name.lower() in ("", "none"):
        # The workloads the BLAS would have run: the GFLOP/s ones the cpu layer has a record of.
        compute = [w for w, _text in r.cpu_backends()]
        return ("none" + (f": {blas['why']}" if blas.get("why") else "") +
                (f"; {', '.join(compute)} {'runs' if len(compute) == 1 else 'run'} the cpu layer's loop nest"
                 if compute else "; the cpu layer runs its own loop nest"))
    text = " ".join(str(v) for v in (name, blas.get("version")) if v)
    if blas.get("threads"):
        text += f", {blas['threads']} threads"
    if blas.get("library"):
        text += f"; loaded from `{blas['library']}`"
    if blas.get("linked") and blas.get("linked") != blas.get("library"):
        text += f" (the build linked `{blas['linked']}`)"
    return text
