"""The `layerbench` command of a package built without CUDA (python/layerbench/native.py): no binary,
_prefix/native-left-out.txt saying why. The reports tool's commands run; `lab list` lists every lab
the package ships (python/layerbench/lab/listing.py); --version and --help say what was left out;
every other command says in one line that it needs the harness (exit 2). Run in a child interpreter
with the package's prefix pointed at a temporary folder, as pip would lay it out."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


from layerbench.lab import listing

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "reports" / "fixtures"
WHY = ("left out the native harness (run, list, ladder, lab start|check|grade, the Python layers): no CUDA "
       "compiler found (nvcc on PATH, or CUDACXX) when this package was built, so only the Python side (...) is "
       "installed")


def command(tmp_path: Path, *args: str, left_out: bool = True, labs: bool = False) -> subprocess.CompletedProcess[str]:
    """`layerbench ARGS` of a package whose prefix is tmp_path/_prefix; with `labs`, the prefix holds
    the labs and the example workload folders as cmake/NativeHarness.cmake installs them."""
    prefix = tmp_path / "_prefix"
    prefix.mkdir(exist_ok=True)
    if labs and not (prefix / "share").exists():
        for folder in ("labs", "examples"):
            shutil.copytree(REPO / folder, prefix / "share" / "layerbench" / folder,
                            ignore=shutil.ignore_patterns("__pycache__", "tests"))
    if left_out:
        (prefix / "native-left-out.txt").write_text(WHY + "\n")
    program = ("import sys, pathlib; from layerbench import native; "
               f"native.PREFIX = pathlib.Path({str(prefix)!r}); native.LEFT_OUT = native.PREFIX / 'native-left-out.txt'; "
               "sys.exit(native.main(sys.argv[1:]))")
    env = {k: v for k, v in os.environ.items() if k not in ("LAYERBENCH_EXE", "LAYERBENCH_PYTHON")}
    # The package first; then whatever PYTHONPATH already held (a GPU machine's carried wheels, where
    # jsonschema comes from: docs/offline-install.md).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "python"), os.environ.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


def test_a_command_that_needs_the_harness_says_why_in_one_line(tmp_path):
    for args, named in ((["run", "-l", "cpu"], "run"), (["list"], "list"), (["ladder", "matmul"], "ladder"),
                        (["lab", "check", "01-vector-add", "vector_add.cu"], "lab check"),
                        (["lab", "--labs", "x", "grade", "1", "a.cu"], "lab grade"), (["lab"], "lab")):
        done = command(tmp_path, *args, labs=True)
        assert done.returncode == 2 and not done.stdout, (args, done)
        assert done.stderr.count("\n") == 1, done.stderr
        assert f"`{named}` needs the native harness: this install {WHY}" in done.stderr, done.stderr


# --- lab list without the harness -------------------------------------------------------------------

def lab_rows(stdout: str) -> dict[str, list[str]]:
    """`lab list`'s rows, by lab: [workload, runner, what a check needs, title]."""
    lines = stdout.splitlines()
    head = lines[1]
    starts = [head.index(word) for word in ("lab", "workload", "runner", "a check needs", "title")]
    rows = {}
    for line in lines[2:]:
        if not line.startswith("  "):
            break
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
        rows[cells[0]] = cells[1:]
    return rows


def test_lab_list_lists_every_lab_the_package_ships(tmp_path):
    """Every lab of labs/ with its lab.json's title and runner, what a check needs, in order; then
    one line: checking and grading need the harness and a GPU. Exit 0."""
    done = command(tmp_path, "lab", "list", labs=True)
    assert done.returncode == 0 and not done.stderr, done
    shipped = tmp_path / "_prefix" / "share" / "layerbench" / "labs"
    assert done.stdout.startswith(f"Labs in {shipped}:\n")
    rows = lab_rows(done.stdout)
    specs = {p.parent.name: json.loads(p.read_text()) for p in (REPO / "labs").glob("*/lab.json")}
    assert list(rows) == sorted(specs, key=lambda name: (specs[name]["order"], name)) and len(rows) >= 10
    for name, (workload, runner, needs, title) in rows.items():
        spec = specs[name]
        assert title == spec["title"] and runner == spec["runner"], name
        assert needs.startswith("a GPU") and (needs.endswith(", NumPy") == ("workload_dir" in spec)), (name, needs)
        assert workload == spec.get("workload") or (REPO / "labs" / name / spec["workload_dir"]).name == workload
    assert rows["05-numba-vector-add"][1:3] == ["numba", "a GPU, Numba"]
    assert rows["10-triton-softmax"][:3] == ["row_softmax", "triton", "a GPU, Triton, NumPy"]
    assert done.stdout.endswith("\n\nChecking and grading (`layerbench lab check|grade`) need the native harness and "
                                f"a GPU: this install {WHY}.\n")
    again = command(tmp_path, "lab", "--labs", str(shipped), "list")  # the harness's order of options too
    assert again.returncode == 0 and again.stdout == done.stdout, again


def test_lab_list_leaves_out_a_lab_it_cannot_read_saying_why(tmp_path):
    labs = tmp_path / "labs"
    shutil.copytree(REPO / "labs" / "01-vector-add", labs / "01-vector-add", ignore=shutil.ignore_patterns("*.cu"))
    (labs / "02-broken").mkdir()
    (labs / "02-broken" / "lab.json").write_text('{"title": "x",')
    (labs / "03-odd").mkdir()
    (labs / "03-odd" / "lab.json").write_text(json.dumps({"title": "Odd", "order": 3, "student_file": "a.cu",
                                                          "runner": "quantum", "workload": "vector_add"}))
    done = command(tmp_path, "lab", "list", "--labs", str(labs))
    assert done.returncode == 0, done
    assert list(lab_rows(done.stdout)) == ["01-vector-add"]
    assert "Left out here (2 of 3 labs):" in done.stdout
    assert re.search(r"^  02-broken +lab.json: not JSON", done.stdout, re.M)
    assert re.search(r"^  03-odd +lab.json: runner: unknown runner 'quantum'", done.stdout, re.M)
    shutil.rmtree(labs / "01-vector-add")
    assert command(tmp_path, "lab", "list", "--labs", str(labs)).returncode == 1  # every lab left out
    missing = command(tmp_path, "lab", "list", "--labs", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and not missing.stdout and missing.stderr.count("\n") == 1, missing
    assert "layerbench lab list: error: cannot read the labs folder" in missing.stderr and "nowhere" in missing.stderr
    bad = command(tmp_path, "lab", "list", "--verbose")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--verbose" in bad.stderr, bad
    helped = command(tmp_path, "lab", "list", "--help")
    assert helped.returncode == 0 and "--labs DIR" in helped.stdout and "need it, and a GPU" in helped.stdout


def test_what_a_check_needs_is_known_for_every_registered_runner():
    """listing.RUNNER_NEEDS mirrors lab/runners/runners.cpp; the default runner of an extension is
    the first registered for it."""
    text = (REPO / "lab" / "runners" / "runners.cpp").read_text()
    registered = re.findall(r'make_unique<\w+>\(\s*"([^"]+)",\s*"([^"]+)"', text)
    assert len(registered) >= 6 and {name for name, _ in registered} == set(listing.RUNNER_NEEDS)
    first = {}
    for name, extension in registered:
        first.setdefault(extension, name)
    assert first == listing.DEFAULT_RUNNER


def test_the_reports_commands_run_without_the_harness(tmp_path):
    done = command(tmp_path, "compare", str(FIXTURES / "h200_run1.json"), str(FIXTURES / "h200_run2.json"))
    assert done.returncode in (0, 1) and "| BASE |" in done.stdout, done.stderr
    done = command(tmp_path, "csv", str(FIXTURES / "cpu_only_no_driver.json"))
    assert done.returncode == 0 and "vector_add" in done.stdout, done.stderr
    done = command(tmp_path, "help", "compare")
    assert done.returncode == 0 and "BASE" in done.stdout, done.stderr


def test_version_and_help_say_what_was_left_out(tmp_path):
    import layerbench
    done = command(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout == f"layerbench {layerbench.__version__} (Python side only: {WHY})\n"
    done = command(tmp_path, "--help")
    assert done.returncode == 0 and ("Left out (they need the native harness): run, list, ladder, "
                                     "lab start|check|grade|profile.") in done.stdout
    assert "lab list The coursework labs" in done.stdout


def test_the_source_tree_without_a_binary_names_what_to_do(tmp_path):
    done = command(tmp_path, "run", left_out=False)
    assert done.returncode == 2 and "LAYERBENCH_EXE" in done.stderr, done.stderr
