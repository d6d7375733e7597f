"""`layerbench report` from a small results file produced by the harness on an NVIDIA H200
(fixtures/h200_run1.json; see fixtures/README.md), and from constructed variations of it."""
from __future__ import annotations

import copy
import csv
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import CPU_ONLY, H200_OLDER, H200_RUN1, case_entry, load_json, report_of, results_file, run_cli

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXPECTED_PLOTS = {
    "heatmap", "bandwidth_vector_add", "bandwidth_saxpy", "bandwidth_reduce", "gflops_matmul",
    "speedup_vector_add", "speedup_saxpy", "speedup_reduce", "speedup_matmul",
    "one_time_costs", "first_run", "launch_overhead",
}
CASES = 48  # in fixtures/h200_run1.json


def case_names(data: dict) -> list[str]:
    return ["/".join(b["name"].split("/")[:3]) for b in data["benchmarks"] if b.get("run_type") == "iteration"]


def assert_valid_png(path: Path) -> None:
    import matplotlib.image

    assert path.read_bytes()[:8] == PNG_MAGIC, f"{path} is not a PNG"
    pixels = matplotlib.image.imread(path)
    assert pixels.ndim == 3 and pixels.shape[0] > 300 and pixels.shape[1] > 600, pixels.shape
    assert pixels[..., :3].std() > 0.05, f"{path} looks blank"


def assert_valid_svg(path: Path) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    assert len(list(root.iter())) > 50, f"{path} has almost nothing drawn"


def test_writes_report_md_html_and_plots(h200_report: Path):
    assert (h200_report / "report.md").stat().st_size > 1000
    assert (h200_report / "report.html").stat().st_size > 10000
    names = {p.stem for p in (h200_report / "plots").glob("*.png")}
    assert names == EXPECTED_PLOTS
    assert names == {p.stem for p in (h200_report / "plots").glob("*.svg")}


def test_images_are_valid_png_and_svg(h200_report: Path):
    for name in EXPECTED_PLOTS:
        assert_valid_png(h200_report / "plots" / f"{name}.png")
        assert_valid_svg(h200_report / "plots" / f"{name}.svg")


def test_html_names_every_case_and_embeds_every_plot(h200_report: Path, h200: dict):
    page = (h200_report / "report.html").read_text()
    for name in case_names(h200):
        assert name in page, f"report.html does not name {name}"
    embedded = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(embedded) == len(EXPECTED_PLOTS)


def test_html_is_self_contained(h200_report: Path):
    page = (h200_report / "report.html").read_text()
    assert "<script" not in page and "<link" not in page and "@import" not in page
    # nothing is loaded from anywhere: every src is an embedded data: URL
    assert all(src.startswith("data:") for src in re.findall(r'src="([^"]*)"', page))
    assert "url(" not in page


def test_markdown_links_existing_plots_and_header(h200_report: Path):
    md = (h200_report / "report.md").read_text()
    for link in re.findall(r"\]\((plots/[^)]+)\)", md):
        assert (h200_report / link).is_file(), link
    # the heat map first, then the findings, then device, host and harness version, before the
    # per-workload figures
    assert md.split("![")[1].startswith("heat map")
    head = md.split("## Bandwidth")[0]
    for text in ("NVIDIA H200", "layerbench 0.1.0", "Intel(R) Xeon(R) Processor", "4 235 GB/s",
                 "51 188 GFLOP/s at 4096³", "OpenBLAS cblas_sgemm", "16 OpenMP threads",
                 "cold: the L2 is flushed before each sample", "until the noise is under 0.5%"):
        assert text in head, text
    assert f"None: all {CASES} cases ran and passed verification." in md


def test_figures_carry_units_noise_and_baseline(h200_report: Path):
    md = (h200_report / "report.md").read_text()
    captions = re.findall(r"^\*(.+)\* \(\[SVG\]", md, flags=re.M)
    assert len(captions) == len(EXPECTED_PLOTS)
    heat = captions[0]
    assert heat.startswith("Each layer (rows, grouped by family") and "`fraction_of_copy`" in heat
    assert "Launch overhead (launch_async, launch_sync: µs per launch" in heat and "grey" in heat
    bandwidth = [c for c in captions if "bandwidth per layer" in c]
    assert len(bandwidth) == 3 and all("GB/s" in c and "relative standard deviation" in c for c in bandwidth)
    assert all("copy bandwidth measured" in c and "GPU samples are cold" in c for c in bandwidth)
    launch = next(c for c in captions if c.startswith("Launch overhead per layer"))
    assert "microseconds per launch" in launch and "Error bars" in launch
    speedups = [c for c in captions if "speed-up = time of the `cpu` layer" in c]
    assert len(speedups) == 4
    assert all("Baseline: the `cpu` layer" in c for c in speedups)
    assert any("OpenBLAS" in c for c in speedups) and any("16 OpenMP threads" in c for c in speedups)
    # the lesson for vector add: end to end, the GPU layers lose to the CPU
    vector_add = next(c for c in speedups if c.startswith("**vector_add**"))
    assert "no GPU layer beats the CPU" in vector_add


def test_csv_has_one_row_per_case_with_every_field(h200_report: Path, h200: dict):
    rows = list(csv.DictReader(io.StringIO((h200_report / "results.csv").read_text())))
    assert len(rows) == len(case_names(h200))
    fields = set().union(*(b.keys() for b in h200["benchmarks"]))
    assert fields <= set(rows[0].keys())
    by_name = {r["name"]: r for r in rows}
    for b in h200["benchmarks"]:
        row = by_name[b["name"]]
        assert float(row["median_ms"]) == b["median_ms"]
        assert row["layer"] == b["layer"] and int(row["n"]) == b["n"]


def test_csv_subcommand_to_stdout_and_file(tmp_path: Path):
    result = run_cli("csv", H200_RUN1)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("workload,layer,size,n,m,k,status,")
    assert len(result.stdout.strip().splitlines()) == 1 + CASES
    out = tmp_path / "x" / "cases.csv"
    result = run_cli("csv", H200_RUN1, "--out", out)
    assert result.returncode == 0 and out.read_text().count("\n") == 1 + CASES


def test_failed_and_skipped_cases_are_listed_with_reasons(tmp_path: Path, h200: dict):
    data = copy.deepcopy(h200)
    failed = next(b for b in data["benchmarks"] if b["name"].startswith("saxpy/driver/1048576/"))
    failed.update(status="failed", verified=False, message="max relative error 3.2e-02 above tolerance 1.2e-07",
                  error_occurred=True, error_message="verification failed")
    skipped = next(b for b in data["benchmarks"] if b["name"].startswith("matmul/thrust/1024x1024x1024/"))
    for key in ("median_ms", "mean_ms", "min_ms", "max_ms", "rel_stddev", "samples", "gbps", "gflops",
                "end_to_end_ms", "first_run_ms", "fraction_of_copy"):
        skipped.pop(key, None)
    skipped.update(status="skipped", message="needs 12.0 GiB of device memory, 8.0 GiB free")
    path = results_file(tmp_path / "with_failures.json", data["benchmarks"], base=data)
    out = tmp_path / "report"
    result = run_cli("report", path, "--out", out)
    assert result.returncode == 0, result.stderr
    assert f"2 of {CASES} cases failed or were skipped" in result.stdout
    for name in ("report.md", "report.html"):
        text = (out / name).read_text()
        assert "saxpy/driver/1048576" in text and "max relative error 3.2e-02 above tolerance" in text
        assert "matmul/thrust/1024x1024x1024" in text and "needs 12.0 GiB of device memory" in text
        assert f"{CASES - 2} ok, 1 failed, 1 skipped" in text


def test_findings_leave_out_the_cpu_comparison_of_a_cpu_case_without_a_median(tmp_path: Path, h200: dict):
    """An ok cpu case whose median_ms is null (the harness writes a non-finite number so) once made
    the findings fail dividing None (found by mypy, P24): its GB/s is still named, no ratio is."""
    from layerbench.reports import document, report, results

    data = copy.deepcopy(h200)
    cpu = max((b for b in data["benchmarks"] if b.get("workload") == "vector_add" and b.get("layer") == "cpu"),
              key=lambda b: b["n"])
    cpu["median_ms"] = None
    doc = document.Document("findings")
    report._findings(doc, results.load(results_file(tmp_path / "cpu_no_median.json", data["benchmarks"], base=data)))
    vector_add = next(item for block in doc.blocks for item in getattr(block, "items", [])
                      if item.startswith("**vector_add**"))
    assert "is fastest at" in vector_add and "the cpu layer" not in vector_add


def test_busy_cases_are_flagged_with_why(tmp_path: Path, h200: dict):
    data = copy.deepcopy(h200)
    busy = next(b for b in data["benchmarks"] if b["name"].startswith("vector_add/runtime/1048576/"))
    busy["busy"] = ["another process on the GPU (pid 4242)"]
    path = results_file(tmp_path / "busy.json", data["benchmarks"], base=data)
    out = tmp_path / "report"
    assert run_cli("report", path, "--out", out).returncode == 0
    text = (out / "report.md").read_text()
    assert "**Busy machine: 1 case(s) ran while another process used what they are timed on**" in text
    rows = [line for line in text.splitlines() if "`vector_add/runtime/1048576`" in line and "|" in line]
    assert any(row.rstrip(" |").endswith("another process on the GPU (pid 4242)") for row in rows)
    quiet = tmp_path / "quiet"
    assert run_cli("report", H200_RUN1, "--out", quiet).returncode == 0
    assert "Busy machine" not in (quiet / "report.md").read_text()


@pytest.fixture(scope="module")
def cpu_only_report(tmp_path_factory) -> Path:
    """The report of the CPU-only fixture, made once for the tests that read it."""
    return report_of(tmp_path_factory, CPU_ONLY, "cpu_only")


def test_cpu_only_run_with_repetitions(cpu_only_report: Path):
    """A run without a GPU (device null, no ceilings), with --benchmark_repetitions=3: the aggregate
    entries are ignored and the repetitions folded into one case each."""
    out = cpu_only_report
    md = (out / "report.md").read_text()
    # The harness of that run gave CUDA's own text as the GPU probe's reason.
    assert "**no GPU: cudaGetDeviceCount: CUDA driver version is insufficient" in md
    assert "aggregate entries" in md and "folded" in md
    assert "| cases | 2: 2 ok, 0 failed, 0 skipped |" in md
    assert (out / "plots" / "bandwidth_vector_add.png").is_file()
    assert (out / "plots" / "speedup_vector_add.png").is_file()
    # No GPU, no compiles: the one-time costs are the first runs' alone.
    assert "| cpu | first run" not in md and "| process |" not in md
    assert (out / "plots" / "one_time_costs.png").is_file()


def test_older_harness_file_with_later_additions(tmp_path: Path):
    """A results file from the harness before adaptive sampling (no context.measurement, samples
    back to back, no cuBLAS ceiling, no launch workloads) still makes a full report; and what a
    later harness may add is drawn or listed: launch-overhead cases (a workload the file describes
    as one: context.workloads, not its name), a cuBLAS ceiling under its other name, a workload the
    file does not describe (listed, not drawn)."""
    out = tmp_path / "older"
    result = run_cli("report", H200_OLDER, "--out", out)
    assert result.returncode == 0, result.stderr
    md = (out / "report.md").read_text()
    assert "back to back (hot): shaded, the sizes whose working set fits in the GPU's L2" in md
    assert "holds no cuBLAS ceiling" in md and "holds no launch-overhead cases" in md
    assert not (out / "plots" / "launch_overhead.png").exists()

    data = load_json(H200_OLDER)
    data["context"]["ceilings"]["cublas_sgemm_gflops"] = 51234.5
    data["context"]["workloads"] = {"launch_overhead": {"figure": "us_per_launch", "summary": "n empty launches"}}
    extra = [case_entry("launch_overhead", layer, 1, ms, rel_stddev=0.05)
             for layer, ms in (("runtime", 0.0021), ("driver", 0.0019), ("thrust", 0.0043))]
    extra.append(case_entry("histogram", "runtime", 4096, 0.5))
    path = results_file(tmp_path / "later.json", data["benchmarks"] + extra, base=data)
    out = tmp_path / "later"
    result = run_cli("report", path, "--out", out)
    assert result.returncode == 0, result.stderr
    assert_valid_png(out / "plots" / "launch_overhead.png")
    md = (out / "report.md").read_text()
    assert "### launch_overhead" in md and "### histogram" in md
    assert "histogram/runtime/4096" in md and "does not draw" in md
    assert "cuBLAS SGEMM (plain fp32) measured" in md and "51 234 GFLOP/s" in md
    assert "holds no launch-overhead cases" not in md


def test_default_out_dir_is_beside_the_results(tmp_path: Path):
    src = tmp_path / "run.json"
    src.write_bytes(CPU_ONLY.read_bytes())
    result = run_cli("report", src)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "report" / "report.html").is_file()


def test_report_is_reproducible(cpu_only_report: Path, tmp_path: Path):
    """The same results give byte-identical files (a committed example does not churn)."""
    a, b = cpu_only_report, tmp_path / "b"
    assert run_cli("report", CPU_ONLY, "--out", b).returncode == 0
    for path in a.rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (b / path.relative_to(a)).read_bytes(), path.name


# The report tool's help reads as the C++ commands' (CLI11's layout: description, then "Usage:").
@pytest.mark.parametrize("command", [[], ["report"], ["compare"], ["csv"]])
def test_help(command):
    result = run_cli(*command, "--help")
    assert result.returncode == 0
    assert "Usage: layerbench" in result.stdout
