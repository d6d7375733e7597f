"""docs/reports.md's CI recipe (docs/ci/layerbench-gate.yml): its compare step, read from the
committed workflow file and run as written, in a folder holding results/main.json and
results/new.json, on a real run (fixtures/same-build/h100/a.json.gz) as main's:

  - against itself: exit 0;
  - against a copy with every device-timed case 2x slower: exit 1, every such case slower;
  - against a copy of its host-timed cases slowed 140x on a busy machine: exit 0 with the recipe's
    --fail-on (slower, the default), exit 1 with --fail-on slower,unclear;
  - against a copy with every device-timed case 140x slower on a busy GPU: exit 1 (their bound holds).

And docs/reports.md quotes the workflow file whole, so the doc, the file and this test cannot drift.
With $LB_EXE (ctest sets it to the build's binary) the step's `build/layerbench` is that binary,
which hands over to the reports tool; without one, the reports tool itself (`python -m
layerbench.reports`)."""
from __future__ import annotations

import copy
import gzip
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, cli_env

WORKFLOW = REPO / "docs" / "ci" / "layerbench-gate.yml"
MAIN_RUN = FIXTURES / "same-build" / "h100" / "a.json.gz"
BUSY_GPU = "another process on the GPU (pid 4242)"
BUSY_CPUS = "other processes kept 3.1 of 16 CPUs busy"
TIMES = ("median_ms", "mean_ms", "min_ms", "max_ms", "real_time")


def compare_step() -> list[str]:
    """The workflow's compare command: its one `run: build/layerbench compare ...` line, as words."""
    found = re.findall(r"^\s*run:\s*(build/layerbench compare\b.*)$", WORKFLOW.read_text(), re.M)
    assert len(found) == 1, f"{WORKFLOW}: expected one `run: build/layerbench compare ...` step, found {found}"
    return shlex.split(found[0])


def with_fail_on(words: list[str], value: str | None) -> list[str]:
    """The command with its --fail-on set to `value` (None: left out, the default)."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word == "--fail-on":
            skip = True
            continue
        if word.startswith("--fail-on="):
            continue
        out.append(word)
    return out + (["--fail-on", value] if value else [])


def run_step(words: list[str], folder: Path) -> subprocess.CompletedProcess:
    """Runs the step's command in `folder` (which holds results/), `build/layerbench` being the
    build's binary ($LB_EXE) or the reports tool it hands over to."""
    assert words[:2] == ["build/layerbench", "compare"], words
    exe = os.environ.get("LB_EXE")
    env = {**cli_env(), "LAYERBENCH_PYTHON": sys.executable}
    program = [exe] if exe and Path(exe).is_file() else [sys.executable, "-m", "layerbench.reports"]
    return subprocess.run([*program, *words[1:]], cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def changed(data: dict, factor: float, *, device_only: bool, busy: bool) -> dict:
    """The run with its timed cases `factor` times slower (median, range, every kept sample; only
    the device-timed ones where `device_only`), and with `busy`, every case marked as run on a busy
    machine, as the harness marks it (`busy`, and the `machine_load` that made it so)."""
    data = copy.deepcopy(data)
    for e in data["benchmarks"]:
        device = e.get("timed_by") == "device"
        if device or not device_only:
            for name in TIMES:
                if isinstance(e.get(name), (int, float)):
                    e[name] *= factor
            if isinstance(e.get("samples_ms"), list):
                e["samples_ms"] = [v * factor for v in e["samples_ms"]]
        if busy:
            load = e.setdefault("machine_load", {})
            if device:
                e["busy"] = [BUSY_GPU]
                load["other_gpu_pids"] = [4242]
            else:
                e["busy"] = [BUSY_CPUS]
                load.update(other_cpus=3.1, cpus=16)
    return data


@pytest.fixture(scope="module")
def main_run() -> dict:
    return json.loads(gzip.decompress(MAIN_RUN.read_bytes()))


def folder_with(tmp_path: Path, main: dict, new: dict) -> Path:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "main.json").write_text(json.dumps(main))
    (tmp_path / "results" / "new.json").write_text(json.dumps(new))
    return tmp_path


def table(folder: Path) -> str:
    """The step's --out table (the recipe writes it to results/compare.md for the job's summary)."""
    words = compare_step()
    out = words[words.index("--out") + 1] if "--out" in words else None
    assert out, "the recipe's compare step writes its table with --out, for the job's summary"
    return (folder / out).read_text()


def test_the_recipe_gates_on_slower_and_is_quoted_whole_in_the_doc():
    words = compare_step()
    assert words[2:4] == ["results/main.json", "results/new.json"], words  # BASE is main's run
    assert with_fail_on(words, None) != words and "slower" == words[words.index("--fail-on") + 1]
    workflow = WORKFLOW.read_text()
    doc = (REPO / "docs" / "reports.md").read_text()
    assert f"```yaml\n{workflow}```" in doc, "docs/reports.md quotes docs/ci/layerbench-gate.yml whole, in a ```yaml block"
    assert "actions/cache/save@v4" in workflow and "actions/cache/restore@v4" in workflow


def test_main_against_itself_passes(tmp_path: Path, main_run: dict):
    folder = folder_with(tmp_path, main_run, main_run)
    result = run_step(compare_step(), folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 slower" in result.stdout and "0 unclear" in result.stdout
    assert "it passes: no case is slower." in table(folder)


def test_every_device_timed_case_twice_as_slow_fails(tmp_path: Path, main_run: dict):
    device = sum(1 for e in main_run["benchmarks"] if e.get("timed_by") == "device")
    folder = folder_with(tmp_path, main_run, changed(main_run, 2.0, device_only=True, busy=False))
    result = run_step(compare_step(), folder)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{device} case(s) slower beyond 5% with confidence" in result.stderr
    text = table(folder)
    assert f"it fails: {device} case(s) ({device} slower)." in text
    assert f"0 faster, {device} slower, {len(main_run['benchmarks']) - device} same, 0 unclear" in text


def host_timed(data: dict) -> dict:
    """The run's host-timed cases alone (a CPU layer's, a launch loop's: `timed_by` host)."""
    data = copy.deepcopy(data)
    data["benchmarks"] = [e for e in data["benchmarks"] if e.get("timed_by") != "device"]
    return data


def test_a_busy_run_140_times_slower_is_unclear_which_only_a_strict_gate_fails(tmp_path: Path, main_run: dict):
    """The issue's case: host-timed cases on a busy machine (nothing bounds what the other
    processes took from them) are unclear, however far they moved."""
    main = host_timed(main_run)
    cases = len(main["benchmarks"])
    folder = folder_with(tmp_path, main, changed(main, 140.0, device_only=False, busy=True))
    for words in (compare_step(), with_fail_on(compare_step(), None)):  # as written, and the default
        result = run_step(words, folder)
        assert result.returncode == 0, (words, result.stdout + result.stderr)
        assert f"{cases} case(s) ran on a busy machine: host-timed ones are unclear" in result.stderr
        assert f"0 slower, 0 same, {cases} unclear" in result.stdout
    strict = run_step(with_fail_on(compare_step(), "slower,unclear"), folder)
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert f"{cases} case(s) unclear, which --fail-on unclear fails" in strict.stderr
    text = table(folder)
    assert "Gate (`--fail-on slower,unclear`)" in text and f"it fails: {cases} case(s) ({cases} unclear)." in text
    assert BUSY_CPUS in text


def test_a_busy_gpu_still_shows_a_140x_slow_down(tmp_path: Path, main_run: dict):
    """Device-timed cases on a busy GPU are held to their measured bound (the busy run's median over
    its fastest sample, about 1-3% here), so a 140x slow-down is slower and the default gate fails."""
    device = sum(1 for e in main_run["benchmarks"] if e.get("timed_by") == "device")
    folder = folder_with(tmp_path, main_run, changed(main_run, 140.0, device_only=True, busy=True))
    result = run_step(compare_step(), folder)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{device} case(s) slower beyond 5% with confidence" in result.stderr
    assert BUSY_GPU in table(folder)
