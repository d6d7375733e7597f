"""A report of all 16 layers (fixtures/h100_16_layers.json): layer families and colours from one
table, the heat map, the one-time costs as one stacked bar per layer, rate plots in one panel per
family, and no figure with text cut off or larger than one screen."""
from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from layerbench.reports import costs, document, heatmap, palette, report, results as results_mod
from layerbench.reports.document import Figure
from layerbench.reports.figure import SCREEN_PX, clipped_texts, save

from conftest import CPU_ONLY, FIXTURES, H100_16, H200_OLDER, H200_RUN1, NO_GPU, load_json, results_file


@pytest.fixture(scope="module")
def r16() -> results_mod.Results:
    return results_mod.load(H100_16)


def test_the_fixture_holds_every_layer(r16):
    """Every layer but the four framework layers (torch, torch-compile, triton, jax), which came
    after the run the fixture is made from."""
    frameworks = ["jax", "torch", "torch-compile", "triton"]
    assert sorted(r16.layers) == sorted(layer for layer in palette.LAYERS if layer not in frameworks)
    assert all(layer in palette.LAYERS for layer in frameworks)


def test_each_layer_has_a_colour_of_its_own(r16):
    colours = [palette.style(layer, r16.layers)[0] for layer in r16.layers]
    assert len(set(colours)) == len(colours) == 16
    assert palette.CEILING not in colours and palette.PEAK not in colours
    # Every layer the table knows (the 20, framework layers included): a colour no other layer and
    # no extra colour has.
    known = [colour for _family, colour, _marker in palette.LAYERS.values()]
    assert len(set(known)) == len(known) == 20
    assert not set(known) & set(palette.EXTRA_COLOURS) and palette.CEILING not in known
    # Layers the table does not know get colours of their own too, and past the extra colours no
    # (colour, marker) pair is given twice.
    names = r16.layers + [f"new-layer-{i}" for i in range(12)]
    styles = [palette.style(name, names) for name in names]
    assert len(set(styles)) == len(styles)
    assert len({c for c, _m in styles[:16 + len(palette.EXTRA_COLOURS)]}) == 16 + len(palette.EXTRA_COLOURS)


def test_layers_are_listed_family_by_family(r16):
    order = [f.key for f in palette.FAMILIES]
    keys = [palette.family_of(layer).key for layer in r16.layers]
    assert keys == sorted(keys, key=order.index)
    assert r16.layers[:5] == ["cpu", "thrust-omp", "runtime", "graph", "driver"]
    assert {layer for layer in r16.layers if palette.family_of(layer).key == "libraries"} == {
        "thrust", "vendor", "cupy", "cuda-compute"}


def test_a_layer_the_table_does_not_know_joins_a_family_from_the_file():
    assert palette.family_of("my-cpu", {"on_gpu": False}).key == "cpu"
    assert palette.family_of("my-py", {"on_gpu": True, "language": "Python"}).key == "python"
    assert palette.family_of("my-cxx", {"on_gpu": True}).key == "c++"
    assert palette.family_of("my-cxx", None).key == "c++"
    assert palette.order(["my-py", "runtime", "cpu"], {"my-py": {"language": "Python"}}) == ["cpu", "runtime", "my-py"]


def test_heat_map_cells(r16):
    rows, cols, grid = heatmap.cells(r16)
    assert rows == r16.layers
    assert cols == [("vector_add", (2 ** 28,)), ("saxpy", (2 ** 28,)), ("reduce", (2 ** 28,)),
                    ("matmul", (4096, 4096, 4096)), ("launch_async", (1000,)), ("launch_sync", (1000,))]
    vendor = grid[("vendor", "matmul")]
    assert vendor.fraction == pytest.approx(1.0) and vendor.text.startswith("51 283")
    cupy = grid[("cupy", "vector_add")]
    assert cupy.fraction == pytest.approx(0.847, abs=0.001) and cupy.text.endswith("85%")
    # no ceiling: launch overhead and the CPU layers have their figure but no colour
    assert grid[("runtime", "launch_async")] == heatmap.Cell("3.99", None, "ok")
    assert grid[("cpu", "vector_add")].fraction is None and grid[("cpu", "vector_add")].status == "ok"
    # missing: thrust-omp runs matmul only up to 1024³ in the default sweep; graph only launches
    assert grid[("thrust-omp", "matmul")].text == "not run at 4096³"
    assert grid[("graph", "vector_add")].text == "–"


def test_heat_map_names_a_case_that_did_not_pass(tmp_path):
    data = load_json(H100_16)
    case = next(b for b in data["benchmarks"] if b["name"].startswith("saxpy/numba/268435456/"))
    case.update(status="failed", message="max relative error 1e-2 above tolerance", verified=False)
    path = results_file(tmp_path / "r.json", data["benchmarks"], base=data)
    r = results_mod.load(path)
    _rows, _cols, grid = heatmap.cells(r)
    assert grid[("numba", "saxpy")] == heatmap.Cell("failed", None, "failed")
    plot = heatmap.heatmap(r, tmp_path / "plots")
    assert "Cells in red: the case did not pass (failed)" in plot.caption and not plot.clipped


def test_one_time_cost_kinds():
    # The harness's kind, where recorded, wins; else its rules read the name.
    assert costs.segment_of("anything at all", "load") == "load"
    cases = {
        "Python interpreter start, once per process (python3)": "import",
        "import cupy, once per process": "import",
        "primary context retain (the context already existed)": "context",
        "NVRTC vector_add (compiled)": "compile",
        "cp.RawModule vector_add: NVRTC compile (or CuPy cache) + load": "compile",
        "SourceModule vector_add (nvcc + PyCUDA's cache, compiled; with the module load)": "compile",
        "numba.cuda.jit saxpy (first use of its signature: compiled, module load included)": "compile",
        "cuda.compute build binary_transform add (Numba op + NVRTC + nvJitLink, built)": "compile",
        "cuModuleLoadData vector_add": "load",
        "module load vector_add": "load",
        "capture + instantiate 1000 launches": "setup",
        "CUB temp storage for reduce_into: size query + allocation": "setup",
    }
    for what, kind in cases.items():
        assert costs.segment_of(what) == kind, what


def test_the_fallback_rules_are_the_harness_rules():
    """costs._RULES (for files written before the harness recorded `kind`) is a copy of
    variants/one_time_cost.cpp's kRules: word, kind and order. A rule changed in one place only
    fails here."""
    import re
    source = (FIXTURES.parents[2] / "variants" / "one_time_cost.cpp").read_text()
    harness = re.findall(r'\{"([^"]+)", CostKind::k(\w+)\}', source)
    assert harness, "no rules found in variants/one_time_cost.cpp"
    assert [(word, kind.lower()) for word, kind in harness] == list(costs._RULES)


def test_one_time_costs_one_stacked_bar_per_layer(r16):
    bars = costs.bars(r16)
    who = [w for w, _segs in bars]
    assert who[0] == costs.PROCESS and bars[0][1] == {"context": pytest.approx(129.769397)}
    assert who[1:] == [layer for layer in r16.layers if layer in who]  # report order, each once
    assert set(who[1:]) == set(r16.layers)
    items = costs.one_time_items(r16)
    extra = sum(e for _c, e in costs.first_runs(r16) if e > 0)
    assert sum(sum(segs.values()) for _w, segs in bars) == pytest.approx(sum(ms for *_x, ms in items) + extra)
    cupy = dict(bars)["cupy"]
    assert set(cupy) == {"import", "first run"} and cupy["import"] == pytest.approx(146.997489 + 478.488835)


@pytest.fixture(scope="module")
def h100_16_built(tmp_path_factory) -> tuple[document.Document, Path, str]:
    """The 16-layer fixture's report, made once in this process: its document (the figures, with
    what each cut off), its folder (the plots) and its Markdown, for every test here that reads it."""
    out = tmp_path_factory.mktemp("report16")
    doc = report.build(results_mod.load(H100_16), out, out / "plots")
    return doc, out, document.to_markdown(doc, out)


def test_one_time_costs_fit_one_screen(h100_16_built):
    _doc, out, md = h100_16_built
    width, height = png_size(out / "plots" / "one_time_costs.png")
    assert width <= 1400 and height <= 900
    assert "| cuda-compute | import cuda.compute, once per process | import |" in md
    assert "right panel zooms in on 0–200 ms" in md


def test_rate_plots_have_one_panel_per_family(h100_16_built):
    _doc, _out, md = h100_16_built
    for plot in ("bandwidth_vector_add", "bandwidth_saxpy", "bandwidth_reduce", "gflops_matmul"):
        caption = md.split(f"(plots/{plot}.png)")[1].split("([SVG]")[0]
        assert "One panel per layer family (CPU: runs on the host CPU; C++, our kernels:" in caption, plot


def png_size(path: Path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


@pytest.mark.parametrize("fixture", [H100_16, FIXTURES / "h100_transpose.json", H200_RUN1, H200_OLDER, CPU_ONLY, NO_GPU],
                         ids=lambda p: p.stem)
def test_no_text_is_cut_off_and_every_plot_fits_one_screen(fixture: Path, tmp_path: Path, request):
    """Every title, label, tick label, legend and annotation of every figure lies inside the figure
    (figure.clipped_texts), and every PNG is at most one screen, about 1400×900 px."""
    if fixture == H100_16:
        doc = request.getfixturevalue("h100_16_built")[0]
    else:
        doc = report.build(results_mod.load(fixture), tmp_path, tmp_path / "plots")
    figures = [b for b in doc.blocks if isinstance(b, Figure)]
    assert figures
    for fig in figures:
        assert not fig.clipped, f"{fig.png.name}: cut off: {fig.clipped}"
        width, height = png_size(fig.png)
        assert width <= SCREEN_PX[0] and height <= SCREEN_PX[1], f"{fig.png.name}: {width}×{height}"


def test_the_clip_check_finds_a_cut_off_title():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_title("a title far too long to fit in a figure only four inches wide, so it is cut off")
    (clipped,) = clipped_texts(fig)
    assert clipped.startswith("a title far too long")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.set_title("short")
    ax.set_xlabel("x")
    assert clipped_texts(fig) == []
    plt.close(fig)


def test_saving_finds_a_cut_off_title(tmp_path: Path):
    """figure.save checks the texts where its PNG's draw put them, without drawing again: a title cut
    off there is in the Plot it returns, and one that fits is not."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_title("a title far too long to fit in a figure only four inches wide, so it is cut off")
    (clipped,) = save(fig, tmp_path, "cut", "caption", "alt").clipped
    assert clipped.startswith("a title far too long")
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.set_title("short")
    assert save(fig, tmp_path, "fits", "caption", "alt").clipped == []
    assert (tmp_path / "fits.png").is_file() and (tmp_path / "fits.svg").is_file()


def test_the_16_layer_fixture_is_what_its_script_writes(tmp_path: Path):
    """fixtures/make_h100_16_layers.py trims docs/results/h100/results.json into a 16-layer fixture,
    constructing vendor cases only for a run that had none. The committed fixture was made from an
    earlier run (no vendor layer): while docs/results/h100/results.json is that run, the script's
    output is the fixture, byte for byte; from a later run, the output is its trimmed cases, real."""
    source = FIXTURES.parents[2] / "docs" / "results" / "h100" / "results.json"
    made = load_json(H100_16)
    script = FIXTURES / "make_h100_16_layers.py"
    out = tmp_path / "h100_16_layers.json"
    text = script.read_text().replace('OUT = HERE / "h100_16_layers.json"', f'OUT = Path({str(out)!r})')
    (tmp_path / "make.py").write_text(text)
    result = subprocess.run([sys.executable, str(tmp_path / "make.py"), str(source)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    written, real = load_json(out), load_json(source)
    if real["context"]["date"] == made["context"]["date"]:
        assert written == made
    else:
        assert len({b["layer"] for b in written["benchmarks"]}) == 16
        assert not any("constructed" in b for b in written["benchmarks"])
        names = {b["name"] for b in real["benchmarks"]}
        assert all(b["name"] in names for b in written["benchmarks"])
