"""Loading and validating a layerbench results file (docs/json-schema.md, schema versions 1 and 2).

A results file is Google Benchmark's layout (`context`, `benchmarks`) with layerbench's fields
beside Google Benchmark's. Only `benchmarks` entries with run_type "iteration" are cases;
aggregate entries (mean, median, stddev, cv with --benchmark_repetitions) are ignored, and the
repetitions of one case are folded into one case (see `_fold`).

What a workload is comes from the file: the harness writes each workload's descriptor under
context.workloads.<name> (its figure, summary, size form, buffers, vendor routine, ladder default;
workloads/workload.h). `describe` reads it into a Descriptor, and everything else in the reports
asks that object (Results.descriptor, Results.figure) instead of comparing workload names. Files
written before the descriptors existed fall back on one table, `_BEFORE_DESCRIPTORS`, the only
place that knows workloads by name. Likewise whether each layer runs on the GPU is read from
context.layers.<layer>.on_gpu, and guessed from the name only for version-1 files.

A merged file (`layerbench merge`, reports/merge.py) holds the runs of several GPUs, hosts or
tasks: context.merged.runs lists them (run id, file, whole context) and each benchmarks[] entry
names its run in "run". It loads as one Results whose cases each carry their run id (Case.run;
"" in a plain file); Results.runs lists the runs and Results.for_run(run) is one run alone, with
its own context, as if read from its own file.

Every problem with the input raises ResultsError, whose text is one line naming the file and
what is wrong; the command line prints it and exits 2.
"""
from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import palette
from . import schema

SCHEMA_VERSIONS = (1, 2)

# Layers are listed family by family (reports/palette.py, the one table of them); unknown layers
# join their family, in the order they ran.
# Version-1 files only: they do not record where a layer runs.
_V1_CPU_LAYERS = ("cpu", "thrust-omp")
FIGURES = ("gbps", "gflops", "us_per_launch")
RATES = ("gbps", "gflops")  # the figures read against a ceiling, drawn against size
# A workload's size form (context.workloads.<w>.size_form) -> the case fields that hold its size,
# in the order of Case.size.
SIZE_FORMS = {"n": ("n",), "MxN": ("m", "n"), "MxNxK": ("m", "n", "k")}
# The numbers a case's figures come from: each, where present and not null, must be a number, at
# least 0; a time (…_ms) at most MAX_MS. The harness writes null for a number it does not have.
NUMBER_FIELDS = ("median_ms", "mean_ms", "min_ms", "max_ms", "end_to_end_ms", "allocate_ms", "first_run_ms",
                 "rel_stddev", "samples", "gbps", "gflops", "us_per_launch", "bytes_moved", "flops",
                 "fraction_of_copy", "n", "m", "k")
MAX_MS = 1e12  # about 30 years: a larger time is no measurement (and overflows the plots' axes)


# --- what a workload is ----------------------------------------------------------------------

@dataclass(frozen=True)
class Buffer:
    """A buffer of a workload: its name as the kernels call it, its extents outermost first
    ("m", "n", "k"; none: one element)."""

    name: str
    extents: tuple[str, ...] = ()


@dataclass(frozen=True)
class Vendor:
    """The vendor library routine that computes the workload: ("cuBLAS", "cublasSgemm")."""

    library: str
    routine: str


@dataclass(frozen=True)
class Descriptor:
    """What a workload is, as the results file describes it (context.workloads.<name>).

    `source` says where it came from: "context" (the harness's descriptor), "fallback" (an older
    file: `_BEFORE_DESCRIPTORS`, with whatever the file did record, figure and summary, on top),
    or "unknown" (an older file and a name the table does not hold: only what the file recorded;
    the size form from the cases' fields). A workload whose figure is not known (None) is listed
    in the report's tables and not drawn."""

    name: str
    figure: str | None  # "gbps", "gflops", "us_per_launch"; None: not known
    summary: str = ""
    size_form: str = "n"  # "n", "MxN" or "MxNxK"
    inputs: tuple[Buffer, ...] = ()
    output: Buffer | None = None
    vendor: Vendor | None = None
    ladder_default_size: str | None = None
    source: str = "context"

    @property
    def known(self) -> bool:
        return self.figure in FIGURES

    @property
    def is_launch(self) -> bool:
        """A launch-overhead workload: its figure is microseconds per launch, its size the launches."""
        return self.figure == "us_per_launch"

    @property
    def is_rate(self) -> bool:
        """Read as a rate (GB/s or GFLOP/s) against a ceiling, and drawn against its size."""
        return self.figure in RATES

    @property
    def size_keys(self) -> tuple[str, ...]:
        """The case fields that hold the size, in the order of Case.size: ("m", "n") for MxN."""
        return SIZE_FORMS[self.size_form]

    @property
    def unit(self) -> str:
        return {"gbps": "GB/s", "gflops": "GFLOP/s", "us_per_launch": "µs per launch"}.get(self.figure or "", "")

    @property
    def fraction_field(self) -> str | None:
        """The case field holding the fraction of the ceiling this workload is read against:
        fraction_of_copy (GB/s: the device-to-device copy bandwidth measured in the run),
        fraction_of_cublas (GFLOP/s: cuBLAS SGEMM measured in the run); None without a ceiling."""
        return {"gbps": "fraction_of_copy", "gflops": "fraction_of_cublas"}.get(self.figure or "")

    @property
    def ceiling_name(self) -> str:
        """The ceiling, in words: "the copy ceiling", "cuBLAS SGEMM", or ''."""
        return {"gbps": "the copy ceiling", "gflops": "cuBLAS SGEMM"}.get(self.figure or "", "")

    @property
    def size_words(self) -> str:
        """What the size is, for an axis: "vector length n", "matrix size M×N", "matrix size M×N×K";
        "launches n" for a launch-overhead workload."""
        if self.is_launch:
            return "launches n"
        return "vector length n" if self.size_form == "n" else "matrix size " + self.size_form.replace("x", "×")

    @property
    def size_product(self) -> str:
        """The size's product in symbols: "n", "M·N", "M·N·K"."""
        return "·".join(self.size_form.split("x")) if self.size_form != "n" else "n"

    @property
    def output_is_one_value(self) -> bool:
        """The output is a single element (a reduction): the kernel reads and writes almost
        nothing, so it can pass the copy bandwidth, which counts a read and a write per byte."""
        return self.output is not None and not self.output.extents


# Files written before the harness exported descriptors: schema 1 (no context.workloads) and
# schema 2 before commit 52d7b8f (context.workloads.<w> holds figure and summary only). Such files
# hold only these five workloads (launch overhead as two, launch_async and launch_sync), described
# here as the harness described them then (workloads/*/*.cpp), in the layout the harness writes
# (harness/record.cpp). This table is the fallback, and the only place in reports/ and scripts/
# that knows a workload by its name: a name it does not hold, in a file without its descriptor, is
# read from what the file recorded (figure, summary) and the fields of its cases.
_BEFORE_DESCRIPTORS: dict[str, dict[str, Any]] = {
    "vector_add": {"figure": "gbps", "summary": "c = a + b, n fp32", "size_form": "n",
                   "inputs": [{"name": "a", "extents": ["n"]}, {"name": "b", "extents": ["n"]}],
                   "output": {"name": "c", "extents": ["n"]}, "ladder_default_size": None,
                   "vendor": {"library": "CUB", "routine": "cub::DeviceTransform::Transform"}},
    "saxpy": {"figure": "gbps", "summary": "y = alpha*x + y, n fp32, in place", "size_form": "n",
              "inputs": [{"name": "x", "extents": ["n"]}], "output": {"name": "y", "extents": ["n"]},
              "ladder_default_size": None, "vendor": {"library": "cuBLAS", "routine": "cublasSaxpy_64"}},
    "reduce": {"figure": "gbps", "summary": "s = sum(x), n fp32", "size_form": "n",
               "inputs": [{"name": "x", "extents": ["n"]}], "output": {"name": "out", "extents": []},
               "ladder_default_size": "2^28", "vendor": {"library": "CUB", "routine": "cub::DeviceReduce::Sum"}},
    "matmul": {"figure": "gflops", "summary": "C = A*B, fp32, row-major, A MxK, B KxN", "size_form": "MxNxK",
               "inputs": [{"name": "A", "extents": ["m", "k"]}, {"name": "B", "extents": ["k", "n"]}],
               "output": {"name": "C", "extents": ["m", "n"]}, "ladder_default_size": "4096",
               "vendor": {"library": "cuBLAS", "routine": "cublasSgemm"}},
    "launch_async": {"figure": "us_per_launch", "summary": "n launches of a one-store kernel, back to back: us per launch",
                     "size_form": "n", "inputs": [], "output": {"name": "out", "extents": []},
                     "ladder_default_size": None, "vendor": None},
    "launch_sync": {"figure": "us_per_launch", "summary": "n times: launch a one-store kernel and wait: us per round trip",
                    "size_form": "n", "inputs": [], "output": {"name": "out", "extents": []},
                    "ladder_default_size": None, "vendor": None},
}


def _buffer(value: Any) -> Buffer | None:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    extents = value.get("extents")
    return Buffer(value["name"], tuple(e for e in extents if isinstance(e, str) and e in ("m", "n", "k"))
                  if isinstance(extents, list) else ())


def describe(name: str, recorded: Any) -> Descriptor:
    """The workload's Descriptor from its record in the context (context.workloads.<name>, or None):
    the harness's descriptor where the file has one (it has a size_form); else, for files written
    before descriptors, the fallback table's entry with what the file did record on top of it.
    Fields of the wrong type are ignored, not errors: the figures do not depend on them. A size
    form that is neither recorded nor in the table is left to the cases (see `load`)."""
    recorded = recorded if isinstance(recorded, dict) else {}

    def form(value: Any) -> str:
        return value if isinstance(value, str) and value in SIZE_FORMS else ""

    if form(recorded.get("size_form")):
        source, fields = "context", recorded
    elif name in _BEFORE_DESCRIPTORS:
        source, fields = "fallback", {**_BEFORE_DESCRIPTORS[name],
                                      **{k: v for k, v in recorded.items() if k in ("figure", "summary")}}
    else:
        source, fields = "unknown", recorded
    figure = fields.get("figure") if isinstance(fields.get("figure"), str) and fields["figure"] in FIGURES else None
    inputs = fields.get("inputs") if isinstance(fields.get("inputs"), list) else []
    vendor = fields.get("vendor")
    vendor = (Vendor(vendor["library"], str(vendor.get("routine") or ""))
              if isinstance(vendor, dict) and isinstance(vendor.get("library"), str) and vendor["library"] else None)
    ladder = fields.get("ladder_default_size")
    return Descriptor(name=name, figure=figure,
                      summary=fields["summary"] if isinstance(fields.get("summary"), str) else "",
                      size_form=form(fields.get("size_form")),
                      inputs=tuple(b for b in map(_buffer, inputs) if b), output=_buffer(fields.get("output")),
                      vendor=vendor, ladder_default_size=ladder if isinstance(ladder, str) and ladder else None,
                      source=source)


def one_line(text: str) -> str:
    """Text for a one-line message: control characters (a line break in a quoted name, a NUL) as
    \\xNN escapes."""
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


class ResultsError(Exception):
    """Bad input: the message is one line, starting with the file's name."""

    def __init__(self, path: str | Path, what: str):
        super().__init__(one_line(f"{path}: {what}"))
        self.path = str(path)
        self.what = one_line(what)


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
        if not d.fraction_field or not self.on_gpu(case.layer):
            return None
        frac = case.get(d.fraction_field)
        ceiling = self.ceiling(case.workload)
        if frac is None and ceiling and case.get(d.figure):
            frac = case.get(d.figure) / ceiling
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
        found: dict[tuple[str, str, tuple[int, ...]], list[Case]] = {}
        for c in sorted((c for c in self.cases if c.rung), key=lambda c: (_num(c.rung.get("number")) or 0.0, c.order)):
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


# --- loading ---------------------------------------------------------------------------------

def load(path: str | Path) -> Results:
    """Reads, checks and loads a results file (plain or merged)."""
    return from_data(path, read(path))


def read(path: str | Path) -> dict[str, Any]:
    """The file's JSON, checked to be a layerbench results file (layout, schema version, and for a
    merged file its runs), otherwise as written; `from_data` makes the Results."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise ResultsError(path, f"JSON, but not a layerbench results file (the top level is "
                                 f"{_json_type(data)}, expected an object with \"context\" and \"benchmarks\")")
    missing = [k for k in ("context", "benchmarks") if k not in data]
    if missing:
        raise ResultsError(path, "JSON, but not a layerbench results file (no " +
                           " and no ".join(f'"{k}"' for k in missing) + ": not Google Benchmark's layout)")
    context, benchmarks = data["context"], data["benchmarks"]
    if not isinstance(context, dict) or not isinstance(benchmarks, list):
        raise ResultsError(path, "not a layerbench results file (\"context\" must be an object and "
                                 "\"benchmarks\" a list)")
    lb = context.get("layerbench")
    if not isinstance(lb, dict):
        raise ResultsError(path, "a Google Benchmark results file not written by layerbench "
                                 "(no context.layerbench)")
    version = lb.get("schema_version")
    if version is None:
        raise ResultsError(path, "no context.layerbench.schema_version; cannot tell which layout it has")
    if version not in SCHEMA_VERSIONS or isinstance(version, bool):
        raise ResultsError(path, f"unknown layerbench schema version {json.dumps(version)} "
                                 f"(this tool reads versions {', '.join(map(str, SCHEMA_VERSIONS))})")
    if "merged" in context:
        _check_merged(path, context["merged"], benchmarks)
    return data


def _check_merged(path: Path, merged: Any, benchmarks: list[Any]) -> None:
    """A merged file's context.merged.runs: a list of runs, each with a run id of its own and a
    context; every benchmarks[] entry names one of them in "run"."""
    runs = merged.get("runs") if isinstance(merged, dict) else None
    if not isinstance(runs, list) or not runs:
        raise ResultsError(path, "context.merged has no list of runs (\"runs\"): "
                                 "not a file written by layerbench merge")
    ids: set[str] = set()
    for index, run in enumerate(runs):
        where = f"context.merged.runs[{index}]"
        if not isinstance(run, dict) or not isinstance(run.get("run"), str) or not run["run"]:
            raise ResultsError(path, f"{where} has no run id (\"run\", a string)")
        if not isinstance(run.get("context"), dict):
            raise ResultsError(path, f"{where} ({run['run']}) has no context (an object)")
        if run["run"] in ids:
            raise ResultsError(path, f"{where}: run {run['run']} is listed twice")
        ids.add(run["run"])
    for index, entry in enumerate(benchmarks):
        if not isinstance(entry, dict):
            continue  # named by _cases
        run = entry.get("run")
        if not isinstance(run, str) or run not in ids:
            what = ("names no run (\"run\")" if not isinstance(run, str)
                    else f"names run {run}, which context.merged.runs does not list")
            raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) {what}")


def from_data(path: str | Path, data: dict[str, Any]) -> Results:
    """The Results of a file's JSON as `read` returned it."""
    path = Path(path)
    context, benchmarks = data["context"], data["benchmarks"]
    recorded = context.get("workloads") if isinstance(context.get("workloads"), dict) else {}
    merged = "merged" in context
    if merged:  # what a workload is: the first run that describes it
        for run in context["merged"]["runs"]:
            more = run["context"].get("workloads")
            if isinstance(more, dict):
                recorded = {**more, **recorded}
    names = list(dict.fromkeys([e.get("workload") for e in benchmarks if isinstance(e, dict)
                                and isinstance(e.get("workload"), str)] + list(recorded)))
    descriptors = {name: describe(name, recorded.get(name)) for name in names}
    cases, notes = _cases(path, benchmarks, descriptors, merged)
    # What the checks above, which name the case, leave: the rest of schemas/results.schema.json.
    if why := schema.violation(data):
        raise ResultsError(path, f"does not match the results schema ({schema.SCHEMA_FILE.name}) at {why}")
    for name, d in descriptors.items():
        descriptors[name] = _complete(d, [c.size for c in cases if c.workload == name])
    ran = {c.workload for c in cases}
    older = [n for n, d in descriptors.items() if n in ran and d.source == "fallback"]
    unknown = [n for n, d in descriptors.items() if n in ran and not d.known]
    if older:
        notes.append(f"This results file was written before the harness recorded each workload's descriptor "
                     f"(context.workloads holds at most a figure and a summary): {', '.join(older)} "
                     f"{'are' if len(older) > 1 else 'is'} read as the harness described "
                     f"{'them' if len(older) > 1 else 'it'} then.")
    if unknown:
        notes.append(f"This results file does not say what {', '.join(unknown)} "
                     f"{'are' if len(unknown) > 1 else 'is'} (no figure in context.workloads): "
                     f"{'their' if len(unknown) > 1 else 'its'} cases are listed, not drawn.")
    return Results(path=str(path), context=context, cases=cases, notes=notes, descriptors=descriptors)


def _read_json(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ResultsError(path, "no such file") from None
    except IsADirectoryError:
        raise ResultsError(path, "is a directory, not a results file") from None
    except OSError as e:
        raise ResultsError(path, f"cannot read it ({e.strerror or e})") from None
    if not raw.strip():
        raise ResultsError(path, "empty file, not a layerbench results file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ResultsError(path, "not a JSON text file (not UTF-8; binary?)") from None
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as e:
        rest = text[e.pos:]
        if not rest.strip() or (e.msg.startswith("Unterminated string") and '"' not in rest[1:]):
            end = text.rstrip().count("\n") + 1
            raise ResultsError(path, f"truncated JSON: the text ends at line {end} before the "
                                     f"document is complete") from None
        raise ResultsError(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise ResultsError(path, "not a layerbench results file (JSON nested too deeply)") from None


def _json_int(digits: str) -> int | float:
    """A JSON integer: a Python int, or beyond 300 digits (no count, size or seed is that long) a
    float, inf past ~1.8e308, read as not measured. So no integer too large for float arithmetic
    (OverflowError) or for Python's 4300-digit int() limit (ValueError) reaches the tool."""
    return int(digits) if len(digits) <= 300 else float(digits)


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    return "a number"


def _size_of(path: Path, index: int, entry: dict[str, Any], d: Descriptor) -> tuple[int, ...]:
    """The case's size in its workload's size form (the fields Descriptor.size_keys names); for a
    workload whose form the file does not give, the fields m, n, k it has; else from its name."""
    def as_int(name: str) -> int | None:
        value = entry.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        return int(value)

    def in_range(size: tuple[int, ...]) -> tuple[int, ...]:
        if any(abs(v) >= 2 ** 63 for v in size):  # the harness's sizes are int64
            raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) has a size "
                                     f"out of range ({'x'.join(str(v) for v in size)[:60]})")
        return size

    keys = d.size_keys if d.size_form in SIZE_FORMS else tuple(k for k in ("m", "n", "k") if as_int(k) is not None)
    if "n" in keys and all(as_int(k) is not None for k in keys):
        return in_range(tuple(as_int(k) for k in keys))
    # Fall back on the name: <workload>/<layer>/<size>/manual_time
    parts = str(entry.get("name", "")).split("/")
    if len(parts) >= 3:
        try:
            return in_range(tuple(int(p) for p in parts[2].split("x")))
        except ValueError:
            pass
    wanted = ", ".join(d.size_keys) if d.size_form in SIZE_FORMS else "n, or m, n and k"
    raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) has no size "
                             f"(no {wanted})")


def _check_numbers(path: Path, index: int, entry: dict[str, Any]) -> None:
    """A wrong type or an impossible value in a field the figures come from is bad input, named, not
    a figure silently left out (or a traceback further on)."""
    for name in NUMBER_FIELDS:
        value = entry.get(name)
        if value is None:
            continue
        where = f"benchmarks[{index}] ({entry.get('name', 'no name')}): \"{name}\" is"
        shown = json.dumps(value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ResultsError(path, f"{where} {_json_type(value)} {shown}, expected a number")
        if not math.isfinite(value):
            continue  # NaN and infinities: read as not measured, as null is
        if value < 0:
            raise ResultsError(path, f"{where} {shown}, below 0")
        if name in ("n", "m", "k") and (value != int(value) or value >= 2 ** 63):
            raise ResultsError(path, f"{where} {shown}, not a size (a whole number below 2^63)")
        if name.endswith("_ms") and value > MAX_MS:
            raise ResultsError(path, f"{where} {shown} ms, more than {MAX_MS:g} ms: not a measured time")


def _cases(path: Path, benchmarks: list[Any], descriptors: dict[str, Descriptor],
           merged: bool = False) -> tuple[list[Case], list[str]]:
    """The cases of benchmarks[]: repetitions of one case folded; in a merged file, per run."""
    groups: dict[tuple, list[tuple[int, dict]]] = {}
    aggregates = 0
    for index, entry in enumerate(benchmarks):
        if not isinstance(entry, dict):
            raise ResultsError(path, f"benchmarks[{index}] is {_json_type(entry)}, not an object")
        run_type = entry.get("run_type", "iteration")
        if run_type == "aggregate":
            aggregates += 1
            continue
        if run_type != "iteration":
            raise ResultsError(path, f"benchmarks[{index}] has an unknown run_type {json.dumps(run_type)}")
        workload, layer = entry.get("workload"), entry.get("layer")
        if not (isinstance(workload, str) and workload and isinstance(layer, str) and layer):
            raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) has no "
                                     f"workload or layer: not written by layerbench")
        _check_numbers(path, index, entry)
        size = _size_of(path, index, entry, descriptors.get(workload) or describe(workload, None))
        rung = entry.get("rung") if isinstance(entry.get("rung"), dict) else {}
        run = entry["run"] if merged else ""
        groups.setdefault((run, workload, layer, size, str(rung.get("id", ""))), []).append((index, entry))

    cases = []
    folded = 0
    for order, ((run, workload, layer, size, _rung), entries) in enumerate(groups.items()):
        if len(entries) == 1:
            cases.append(Case(workload, layer, size, dict(entries[0][1]), order, run=run))
        else:
            folded += 1
            cases.append(Case(workload, layer, size, _fold([e for _, e in entries]), order,
                              repetitions=len(entries), run=run))
    notes = []
    if aggregates:
        notes.append(f"{aggregates} aggregate entries (Google Benchmark's mean/median/stddev/cv "
                     f"over repetitions) were ignored; the cases come from the iteration entries.")
    if folded:
        notes.append(f"{folded} cases ran more than once (--benchmark_repetitions): each was folded "
                     f"into one, its median the median of the repetitions' medians and its noise the "
                     f"larger of the repetitions' own spread and the spread between them.")
    return cases, notes


def _fold(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Repetitions of one case -> one entry. The median is the median of the repetitions'
    medians; the noise (rel_stddev) is the larger of the typical spread within a repetition and
    the spread of the medians between repetitions; the other fields come from the repetition whose
    median is the folded median (the lower middle one for an even count)."""
    ok = [e for e in entries if _status(e) == "ok" and _num(e.get("median_ms")) is not None]
    if not ok:
        return dict(entries[-1])
    ok.sort(key=lambda e: _num(e["median_ms"]))
    middle = ok[(len(ok) - 1) // 2]
    folded = dict(middle)
    medians = [_num(e["median_ms"]) for e in ok]
    median = statistics.median(medians)
    folded["median_ms"] = median
    within = [_num(e.get("rel_stddev")) for e in ok if _num(e.get("rel_stddev")) is not None]
    between = (statistics.stdev(medians) / statistics.mean(medians)
               if len(medians) >= 2 and statistics.mean(medians) > 0 else 0.0)
    folded["rel_stddev"] = max([between] + ([statistics.median(within)] if within else []))
    if median and median > 0:
        if _num(folded.get("bytes_moved")) is not None:
            folded["gbps"] = _num(folded["bytes_moved"]) / (median * 1e6)
        if _num(folded.get("flops")) is not None:
            folded["gflops"] = _num(folded["flops"]) / (median * 1e6)
    folded["repetitions_folded"] = len(entries)
    failed = [e for e in entries if _status(e) != "ok"]
    if failed:  # a repetition that failed makes the case failed: never hide it
        folded["status"] = _status(failed[0])
        folded["message"] = _message(failed[0])
    return folded
