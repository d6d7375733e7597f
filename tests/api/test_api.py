"""The Python API (python/layerbench/api.py) on committed results files (tests/reports/fixtures,
written by the harness), and run() with the build's layerbench ($LB_EXE, which ctest sets) on the
cpu layer."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import layerbench
from layerbench import native

FIXTURES = Path(__file__).resolve().parents[1] / "reports" / "fixtures"
NO_DRIVER = FIXTURES / "cpu_only_no_driver.json"  # 8 cases: 6 ok, 2 matmul cases skipped
H200_RUN1 = FIXTURES / "h200_run1.json"
H200_RUN2 = FIXTURES / "h200_run2.json"


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
    assert set(rows[0]) == {"workload", "layer", "size", "median_ms", "gbps", "gflops", "verified", "status", "message"}
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


# --- bad arguments: one exception, naming the bad value ---------------------------------------------

def test_load_of_a_missing_file_names_it(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(layerbench.UsageError, match="nope.json"):
        layerbench.load(missing)


def test_load_of_a_file_off_the_schema_names_the_field(tmp_path):
    data = json.loads(NO_DRIVER.read_text())
    data["benchmarks"][0]["status"] = "done"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(layerbench.UsageError, match="done"):
        layerbench.load(bad)


def test_usage_error_is_a_value_error():
    assert issubclass(layerbench.UsageError, ValueError)


@pytest.mark.parametrize("kwargs, named", [
    ({"workloads": ["vector_add"], "bogus": 1}, "bogus"),
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


def test_run_names_a_bad_layer_and_a_bad_size(built):
    with pytest.raises(layerbench.UsageError, match="no-such-layer"):
        layerbench.run(workloads="vector_add", layers="no-such-layer", sizes=1000)
    with pytest.raises(layerbench.UsageError, match="abc"):
        layerbench.run(workloads="vector_add", layers="cpu", sizes="abc")
