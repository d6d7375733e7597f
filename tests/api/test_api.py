"""The Python API (python/layerbench/api.py) on committed results files (tests/reports/fixtures,
written by the harness), and run() with the build's layerbench ($LB_EXE, which ctest sets) on the
cpu layer."""
from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import layerbench
from layerbench import native

FIXTURES = Path(__file__).resolve().parents[1] / "reports" / "fixtures"
NO_DRIVER = FIXTURES / "cpu_only_no_driver.json"  # 8 cases: 6 ok, 2 matmul cases skipped
H200_RUN1 = FIXTURES / "h200_run1.json"
H200_RUN2 = FIXTURES / "h200_run2.json"
H100 = FIXTURES / "h100_16_layers.json"  # every layer: launch cases, one-time costs
REPO = Path(__file__).resolve().parents[2]


# --- load, cases, rows -----------------------------------------------------------------------------

def test_load_gives_every_case_in_run_order():
    r = layerbench.load(NO_DRIVER)
    data = json.loads(NO_DRIVER.read_text())
    names = [b["name"].split("/")[:3] for b in data["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    assert [[c.workload, c.layer, "x".join(map(str, c.size))] for c in r.cases] == names
    assert len(r) == 8 and r.path == NO_DRIVER


def test_a_case_has_its_figures_and_verdict():
    r = layerbench.load(NO_DRIVER)
    first = r.cases[0]
    assert (first.workload, first.layer, first.size, first.status, first.verified) == \
        ("vector_add", "cpu", (65536,), "ok", True)
    assert first.gbps == pytest.approx(95.41761708323223)
    assert first.gflops == pytest.approx(7.951468090269352)
    assert first.median_ms and first.median_ms > 0
    # 12 bytes per element moved in median_ms: the file's own rate
    assert 12 * 65536 / (first.median_ms * 1e-3) / 1e9 == pytest.approx(first.gbps, rel=1e-3)
    skipped = [c for c in r.cases if c.status == "skipped"]
    assert [(c.workload, c.size) for c in skipped] == [("matmul", (65536, 65536, 65536))] * 2
    for c in skipped:
        assert c.verified is False and c.gbps is None and c.median_ms is None
        assert "does not fit in host memory" in c.message


def test_to_rows_is_one_dict_per_case_with_the_case_fields():
    r = layerbench.load(NO_DRIVER)
    rows = r.to_rows()
    assert len(rows) == len(r.cases)
    assert set(rows[0]) == {f.name for f in dataclasses.fields(layerbench.Case)}
    assert rows[6]["layer"] == "cpu" and rows[6]["size"] == (64, 64, 64) and rows[6]["verified"] is True


def test_to_pandas_or_a_clear_error():
    r = layerbench.load(NO_DRIVER)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ModuleNotFoundError, match="pandas"):
            r.to_pandas()
    else:
        frame = r.to_pandas()
        assert list(frame["layer"]) == [c.layer for c in r.cases]


def test_a_merged_files_cases_and_a_v1_file_load(tmp_path):
    r = layerbench.load(FIXTURES / "h200_older_harness.json")
    assert len(r.cases) == 15 and all(c.workload in ("vector_add", "matmul") for c in r.cases)


def test_a_case_carries_the_files_figures_and_none_where_one_does_not_apply():
    data = json.loads(H100.read_text())
    r = layerbench.load(H100)
    entries = {e["name"].split("/")[:3].__str__(): e for e in data["benchmarks"] if e.get("run_type") == "iteration"}
    launch = [c for c in r.cases if c.workload == "launch_async" and c.status == "ok"]
    bandwidth = [c for c in r.cases if c.workload == "vector_add" and c.status == "ok"]
    assert launch and bandwidth
    for c in launch:  # the file says 0.0: no rate, so None
        assert c.gbps is None and c.gflops is None and c.us_per_launch and c.us_per_launch > 0
    for c in bandwidth:
        assert c.us_per_launch is None and c.gbps and c.gbps > 0
    for c in r.cases:
        e = entries[[c.workload, c.layer, "x".join(map(str, c.size))].__str__()]
        assert c.samples == e.get("samples") and c.end_to_end_ms == e.get("end_to_end_ms")
        assert c.first_run_ms == e.get("first_run_ms") and c.allocate_ms == e.get("allocate_ms")
        if c.samples and c.samples >= 2:
            assert c.noise == e["rel_stddev"]
        else:
            assert c.noise is None
        paid_in_case = [(x.what, x.ms) for x in c.one_time_costs if x.paid == "case"]
        assert paid_in_case == [(x["what"], x["ms"]) for x in e.get("one_time_costs", [])]
        layer = data["context"]["layers"].get(c.layer.split(":")[0], {})
        paid_by_layer = [(x.what, x.ms) for x in c.one_time_costs if x.paid == "layer"]
        assert paid_by_layer == [(x["what"], x["ms"]) for x in layer.get("one_time_costs", [])]
    assert any(x.paid == "layer" for c in r.cases for x in c.one_time_costs)
    assert any(x.paid == "case" for c in r.cases for x in c.one_time_costs)


def test_a_case_carries_its_kept_samples_their_robust_noise_and_a_busy_machine(tmp_path):
    import statistics
    data = json.loads(H200_RUN1.read_text())
    entry = next(e for e in data["benchmarks"] if e.get("run_type") == "iteration" and e["name"].startswith("vector_add/runtime/"))
    median = entry["median_ms"]
    kept = [median * (1 + 0.01 * ((i % 7) - 3)) for i in range(100)] + [median * 50]  # one far outlier
    entry["samples_ms"] = kept
    entry["busy"] = ["another process on the GPU (pid 9)"]
    path = tmp_path / "with_samples.json"
    path.write_text(json.dumps(data))
    r = layerbench.load(path)
    case = next(c for c in r.cases if c.workload == "vector_add" and c.layer == "runtime" and c.size == tuple([entry["n"]]))
    assert case.samples_ms == tuple(kept) and case.busy == ("another process on the GPU (pid 9)",)
    m = statistics.median(kept)
    assert case.noise == pytest.approx(1.4826 * statistics.median(abs(v - m) for v in kept) / m)
    assert case.noise < 0.05  # the outlier does not widen it
    others = [c for c in r.cases if c is not case]
    assert all(c.samples_ms is None and c.busy == () for c in others)  # files before them keep none
    c = layerbench.compare(layerbench.load(H200_RUN1), r)
    row = next(row for row in c.rows if row.new is case)
    # A device-timed case on a busy GPU: held to the spread widened by its median over its fastest
    # sample (the entry's min_ms, from the run before its samples were replaced here).
    assert row.busy == ("NEW: another process on the GPU (pid 9)",) and row.timing == "device"
    assert "median over its fastest sample" in row.why or row.verdict == "same"
    assert c.busy == (row,) and row.allowance >= 0.05


def test_unavailable_names_each_layer_that_could_not_run_with_why():
    r = layerbench.load(NO_DRIVER)
    assert r.unavailable["runtime"] == "no CUDA driver (libcuda.so.1 not found)"
    assert "cpu" not in r.unavailable and len(r.unavailable) == 14


def test_the_version_is_the_projects_one_rule():
    import shutil
    if shutil.which("cmake") is None:
        pytest.skip("no cmake on PATH to ask cmake/version.cmake")
    rule = subprocess.run(["cmake", f"-DSOURCE={REPO}", "-P", str(REPO / "cmake" / "version.cmake")],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert layerbench.__version__ == rule and rule.startswith("0.1.0")


def test_the_package_is_typed_and_exports_its_types():
    assert (Path(layerbench.__file__).parent / "py.typed").is_file()
    for name in ("Case", "Results", "Comparison", "ComparisonRow", "NotCompared", "OneTimeCost",
                 "LayerUnavailableWarning", "ThresholdWarning", "GateVerdict", "UsageError", "RunError", "__version__"):
        assert name in layerbench.__all__ and hasattr(layerbench, name), name


# --- bad arguments: one exception, naming the bad value ---------------------------------------------

def test_load_of_a_missing_file_is_file_not_found_naming_it(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(FileNotFoundError, match="nope.json") as e:
        layerbench.load(missing)
    assert e.value.filename == str(missing)


def test_load_of_a_file_off_the_schema_names_the_field(tmp_path):
    data = json.loads(NO_DRIVER.read_text())
    data["benchmarks"][0]["status"] = "done"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(layerbench.UsageError, match="done"):
        layerbench.load(bad)


def test_usage_error_is_a_value_error():
    assert issubclass(layerbench.UsageError, ValueError)


def test_a_misspelt_keyword_is_a_type_error_before_running(monkeypatch):
    monkeypatch.setattr(native, "executable", lambda: pytest.fail("ran layerbench for a misspelt keyword"))
    with pytest.raises(TypeError, match="workload"):
        layerbench.run(workload="vector_add")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="treshold"):
        layerbench.compare(layerbench.load(NO_DRIVER), layerbench.load(NO_DRIVER), treshold=5)  # type: ignore[call-arg]


def test_every_flag_of_run_is_an_explicit_keyword():
    params = inspect.signature(layerbench.run).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for name in ("out", "rungs", "seed", "mode", "noise", "min_samples", "min_time", "max_time", "thorough", "to_cap",
                 "kernel_cache", "no_kernel_cache", "kernel_text", "devices", "concurrent", "check", "repetitions",
                 "progress"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, name


@pytest.mark.parametrize("kwargs, named", [
    ({"workloads": []}, "workloads"),
    ({"layers": ["cpu,runtime"]}, "cpu,runtime"),
    ({"layers": [3]}, "3"),
    ({"sizes": [1.5]}, "1.5"),
    ({"sizes": [True]}, "True"),
    ({"workloads": "vector_add", "thorough": "yes"}, "yes"),
    ({"workloads": "vector_add", "seed": [1, 2]}, "seed"),
    ({"workloads": "vector_add", "kernel_text": "va.cu"}, "va.cu"),
])
def test_bad_arguments_to_run_raise_before_running(kwargs, named, monkeypatch):
    monkeypatch.setattr(native, "executable", lambda: pytest.fail("ran layerbench for bad arguments"))
    with pytest.raises(layerbench.UsageError) as e:
        layerbench.run(**kwargs)
    assert named in str(e.value)


def test_compare_and_report_refuse_what_is_not_results(tmp_path):
    r = layerbench.load(NO_DRIVER)
    with pytest.raises(layerbench.UsageError, match="not a layerbench.Results"):
        layerbench.compare(r, str(NO_DRIVER))
    with pytest.raises(layerbench.UsageError, match="threshold=-1"):
        layerbench.compare(r, r, threshold=-1)
    with pytest.raises(layerbench.UsageError, match="threshold=1000"):
        layerbench.compare(r, r, threshold=1000)
    with pytest.raises(layerbench.UsageError, match="k=0"):
        layerbench.compare(r, r, k=0)
    afile = tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(layerbench.UsageError, match="afile"):
        layerbench.report(r, afile)


# --- compare, report ------------------------------------------------------------------------------

def test_compare_two_runs_of_one_build():
    base, new = layerbench.load(H200_RUN1), layerbench.load(H200_RUN2)
    c = layerbench.compare(base, new)
    assert len(c.rows) == 48 and not c.only_base and not c.only_new
    assert {row.verdict for row in c.rows} <= {"faster", "slower", "same", "unclear"}
    for row in c.rows:
        assert row.ratio == pytest.approx(row.new.median_ms / row.base.median_ms)
    assert "| BASE |" in layerbench.compare_markdown(c)
    # A file against itself: every ok case the same.
    same = layerbench.compare(base, base)
    assert {row.verdict for row in same.rows} == {"same"} and not same.regressed


def test_the_comparison_is_public_and_its_rows_hold_the_loaded_cases():
    base, new = layerbench.load(H200_RUN1), layerbench.load(H200_RUN2)
    c = layerbench.compare(base, new)
    assert isinstance(c, layerbench.Comparison) and c.threshold == 5.0 and c.k == 1.0
    assert all(isinstance(row, layerbench.ComparisonRow) for row in c.rows)
    assert all(any(row.base is case for case in base.cases) and any(row.new is case for case in new.cases)
               for row in c.rows)
    assert c.count("slower") == sum(row.verdict == "slower" for row in c.rows)
    assert c.regressed == (c.count("slower") > 0)
    assert c.to_markdown() == layerbench.compare_markdown(c)


def test_the_threshold_is_in_percent_as_the_commands():
    base, new = layerbench.load(H200_RUN1), layerbench.load(H200_RUN2)
    for percent in (5, 1, 20):
        c = layerbench.compare(base, new, threshold=percent)
        printed = subprocess.run([sys.executable, "-m", "layerbench.reports", "compare", str(H200_RUN1), str(H200_RUN2),
                                  "--threshold", str(percent)], capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                     p for p in (str(REPO / "python"), os.environ.get("PYTHONPATH")) if p)})
        assert printed.returncode in (0, 1), printed.stderr
        assert c.to_markdown().strip() == printed.stdout.strip(), percent
        for row in c.rows:  # within the threshold: the same
            if abs(row.ratio - 1) < percent / 100 * 0.99:
                assert row.verdict == "same", (percent, row)
    # A change of between 1% and 5% is the same at 5 and not at 1.
    at5, at1 = layerbench.compare(base, new, threshold=5), layerbench.compare(base, new, threshold=1)
    moved = [i for i, row in enumerate(at5.rows) if 0.011 < abs(row.ratio - 1) < 0.049]
    assert moved and all(at5.rows[i].verdict == "same" != at1.rows[i].verdict for i in moved)


def test_the_gate_is_the_commands_fail_on():
    """Two runs of one build: no case slower, some unclear. The default gate (fail_on "slower")
    passes; ("slower", "unclear") fails, as `layerbench compare --fail-on slower,unclear` exits 1,
    and to_markdown() is that command's table."""
    base, new = layerbench.load(H200_RUN1), layerbench.load(H200_RUN2)
    c = layerbench.compare(base, new)
    unclear = tuple(row for row in c.rows if row.verdict == "unclear")
    assert c.fail_on == ("slower",) and unclear and not c.regressed
    assert not c.fails() and c.failing() == ()
    assert c.fails(on=("slower", "unclear")) and c.failing(on="slower,unclear") == unclear
    strict = layerbench.compare(base, new, fail_on=["unclear", "slower"])
    assert strict.fail_on == ("slower", "unclear") and strict.fails() and strict.failing() == unclear
    printed = subprocess.run([sys.executable, "-m", "layerbench.reports", "compare", str(H200_RUN1), str(H200_RUN2),
                              "--fail-on", "slower,unclear"], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                 p for p in (str(REPO / "python"), os.environ.get("PYTHONPATH")) if p)})
    assert printed.returncode == 1 and strict.to_markdown().strip() == printed.stdout.strip(), printed.stderr
    assert "Gate (`--fail-on slower,unclear`)" in strict.to_markdown()


@pytest.mark.parametrize("fail_on, named", [("same", "'same' fails no gate"), (["slower", "worse"], "'worse'"),
                                            ("", "''"), (3, "3")])
def test_a_bad_fail_on_is_a_usage_error_naming_it(fail_on, named):
    r = layerbench.load(NO_DRIVER)
    with pytest.raises(layerbench.UsageError, match=named) as e:
        layerbench.compare(r, r, fail_on=fail_on)
    assert "fail_on" in str(e.value)
    with pytest.raises(layerbench.UsageError, match=named):
        layerbench.compare(r, r).fails(on=fail_on)


def test_a_threshold_under_one_warns_that_it_is_percent():
    r = layerbench.load(H200_RUN1)
    with pytest.warns(layerbench.ThresholdWarning, match=r"threshold=0\.05 is 0\.05%; for 5% give 5") as caught:
        c = layerbench.compare(r, r, threshold=0.05)
    assert len(caught) == 1 and caught[0].filename == __file__  # the caller's line
    assert c.threshold == 0.05 and issubclass(layerbench.ThresholdWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for percent in (0, 1, 5, 0.0):
            layerbench.compare(r, r, threshold=percent)


def test_report_writes_into_a_folder(tmp_path):
    pytest.importorskip("matplotlib", reason="layerbench.report() needs matplotlib (layerbench[reports])")
    written = layerbench.report(layerbench.load(NO_DRIVER), tmp_path / "out")
    assert tmp_path / "out" / "report.md" in written and tmp_path / "out" / "report.html" in written
    text = (tmp_path / "out" / "report.md").read_text()
    assert "vector_add" in text and "does not fit in host memory" in text


# --- run, with the build's layerbench ---------------------------------------------------------------

@pytest.fixture
def built(monkeypatch):
    exe = os.environ.get("LB_EXE")
    if not exe:
        pytest.skip("LB_EXE (the build's layerbench) is not set: ctest sets it")
    monkeypatch.setenv("LAYERBENCH_EXE", exe)
    return exe


def test_run_on_the_cpu_layer(built, tmp_path):
    out = tmp_path / "kept.json"
    r = layerbench.run(workloads=["vector_add"], layers=["cpu"], sizes=["1000"], out=out, seed=7, min_time=0.01)
    assert [(c.workload, c.layer, c.size, c.status, c.verified) for c in r.cases] == \
        [("vector_add", "cpu", (1000,), "ok", True)]
    assert out.is_file() and r.path == out
    assert json.loads(out.read_text())["context"]["layerbench"]["seed"] == 7  # the option reached the run


def test_run_shows_progress_on_stderr_by_default_or_through_a_callback(built, capsys):
    r = layerbench.run(workloads="vector_add", layers="cpu", sizes=1000, min_time=0.01)
    assert "vector_add/cpu/1000" in capsys.readouterr().err
    assert r.path is None and "not kept" in repr(r)  # the temporary file is gone: no path to it
    lines: list[str] = []
    layerbench.run(workloads="vector_add", layers="cpu", sizes=1000, min_time=0.01, progress=lines.append)
    assert any("vector_add/cpu/1000" in line for line in lines) and not capsys.readouterr().err
    layerbench.run(workloads="vector_add", layers="cpu", sizes=1000, min_time=0.01, progress=False)
    assert not capsys.readouterr().err


def test_run_warns_about_each_layer_it_could_not_run(built):
    with pytest.warns(layerbench.LayerUnavailableWarning) as caught:
        r = layerbench.run(workloads="vector_add", layers=["cpu", "graph", "runtime"], sizes=1000, min_time=0.01,
                           progress=False)
    said = [str(w.message) for w in caught]
    # graph runs launch workloads only: never vector_add
    assert any("'graph' ran no case" in text for text in said), said
    if "runtime" in r.unavailable:  # no GPU here: the reason is the file's
        assert any(f"'runtime' ran no case: {r.unavailable['runtime']}" in text for text in said), said
    else:
        assert not any("'runtime'" in text for text in said), said
    assert not any("'cpu'" in text for text in said), said


def test_run_names_a_bad_layer_and_a_bad_size(built):
    with pytest.raises(layerbench.UsageError, match="no-such-layer"):
        layerbench.run(workloads="vector_add", layers="no-such-layer", sizes=1000)
    with pytest.raises(layerbench.UsageError, match="abc"):
        layerbench.run(workloads="vector_add", layers="cpu", sizes="abc")
