"""What a results file holds, typed: its cases (Case) and the whole file (Results), which every
writer of the reports asks instead of reading JSON. Layers are listed family by family
(palette.py, the one table of them); unknown layers join their family, in the order they ran."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from . import palette
from .descriptors import Descriptor, SIZE_FORMS, describe


# Version-1 files only: they do not record where a layer runs.
_V1_CPU_LAYERS = ("cpu", "thrust-omp")


def _num(value: Any) -> float | None:
    """A finite number, or None (the harness writes non-finite numbers as null)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _status(entry: dict[str, Any]) -> str:
    """layerbench's status; without it, Google Benchmark's fields (1.8's `skipped`, then
    `error_occurred`), so a skip is not read as a failure."""
    status = entry.get("status")
    if isinstance(status, str) and status:
        return status
    if entry.get("skipped"):
        return "skipped"
    return "failed" if entry.get("error_occurred") else "ok"


def _message(entry: dict[str, Any]) -> str:
    """Why the case is not ok: layerbench's message, else Google Benchmark's error or skip text."""
    for name in ("message", "error_message", "skip_message"):
        text = entry.get(name)
        if isinstance(text, str) and text:
            return text
    return ""


@dataclass
class Case:
    """One (workload, layer, size), as one benchmarks[] entry (or several folded repetitions)."""

    workload: str
    layer: str
    size: tuple[int, ...]  # the workload's size form: (n,), (m, n) for MxN, (m, n, k) for MxNxK
    entry: dict[str, Any]  # the JSON entry; folded figures replaced (see _fold)
    order: int  # position in the run
    repetitions: int = 1  # iteration entries folded into this case
    run: str = ""  # the run it belongs to in a merged file (its RUN_ID, reports/merge.py); "" in a plain file

    @property
    def rung(self) -> dict[str, Any] | None:
        """The ladder rung this case ran instead of the layer's own kernel (its "rung" object:
        id, number, name, title, file, kernel), or None."""
        rung = self.entry.get("rung")
        return rung if isinstance(rung, dict) and isinstance(rung.get("id"), str) else None

    @property
    def rung_label(self) -> str | None:
        """The rung's id without its workload ("03_smem_tiling" for <workload>/03_smem_tiling), or None."""
        return self.rung["id"].split("/", 1)[-1] if self.rung else None

    @property
    def layer_label(self) -> str:
        """The layer, with the rung for a rung case: "runtime:03_smem_tiling" (as in the name)."""
        return f"{self.layer}:{self.rung_label}" if self.rung else self.layer

    @property
    def key(self) -> tuple[str, str, tuple[int, ...]]:
        return (self.workload, self.layer_label, self.size)

    @property
    def name(self) -> str:
        """The harness's name for the case, <workload>/<layer>/<size>, without Google Benchmark's
        suffixes."""
        parts = str(self.entry.get("name") or "").split("/")
        if len(parts) >= 3:  # drop Google Benchmark's suffixes (/iterations:1, /manual_time)
            return "/".join(parts[:3])
        return f"{self.workload}/{self.layer_label}/{'x'.join(str(v) for v in self.size)}"

    def get(self, name: str) -> float | None:
        return _num(self.entry.get(name))

    @property
    def status(self) -> str:
        return _status(self.entry)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def message(self) -> str:
        return _message(self.entry)

    @property
    def median_ms(self) -> float | None:
        return self.get("median_ms")

    @property
    def samples(self) -> int:
        samples = self.get("samples")
        return int(samples) if samples is not None else 0

    @property
    def noise(self) -> float | None:
        """Relative standard deviation of the samples, or None where it was not measured
        (fewer than two samples: the harness then writes 0, which says nothing)."""
        rel = self.get("rel_stddev")
        if rel is None or self.samples < 2:
            return None
        return rel

    @property
    def samples_ms(self) -> list[float] | None:
        """The kept samples the file holds (samples_ms: all up to 500, else 500 evenly spaced;
        the repetitions' together for a folded case), or None in a file written before them."""
        values = self.entry.get("samples_ms")
        if not isinstance(values, list):
            return None
        numbers = [_num(v) for v in values]
        return [v for v in numbers if v is not None]

    @property
    def busy(self) -> list[str]:
        """Why the machine was busy while the case ran (the results' busy: another process on the
        GPU, or on a host-timed case's CPUs); [] when it was not, or the file does not say."""
        reasons = self.entry.get("busy")
        return [r for r in reasons if isinstance(r, str)] if isinstance(reasons, list) else []

    @property
    def noise_target_missed(self) -> bool:
        """True when sampling stopped with the noise above the target (cap, settled or out of reach)."""
        return self.entry.get("noise_target_reached") is False

    @property
    def flops(self) -> float | None:
        return self.get("flops")

    @property
    def bytes_moved(self) -> float | None:
        return self.get("bytes_moved")


@dataclass
class Results:
    path: str
    context: dict[str, Any]
    cases: list[Case]
    notes: list[str] = field(default_factory=list)  # how the file was read (folding, oddities)
    descriptors: dict[str, Descriptor] = field(default_factory=dict)  # per workload: what it is (`describe`)

    # --- merged files (reports/merge.py) -----------------------------------------------------
    @property
    def runs(self) -> list[dict[str, Any]]:
        """A merged file's runs, in order: {"run": RUN_ID, "file": ..., "context": {...}}; [] for a
        plain file."""
        merged = self.context.get("merged")
        runs = merged.get("runs") if isinstance(merged, dict) else None
        return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []

    def for_run(self, run: str) -> Results:
        """One run of a merged file alone: its own context and its cases, as if read from its own file."""
        found = next((r for r in self.runs if r.get("run") == run), None)
        if found is None:
            raise KeyError(run)
        return Results(path=self.path, context=found["context"], cases=[c for c in self.cases if c.run == run],
                       notes=list(self.notes), descriptors=dict(self.descriptors))

    # --- context ---------------------------------------------------------------------------
    def ctx(self, *keys: str) -> Any:
        """context[k0][k1]..., or None where any level is missing."""
        node: Any = self.context
        for key in keys:
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        return node

    @property
    def device(self) -> dict[str, Any] | None:
        device = self.context.get("device")
        return device if isinstance(device, dict) else None

    @property
    def device_name(self) -> str:
        return str(self.device.get("name")) if self.device and self.device.get("name") else "no GPU"

    @property
    def copy_gbps(self) -> float | None:
        return _num(self.ctx("ceilings", "copy_gbps"))

    @property
    def cublas_gflops(self) -> Any:
        """The cuBLAS SGEMM ceiling: context.ceilings.sgemm_gflops (measured at
        ceilings.sgemm_size), or cublas_sgemm_gflops; a number, or a mapping from a size label to
        a number; None when absent."""
        for name in ("sgemm_gflops", "cublas_sgemm_gflops"):
            value = self.ctx("ceilings", name)
            if _num(value) is not None:
                return _num(value)
            if isinstance(value, dict):
                points = {str(k): _num(v) for k, v in value.items() if _num(v) is not None}
                if points:
                    return points
        return None

    @property
    def cublas_size(self) -> tuple[int, ...] | None:
        """The size cuBLAS SGEMM was measured at (ceilings.sgemm_size, 'MxNxK'), or None."""
        try:
            size = tuple(int(v) for v in str(self.ctx("ceilings", "sgemm_size")).lower().split("x"))
        except ValueError:
            return None
        return size if len(size) == 3 else None

    @property
    def theoretical_gbps(self) -> float | None:
        return _num(self.ctx("device", "theoretical_bandwidth_gbps"))

    @property
    def theoretical_gflops(self) -> float | None:
        return _num(self.ctx("device", "theoretical_fp32_gflops"))

    @property
    def gpu_cache_mode(self) -> str | None:
        """'cold' (L2 flushed before each GPU sample) or 'hot'; results written before the harness
        had the choice took samples back to back, i.e. hot."""
        mode = self.ctx("measurement", "gpu_cache_mode")
        if isinstance(mode, str):
            return mode
        return "hot" if self.device else None

    @property
    def min_time_s(self) -> float | None:
        return _num(self.ctx("measurement", "min_time_s")) or _num(self.ctx("layerbench", "min_time_s"))

    def layer_info(self, layer: str) -> dict[str, Any]:
        info = self.ctx("layers", layer)
        return info if isinstance(info, dict) else {}

    def on_gpu(self, layer: str) -> bool:
        """Whether the layer runs on the GPU, as the file records it (context.layers.<layer>.on_gpu);
        version-1 files: every layer but cpu and thrust-omp."""
        recorded = self.layer_info(layer).get("on_gpu")
        if isinstance(recorded, bool):
            return recorded
        return layer not in _V1_CPU_LAYERS

    def timing(self, case: Case) -> str:
        """Whose clock the case's time is, as compare's TIMING_KINDS name it: "cpu" (a CPU layer),
        "host-feeds-gpu" (a launch-overhead workload, or a GPU case timed by the host: its
        timed_by, or for older files a stream not held) or "device"."""
        if not self.on_gpu(case.layer):
            return "cpu"
        timed_by = case.entry.get("timed_by")
        if timed_by == "host" or self.is_launch(case.workload):
            return "host-feeds-gpu"
        if timed_by is None and case.entry.get("stream_held") is False:
            return "host-feeds-gpu"
        return "device"

    def descriptor(self, workload: str) -> Descriptor:
        """What the workload is (context.workloads.<workload>, or the fallback for older files):
        the one place the reports learn a workload's figure, size form, summary, vendor routine."""
        found = self.descriptors.get(workload)
        if found is None:
            found = _complete(describe(workload, self.ctx("workloads", workload)), [])
            self.descriptors[workload] = found
        return found

    def figure(self, workload: str) -> str | None:
        """The workload's figure: "gbps", "gflops" or "us_per_launch" (its descriptor's); None for a
        workload the file does not describe (and an older file's name the fallback does not hold)."""
        return self.descriptor(workload).figure

    def is_launch(self, workload: str) -> bool:
        """Launch-overhead workloads, whose figure is microseconds per launch."""
        return self.descriptor(workload).is_launch

    def ceiling(self, workload: str) -> float | None:
        """The run's ceiling the workload's rate is read against: the copy bandwidth (GB/s) or a
        single cuBLAS SGEMM figure (GFLOP/s); None for launch workloads and where not measured."""
        figure = self.figure(workload)
        if figure == "gbps":
            return self.copy_gbps
        if figure == "gflops" and isinstance(self.cublas_gflops, float):
            return self.cublas_gflops
        return None

    def fraction(self, case: Case) -> float | None:
        """The case's fraction of its ceiling (Descriptor.fraction_field): as the harness wrote it,
        else its rate over the run's ceiling; None for CPU layers (the GPU's ceilings are not
        theirs), launch workloads and runs without the ceiling."""
        d = self.descriptor(case.workload)
        fraction_field = d.fraction_field
        if not fraction_field or not self.on_gpu(case.layer):
            return None
        frac = case.get(fraction_field)
        ceiling = self.ceiling(case.workload)
        figure = case.get(d.figure) if d.figure else None  # a figure, as there is a fraction field
        if frac is None and ceiling and figure:
            frac = figure / ceiling
        return frac

    def cpu_backends(self, workload: str | None = None) -> list[tuple[str, str]]:
        """What the cpu layer says it runs a compute (GFLOP/s) workload with, e.g. its BLAS or its
        loop nest: (workload, text) for each entry of its record keyed by such a workload
        (context.layers.cpu.<workload>: a layer's own record, keyed by the workload's name), or
        for `workload` alone."""
        info = self.layer_info("cpu")
        return [(w, text) for w, text in info.items()
                if isinstance(text, str) and text and (workload is None or w == workload)
                and self.figure(w) == "gflops"]

    # --- cases -------------------------------------------------------------------------------
    # `cases` holds every case; the layer views below (layers, workloads, of, sizes, find) hold the
    # layers' own kernels only: ladder rung cases are drawn apart, by `ladders`.
    @property
    def own_cases(self) -> list[Case]:
        return [c for c in self.cases if not c.rung]

    @property
    def ladders(self) -> dict[tuple[str, str, tuple[int, ...]], list[Case]]:
        """Rung cases by (workload, layer, size), each list in ladder order."""
        def ladder_order(c: Case) -> tuple[float, int]:
            rung = c.rung or {}  # never {}: only rung cases are sorted
            return (_num(rung.get("number")) or 0.0, c.order)

        found: dict[tuple[str, str, tuple[int, ...]], list[Case]] = {}
        for c in sorted((c for c in self.cases if c.rung), key=ladder_order):
            found.setdefault((c.workload, c.layer, c.size), []).append(c)
        return found

    @property
    def layers(self) -> list[str]:
        seen = list(dict.fromkeys(c.layer for c in self.own_cases))
        infos = self.ctx("layers")
        return palette.order(seen, infos if isinstance(infos, dict) else {})

    @property
    def workloads(self) -> list[str]:
        return list(dict.fromkeys(c.workload for c in self.own_cases))

    def of(self, workload: str, layer: str | None = None, ok_only: bool = False) -> list[Case]:
        found = [c for c in self.own_cases if c.workload == workload and (layer is None or c.layer == layer)]
        if ok_only:
            found = [c for c in found if c.ok and c.median_ms is not None]
        return sorted(found, key=lambda c: (size_order(c), c.order))

    def sizes(self, workload: str) -> list[tuple[int, ...]]:
        cases = self.of(workload)
        return list(dict.fromkeys(c.size for c in cases))

    def find(self, workload: str, layer: str, size: tuple[int, ...]) -> Case | None:
        for case in self.own_cases:
            if case.key == (workload, layer, size):
                return case
        return None

    @property
    def not_ok(self) -> list[Case]:
        return [c for c in self.cases if not c.ok]


def _complete(d: Descriptor, sizes: list[tuple[int, ...]]) -> Descriptor:
    """A descriptor with a size form: where the file gave none, the one its cases' sizes have."""
    if d.size_form in SIZE_FORMS:
        return d
    dims = max(set(map(len, sizes)), key=[len(s) for s in sizes].count) if sizes else 1
    return replace(d, size_form={1: "n", 2: "MxN", 3: "MxNxK"}.get(dims, "n"))


def size_order(case: Case) -> float:
    """Orders sizes by the work they hold: flops when known, else the product of the size."""
    if case.flops:
        return case.flops
    return float(math.prod(case.size)) if case.size else 0.0
