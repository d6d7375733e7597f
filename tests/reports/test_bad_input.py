"""Bad input: one line naming the file and what is wrong, exit status 2, no traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import H200_RUN1, case_entry, load_json, results_file, run_cli, write_json


def make_bad(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A bad input of one kind and a phrase the error must contain."""
    path = tmp_path / f"{kind}.json"
    if kind == "missing":
        return path, "no such file"
    if kind == "directory":
        path.mkdir()
        return path, "is a directory"
    if kind == "empty":
        path.write_text("")
        return path, "empty file"
    if kind == "truncated":
        text = H200_RUN1.read_text()
        path.write_text(text[: len(text) // 2])
        return path, "truncated JSON"
    if kind == "not_json":
        path.write_text("workload  layer  median\nvector_add cpu 0.02\n")
        return path, "not valid JSON"
    if kind == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
        return path, "not a JSON text file"
    if kind == "json_list":
        write_json(path, [1, 2, 3])
        return path, "not a layerbench results file"
    if kind == "other_tool":  # e.g. a package.json, or some other program's JSON
        write_json(path, {"name": "left-pad", "version": "1.3.0"})
        return path, "not a layerbench results file"
    if kind == "google_benchmark":  # Google Benchmark's own output, no layerbench fields
        write_json(path, {"context": {"date": "2026-01-01", "num_cpus": 8},
                          "benchmarks": [{"name": "BM_x", "run_type": "iteration", "real_time": 1.0}]})
        return path, "not written by layerbench"
    if kind == "schema_99":
        data = load_json(H200_RUN1)
        data["context"]["layerbench"]["schema_version"] = 99
        write_json(path, data)
        return path, "unknown layerbench schema version 99"
    if kind == "no_schema":
        data = load_json(H200_RUN1)
        del data["context"]["layerbench"]["schema_version"]
        write_json(path, data)
        return path, "no context.layerbench.schema_version"
    if kind == "benchmarks_not_list":
        data = load_json(H200_RUN1)
        data["benchmarks"] = {"oops": 1}
        write_json(path, data)
        return path, "must be an object"
    if kind == "entry_without_workload":
        data = load_json(H200_RUN1)
        del data["benchmarks"][3]["workload"]
        write_json(path, data)
        return path, "benchmarks[3]"
    if kind in WRONG_VALUES:  # a field the figures come from, with a wrong type or an impossible value
        field, value, phrase = WRONG_VALUES[kind]
        data = load_json(H200_RUN1)
        data["benchmarks"][2][field] = value
        write_json(path, data)
        return path, f'benchmarks[2] ({data["benchmarks"][2]["name"]}): "{field}" is {phrase}'
    raise AssertionError(kind)


WRONG_VALUES = {  # kind -> (field of benchmarks[2], value, what the error says of it)
    "time_as_text": ("median_ms", "fast", 'a string "fast", expected a number'),
    "samples_as_list": ("samples", [1, 2], "a list [1, 2], expected a number"),
    "size_as_object": ("n", {"n": 1}, 'an object {"n": 1}, expected a number'),
    "figure_as_boolean": ("gbps", True, "a boolean true, expected a number"),
    "negative_time": ("median_ms", -1, "-1, below 0"),  # was a traceback in compare (log of a negative ratio)
    "absurd_time": ("end_to_end_ms", 1e308, "1e+308 ms, more than"),  # was a traceback in report (axis limits)
    "absurd_size": ("n", 1e308, "1e+308, not a size"),  # was a traceback in report (log2 of a huge int)
    "fractional_size": ("n", 1.5, "1.5, not a size"),
}

KINDS = ["missing", "directory", "empty", "truncated", "not_json", "binary", "json_list", "other_tool",
         "google_benchmark", "schema_99", "no_schema", "benchmarks_not_list", "entry_without_workload",
         *WRONG_VALUES]


def assert_one_line_error(result, path: Path, phrase: str, command: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith(f"layerbench {command}: error: {path}: "), lines[0]
    assert phrase in lines[0], lines[0]


@pytest.mark.parametrize("kind", KINDS)
def test_report_bad_input(tmp_path: Path, kind: str):
    path, phrase = make_bad(tmp_path, kind)
    out = tmp_path / "out"
    result = run_cli("report", path, "--out", out)
    assert_one_line_error(result, path, phrase, "report")
    assert not out.exists()  # nothing written


@pytest.mark.parametrize("kind", ["missing", "truncated", "other_tool", "schema_99", *WRONG_VALUES])
def test_csv_bad_input(tmp_path: Path, kind: str):
    path, phrase = make_bad(tmp_path, kind)
    assert_one_line_error(run_cli("csv", path), path, phrase, "csv")


@pytest.mark.parametrize("kind", ["missing", "not_json", "google_benchmark", "schema_99", "negative_time"])
@pytest.mark.parametrize("side", ["base", "new"])
def test_compare_bad_input_either_side(tmp_path: Path, kind: str, side: str):
    path, phrase = make_bad(tmp_path, kind)
    args = (path, H200_RUN1) if side == "base" else (H200_RUN1, path)
    assert_one_line_error(run_cli("compare", *args), path, phrase, "compare")


def test_bad_threshold_is_a_usage_error():
    result = run_cli("compare", H200_RUN1, H200_RUN1, "--threshold", "lots")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "is not a percentage" in result.stderr


def test_unwritable_out_is_one_line(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run_cli("report", H200_RUN1, "--out", blocker)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and str(blocker) in result.stderr


def test_truncated_file_error_names_the_position(tmp_path: Path):
    path, _ = make_bad(tmp_path, "truncated")
    result = run_cli("report", path)
    assert "ends at line" in result.stderr and json.loads(H200_RUN1.read_text())


def test_nan_and_null_figures_are_read_as_not_measured(tmp_path: Path):
    """null (what the harness writes for a number it does not have) and NaN are not bad input."""
    data = load_json(H200_RUN1)
    data["benchmarks"][2]["gbps"] = None
    data["benchmarks"][3]["gflops"] = float("nan")
    data["benchmarks"][4]["max_rel_error"] = float("inf")
    path = write_json(tmp_path / "nulls.json", data)
    result = run_cli("csv", path)  # NaN and infinities used to be a traceback in the CSV writer
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()
    header = rows[0].split(",")
    assert rows[4].split(",")[header.index("gflops")] == ""


@pytest.mark.parametrize("args, phrase", [
    (("compare", H200_RUN1), "the following arguments are required: NEW.json"),
    (("compare",), "the following arguments are required: BASE.json, NEW.json"),
    (("report",), "RESULTS.json, or --db URL, is needed"),
    (("csv", H200_RUN1, "extra.json"), "unrecognized arguments: extra.json"),
    (("compare", H200_RUN1, H200_RUN1, "--verbose"), "unrecognized arguments: --verbose"),
    (("compare", H200_RUN1, H200_RUN1, "--threshold", "lots"), "'lots' is not a percentage"),
    (("compare", H200_RUN1, H200_RUN1, "--noise-k", "0"), "'0' must be above 0"),
])
def test_usage_errors_are_one_line_naming_the_command(args, phrase: str):
    """argparse's usage errors, as the project's: one line (no usage block), prefixed with the
    command the user typed (not the bare program), naming what is wrong, exit status 2."""
    result = run_cli(*args)
    assert result.returncode == 2 and result.stdout == "", (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"layerbench {args[0]}: error: ") and phrase in lines[0], lines[0]
    assert lines[0].endswith(f"(see layerbench {args[0]} --help)"), lines[0]


@pytest.mark.parametrize("command", ["csv", "compare_base", "compare_new", "compare_other_spelling"])
def test_out_over_an_input_is_refused_and_the_results_kept(tmp_path: Path, command: str):
    """`csv r.json -o r.json` and `compare a.json b.json -o a.json` used to write the CSV or the
    table over the results they had just read: now bad input, the file untouched."""
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(H200_RUN1.read_text())
    new.write_text(H200_RUN1.read_text())
    args, target = {
        "csv": (("csv", base, "-o", base), base),
        "compare_base": (("compare", base, new, "-o", base), base),
        "compare_new": (("compare", base, new, "--out", new), new),
        "compare_other_spelling": (("compare", base, new, "-o", tmp_path / "." / "new.json"), new),
    }[command]
    result = run_cli(*args)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "being read; writing there would destroy it" in lines[0], lines
    assert target.read_text() == H200_RUN1.read_text()


# Inputs the results loader's fuzz target found (fuzz/findings/README.md, R1-R4, R6, R7): each was a
# traceback or a message of several lines.

def _no_traceback(result) -> None:
    assert "Traceback" not in result.stderr and result.returncode in (0, 1, 2), (result.returncode, result.stderr)
    assert len(result.stderr.strip().splitlines()) <= 1, result.stderr


def test_integers_too_large_for_python_or_a_float_are_not_a_traceback(tmp_path: Path):
    """R1: a 5000-digit integer (past Python's int() limit: ValueError); R3: 1 and 400 zeros (past a
    float's range: OverflowError). Read as not measured."""
    data = load_json(H200_RUN1)
    text = json.dumps(data).replace('"samples": ', '"samples": 1' + "0" * 400 + ", \"was_samples\": ", 1)
    text = text.replace('"context": {', '"context": {"junk": ' + "7" * 5000 + ", ", 1)
    path = tmp_path / "huge-ints.json"
    path.write_text(text)
    for command in (("csv", path), ("compare", path, path)):
        _no_traceback(run_cli(*command))


def test_a_line_break_in_a_quoted_name_stays_one_line(tmp_path: Path):
    """R2: an error quoting an entry's name with a line break was two lines; now \\x0a."""
    data = load_json(H200_RUN1)
    data["benchmarks"][0]["name"] = "a\nb"
    del data["benchmarks"][0]["workload"]
    result = run_cli("csv", write_json(tmp_path / "newline.json", data))
    assert result.returncode == 2 and "(a\\x0ab)" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_medians_too_far_apart_for_a_ratio_are_not_compared(tmp_path: Path):
    """R4: 5e-324 ms against 1e11 ms: the ratio underflows to 0 and math.log(0) was a traceback."""
    base = results_file(tmp_path / "base.json", [case_entry("vector_add", "cpu", 1000, 1e11, end_to_end_ms=1e11)])
    new = results_file(tmp_path / "new.json", [case_entry("vector_add", "cpu", 1000, 5e-324)])
    result = run_cli("compare", base, new)
    _no_traceback(result)
    assert result.returncode == 0 and "no ratio" in result.stdout, result.stdout


def test_compare_of_rung_only_files(tmp_path: Path):
    """R6: a file of ladder rung cases only (run --rung without -w): compare sorted its rows by
    the layers' own workloads, which has none of them: a traceback."""
    rung = case_entry("matmul", "runtime", 64, 0.01, rung={"id": "matmul/01_naive", "number": 1})
    path = results_file(tmp_path / "rungs.json", [rung])
    result = run_cli("compare", path, path)
    _no_traceback(result)
    assert result.returncode == 0, result.stderr


def test_rung_numbers_of_mixed_types_sort(tmp_path: Path):
    """R7: rung numbers 1 and "2" could not be sorted (TypeError) when the report drew the ladders;
    the results schema (python/layerbench/schemas/results.schema.json) now refuses the string, in one line."""
    from layerbench.reports import results
    entries = [case_entry("matmul", "runtime", 64, 0.01, rung={"id": "matmul/01_naive", "number": 1}),
               case_entry("matmul", "runtime", 64, 0.02, rung={"id": "matmul/02_coalescing", "number": "2"})]
    with pytest.raises(results.ResultsError, match=r"results schema .* at \$\.benchmarks\[1\]\.rung\.number: '2' is not"):
        results.load(results_file(tmp_path / "rungs.json", entries))


@pytest.mark.parametrize("args", [("csv", "a\nb.json"), ("csv", H200_RUN1, "-o", "/proc/a\nb"), ("csv", H200_RUN1, "x\ny")])
def test_a_line_break_in_what_was_typed_stays_one_line(args):
    result = run_cli(*args)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "\\x0a" in result.stderr, result.stderr


def test_report_of_matmul_cases_without_flops_is_not_a_traceback(tmp_path: Path):
    """P1 (fuzz/findings/README.md): passing matmul cases without `flops` made the GFLOP/s plot index
    an empty list; the plot is now left out, as for no matmul case at all."""
    findings = Path(__file__).resolve().parents[2] / "fuzz" / "findings" / "report" / "matmul-no-flops.json"
    result = run_cli("report", str(findings), "--out", str(tmp_path / "rep"))
    _no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "rep" / "report.md").exists()
