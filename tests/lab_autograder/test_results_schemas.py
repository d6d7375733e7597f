"""`layerbench lab grade --format`: each grading system's file, as the real binary writes it, held to
that system's published format (lab/grading/schemas/*.schema.json, transcribed from its docs or source, each
citing it) and to what the schemas cannot say (scores within their maximum, adding up to the total).

Without a GPU the binary grades through a stand-in child (LAYERBENCH_LAB_RUNNER: a shell script that
answers as `lab run-child` does) for each outcome: graded, refused, check failed, did not compile.
With one, lab 1's reference solution is graded for real (skipped, saying why, without one).
ctest runs this as lab_autograder.pytest, LB_EXE naming the binary.
"""
from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

jsonschema = pytest.importorskip(
    "jsonschema", reason="jsonschema is not installed (scripts/install-report-deps.sh installs it)")

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "lab" / "grading" / "schemas"
EXE = Path(os.environ.get("LB_EXE") or ROOT / "build" / "layerbench")
LAB = ROOT / "labs" / "01-vector-add"
SOLUTION = ROOT / "labs" / "01-vector-add" / "solution" / "vector_add.cu"
SCHEMA_OF = {
    "gradescope": "gradescope-results.schema.json",
    "prairielearn": "prairielearn-results.schema.json",
    "github-classroom": "github-classroom-result.schema.json",
}
BROKEN = ('extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {\n'
          "  c[0] = a[0] +;\n}\n")

if not EXE.is_file():
    pytest.skip(f"no layerbench binary at {EXE} (build it, or set LB_EXE)", allow_module_level=True)

SPEC = json.loads((LAB / "lab.json").read_text())
MAX_POINTS = SPEC["points"]["check"] + SPEC["points"]["performance"]


def validator(fmt: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / SCHEMA_OF[fmt]).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(fmt: str, doc: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(fmt).iter_errors(doc)]


def scores(fmt: str, doc: dict) -> tuple[list[float], list[float], float]:
    """Each test's score and maximum, and the file's total, in points."""
    tests = doc["tests"]
    if fmt == "gradescope":
        return [t["score"] for t in tests], [t["max_score"] for t in tests], doc["score"]
    if fmt == "prairielearn":
        return [t["points"] for t in tests], [t["max_points"] for t in tests], doc["score"] * MAX_POINTS
    return [t["score"] for t in tests], [], sum(t["score"] for t in tests)


def consistency_errors(fmt: str, doc: dict) -> list[str]:
    """What JSON Schema cannot express: every score within its test's maximum, the maxima adding up to
    the lab's points, the scores to the file's total."""
    got, maxima, total = scores(fmt, doc)
    errors = [f"test {i}: score {s} outside [0, {m}]" for i, (s, m) in enumerate(zip(got, maxima)) if not 0 <= s <= m]
    if maxima and abs(sum(maxima) - MAX_POINTS) > 1e-6:
        errors.append(f"the maxima add up to {sum(maxima)}, not {MAX_POINTS}")
    if fmt == "github-classroom" and doc["max_score"] != MAX_POINTS:
        errors.append(f"max_score {doc['max_score']}, not {MAX_POINTS}")
    if fmt == "github-classroom" and sum(got) > doc["max_score"] + 1e-6:
        errors.append(f"the scores add up to {sum(got)}, over max_score {doc['max_score']}")
    if fmt == "github-classroom" and sum(got) != round(sum(got), 2):  # the reporter's "Points X/Y", in doubles
        errors.append(f"the reporter would post Points {sum(got)}/{doc['max_score']}")
    if abs(sum(got) - total) > 1e-6:
        errors.append(f"the scores add up to {sum(got)}, not the total {total}")
    if len(json.dumps(doc).encode()) > 1 << 20:
        errors.append("over 1 MB (PrairieLearn's limit; GitHub's step outputs have one too)")
    return errors


def child_script(tmp: Path, failing: dict[str, str] | None = None, peaks: dict | None = None) -> Path:
    """A stand-in for `lab run-child`: every check size (those in `failing` fail with their feedback),
    the environment (with `peaks`: the GPU's theoretical peaks, cold L2) and one timed size."""
    checked = []
    for size in SPEC["check_sizes"]:
        event = {"size": size, "passed": size not in (failing or {})}
        if not event["passed"]:
            event["feedback"] = failing[size]
        checked.append(event)
    # The GPU's peaks (the H100's DRAM peak and L2 unless `peaks` says otherwise): the grade needs them.
    environment = {"event": "environment", "gpu": "Test GPU", "ceilings": {"copy_gbps": 3000.0},
                   "peaks": peaks or {"dram_gbps": 3352.32, "l2_bytes": 52428800}, "cache_mode": "cold"}
    timed = [{"benchmark": "67108864", "student": {"median_ms": 0.3, "gbps": 2684.4, "samples": 40},
              "runtime": {"median_ms": 0.27, "gbps": 2982.6, "samples": 40}, "samples_verified": 4,
              "input_reset_ms": 0.11}]

    def echo(lines: list[dict]) -> str:
        return "".join(f"echo {shlex.quote(json.dumps(line))}\n" for line in lines)

    # Its lines on its events channel (fd 3), as many as its mode (--mode environment, time or check) writes.
    script = tmp / "child.sh"
    script.write_text("#!/bin/sh\nexec 1>&3\ncase \"$*\" in\n*'--mode environment'*)\n" + echo([environment]) +
                      ";;\n*'--mode time'*)\n" + echo(timed) + ";;\n*)\n" + echo(checked) + ";;\nesac\n")
    script.chmod(0o755)
    return script


def grade(tmp: Path, fmt: str, submission: Path, child: Path | None, *extra: str) -> tuple[int, dict, str]:
    env = dict(os.environ)
    if child:
        env["LAYERBENCH_LAB_RUNNER"] = str(child)
    out = tmp / f"{fmt}.json"
    run = subprocess.run([str(EXE), "lab", "grade", "1", str(submission), "--format", fmt, "--results", str(out),
                          *extra], cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    doc = json.loads(out.read_text()) if out.exists() else {}
    return run.returncode, doc, run.stdout + run.stderr


# Each outcome a stand-in child can give: (the child's failing sizes, its peaks, the submission,
# the exit status, what the performance test's text starts with).
OUTCOMES = {
    "graded": (None, None, SOLUTION, 0, "your kernel runs at 0.90 of the speed of ours"),
    # A DRAM peak of 1000 GB/s: the student's 2684 GB/s is more than a correct kernel can move.
    "refused": (None, {"dram_gbps": 1000.0, "l2_bytes": 52428800}, SOLUTION, 0,
                "refused: faster than the hardware allows"),
    "check failed": ({"257": "element 256 is NaN (never written?)"}, None, SOLUTION, 1, "not timed: 1 of 7"),
    "did not compile": (None, None, "broken.cu", 1, "not timed: the file did not compile"),
}


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("fmt", SCHEMA_OF)
def test_every_outcome_in_every_format_meets_the_published_format(tmp_path, fmt, outcome):
    failing, peaks, submission, status, performance_text = OUTCOMES[outcome]
    if submission == "broken.cu":
        submission = tmp_path / "broken.cu"
        submission.write_text(BROKEN)
    code, doc, output = grade(tmp_path, fmt, submission, child_script(tmp_path, failing, peaks))
    assert code == status, output
    assert doc, f"no results file\n{output}"
    assert schema_errors(fmt, doc) == []
    assert consistency_errors(fmt, doc) == []
    tests = doc["tests"]
    assert len(tests) == len(SPEC["check_sizes"]) + 1
    assert tests[-1]["name"].startswith("performance")
    text = tests[-1]["output"] if fmt != "github-classroom" else tests[-1]["message"]
    assert text.startswith(performance_text), text
    passed = {"gradescope": "passed", "prairielearn": None, "github-classroom": "pass"}[fmt]
    if passed:
        statuses = [t["status"] == passed for t in tests[:-1]]
        assert statuses == [outcome in ("graded", "refused") or (outcome == "check failed" and t["name"] != "check: n = 257")
                            for t in tests[:-1]]
    if outcome == "did not compile":
        assert all("error: expected an expression" in (t.get("output") or t.get("message")) for t in tests)
    if fmt == "gradescope":
        board = {entry["name"]: entry["value"] for entry in doc.get("leaderboard", [])}
        assert board == ({"speed vs ours": 0.9, "% of the GPU's copy bandwidth": 89.5} if outcome == "graded" else {})


@pytest.mark.parametrize("fmt", ["gradescope", "prairielearn"])
def test_each_tests_maximum_is_the_same_in_every_outcome(tmp_path, fmt):
    """A grading system reads a test's maximum as its weight (PrairieLearn paints a test red when
    its points differ from max_points): n = 257's is 8.57 whether it passes or fails, n = 1's 8.58."""
    maxima = {}
    for outcome, (failing, peaks, submission, _status, _text) in OUTCOMES.items():
        if submission == "broken.cu":
            submission = tmp_path / "broken.cu"
            submission.write_text(BROKEN)
        folder = tmp_path / outcome.replace(" ", "-")
        folder.mkdir()
        _code, doc, output = grade(folder, fmt, submission, child_script(folder, failing, peaks))
        assert doc, output
        got, most, _total = scores(fmt, doc)
        maxima[outcome] = most
        if fmt == "prairielearn":  # a passed size is green: its points are its max_points
            for t in doc["tests"][:-1]:
                assert (t["points"] == t["max_points"]) == (outcome in ("graded", "refused") or (
                    outcome == "check failed" and t["name"] != "check: n = 257")), (outcome, t)
    assert all(m == maxima["graded"] for m in maxima.values()), maxima
    assert maxima["graded"][:7] == [8.58] + [8.57] * 6 and maxima["graded"][7] == 40


def test_visibility_per_test_in_gradescope(tmp_path):
    code, doc, output = grade(tmp_path, "gradescope", SOLUTION, child_script(tmp_path), "--visibility", "after_due_date",
                              "--visibility-of", "2^24=hidden", "--visibility-of", "performance=visible")
    assert code == 0, output
    assert schema_errors("gradescope", doc) == []
    assert [t["visibility"] for t in doc["tests"]] == ["after_due_date"] * 6 + ["hidden", "visible"]


# --- the checks can fail: each schema and the consistency check refuse a broken file -------------

def good(tmp_path: Path, fmt: str) -> dict:
    code, doc, output = grade(tmp_path, fmt, SOLUTION, child_script(tmp_path))
    assert code == 0 and doc, output
    return doc


@pytest.mark.parametrize("fmt, break_it", [
    ("gradescope", lambda d: [d.pop("score")] + [t.pop("score") for t in d["tests"]]),  # no score anywhere
    ("gradescope", lambda d: d["tests"][0].update(visibility="sometimes")),
    ("gradescope", lambda d: d["tests"][0].update(max_points=8.58)),                      # PrairieLearn's key
    ("gradescope", lambda d: d["leaderboard"][0].pop("value")),
    ("prairielearn", lambda d: d.update(score=1.5)),                                     # score is in [0, 1]
    ("prairielearn", lambda d: d.pop("score")),                                          # gradable needs a score
    ("github-classroom", lambda d: d.pop("tests")),
    ("github-classroom", lambda d: d["tests"][0].pop("line_no")),
    ("github-classroom", lambda d: d.update(status="passed")),                           # Gradescope's word
])
def test_each_schema_refuses_a_broken_file(tmp_path, fmt, break_it):
    doc = good(tmp_path, fmt)
    assert schema_errors(fmt, doc) == []
    broken = copy.deepcopy(doc)
    break_it(broken)
    assert schema_errors(fmt, broken), json.dumps(broken, indent=1)[:2000]


@pytest.mark.parametrize("fmt", SCHEMA_OF)
def test_a_score_above_its_maximum_is_refused(tmp_path, fmt):
    doc = good(tmp_path, fmt)
    key = {"gradescope": "score", "prairielearn": "points", "github-classroom": "score"}[fmt]
    doc["tests"][0][key] += 100
    if fmt == "github-classroom":  # no per-test maximum there: the total goes over max_score
        assert consistency_errors(fmt, doc)
    else:
        assert any("outside" in e for e in consistency_errors(fmt, doc))


# --- on a GPU: lab 1's solution, graded for real ------------------------------------------------

@pytest.mark.parametrize("fmt", SCHEMA_OF)
def test_the_reference_solution_graded_on_the_gpu(tmp_path, fmt):
    code, doc, output = grade(tmp_path, fmt, SOLUTION, None)
    if code == 3:
        pytest.skip("no usable GPU: " + output.strip().splitlines()[-1])
    assert code == 0, output
    assert schema_errors(fmt, doc) == []
    assert consistency_errors(fmt, doc) == []
    checks = doc["tests"][:-1]
    assert all(t.get("status", "passed") in ("passed", "pass") for t in checks), output
    got, _, total = scores(fmt, doc)
    assert abs(sum(got[:-1]) - SPEC["points"]["check"]) < 1e-6
    assert total >= SPEC["points"]["check"]
