"""Layer families, and each layer's colour and marker: the one place the report takes them from.

A family says whose kernel does the work and from where it is launched (docs/reports.md, "Layer
families"):

- cpu:       the work runs on the host CPU (no kernel launch at all);
- c++:       our kernel text (workloads/<w>/kernels.cu), launched from C++;
- libraries: a library's own kernels (Thrust/CUB, cuBLAS, CuPy's built-ins, cuda.compute), called
             from C++ or Python: what a user gets without writing a kernel;
- python:    our kernels launched from Python, as kernel text (RawModule, NVRTC, nvcc) or written in
             Python (Numba, Triton);
- frameworks: what a PyTorch or JAX user calls: the framework's own kernels and libraries (PyTorch's,
             XLA's, cuBLAS) or the kernels its compiler generates (torch.compile's Triton).

The results file records where a layer runs (context.layers.<l>.on_gpu) and whether it is a Python
layer (context.layers.<l>.language), but not whose kernels it runs, so the known layers are listed
here; a layer this table does not know is placed from those two fields (see family_of).

Colours: every known layer has its own colour, none shared, none the ceilings' red or grey, and
inside a family the colours are far apart (the per-workload plots draw one panel per family); the
marker repeats the family's distinctions so a line can be told apart in grey print too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Family:
    key: str
    title: str  # short, for panel titles and legends
    what: str  # one line, for captions and the heat map


FAMILIES = (
    Family("cpu", "CPU", "runs on the host CPU"),
    Family("c++", "C++, our kernels", "our kernel text, launched from C++"),
    Family("libraries", "libraries' kernels", "a library's own kernels (Thrust/CUB, cuBLAS, CuPy, cuda.compute)"),
    Family("python", "Python, our kernels", "our kernels, launched from Python"),
    Family("frameworks", "frameworks", "PyTorch's and JAX's own or generated kernels"),
)
_BY_KEY = {f.key: f for f in FAMILIES}

# layer: (family, colour, marker), in the order the report lists layers (family by family).
LAYERS: dict[str, tuple[str, str, str]] = {
    "cpu": ("cpu", "#4d4d4d", "s"),
    "thrust-omp": ("cpu", "#a6761d", "D"),
    "runtime": ("c++", "#1f77b4", "o"),
    "graph": ("c++", "#9467bd", "P"),
    "driver": ("c++", "#ff7f0e", "^"),
    "thrust": ("libraries", "#2ca02c", "v"),
    "vendor": ("libraries", "#17becf", "*"),
    "cupy": ("libraries", "#e377c2", "X"),
    "cuda-compute": ("libraries", "#8c564b", "h"),
    "cupy-raw": ("python", "#bcbd22", "o"),
    "cuda-bindings": ("python", "#393b79", "s"),
    "cuda-core": ("python", "#1a1a1a", "D"),
    "pycuda": ("python", "#fb8072", "^"),
    "cython": ("python", "#6baed6", "v"),
    "numba": ("python", "#c51b7d", "P"),
    "numba-vectorize": ("python", "#1b9e77", "X"),
    "triton": ("python", "#756bb1", "<"),
    "torch": ("frameworks", "#e6550d", "s"),
    "torch-compile": ("frameworks", "#54278f", "^"),
    "jax": ("frameworks", "#006d2c", "D"),
}
# For layers the table does not know, in the order they appear; none is a colour above.
EXTRA_COLOURS = ("#637939", "#7b4173", "#3182bd", "#e7969c", "#8c6d31", "#5254a3", "#d6616b", "#31a354")
EXTRA_MARKERS = ("<", ">", "p", "H", "d", "8")
CEILING = "#d62728"  # the measured ceilings' lines
PEAK = "#7f7f7f"  # the theoretical peaks' lines


def family(key: str) -> Family:
    return _BY_KEY[key]


def family_of(layer: str, info: dict[str, Any] | None = None) -> Family:
    """The layer's family: from the table; for a layer it does not know, from what the results
    file records about it (context.layers.<layer>): on_gpu false -> cpu, language "Python" ->
    python, else c++ (a GPU layer of the C++ harness runs our kernel text unless the table says
    otherwise)."""
    if layer in LAYERS:
        return _BY_KEY[LAYERS[layer][0]]
    info = info if isinstance(info, dict) else {}
    if info.get("on_gpu") is False:
        return _BY_KEY["cpu"]
    if str(info.get("language", "")).lower() == "python":
        return _BY_KEY["python"]
    return _BY_KEY["c++"]


def order(layers: list[str], infos: dict[str, dict[str, Any]] | None = None) -> list[str]:
    """The layers family by family, each family in the table's order, unknown layers last in their
    family in the order given."""
    infos = infos if isinstance(infos, dict) else {}
    known = list(LAYERS)
    fam_index = {f.key: i for i, f in enumerate(FAMILIES)}

    def key(item: tuple[int, str]) -> tuple[int, int, int]:
        i, layer = item
        fam = fam_index[family_of(layer, infos.get(layer)).key]
        return (fam, known.index(layer) if layer in LAYERS else len(known), i)

    return [layer for _i, layer in sorted(enumerate(layers), key=key)]


def groups(layers: list[str], infos: dict[str, dict[str, Any]] | None = None) -> list[tuple[Family, list[str]]]:
    """(family, its layers) for the families that have any of `layers`, in family order."""
    infos = infos if isinstance(infos, dict) else {}
    found: dict[str, list[str]] = {}
    for layer in order(layers, infos):
        found.setdefault(family_of(layer, infos.get(layer)).key, []).append(layer)
    return [(f, found[f.key]) for f in FAMILIES if f.key in found]


def style(layer: str, all_layers: list[str]) -> tuple[str, str]:
    """(colour, marker) of a layer; `all_layers` (every layer of the report, in report order) fixes
    the colours of layers the table does not know, so they stay the same in every plot."""
    if layer in LAYERS:
        return LAYERS[layer][1], LAYERS[layer][2]
    extra = [name for name in all_layers if name not in LAYERS]
    i = extra.index(layer) if layer in extra else len(extra)
    colour = EXTRA_COLOURS[i % len(EXTRA_COLOURS)]
    # Past the extra colours, a colour repeats; the marker then differs (no colour+marker twice).
    marker = EXTRA_MARKERS[(i + i // len(EXTRA_COLOURS)) % len(EXTRA_MARKERS)]
    return colour, marker
