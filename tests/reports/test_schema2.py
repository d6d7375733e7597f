"""Schema 2: where each layer runs and what each workload's figure is are read from the file, not
guessed from names; skipped cases in Google Benchmark 1.8's fields; per-case one-time costs.
Schema-1 files keep their old reading."""
from __future__ import annotations

import copy
from pathlib import Path

from layerbench.reports import bars, costs as costs_mod, fmt, results as results_mod

from conftest import H200_RUN1, case_entry, load_json, results_file, run_cli


def schema2_context() -> dict:
    context = copy.deepcopy(load_json(H200_RUN1)["context"])
    context["layerbench"]["schema_version"] = 2
    context["layers"] = {"mycpu": {"on_gpu": False}, "runtime": {"on_gpu": True}}
    context["workloads"] = {"ping": {"figure": "us_per_launch", "summary": "a launch-overhead workload"},
                            "vector_add": {"figure": "gbps", "summary": "c = a + b"}}
    return {"context": context}


def test_schema2_layers_and_figures_come_from_the_file(tmp_path: Path):
    path = results_file(tmp_path / "r.json", [
        case_entry("vector_add", "mycpu", 1000, 0.01),
        case_entry("vector_add", "runtime", 1000, 0.001),
        case_entry("ping", "runtime", 1000, 4.0, us_per_launch=4.0, bytes_moved=0.0, flops=0.0),
    ], base=schema2_context())
    r = results_mod.load(path)
    assert r.on_gpu("mycpu") is False  # a name the old guess would have called a GPU layer
    assert r.on_gpu("runtime") is True
    assert r.figure("ping") == "us_per_launch" and r.is_launch("ping")  # no "launch" in its name
    assert r.figure("vector_add") == "gbps"
    assert bars.launch_workloads(r) == ["ping"]


def test_schema2_report_treats_recorded_cpu_layers_as_cpu(tmp_path: Path):
    path = results_file(tmp_path / "r.json", [
        case_entry("ping", "mycpu", 1000, 4.0, us_per_launch=4.0),
        case_entry("ping", "runtime", 1000, 3.0, us_per_launch=3.0),
    ], base=schema2_context())
    out = tmp_path / "report"
    result = run_cli("report", path, "--out", out)
    assert result.returncode == 0, result.stderr
    text = (out / "report.md").read_text()
    # The launch-overhead caption hatches the layers the file says run on the CPU ...
    assert "Hatched: mycpu, which runs on the CPU" in text
    # ... and the findings' launch-overhead line, about GPU layers only, leaves them out.
    (line,) = [x for x in text.splitlines() if x.startswith("- **Launch overhead**")]
    assert "`ping` runtime 3.0" in line and "mycpu" not in line
    # ping is read as a launch workload although its name does not say so.
    assert "| case | launches | status |" in text


def test_schema1_files_keep_the_name_based_reading():
    r = results_mod.load(H200_RUN1)
    assert r.ctx("layerbench", "schema_version") == 1
    assert r.on_gpu("cpu") is False and r.on_gpu("thrust-omp") is False and r.on_gpu("runtime") is True
    assert r.figure("launch_async") == "us_per_launch"
    assert r.figure("matmul") == "gflops" and r.figure("reduce") == "gbps"


def test_skipped_case_in_google_benchmark_18_fields(tmp_path: Path):
    entry = case_entry("vector_add", "runtime", 1000, 0.001)
    for key in ("status", "median_ms"):
        del entry[key]
    entry.update(skipped=True, skip_message="does not fit in device memory: cudaMalloc failed")
    r = results_mod.load(results_file(tmp_path / "r.json", [entry], base=schema2_context()))
    (case,) = r.cases
    assert case.status == "skipped" and not case.ok
    assert case.message == "does not fit in device memory: cudaMalloc failed"


def test_per_case_one_time_costs_are_listed_once(tmp_path: Path):
    base = schema2_context()
    base["context"]["layers"]["driver"] = {"on_gpu": True, "one_time_costs": [{"what": "context retain", "ms": 0.01}]}
    path = results_file(tmp_path / "r.json", [
        case_entry("vector_add", "driver", 1000, 0.001,
                   one_time_costs=[{"what": "NVRTC vector_add (compiled)", "ms": 48.0}]),
    ], base=base)
    items = costs_mod.one_time_items(results_mod.load(path))
    whats = [(layer, what) for layer, what, _ms in items]
    assert ("driver", "context retain") in whats
    assert ("driver", f"NVRTC vector_add (compiled) (vector_add {fmt.size_label((1000,))})") in whats
    assert sum(1 for _l, w in whats if w.startswith("NVRTC")) == 1


def test_repetition_skipped_in_google_benchmark_18_fields_makes_the_case_skipped(tmp_path: Path):
    ok = case_entry("vector_add", "runtime", 1000, 0.001)
    skipped = case_entry("vector_add", "runtime", 1000, 0.001, repetition_index=1)
    for key in ("status", "median_ms"):
        del skipped[key]
    skipped.update(skipped=True, skip_message="does not fit in device memory")
    r = results_mod.load(results_file(tmp_path / "r.json", [ok, skipped], base=schema2_context()))
    (case,) = r.cases
    assert case.repetitions == 2
    assert case.status == "skipped" and case.message == "does not fit in device memory"


def test_per_case_one_time_costs_of_repetitions_are_listed_once(tmp_path: Path):
    # The harness copies a case's fields, one_time_costs included, into each repetition's entry.
    costs = [{"what": "graph capture", "ms": 0.5}]
    path = results_file(tmp_path / "r.json", [
        case_entry("vector_add", "runtime", 1000, 0.001, repetition_index=i, one_time_costs=costs)
        for i in range(3)
    ], base=schema2_context())
    items = costs_mod.one_time_items(results_mod.load(path))
    assert [what for layer, what, _ms in items if layer == "runtime"] == [
        f"graph capture (vector_add {fmt.size_label((1000,))})"]
    out = tmp_path / "report"
    result = run_cli("report", path, "--out", out)
    assert result.returncode == 0, result.stderr
    text = (out / "report.md").read_text()
    assert text.count(f"| runtime | graph capture (vector_add {fmt.size_label((1000,))}) |") == 1


def test_the_report_names_the_files_schema_version(tmp_path: Path):
    path = results_file(tmp_path / "r.json", [case_entry("vector_add", "runtime", 1000, 0.001)], base=schema2_context())
    run_cli("report", str(path), "--out", str(tmp_path / "out"))
    assert "schema version 2)" in (tmp_path / "out" / "report.md").read_text()
