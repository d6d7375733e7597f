"""`layerbench merge` (docs/fleet.md): the runs of several GPUs, hosts or tasks in one file, and
`report` and `compare` reading it. Inputs are fixtures copied with their context set in Python
(context.task, context.device.uuid), plus one test on the real binary's output."""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CPU_ONLY, H200_RUN1, REPO, case_entry, load_json, run_cli, write_json
from layerbench.reports import compare, fleet, merge, report, results

BINARY = REPO / "build" / "layerbench"


def task(array_task: int, job: int = 7, **more) -> dict:
    """context.task as the harness writes it for a task of a Slurm job array (values are strings,
    as the environment holds them)."""
    return {"slurm_job_id": str(job + array_task), "slurm_array_job_id": str(job),
            "slurm_array_task_id": str(array_task), "pid": 4000 + array_task, **more}


def cpu_run(path: Path, array_task: int | None, **context) -> Path:
    """The CPU fixture (two cases, three repetitions each, aggregates too) as one task's run."""
    data = load_json(CPU_ONLY)
    if array_task is not None:
        data["context"]["task"] = task(array_task)
    data["context"].update(context)
    return write_json(path, data)


def gpu_run(path: Path, uuid: str, job_task: dict | None, medians: dict[tuple[str, str], float],
            noise: float = 0.01) -> Path:
    """A constructed H200 run on the GPU `uuid`: one case per (workload, layer) with these medians."""
    data = {"context": copy.deepcopy(load_json(H200_RUN1)["context"])}
    data["context"]["device"]["uuid"] = uuid
    if job_task is not None:
        data["context"]["task"] = job_task
    data["benchmarks"] = [case_entry(w, layer, 1 << 20, ms, rel_stddev=noise, samples=200)
                          for (w, layer), ms in medians.items()]
    return write_json(path, data)


def merge_cli(out: Path, *inputs: Path) -> subprocess.CompletedProcess:
    return run_cli("merge", *inputs, "-o", out)


def assert_one_line_error(result: subprocess.CompletedProcess, *phrases: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("layerbench merge: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for phrase in phrases:
        assert phrase in lines[0], (phrase, lines[0])


# --- the run id -------------------------------------------------------------------------------

def test_run_id_rule():
    date = "2026-11-22T02:02:05+0000"
    gpu = {"name": "NVIDIA H200", "pci_bus_id": "0000:00:06.0"}
    assert merge.run_id({"host_name": "n1", "device": {**gpu, "uuid": "GPU-8b1c"}, "task": task(3)}) == "n1/GPU-8b1c/job7.3"
    assert merge.run_id({"host_name": "n1", "device": gpu, "date": date}) == f"n1/0000:00:06.0/{date}"
    assert merge.run_id({"host_name": "n1", "device": None, "date": date, "task": {"pid": 12}}) == f"n1/cpu/{date}"
    # a job that is not an array: the job id and the rank; integers read as the environment's strings
    assert merge.run_id({"host_name": "n2", "device": None,
                         "task": {"slurm_job_id": 99, "slurm_procid": 5, "pid": 1}}) == "n2/cpu/job99.5"
    assert merge.task_id({"task": {"slurm_job_id": "99"}}) == "job99"
    assert merge.task_id({"task": {"slurm_procid": "2"}}) == "task2"
    assert merge.task_id({}) == "undated"
    assert merge.machine_id({"host": {"hostname": "h"}, "device": {"uuid": "GPU-1"}}) == "h/GPU-1"
    # a file with a run_id (every run since the harness records it) is named by it, Slurm or not
    rid = "0123456789abcdef0123456789abcdef"
    assert merge.run_id({"host_name": "n1", "device": None, "date": date, "run_id": rid}) == f"n1/cpu/{rid}"
    assert merge.run_id({"host_name": "n1", "device": {"uuid": "GPU-8b1c"}, "task": task(3),
                         "run_id": rid}) == f"n1/GPU-8b1c/{rid}"


def test_two_cpu_runs_in_one_second_merge_and_a_copy_is_refused(tmp_path: Path):
    """The fault P18 found: two runs of one machine, no Slurm, started in the same second, were "in
    both". Their run ids tell them apart; a copy of one (the same run_id) is still refused."""
    date = "2026-11-26T16:43:21+0000"
    a = cpu_run(tmp_path / "a.json", None, date=date, run_id="a" * 32)
    b = cpu_run(tmp_path / "b.json", None, date=date, run_id="b" * 32)
    out = tmp_path / "all.json"
    assert merge_cli(out, a, b).returncode == 0
    assert [r["run"] for r in load_json(out)["context"]["merged"]["runs"]] == [f"vm/cpu/{'a' * 32}",
                                                                               f"vm/cpu/{'b' * 32}"]
    copied = write_json(tmp_path / "copy.json", load_json(a))
    assert_one_line_error(merge_cli(tmp_path / "again.json", a, copied), f"vm/cpu/{'a' * 32}", "the same run",
                          str(a), str(copied))
    # files from before the run id, of one machine and second, are still refused, saying why
    old = [cpu_run(tmp_path / f"old{i}.json", None, date=date) for i in range(2)]
    assert_one_line_error(merge_cli(tmp_path / "old.json", *old), f"vm/cpu/{date}", "before the harness recorded")


# --- merging ------------------------------------------------------------------------------------

def test_two_tasks_merge_into_two_runs_and_no_case_is_lost(tmp_path: Path):
    t0, t1 = cpu_run(tmp_path / "t0.json", 0), cpu_run(tmp_path / "t1.json", 1)
    out = tmp_path / "all.json"
    result = merge_cli(out, t0, t1)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"layerbench merge: 2 runs, 4 cases (28 entries) written to {out}"

    merged, inputs = load_json(out), [load_json(t0), load_json(t1)]
    runs = merged["context"]["merged"]["runs"]
    assert [r["run"] for r in runs] == ["vm/cpu/job7.0", "vm/cpu/job7.1"]  # one host, no GPU: told apart by task
    assert [r["file"] for r in runs] == [str(t0), str(t1)]
    assert [r["context"] for r in runs] == [i["context"] for i in inputs]
    # the first run's context, whole, at the top
    assert {k: v for k, v in merged["context"].items() if k != "merged"} == inputs[0]["context"]
    # every entry, unchanged, plus its run
    assert len(merged["benchmarks"]) == sum(len(i["benchmarks"]) for i in inputs) == 28
    expected = [{**e, "run": r["run"]} for i, r in zip(inputs, runs) for e in i["benchmarks"]]
    assert merged["benchmarks"] == expected

    loaded = results.load(out)
    assert len(loaded.cases) == 4 and len(loaded.runs) == 2
    assert sorted((c.run, c.layer, c.repetitions) for c in loaded.cases) == [
        ("vm/cpu/job7.0", "cpu", 3), ("vm/cpu/job7.0", "thrust-omp", 3),
        ("vm/cpu/job7.1", "cpu", 3), ("vm/cpu/job7.1", "thrust-omp", 3)]  # repetitions folded per run only
    one = loaded.for_run("vm/cpu/job7.1")
    assert one.context == inputs[1]["context"] and {c.run for c in one.cases} == {"vm/cpu/job7.1"}
    assert all(c.run == "" for c in results.load(t0).cases)  # a plain file's cases: no run


def test_runs_of_gpus_are_told_apart_by_device(tmp_path: Path):
    medians = {("vector_add", "runtime"): 1.0}
    a = gpu_run(tmp_path / "a.json", "GPU-aaaa", None, medians)
    b = gpu_run(tmp_path / "b.json", "GPU-bbbb", None, medians)  # same host, same date: another GPU
    out = tmp_path / "all.json"
    assert merge_cli(out, a, b).returncode == 0
    date = load_json(a)["context"]["date"]
    assert [r["run"] for r in load_json(out)["context"]["merged"]["runs"]] == [f"vm/GPU-aaaa/{date}", f"vm/GPU-bbbb/{date}"]


def test_the_same_file_twice_is_refused(tmp_path: Path):
    t0 = cpu_run(tmp_path / "t0.json", 0)
    out = tmp_path / "all.json"
    assert_one_line_error(merge_cli(out, t0, t0), str(t0), "given twice")
    alias = tmp_path / "sub" / ".." / "t0.json"
    (tmp_path / "sub").mkdir()
    assert_one_line_error(merge_cli(out, t0, alias), "given twice", f"also as {t0}")
    assert not out.exists()


def test_two_files_with_one_run_id_are_refused(tmp_path: Path):
    t0 = cpu_run(tmp_path / "t0.json", 0)
    copied = tmp_path / "copy.json"
    shutil.copy(t0, copied)  # another file, the same host, device and task
    result = merge_cli(tmp_path / "all.json", t0, copied)
    assert_one_line_error(result, "vm/cpu/job7.0", str(t0), str(copied))
    assert not (tmp_path / "all.json").exists()


def test_a_merged_file_as_input_is_flattened(tmp_path: Path):
    t0, t1, t2 = (cpu_run(tmp_path / f"t{i}.json", i) for i in range(3))
    first = tmp_path / "first.json"
    assert merge_cli(first, t0, t1).returncode == 0
    out = tmp_path / "all.json"
    result = merge_cli(out, first, t2)
    assert result.returncode == 0, result.stderr
    merged = load_json(out)
    runs = merged["context"]["merged"]["runs"]
    assert [r["run"] for r in runs] == ["vm/cpu/job7.0", "vm/cpu/job7.1", "vm/cpu/job7.2"]
    assert [r["file"] for r in runs] == [str(t0), str(t1), str(t2)]  # where each run came from
    assert all("merged" not in r["context"] for r in runs)
    assert "merged" not in merged["context"]["merged"]["runs"][0]["context"]
    assert len(merged["benchmarks"]) == 42
    assert merged["benchmarks"][:28] == load_json(first)["benchmarks"]  # its entries keep their run
    assert len(results.load(out).cases) == 6
    # a run the merged file already holds, given again
    assert_one_line_error(merge_cli(tmp_path / "again.json", first, t1), "vm/cpu/job7.1", str(first), str(t1))


def test_out_over_an_input_is_refused(tmp_path: Path):
    t0, t1 = cpu_run(tmp_path / "t0.json", 0), cpu_run(tmp_path / "t1.json", 1)
    before = t1.read_bytes()
    assert_one_line_error(merge_cli(t1, t0, t1), str(t1), "would destroy it")
    link = tmp_path / "link.json"
    link.symlink_to(t1)
    assert_one_line_error(merge_cli(link, t0, t1), "the same file as", "would destroy it")
    assert t1.read_bytes() == before and link.is_symlink()


def test_out_through_a_symlink_writes_its_target(tmp_path: Path):
    t0, t1 = cpu_run(tmp_path / "t0.json", 0), cpu_run(tmp_path / "t1.json", 1)
    target = tmp_path / "merged" / "all.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    assert merge_cli(link, t0, t1).returncode == 0
    assert link.is_symlink() and len(load_json(target)["context"]["merged"]["runs"]) == 2


def test_a_case_twice_in_one_run_is_refused_but_repetitions_are_not(tmp_path: Path):
    data = load_json(CPU_ONLY)
    data["context"]["task"] = task(0)
    first = next(e for e in data["benchmarks"] if e["run_type"] == "iteration")
    data["benchmarks"].append(copy.deepcopy(first))  # the same repetition again
    bad = write_json(tmp_path / "bad.json", data)
    assert_one_line_error(merge_cli(tmp_path / "all.json", bad), str(bad), "vector_add/cpu/65536/manual_time",
                          "appears twice")


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path):
    t0 = cpu_run(tmp_path / "t0.json", 0)
    bad = tmp_path / "notes.json"
    bad.write_text("workload  layer  median\nvector_add cpu 0.02\n")
    out = tmp_path / "all.json"
    assert_one_line_error(merge_cli(out, t0, bad), str(bad), "not valid JSON")
    assert_one_line_error(merge_cli(out, t0, tmp_path / "missing.json"), "no such file")
    assert not out.exists()
    result = run_cli("merge", t0)  # no --out
    assert result.returncode == 2 and "--out" in result.stderr and "Traceback" not in result.stderr


def test_a_broken_merged_file_is_bad_input(tmp_path: Path):
    t0, t1 = cpu_run(tmp_path / "t0.json", 0), cpu_run(tmp_path / "t1.json", 1)
    out = tmp_path / "all.json"
    assert merge_cli(out, t0, t1).returncode == 0
    data = load_json(out)
    data["benchmarks"][3]["run"] = "elsewhere/cpu/job1"
    broken = write_json(tmp_path / "broken.json", data)
    with pytest.raises(results.ResultsError, match="names run elsewhere/cpu/job1"):
        results.load(broken)
    data = load_json(out)
    data["context"]["merged"] = {"runs": []}
    with pytest.raises(results.ResultsError, match="no list of runs"):
        results.load(write_json(broken, data))


# --- compare and report of merged files -------------------------------------------------------

FOUR = {("vector_add", "runtime"): 1.0, ("vector_add", "cpu"): 8.0, ("saxpy", "runtime"): 2.0}


def test_compare_of_two_merged_files_matches_host_and_device(tmp_path: Path):
    base_a = gpu_run(tmp_path / "ba.json", "GPU-aaaa", task(0, job=100), FOUR)
    base_b = gpu_run(tmp_path / "bb.json", "GPU-bbbb", task(1, job=100), FOUR)
    slower_on_b = {**FOUR, ("saxpy", "runtime"): 3.0, ("reduce", "runtime"): 0.5}  # and a case only in NEW
    new_a = gpu_run(tmp_path / "na.json", "GPU-aaaa", task(1, job=200), FOUR)  # other tasks, GPUs swapped round
    new_b = gpu_run(tmp_path / "nb.json", "GPU-bbbb", task(0, job=200), slower_on_b)
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    assert merge_cli(base, base_a, base_b).returncode == 0
    assert merge_cli(new, new_b, new_a).returncode == 0

    c = compare.compare(results.load(base), results.load(new))
    assert len(c.rows) == 6  # 3 cases on each of 2 GPUs, each matched with the same GPU's
    assert all(merge.machine_id(results.load(base).for_run(r.base.run).context) ==
               merge.machine_id(results.load(new).for_run(r.new.run).context) for r in c.rows)
    slower = [r for r in c.rows if r.verdict == "slower"]
    assert [(r.base.run, r.new.run, r.base.name) for r in slower] == [
        ("vm/GPU-bbbb/job100.1", "vm/GPU-bbbb/job200.0", "saxpy/runtime/1048576")]
    assert c.count("same") == 5 and not c.only_base
    assert [(x.run, x.name) for x in c.only_new] == [("vm/GPU-bbbb/job200.0", "reduce/runtime/1048576")]

    result = run_cli("compare", base, new)
    assert result.returncode == 1, result.stderr
    assert "| `saxpy/runtime/1048576` on `vm/GPU-bbbb` |" in result.stdout
    assert "**slower**" in result.stdout and "## Only in NEW" in result.stdout
    assert "2 runs: NVIDIA H200 ×2" in result.stdout


def test_compare_of_a_plain_file_with_a_merged_one_matches_by_name(tmp_path: Path):
    a = gpu_run(tmp_path / "a.json", "GPU-aaaa", task(0), FOUR)
    b = gpu_run(tmp_path / "b.json", "GPU-bbbb", task(1), FOUR)
    merged = tmp_path / "all.json"
    assert merge_cli(merged, a, b).returncode == 0
    c = compare.compare(results.load(a), results.load(merged))
    assert len(c.rows) == 6 and c.count("same") == 6  # each case against that case in each run
    assert not c.only_base and not c.only_new


def test_merge_side_by_side_prints_the_runs_table_with_the_outlier(tmp_path: Path):
    """`merge --side-by-side` (what `run --devices` asks for): the report's table on stdout."""
    files = []
    for i in range(3):
        medians = dict(FOUR)
        if i == 1:
            medians[("saxpy", "runtime")] = 2.2  # 10% slower than its siblings, noise 1%
        files.append(gpu_run(tmp_path / f"g{i}.json", f"GPU-{i:04d}", task(i), medians))
    done = run_cli("merge", *files, "-o", tmp_path / "all.json", "--side-by-side")
    assert done.returncode == 0, done.stderr
    assert "## Runs side by side" in done.stdout and "| case | run 1 | run 2 | run 3 | spread |" in done.stdout
    assert "| `saxpy/runtime/1048576` | 2.00 | **2.20** ⚑ +10.0% | 2.00 | 10.0% |" in done.stdout
    assert "the sections after it" not in done.stdout  # that is the report's, not the console's


def test_report_of_a_merged_file_has_the_runs_side_by_side_and_flags_an_outlier(tmp_path: Path):
    files = []
    for i in range(4):
        medians = dict(FOUR)
        if i == 2:
            medians[("saxpy", "runtime")] = 2.2  # 10% slower than its siblings on one GPU, noise 1%
        files.append(gpu_run(tmp_path / f"g{i}.json", f"GPU-{i:04d}", task(i), medians))
    merged = tmp_path / "all.json"
    assert merge_cli(merged, *files).returncode == 0
    out = tmp_path / "report"
    result = run_cli("report", merged, "--out", out)
    assert result.returncode == 0, result.stderr
    md = (out / "report.md").read_text()
    assert "## Runs side by side" in md and "4 runs: NVIDIA H200 ×4" in md
    for i in range(4):
        assert f"| run {i + 1} | GPU 0 · {i:04d} | `vm/GPU-{i:04d}/job7.{i}` | NVIDIA H200 |" in md
    assert "| case | run 1 | run 2 | run 3 | run 4 | spread |" in md
    rows = [line for line in md.splitlines() if line.startswith("| `saxpy/runtime/1048576` |")]
    assert rows[0] == "| `saxpy/runtime/1048576` | 2.00 | 2.00 | **2.20** ⚑ +10.0% | 2.00 | 10.0% |"
    assert len(rows) == 2  # the side-by-side row, then the first run's row in "All cases"
    assert sum(fleet.FLAG in line for line in md.splitlines() if line.startswith("| `")) == 1
    assert "1 median flagged." in md and "How flags are decided: " + fleet.flag_rule(4) in md
    # the section opens with the picture of the fleet, before any table
    section = md[md.index("## Runs side by side"):]
    assert section.index("fleet.png") < section.index("| run |")
    html = (out / "report.html").read_text()
    assert "Runs side by side" in html and "+10.0%" in html


def test_fleet_flags_need_the_spread_and_the_noise():
    def case(ms: float, noise: float = 0.01) -> results.Case:
        return results.Case("vector_add", "runtime", (1,), {"median_ms": ms, "rel_stddev": noise, "samples": 100,
                                                             "status": "ok"}, 0)
    assert fleet.fleet_flags([case(1.0), case(1.0), case(1.1)]) == [None, None, pytest.approx(0.1)]
    assert fleet.fleet_flags([case(1.0), case(1.0), case(1.04)]) == [None, None, None]  # within 5%
    assert fleet.fleet_flags([case(1.0), case(1.0), case(1.1, noise=0.2)]) == [None, None, None]  # within its noise
    assert fleet.fleet_flags([case(1.0), None]) == [None, None]  # no sibling to compare with
    # two runs: no median of the others, no flag on either, however far apart
    assert fleet.fleet_flags([case(1.0), case(1.5)]) == [None, None]
    assert fleet.fleet_flags([case(1.0), case(1.5), None]) == [None, None, None]
    assert fleet.two_differ([case(1.0), case(1.1)]) == pytest.approx(0.1)
    assert fleet.two_differ([case(1.0), case(1.04)]) is None  # within 5%
    assert fleet.two_differ([case(1.0), case(1.1, noise=0.04)]) is None  # within 3 × √(0.01² + 0.04²)
    # a case that varies from GPU to GPU (launch overhead) flags only what lies beyond that spread
    varied = [1.0, 1.08, 0.93, 1.1, 0.95, 1.02, 0.9, 1.05]
    assert fleet.fleet_flags([case(ms) for ms in varied]) == [None] * 8
    assert fleet.fleet_flags([case(ms) for ms in varied[:-1] + [1.6]]) == [None] * 7 + [pytest.approx(0.6)]


def test_two_runs_side_by_side_flag_nothing_and_say_how(tmp_path: Path):
    """Two GPUs (the fault P18 found: both runs of a case flagged, in opposite directions): no ⚑; a
    difference beyond both runs' noise is marked on the case, and the output says how."""
    medians = dict(FOUR)
    slow = {**medians, ("saxpy", "runtime"): 2.2}
    files = [gpu_run(tmp_path / "g0.json", "GPU-0000", task(0), medians),
             gpu_run(tmp_path / "g1.json", "GPU-0001", task(1), slow)]
    done = run_cli("merge", *files, "-o", tmp_path / "all.json", "--side-by-side")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| `")]
    assert not any(fleet.FLAG in line for line in rows)
    assert "| `saxpy/runtime/1048576` | 2.00 | 2.20 | **10.0%** ≠ |" in rows
    assert "How flags are decided: " + fleet.flag_rule(2) in done.stdout and "1 case marked ≠." in done.stdout


# --- the real binary ----------------------------------------------------------------------------

@pytest.mark.skipif(not os.access(BINARY, os.X_OK), reason=f"{BINARY} is not built (cmake --build build)")
def test_merge_two_runs_of_the_binary(tmp_path: Path):
    made = []
    for index in (0, 1):
        path = tmp_path / f"task{index}.json"
        env = {**os.environ, "SLURM_JOB_ID": "7", "SLURM_ARRAY_JOB_ID": "7", "SLURM_ARRAY_TASK_ID": str(index)}
        run = subprocess.run([str(BINARY), "run", "-l", "cpu", "-w", "vector_add", "-s", "1000", "-o", str(path)],
                             env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        made.append(path)
    if not isinstance(load_json(made[0])["context"].get("task"), dict):
        pytest.skip(f"{BINARY} does not write context.task yet (built before it did): rebuild it")
    out = tmp_path / "all.json"
    result = merge_cli(out, *made)
    assert result.returncode == 0, result.stderr
    runs = [r["run"] for r in load_json(out)["context"]["merged"]["runs"]]
    ids = [load_json(path)["context"].get("run_id") for path in made]
    if ids[0] is None:
        pytest.skip(f"{BINARY} does not write context.run_id yet (built before it did): rebuild it")
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids) and ids[0] != ids[1]
    assert [r.rsplit("/", 1)[1] for r in runs] == ids  # the run id, not the task, names the run
    loaded = results.load(out)
    assert len(loaded.cases) == 2 and {c.run for c in loaded.cases} == set(runs)


def test_the_fleet_picture_marks_the_slow_gpu_only(tmp_path: Path):
    """8 GPUs made from one real run (conftest.fleet_of), GPU 3 a fifth slower on reduce: the
    picture's rows are named by index and short UUID, and only GPU 3's reduce cell is flagged."""
    from conftest import fleet_of
    from layerbench.reports import fleetmap

    merged = tmp_path / "fleet.json"
    assert merge_cli(merged, *fleet_of(tmp_path, 8, slow=(3, "reduce", 1.2))).returncode == 0
    labels, workloads, cells = fleetmap.grid(results.load(merged))
    assert [label.split(" · ")[0] for label in labels] == [f"GPU {k}" for k in range(8)]
    assert all(len(label.split(" · ")[1]) == 8 for label in labels)
    assert "reduce" in workloads and "matmul" in workloads
    flagged = {key for key, (_ratio, _n, flags) in cells.items() if flags}
    assert flagged == {(3, "reduce")}
    assert cells[(3, "reduce")][0] == pytest.approx(1 / 1.2, rel=0.02)
    assert all(abs(ratio - 1) < 0.02 for key, (ratio, _n, _f) in cells.items() if key != (3, "reduce"))


def test_runs_of_one_host_without_a_gpu_are_named_apart():
    r = results.Results(path="x", context={"merged": {"runs": []}}, cases=[])
    r.context["merged"]["runs"] = [{"run": f"vm/cpu/{c * 32}", "context": {"host_name": "vm", "device": None}}
                                   for c in "ab"] + [{"run": "n1/GPU-8b1c0c1e-aaaa/x", "context": {
                                       "host_name": "n1", "device": {"index": 2, "uuid": "GPU-8b1c0c1e-aaaa"}}}]
    assert fleet.run_labels(r) == ["cpu · vm · aaaaaa", "cpu · vm · bbbbbb", "GPU 2 · 8b1c0c1e"]
