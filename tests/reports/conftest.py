"""Shared fixtures: paths, a runner for the command line, and builders for constructed inputs."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The package's source root: pytest.ini puts it on the tests' path (`pythonpath`); a command the
# tests run gets it through PYTHONPATH, as `layerbench report` gives it (app/reports_tool.cpp).
PYTHON_ROOT = REPO / "python"

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLI = [sys.executable, "-m", "layerbench.reports"]


def cli_env() -> dict[str, str]:
    """The environment for the report tool's command line: this one, the package's root first."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(PYTHON_ROOT) + (os.pathsep + path if path else "")}
H200_RUN1 = FIXTURES / "h200_run1.json"  # produced by the harness on an H200 (see fixtures/README.md)
H200_RUN2 = FIXTURES / "h200_run2.json"
H200_OLDER = FIXTURES / "h200_older_harness.json"  # the harness before adaptive sampling
CPU_ONLY = FIXTURES / "cpu_only_repetitions.json"
H100_16 = FIXTURES / "h100_16_layers.json"  # the H100 run, trimmed, plus constructed vendor cases: 16 layers
NO_GPU_PYCUDA = FIXTURES / "cpu_only_pycuda_reason.json"  # no GPU; gpu_unavailable_reason is PyCUDA's ImportError
NO_GPU = FIXTURES / "cpu_only_no_driver.json"  # no GPU; the probe's reason, layers_unavailable, cpu.blas


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs `python3 -m layerbench.reports ARGS` as a user would, in another directory by default."""
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, env=cli_env(),
                          cwd=cwd or REPO.parent, timeout=300)


def load_json(path: Path) -> dict:
    return json.loads(path.read_text())


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data, indent=1))
    return path


def report_of(tmp_path_factory, results: Path, name: str) -> Path:
    """`layerbench report RESULTS` into a fresh folder (<name>N/report): for a module fixture, so that
    the tests that read one report share it."""
    out = tmp_path_factory.mktemp(name) / "report"
    result = run_cli("report", results, "--out", out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def h200() -> dict:
    return load_json(H200_RUN1)


@pytest.fixture(scope="session")
def h200_report(tmp_path_factory) -> Path:
    """One report made from the harness's H200 fixture, shared by the tests that read it."""
    out = tmp_path_factory.mktemp("report")
    result = run_cli("report", H200_RUN1, "--out", out, "--csv")
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def h100_16_report(tmp_path_factory) -> Path:
    """One report made from the 16-layer fixture, shared by the tests that read it."""
    out = tmp_path_factory.mktemp("report16")
    result = run_cli("report", H100_16, "--out", out)
    assert result.returncode == 0, result.stderr
    return out


def case_entry(workload: str, layer: str, n: int, median_ms: float, rel_stddev: float | None = 0.01,
               samples: int = 100, **extra) -> dict:
    """A constructed benchmarks[] entry with the fields compare and report read."""
    size = f"{n}x{n}x{n}" if workload == "matmul" else str(n)
    entry = {"name": f"{workload}/{layer}/{size}/manual_time", "run_name": f"{workload}/{layer}/{size}/manual_time",
             "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
             "iterations": samples, "real_time": median_ms, "cpu_time": median_ms, "time_unit": "ms",
             "workload": workload, "layer": layer, "n": n, "status": "ok", "verified": True,
             "median_ms": median_ms, "mean_ms": median_ms, "min_ms": median_ms, "max_ms": median_ms,
             "rel_stddev": rel_stddev, "samples": samples, "bytes_moved": 12.0 * n, "flops": float(n),
             "end_to_end_ms": median_ms * 10}
    if workload == "matmul":
        entry.update(m=n, k=n, bytes_moved=12.0 * n * n, flops=2.0 * n ** 3)
    entry.update(extra)
    return entry


def results_file(path: Path, entries: list[dict], base: dict | None = None) -> Path:
    """A constructed results file: the H200 fixture's context (or `base`) with these entries."""
    data = copy.deepcopy(base) if base else {"context": copy.deepcopy(load_json(H200_RUN1)["context"])}
    data["benchmarks"] = entries
    return write_json(path, data)


def fleet_of(folder: Path, gpus: int, slow: tuple[int, str, float] | None = None) -> list[Path]:
    """`gpus` results files made from one real run (the H200 fixture), each a GPU of its own: its
    own device.index, device.uuid and run_id, every median moved by a fixed pseudo-random 1% (no
    two GPUs are ever identical); slow = (index, workload, factor) makes one GPU's workload that
    much slower. The files to merge into a fleet (no large fixture committed)."""
    import random

    source = load_json(H200_RUN1)
    made = []
    for k in range(gpus):
        data = json.loads(json.dumps(source))
        rng = random.Random(1000 + k)
        data["context"]["device"].update(index=k, uuid=f"GPU-{k:02x}{rng.getrandbits(24):06x}-1111-2222-3333-444444444444")
        data["context"]["run_id"] = f"{rng.getrandbits(128):032x}"
        for entry in data["benchmarks"]:
            factor = 1 + rng.uniform(-0.01, 0.01)
            if slow and slow[0] == k and entry.get("workload") == slow[1]:
                factor *= slow[2]
            for key in ("median_ms", "mean_ms", "min_ms", "max_ms", "real_time", "cpu_time", "us_per_launch"):
                if isinstance(entry.get(key), (int, float)):
                    entry[key] *= factor
            for key in ("gbps", "gflops"):
                if isinstance(entry.get(key), (int, float)):
                    entry[key] /= factor
        made.append(write_json(folder / f"gpu{k}.json", data))
    return made
