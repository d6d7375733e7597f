"""What a workload is comes from the results' context (context.workloads.<w>: the harness's
descriptor), read in one place (results.describe); older files fall back on one table. The fifth
workload, transpose (size M×N, cases with m and n and no k), is drawn, tabled, written as CSV and
compared from its descriptor alone (fixtures/h100_transpose.json, made by make_h100_transpose.py)."""
from __future__ import annotations

import ast
import copy
import csv
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from layerbench.reports import bars, compare, heatmap, machine, plots, results as results_mod

from conftest import (FIXTURES, H100_16, H200_RUN1, NO_GPU, NO_GPU_PYCUDA, REPO, load_json, results_file, run_cli,
                      write_json)

H100_TRANSPOSE = FIXTURES / "h100_transpose.json"


@pytest.fixture(scope="module")
def rt() -> results_mod.Results:
    return results_mod.load(H100_TRANSPOSE)


@pytest.fixture(scope="module")
def transpose_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("transpose")
    result = run_cli("report", H100_TRANSPOSE, "--out", out, "--csv")
    assert result.returncode == 0, result.stderr
    return out


def test_the_transpose_fixture_is_what_its_script_writes(tmp_path: Path):
    script = FIXTURES / "make_h100_transpose.py"
    out = tmp_path / "h100_transpose.json"
    text = script.read_text().replace('OUT = HERE / "h100_transpose.json"', f'OUT = Path({str(out)!r})')
    (tmp_path / "make.py").write_text(text)
    result = subprocess.run([sys.executable, str(tmp_path / "make.py"), str(H100_16)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert load_json(out) == load_json(H100_TRANSPOSE)


def test_descriptors_are_read_from_the_context(rt):
    d = rt.descriptor("transpose")
    assert d.source == "context" and d.known and d.figure == "gbps" and not d.is_launch
    assert d.summary == "B = A^T, fp32, row-major, A MxN"
    assert d.size_form == "MxN" and d.size_keys == ("m", "n")
    assert d.inputs == (results_mod.Buffer("A", ("m", "n")),) and d.output == results_mod.Buffer("B", ("n", "m"))
    assert d.vendor == results_mod.Vendor("cuBLAS", "cublasSgeam") and d.ladder_default_size is None
    assert d.fraction_field == "fraction_of_copy" and d.unit == "GB/s"
    m = rt.descriptor("matmul")
    assert (m.source, m.figure, m.size_form, m.ladder_default_size) == ("context", "gflops", "MxNxK", "4096")
    assert m.fraction_field == "fraction_of_cublas"
    assert rt.descriptor("reduce").output_is_one_value and not rt.descriptor("vector_add").output_is_one_value
    # Sizes in each workload's size form: transpose's cases have m and n, no k.
    assert rt.sizes("transpose") == [(4096, 4096), (16384, 16384)]
    assert rt.sizes("matmul")[-1] == (4096, 4096, 4096) and rt.sizes("vector_add")[-1] == (1 << 28,)
    assert not any("before the harness recorded" in note for note in rt.notes)


def test_a_workload_is_read_from_its_descriptor_not_its_name(tmp_path: Path):
    """Renamed, transpose is still drawn, tabled and read against the copy ceiling: nothing in the
    reports knows it by name. Its cases alone: the other workloads' plots are the transpose report's
    (test_the_report_draws_and_tables_transpose), and drawn again here they took most of a minute."""
    data = load_json(H100_TRANSPOSE)
    data["context"]["workloads"]["flip"] = data["context"]["workloads"].pop("transpose")
    data["benchmarks"] = [b for b in data["benchmarks"] if b["workload"] == "transpose"]
    for b in data["benchmarks"]:
        b["workload"] = "flip"
        b["name"] = b["run_name"] = b["name"].replace("transpose/", "flip/", 1)
    path = write_json(tmp_path / "flip.json", data)
    r = results_mod.load(path)
    assert r.figure("flip") == "gbps" and r.sizes("flip") == [(4096, 4096), (16384, 16384)]
    assert ("flip", (16384, 16384)) in heatmap.columns(r)
    out = tmp_path / "report"
    assert run_cli("report", path, "--out", out).returncode == 0
    assert (out / "plots" / "bandwidth_flip.png").is_file() and (out / "plots" / "speedup_flip.png").is_file()


def test_heat_map_has_a_transpose_column_at_its_largest_size(rt):
    _rows, cols, grid = heatmap.cells(rt)
    assert [w for w, _s in cols] == ["vector_add", "saxpy", "reduce", "transpose", "matmul", "launch_async",
                                     "launch_sync"]
    assert dict(cols)["transpose"] == (16384, 16384)
    runtime = grid[("runtime", "transpose")]
    assert runtime.fraction == pytest.approx(0.906, abs=0.001) and runtime.text == "2 710  ·  91%"
    assert grid[("cpu", "transpose")].fraction is None and grid[("cpu", "transpose")].status == "ok"
    assert grid[("graph", "transpose")].text == "–"  # no transpose variant
    assert heatmap._column_label(rt, "transpose", (16384, 16384)) == "transpose\n16384×16384\nGB/s"


def test_the_report_draws_and_tables_transpose(transpose_report: Path):
    plots_made = {p.stem for p in (transpose_report / "plots").glob("*.png")}
    assert {"bandwidth_transpose", "speedup_transpose", "gflops_matmul", "heatmap"} <= plots_made
    md = (transpose_report / "report.md").read_text()
    assert "## Bandwidth: vector_add, saxpy, reduce, transpose" in md and "## GFLOP/s: matmul" in md
    caption = md.split("(plots/bandwidth_transpose.png)")[1].split("([SVG]")[0]
    assert "**transpose** bandwidth per layer" in caption
    assert "- **transpose** at 16384×16384: vendor is fastest at 2 862 GB/s (96% of the copy ceiling)" in md
    table = md.split("### transpose")[1].split("\n### ")[0]
    assert "`transpose`: B = A^T, fp32, row-major, A MxN (vendor routine: cuBLAS `cublasSgeam`)." in table
    assert "| case | size | status |" in table and "| GB/s | % copy |" in table
    assert "| `transpose/runtime/16384x16384` | 16384×16384 | ok |" in table
    assert "transpose 8" in md and "2·M·N·K for matmul" in md  # how to read: what the rates count
    assert "| transpose | 16384×16384 | runtime |" in md  # the speed-up table


def test_transpose_in_csv_has_m_and_n_and_no_k(transpose_report: Path):
    rows = list(csv.DictReader(io.StringIO((transpose_report / "results.csv").read_text())))
    rows = [row for row in rows if row["workload"] == "transpose"]
    assert len(rows) == 26
    row = next(row for row in rows if row["layer"] == "runtime" and row["size"] == "16384x16384")
    assert (row["m"], row["n"], row["k"]) == ("16384", "16384", "")


def test_compare_matches_transpose_cases(tmp_path: Path):
    data = load_json(H100_TRANSPOSE)
    new = copy.deepcopy(data)
    for b in new["benchmarks"]:
        if b["name"].startswith("transpose/runtime/16384x16384/"):
            # The whole run 1.5× slower (a file without kept samples is judged by its range too:
            # reports/verdict.py), not its median alone.
            for key in ("median_ms", "min_ms", "max_ms", "real_time"):
                b[key] *= 1.5
    base_r, new_r = results_mod.load(H100_TRANSPOSE), results_mod.load(write_json(tmp_path / "new.json", new))
    c = compare.compare(base_r, new_r)
    slower = [row for row in c.rows if row.verdict == compare.SLOWER]
    assert [(row.base.workload, row.base.layer, row.base.size) for row in slower] == [
        ("transpose", "runtime", (16384, 16384))]
    assert "| `transpose/runtime/16384x16384` | 16384×16384 |" in compare.to_markdown(c)


def test_files_before_descriptors_fall_back_on_the_table():
    # Schema 1: no context.workloads at all.
    r = results_mod.load(H200_RUN1)
    m = r.descriptor("matmul")
    assert (m.source, m.figure, m.size_form) == ("fallback", "gflops", "MxNxK") and m.vendor.library == "cuBLAS"
    assert r.descriptor("reduce").vendor == results_mod.Vendor("CUB", "cub::DeviceReduce::Sum")
    assert r.descriptor("launch_sync").is_launch and r.descriptor("vector_add").size_keys == ("n",)
    assert r.sizes("matmul")[0] == (512, 512, 512)
    assert any("before the harness recorded each workload's descriptor" in note and "matmul" in note
               for note in r.notes)
    # Schema 2 before descriptors: figure and summary recorded, the rest from the table.
    r16 = results_mod.load(H100_16)
    d = r16.descriptor("matmul")
    assert (d.source, d.figure, d.summary, d.size_form) == ("fallback", "gflops",
                                                            "C = A*B, fp32, row-major, A MxK, B KxN", "MxNxK")
    # ... and reads as before: the same heat map as the fixture with descriptors, less transpose.
    _r, cols16, grid16 = heatmap.cells(r16)
    _r, cols, grid = heatmap.cells(results_mod.load(H100_TRANSPOSE))
    assert cols16 == [c for c in cols if c[0] != "transpose"]
    assert grid16 == {k: v for k, v in grid.items() if k[1] != "transpose"}


def test_an_older_file_with_a_name_the_table_does_not_hold(tmp_path: Path):
    """No descriptor and no entry in the table: its figure is not known, so it is listed, not
    drawn; its size is the fields its cases have (here m and n)."""
    data = load_json(H200_RUN1)
    extra = {"name": "flip/runtime/64x32/manual_time", "run_type": "iteration", "workload": "flip", "layer": "runtime",
             "m": 64, "n": 32, "status": "ok", "median_ms": 0.01, "bytes_moved": 8.0 * 64 * 32, "samples": 10}
    r = results_mod.load(results_file(tmp_path / "r.json", data["benchmarks"] + [extra], base=data))
    d = r.descriptor("flip")
    assert (d.source, d.figure, d.size_form) == ("unknown", None, "MxN") and r.sizes("flip") == [(64, 32)]
    assert "flip" not in [w for w, _s in heatmap.columns(r)]
    assert any("does not say what flip is" in note for note in r.notes)


def test_ladder_top_line_is_named_by_the_descriptors_vendor(tmp_path: Path):
    data = load_json(H100_TRANSPOSE)
    data["context"]["workloads"]["transpose"]["vendor"] = {"library": "MyBLAS", "routine": "my_geam"}
    r = results_mod.load(write_json(tmp_path / "r.json", data))
    _rate, label = bars.ladder_top_line(r, "transpose", (16384, 16384))
    assert label == "MyBLAS (vendor layer)"


def test_the_cpu_layers_backend_is_read_for_gflops_workloads(tmp_path: Path):
    r = results_mod.load(NO_GPU)
    ((workload, text),) = r.cpu_backends()
    assert workload == "matmul" and text.startswith("OpenBLAS")
    assert r.cpu_backends("vector_add") == []
    # The same record under a workload whose figure is GB/s is not a backend.
    data = load_json(NO_GPU_PYCUDA)
    assert machine.cpu_blas(results_mod.load(NO_GPU_PYCUDA)).startswith("none: matmul runs a cache-blocked")
    data["context"]["workloads"]["matmul"] = {"figure": "gbps", "summary": "not a compute workload here"}
    assert machine.cpu_blas(results_mod.load(results_file(tmp_path / "r.json", data["benchmarks"], base=data))) == ""
    assert "matmul: OpenBLAS" in plots.cpu_baseline(r, "matmul") and "OpenMP" in plots.cpu_baseline(r, "vector_add")


WORKLOAD_NAMES = {"vector_add", "saxpy", "reduce", "matmul", "launch_async", "launch_sync", "transpose"}
PACKAGE = REPO / "python" / "layerbench"
CHECKED = sorted(set(PACKAGE.rglob("*.py")) - {PACKAGE / "reports" / "descriptors.py"}) + [
    REPO / "tools" / name for name in ("doc_figures.py", "compare_runs.py", "layer_figures.py", "loc.py")]


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.name)
def test_no_code_outside_results_py_compares_workload_names(path: Path):
    """P14: the only place that knows workloads by name is the results reader's fallback table
    (descriptors.py). Docstrings
    and captions may name a workload as an example; a string that is a workload's name, or a test of
    a name's prefix, may not appear in code."""
    found = []
    with path.open("rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type != tokenize.STRING:
                continue
            try:
                value = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):
                continue  # an f-string
            if isinstance(value, str) and value in WORKLOAD_NAMES:
                found.append(f"{path.name}:{tok.start[0]}: {tok.string}")
    text = path.read_text()
    found += [f"{path.name}: {m.group()}" for m in re.finditer(r"""["']launch["']\s+(not\s+)?in\b|startswith\(\s*["']launch""", text)]
    assert not found, found
