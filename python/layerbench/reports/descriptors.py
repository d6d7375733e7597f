"""What a workload is, as a results file records it (context.workloads.<name>): its Descriptor.
Files written before the descriptors existed fall back on one table, `_BEFORE_DESCRIPTORS`, the only
place that knows workloads by name."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any



FIGURES = ("gbps", "gflops", "us_per_launch")
RATES = ("gbps", "gflops")  # the figures read against a ceiling, drawn against size
# A workload's size form (context.workloads.<w>.size_form) -> the case fields that hold its size,
# in the order of Case.size.
SIZE_FORMS = {"n": ("n",), "MxN": ("m", "n"), "MxNxK": ("m", "n", "k")}


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
