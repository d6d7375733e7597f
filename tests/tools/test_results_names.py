"""One name per case in every committed results file (python/layerbench/reports/names.py), so that
Google Benchmark's tools/compare.py, which matches two files' cases by name alone, matches any two
of them; and tools/upgrade-results, which re-makes a file of the older form. The results files a
user reads are docs/results'; the tests' fixtures (tests/reports/fixtures) and the fuzzers' corpus
(fuzz/corpus/results) keep older forms on purpose: the reader must still take them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import upgrade_results as upgrade  # tools/ and python/ are on the path: pytest.ini's pythonpath
from layerbench.reports import names, results

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted(p for p in (ROOT / "docs" / "results").rglob("*.json")
                   if isinstance(json.loads(p.read_text(encoding="utf-8")), dict)
                   and "benchmarks" in json.loads(p.read_text(encoding="utf-8")))
OLDER_FORM = {
    "name": "vector_add/cpu/1048576/iterations:1/manual_time", "run_name": "vector_add/cpu/1048576/iterations:1/manual_time",
    "run_type": "iteration", "iterations": 1, "real_time": 0.05, "cpu_time": 100.0, "time_unit": "ms",
    "workload": "vector_add", "layer": "cpu", "n": 1048576, "status": "ok", "median_ms": 0.05, "samples": 2000,
}


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_file_names_its_cases_as_today(path: Path):
    data = json.loads(path.read_text(encoding="utf-8"))
    wrong = [(e["name"], names.expected_name(e)) for e in data["benchmarks"] if e["name"] != names.expected_name(e)]
    assert not wrong, f"{len(wrong)} names of an older form, e.g. {wrong[0]}: run tools/upgrade-results {path}"


def test_the_committed_files_are_more_than_a_few():
    assert len(COMMITTED) >= 10 and any("h200" in str(p) for p in COMMITTED) and any("h100" in str(p) for p in COMMITTED)


def test_google_benchmark_matches_the_h100_and_h200_runs_case_by_case():
    """compare.py pairs the entries whose names are equal: that must be every case the two runs
    share by workload, layer and size (layerbench compare's match), and more than none."""
    h100, h200 = (ROOT / "docs" / "results" / d / "results.json" for d in ("h100", "h200"))
    by_name = [{e["name"] for e in json.loads(p.read_text(encoding="utf-8"))["benchmarks"]} for p in (h100, h200)]
    by_key = [{c.key for c in results.load(p).cases} for p in (h100, h200)]
    shared = by_key[0] & by_key[1]
    assert shared
    assert len(by_name[0] & by_name[1]) == len(shared)


def test_upgrade_remakes_the_older_form_and_leaves_todays_alone(tmp_path: Path):
    source = ROOT / "docs" / "results" / "h100" / "graph-alone.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["benchmarks"] = [dict(OLDER_FORM)] + data["benchmarks"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data, separators=(",", ":")))
    assert upgrade.main(["--check", str(old)]) == 1
    assert upgrade.main([str(old)]) == 0
    text = old.read_text(encoding="utf-8")
    assert text.count("\n") == 1  # compact on one line, as it was
    entry = json.loads(text)["benchmarks"][0]
    assert entry["name"] == entry["run_name"] == "vector_add/cpu/1048576/manual_time" == names.expected_name(entry)
    assert entry["iterations"] == 2000 and entry["cpu_time"] == pytest.approx(100.0 / 2000)
    assert entry["median_ms"] == 0.05 and entry["real_time"] == 0.05  # measured figures untouched
    converted = json.loads(text)["context"]["layerbench"]["converted"]
    assert converted[0]["tool"] == "tools/upgrade-results" and converted[0]["entries"] == 1
    assert upgrade.main(["--check", str(old)]) == 0  # today's form now
    results.load(old)  # and the schema takes it
    today = tmp_path / "today.json"
    shutil.copy(source, today)
    assert upgrade.main([str(today)]) == 0 and today.read_bytes() == source.read_bytes()


def test_upgrade_refuses_what_is_not_a_results_file(tmp_path: Path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert upgrade.main([str(bad)]) == 2
    assert "not a layerbench results file" in capsys.readouterr().err
