"""Ladder rung cases (`layerbench ladder`, `run --rung`): read apart from the layers' own cases,
never folded into them, and drawn as one chart per ladder with its table in the report."""
from __future__ import annotations

from pathlib import Path

from conftest import case_entry, results_file, run_cli
from test_report import assert_valid_png, assert_valid_svg

from layerbench.reports import results as results_mod

RUNGS = [(1, "naive", "Naive", 40.0), (2, "coalescing", "Global-memory coalescing", 8.0),
         (3, "smem_tiling", "Shared-memory tiling", 5.0)]


def rung_entry(workload: str, n: int, number: int, name: str, title: str, median_ms: float, **extra) -> dict:
    label = f"{number:02d}_{name}"
    entry = case_entry(workload, "runtime", n, median_ms, **extra)
    size = entry["name"].split("/")[2]
    entry["name"] = entry["run_name"] = f"{workload}/runtime:{label}/{size}/manual_time"
    entry["rung"] = {"id": f"{workload}/{label}", "number": number, "name": name, "title": title,
                     "file": f"workloads/{workload}/ladder/{label}.cu", "kernel": f"{workload}_{label}"}
    return entry


def ladder_entries(workload: str = "matmul", n: int = 512) -> list[dict]:
    entries = [case_entry(workload, "vendor", n, 2.0), case_entry(workload, "runtime", n, 4.0)]
    entries += [rung_entry(workload, n, *rung) for rung in RUNGS]
    return entries


def test_rung_cases_are_apart_from_the_layers_own(tmp_path: Path):
    data = results_mod.load(results_file(tmp_path / "ladder.json", ladder_entries()))
    assert len(data.cases) == 5  # the runtime case and three runtime rungs are not folded together
    assert data.layers == ["runtime", "vendor"]
    assert [c.median_ms for c in data.of("matmul", "runtime")] == [4.0]
    ((key, rungs),) = data.ladders.items()
    assert key == ("matmul", "runtime", (512, 512, 512))
    assert [c.rung_label for c in rungs] == ["01_naive", "02_coalescing", "03_smem_tiling"]
    assert rungs[0].name == "matmul/runtime:01_naive/512x512x512"
    assert len({c.key for c in data.cases}) == 5


def test_report_draws_the_ladder_and_lists_every_rung(tmp_path: Path):
    entries = ladder_entries() + ladder_entries("reduce", 1 << 20)
    entries.append(rung_entry("reduce", 1 << 20, 4, "first_add", "First add during load", 1.0,
                              status="failed", message="verification failed: wrong sum"))
    source = results_file(tmp_path / "ladder.json", entries)
    out = tmp_path / "report"
    result = run_cli("report", source, "--out", out)
    assert result.returncode == 0, result.stderr
    for name in ("ladder_matmul_runtime_512x512x512", "ladder_reduce_runtime_220"):
        assert_valid_png(out / "plots" / f"{name}.png")
        assert_valid_svg(out / "plots" / f"{name}.svg")
    md = (out / "report.md").read_text()
    assert "Optimisation ladders" in md
    for label in ("01_naive", "02_coalescing", "03_smem_tiling", "04_first_add"):
        assert label in md
    assert "cuBLAS (vendor layer)" in md and "CUB (vendor layer)" in md
    assert "5.00×" in md and "1.60×" in md  # 40 -> 8 -> 5 ms: the speed-up over the rung below
    assert "verification failed: wrong sum" in md


def test_compare_keeps_rungs_apart(tmp_path: Path):
    base = results_file(tmp_path / "base.json", ladder_entries())
    new = results_file(tmp_path / "new.json", ladder_entries())
    result = run_cli("compare", base, new)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "runtime:02_coalescing" in result.stdout
