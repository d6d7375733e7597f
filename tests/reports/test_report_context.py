"""What the report says about where it came from and the machine: the link to the results file
(relative to the report's folder), why there was no GPU (the GPU probe's reason, never a Python
layer's import error) and which BLAS the cpu layer linked."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from layerbench.reports import machine, results as results_mod

from conftest import CPU_ONLY, NO_GPU, NO_GPU_PYCUDA, load_json, report_of, results_file, run_cli, write_json


def link_of(md: str) -> str:
    (link,) = re.findall(r"^Made by `layerbench report` from \[`[^`]+`\]\(([^)]+)\)", md, flags=re.M)
    return link


@pytest.mark.parametrize("out", ["out/deep/report", "report-here", "../elsewhere/r"])
def test_the_results_link_is_relative_to_the_report_folder(tmp_path: Path, out: str):
    """Run from a folder other than the report's: the link still finds the results file from the
    report's own folder (and from report.html, which sits in the same folder)."""
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    shutil.copy(CPU_ONLY, work / "data" / "run.json")
    result = run_cli("report", "data/run.json", "--out", out, cwd=work)
    assert result.returncode == 0, result.stderr
    folder = (work / out).resolve()
    link = link_of((folder / "report.md").read_text())
    assert not Path(link).is_absolute()
    assert (folder / link).resolve() == (work / "data" / "run.json").resolve()
    assert f'href="{link}"' in (folder / "report.html").read_text()


def test_the_default_report_folder_links_its_results_beside_it(tmp_path: Path):
    shutil.copy(CPU_ONLY, tmp_path / "run.json")
    assert run_cli("report", tmp_path / "run.json").returncode == 0
    assert link_of((tmp_path / "report" / "report.md").read_text()) == "../run.json"


def device_section(md: str) -> str:
    return md.split("### Device")[1].split("### Host")[0]


# Each no-GPU fixture's report, made once for the tests that read it.
@pytest.fixture(scope="module")
def no_gpu_pycuda_report(tmp_path_factory) -> Path:
    return report_of(tmp_path_factory, NO_GPU_PYCUDA, "no_gpu_pycuda")


@pytest.fixture(scope="module")
def no_gpu_report(tmp_path_factory) -> Path:
    return report_of(tmp_path_factory, NO_GPU, "no_gpu")


def test_no_gpu_the_reason_is_the_gpu_probes_not_pycudas_import_error(no_gpu_pycuda_report: Path):
    """fixtures/cpu_only_pycuda_reason.json: the harness (before it wrote the probe's reason) put
    PyCUDA's ImportError in gpu_unavailable_reason; the report gives the GPU probe's reason."""
    assert "ImportError" in load_json(NO_GPU_PYCUDA)["context"]["gpu_unavailable_reason"]
    out = no_gpu_pycuda_report
    for name in ("report.md", "report.html"):
        text = (out / name).read_text()
        assert "no GPU: no CUDA driver (libcuda.so.1 not found)." in text
        assert "ImportError" not in text and "import pycuda" not in text
    assert device_section((out / "report.md").read_text()).strip() == (
        "**no GPU: no CUDA driver (libcuda.so.1 not found).** Only the CPU layers ran.")


def test_no_gpu_with_the_harness_recording_each_layers_reason(no_gpu_report: Path):
    """fixtures/cpu_only_no_driver.json: the probe's reason, and each left-out layer's own."""
    md = (no_gpu_report / "report.md").read_text()
    assert "**no GPU: no CUDA driver (libcuda.so.1 not found).**" in device_section(md)
    assert "Layers that could not run here, and why (`context.layers_unavailable`): cuda-bindings, " in md
    assert "vendor: no CUDA driver (libcuda.so.1 not found)." in md


def no_gpu_context(reason=None, left_out=None) -> dict:
    data = load_json(NO_GPU)
    data["context"].pop("gpu_unavailable_reason", None)
    data["context"].pop("layers_unavailable", None)
    if reason is not None:
        data["context"]["gpu_unavailable_reason"] = reason
    if left_out is not None:
        data["context"]["layers_unavailable"] = left_out
    return data


PYCUDA = ("import pycuda.driver failed (/work/main/.venv/bin/python3): ImportError: libcuda.so.1: cannot open "
          "shared object file: No such file or directory")
CUPY_MISSING = "import cupy failed (python3): ModuleNotFoundError: No module named 'cupy'"


@pytest.mark.parametrize("reason, left_out, expected", [
    ("no CUDA device", None, "no CUDA device"),
    ("driver older than the runtime (driver 12.2, runtime 13.0)", None,
     "driver older than the runtime (driver 12.2, runtime 13.0)"),
    (PYCUDA, None, machine.NO_DRIVER),
    ("no CUDA device; the Python layers also unavailable: built with -DLAYERBENCH_PYTHON_LAYERS=OFF", None,
     "no CUDA device"),
    # a layer's reason first in the file, the probe's among the layers' reasons
    (CUPY_MISSING, {"cupy": CUPY_MISSING, "runtime": "no CUDA device", "driver": "no CUDA device"}, "no CUDA device"),
    (None, {"pycuda": PYCUDA, "runtime": "no CUDA device", "thrust": "no CUDA device"}, "no CUDA device"),
    (CUPY_MISSING, None, None),  # only a layer's own reason: not recorded
    ("built without pybind11: python3 -m pybind11 failed", None, None),
    (None, None, None),
])
def test_no_gpu_reason(tmp_path: Path, reason, left_out, expected):
    path = results_file(tmp_path / "r.json", load_json(NO_GPU)["benchmarks"], base=no_gpu_context(reason, left_out))
    r = results_mod.load(path)
    assert machine.no_gpu_reason(r) == expected
    sentence = machine.no_gpu_sentence(r)
    if expected:
        assert sentence.startswith(f"**no GPU: {expected}.**")
    else:
        assert sentence.startswith("**no GPU**: this results file does not record why")
        assert "ModuleNotFoundError" not in sentence and "pybind11" not in sentence


def host_row(md: str) -> str:
    (row,) = [line for line in md.splitlines() if line.startswith("| BLAS (cpu layer) |")]
    return row


def test_the_blas_the_cpu_layer_linked(tmp_path: Path, no_gpu_report: Path, no_gpu_pycuda_report: Path):
    # context.layers.cpu.blas, as the harness writes it now
    assert host_row((no_gpu_report / "report.md").read_text()) == (
        "| BLAS (cpu layer) | OpenBLAS 0.3.21, 2 threads; loaded from "
        "`/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so` (the build linked "
        "`/usr/lib/x86_64-linux-gnu/libopenblas.so`) (`context.layers.cpu.blas`) |")
    # before that field: context.layers.cpu.matmul, which says when there was no BLAS
    assert host_row((no_gpu_pycuda_report / "report.md").read_text()) == (
        "| BLAS (cpu layer) | none: matmul runs a cache-blocked OpenMP loop nest (no CBLAS found at build "
        "time) (`context.layers.cpu.matmul`) |")
    # a build without a BLAS, as the harness writes it now
    data = load_json(NO_GPU)
    data["context"]["layers"]["cpu"]["blas"] = {"name": "none", "why": "no CBLAS found by CMake"}
    r = results_mod.load(results_file(tmp_path / "r.json", data["benchmarks"], base=data))
    assert machine.cpu_blas(r) == ("none: no CBLAS found by CMake; matmul runs the cpu layer's loop nest "
                                   "(`context.layers.cpu.blas`)")


@pytest.mark.parametrize("commit", ["c796c17", None])
def test_the_report_names_the_commit_that_made_the_results(tmp_path: Path, commit):
    data = load_json(CPU_ONLY)
    if commit:
        data["context"]["layerbench"]["source_commit"] = commit
    else:
        data["context"]["layerbench"].pop("source_commit", None)
    run = write_json(tmp_path / "run.json", data)
    assert run_cli("report", run, "--out", tmp_path / "r").returncode == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert re.search(r"commit\W+" + (commit or "not recorded"), md), md
