"""`layerbench compare` on constructed inputs (clearly faster, clearly slower, within noise,
missing cases) and on two real runs of the same build (fixtures/README.md)."""
from __future__ import annotations

import math
import random
import statistics
from pathlib import Path

import pytest

from conftest import H200_RUN1, H200_RUN2, case_entry, results_file, run_cli
from layerbench.reports import compare, results

# case: (BASE median, BASE noise, NEW median, NEW noise, samples) -> expected verdict. The samples
# are drawn around the median with that relative spread, each side with a few outliers (samples()).
CASES = {
    ("vector_add", "runtime"): (1.00, 0.01, 0.50, 0.01, 200, "faster"),     # clearly faster
    ("vector_add", "driver"): (1.00, 0.01, 2.00, 0.01, 200, "slower"),      # clearly slower
    ("saxpy", "runtime"): (1.00, 0.01, 1.02, 0.01, 200, "same"),            # below the threshold
    ("saxpy", "driver"): (1.00, 0.30, 1.10, 0.30, 20, "unclear"),           # beyond both, within the medians' uncertainty
    ("reduce", "runtime"): (1.00, 0.01, 1.07, 0.01, 200, "slower"),         # small but beyond both
    ("reduce", "driver"): (1.00, 0.0, 1.50, 0.0, 1, "unclear"),             # one sample: no rank test
}


def samples(median: float, spread: float, count: int, seed: int) -> list[float]:
    """`count` samples whose median is `median` and whose robust spread is about `spread`, every
    twentieth an outlier 3 to 10 times the median (what a preempted sample looks like)."""
    rng = random.Random(seed)
    out = [median * math.exp(rng.gauss(0.0, spread)) for _ in range(count)]
    for i in range(0, count, 20):
        out[i] = median * rng.uniform(3, 10) if count > 1 else median
    shift = median / statistics.median(out)
    return [v * shift for v in out]


def timed_entry(workload: str, layer: str, median: float, spread: float, count: int, seed: int, **extra) -> dict:
    values = samples(median, spread, count, seed)
    return case_entry(workload, layer, 1 << 20, median, rel_stddev=spread, samples=count, samples_ms=values,
                      min_ms=min(values), max_ms=max(values), **extra)


def build(tmp_path: Path) -> tuple[Path, Path]:
    base, new = [], []
    for seed, ((workload, layer), (b, bn, n, nn, count, _verdict)) in enumerate(CASES.items()):
        base.append(timed_entry(workload, layer, b, bn, count, 2 * seed))
        new.append(timed_entry(workload, layer, n, nn, count, 2 * seed + 1))
    base.append(case_entry("matmul", "thrust", 512, 3.0))        # only in BASE
    new.append(case_entry("matmul", "runtime", 2048, 1.0))       # only in NEW
    base.append(case_entry("matmul", "cpu", 512, 5.0))
    new.append(case_entry("matmul", "cpu", 512, 5.0, status="failed", message="result differs"))
    return results_file(tmp_path / "base.json", base), results_file(tmp_path / "new.json", new)


def test_verdicts_on_constructed_inputs(tmp_path: Path):
    base, new = build(tmp_path)
    c = compare.compare(results.load(base), results.load(new))
    got = {(r.base.workload, r.base.layer): r.verdict for r in c.rows}
    assert got == {key: value[-1] for key, value in CASES.items()}
    assert [x.name for x in c.only_base] == ["matmul/thrust/512x512x512"]
    assert [x.name for x in c.only_new] == ["matmul/runtime/2048x2048x2048"]
    assert [b.name for b, _n, _why in c.not_compared] == ["matmul/cpu/512x512x512"]


def test_cli_table_and_exit_code_1_when_slower(tmp_path: Path):
    base, new = build(tmp_path)
    result = run_cli("compare", base, new)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "| case | size | timed by | BASE median ms |" in out
    assert "`vector_add/driver/1048576`" in out and "**slower**" in out and "**faster**" in out
    assert "2.000 | +100.0%" in out
    assert "## Only in BASE" in out and "matmul/thrust/512x512x512" in out
    assert "## Only in NEW" in out and "matmul/runtime/2048x2048x2048" in out
    assert "failed (result differs)" in out
    assert "slower beyond 5%" in result.stderr


def test_threshold_is_settable(tmp_path: Path):
    base, new = build(tmp_path)
    # 10%: the 7% slow-down no longer counts; the 100% one still does
    c = compare.compare(results.load(base), results.load(new), threshold=0.10)
    assert {(r.base.workload, r.base.layer): r.verdict for r in c.rows}[("reduce", "runtime")] == "same"
    # 150%: nothing is slower beyond it, so the exit status is 0
    result = run_cli("compare", base, new, "--threshold", "150")
    assert result.returncode == 0, result.stdout + result.stderr


def test_swapping_the_files_swaps_faster_and_slower(tmp_path: Path):
    base, new = build(tmp_path)
    forward = compare.compare(results.load(base), results.load(new))
    backward = compare.compare(results.load(new), results.load(base))
    assert forward.count("faster") == backward.count("slower")
    assert forward.count("slower") == backward.count("faster")


def test_out_file(tmp_path: Path):
    base, new = build(tmp_path)
    out = tmp_path / "cmp" / "compare.md"
    result = run_cli("compare", base, new, "--out", out)
    assert result.returncode == 1
    assert out.read_text().startswith("# layerbench compare")
    assert "1 faster, 2 slower, 1 same, 2 unclear" in result.stdout and "| case |" not in result.stdout


def test_identical_files_are_all_same():
    result = run_cli("compare", H200_RUN1, H200_RUN1)
    assert result.returncode == 0
    assert "48 same, 0 unclear" in result.stdout


def test_two_runs_of_the_same_build_raise_no_alarm():
    """Two back-to-back default-suite runs of one build on the H200: several medians moved by more
    than 5% (small CPU cases most), but none beyond its noise in the slower direction, so compare
    exits 0. This is the run-to-run variation the noise rule has to absorb."""
    result = run_cli("compare", H200_RUN1, H200_RUN2)
    assert result.returncode == 0, result.stdout
    c = compare.compare(results.load(H200_RUN1), results.load(H200_RUN2))
    assert c.count("slower") == 0
    assert c.count("unclear") > 0  # the noisy small cases are called unclear, not same


def test_a_busy_machine_makes_a_host_timed_verdict_unclear_and_says_why(tmp_path: Path):
    """Even a 2x slow-down of a CPU case: the other process may be the cause (docs/reports.md). A
    device-timed case on a busy GPU is held to a spread widened by its measured bound instead."""
    why_cpu, why_gpu = "other processes kept 3.1 of 16 CPUs busy", "another process on the GPU (pid 4242)"
    base = results_file(tmp_path / "b.json", [timed_entry("vector_add", "cpu", 1.0, 0.01, 200, 1),
                                              timed_entry("vector_add", "runtime", 1.0, 0.01, 200, 3)])
    new = results_file(tmp_path / "n.json", [timed_entry("vector_add", "cpu", 2.0, 0.01, 200, 2, busy=[why_cpu]),
                                             timed_entry("vector_add", "runtime", 2.0, 0.01, 200, 4, busy=[why_gpu])])
    c = compare.compare(results.load(base), results.load(new))
    assert [(r.base.layer, r.verdict, r.busy) for r in c.rows] == [
        ("cpu", "unclear", [f"NEW: {why_cpu}"]), ("runtime", "slower", [f"NEW: {why_gpu}"])]
    assert why_cpu in c.rows[0].why and "median over its fastest sample" not in c.rows[0].why
    assert why_gpu in c.rows[1].why
    result = run_cli("compare", base, new)
    assert result.returncode == 1, result.stdout
    assert "**2 case(s) ran on a busy machine**" in result.stdout and why_cpu in result.stdout
    assert "2 case(s) ran on a busy machine: host-timed ones are unclear" in result.stderr


# --- the gate: --fail-on --------------------------------------------------------------------------

def undecided(tmp_path: Path) -> tuple[Path, Path]:
    """A pair with one case the same and one unclear (beyond the threshold, within the noise): no
    case slower, so the default gate passes and `--fail-on slower,unclear` fails."""
    base, new = [], []
    for seed, key in enumerate((("saxpy", "runtime"), ("saxpy", "driver"))):
        b, bn, n, nn, count, _verdict = CASES[key]
        base.append(timed_entry(*key, b, bn, count, 2 * seed))
        new.append(timed_entry(*key, n, nn, count, 2 * seed + 1))
    return results_file(tmp_path / "base.json", base), results_file(tmp_path / "new.json", new)


def test_fail_on_unclear_fails_what_the_default_gate_passes(tmp_path: Path):
    base, new = undecided(tmp_path)
    c = compare.compare(results.load(base), results.load(new))
    assert sorted(r.verdict for r in c.rows) == ["same", "unclear"] and c.fail_on == ("slower",)
    assert not c.fails() and c.fails(on="slower,unclear") and c.fails(on=["unclear"]) and not c.fails(on="faster")
    passed = run_cli("compare", base, new)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Gate (`--fail-on slower`): a case whose verdict is `slower` fails it" in passed.stdout
    assert "it passes: no case is slower." in passed.stdout
    for given in ("slower,unclear", "unclear,slower", " Unclear , slower,unclear"):
        failed = run_cli("compare", base, new, "--fail-on", given)
        assert failed.returncode == 1, (given, failed.stdout + failed.stderr)
        assert "Gate (`--fail-on slower,unclear`): a case whose verdict is `slower` or `unclear` fails it" in failed.stdout
        assert "it fails: 1 case(s) (1 unclear)." in failed.stdout
        assert "layerbench compare: 1 case(s) unclear, which --fail-on unclear fails" in failed.stderr


def test_fail_on_faster_and_the_default_on_constructed_inputs(tmp_path: Path):
    base, new = build(tmp_path)  # 1 faster, 2 slower, 1 same, 2 unclear
    c = compare.compare(results.load(base), results.load(new), fail_on="faster")
    assert c.fail_on == ("faster",) and [r.base.layer for r in c.failing()] == ["runtime"]
    assert len(c.failing("slower,unclear,faster")) == 5
    faster = run_cli("compare", base, new, "--fail-on", "faster")
    assert faster.returncode == 1 and "1 case(s) faster beyond 5% with confidence" in faster.stderr
    assert "slower beyond" not in faster.stderr  # slower cases do not fail a gate that does not name slower
    swapped = run_cli("compare", new, base, "--fail-on", "unclear")  # 2 unclear either way
    assert swapped.returncode == 1 and "2 case(s) unclear" in swapped.stderr


@pytest.mark.parametrize("given, named", [("same", "'same' fails no gate"), ("slower,bogus", "'bogus' is not a verdict"),
                                          ("slower,", "'' is not a verdict"), ("", "'' is not a verdict")])
def test_a_bad_fail_on_is_one_line_naming_it(tmp_path: Path, given: str, named: str):
    base, new = undecided(tmp_path)
    result = run_cli("compare", base, new, "--fail-on", given)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("layerbench compare: error: argument --fail-on: ")
    assert named in lines[0] and "slower, unclear, faster" in lines[0]
    with pytest.raises(ValueError, match=named.split(" ", 1)[0]):
        compare.compare(results.load(base), results.load(new), fail_on=given)


def test_a_threshold_under_one_percent_warns_in_one_line_and_goes_on():
    result = run_cli("compare", H200_RUN1, H200_RUN1, "--threshold", "0.05")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["layerbench compare: warning: --threshold 0.05 is 0.05%; for 5% give 5"]
    assert "48 same, 0 unclear" in result.stdout
    for quiet in ("0.05%", "5", "0", "1"):  # a % sign says percent was meant; 0 and 1 up are not fractions
        result = run_cli("compare", H200_RUN1, H200_RUN1, "--threshold", quiet)
        assert result.returncode == 0 and "warning" not in result.stderr, (quiet, result.stderr)
