"""The `layerbench` command of a package built without CUDA (python/layerbench/native.py): no binary,
_prefix/native-left-out.txt saying why. The reports tool's commands run; --version and --help say
what was left out; every other command says in one line that it needs the harness (exit 2). Run in
a child interpreter with the package's prefix pointed at a temporary folder, as pip would lay it out."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "reports" / "fixtures"
WHY = ("left out the native harness (run, list, ladder, lab, the Python layers): no CUDA compiler found "
       "(nvcc on PATH, or CUDACXX) when this package was built, so only the Python side (...) is installed")


def command(tmp_path: Path, *args: str, left_out: bool = True) -> subprocess.CompletedProcess[str]:
    prefix = tmp_path / "_prefix"
    prefix.mkdir(exist_ok=True)
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
    for args in (["run", "-l", "cpu"], ["list"], ["lab", "list"], ["ladder", "matmul"]):
        done = command(tmp_path, *args)
        assert done.returncode == 2 and not done.stdout, (args, done)
        assert done.stderr.count("\n") == 1, done.stderr
        assert f"`{args[0]}` needs the native harness: this install {WHY}" in done.stderr, done.stderr


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
    assert done.returncode == 0 and "Left out (they need the native harness): run, list, ladder, lab." in done.stdout


def test_the_source_tree_without_a_binary_names_what_to_do(tmp_path):
    done = command(tmp_path, "run", left_out=False)
    assert done.returncode == 2 and "LAYERBENCH_EXE" in done.stderr, done.stderr
