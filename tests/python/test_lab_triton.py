"""The triton runner's Python side (python/layerbench/lab), no GPU needed. The Triton rules
(rules.py's TRITON dialect, standard library only: they run everywhere): what a Triton lab file may
hold at its top (imports of triton, triton.language and math, constants, @triton.jit functions
without arguments), the kernel's parameters (the lab's, then tl.constexpr ones with literal
defaults, which the runner compiles with), what it may not (autotune, heuristics, decorator
arguments, host code). The compile process (triton_compile.py, run as the lab child runs it: python
-m, in a folder of its own), skipped where Triton is not installed (CI: the GPU image has triton
3.6): the PTX for sm_90 with its one entry, the lab's parameters then Triton's two scratch pointers,
the block (.reqntid) its num_warps makes, its dynamic shared memory; a constexpr without a default
named; Triton's cache in the working folder. The C++ side's checks of the result are
tests/test_lab_triton.cpp's."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from layerbench.lab import rules

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "labs" / "10-triton-softmax"
KERNEL = "row_softmax"
TYPES = "const float*,float*,long long,long long"
GOOD_KERNEL = """
@triton.jit
def row_softmax(x, y, m, n, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(y + row * n + cols, tl.load(x + row * n + cols, mask=cols < n), mask=cols < n)
"""
HEADER = "import triton\nimport triton.language as tl\n"


def check(source: str, args: int = 4) -> dict:
    return rules.check_triton_source(textwrap.dedent(source), "row_softmax.py", KERNEL, args)


def rejected(source: str) -> str:
    with pytest.raises(rules.StudentError) as e:
        check(source)
    assert str(e.value).startswith("row_softmax.py:"), str(e.value)  # the file and line, first
    return str(e.value)


# --- the rules (no Triton needed) -------------------------------------------------------------------

@pytest.mark.parametrize("header", [
    HEADER,
    "import triton\nfrom triton import language as tl\n",
    "import triton\nimport triton.language as tl\nimport math\nWIDE = 1024\nBLOCK_OF = WIDE * 2\n",
    '"""A docstring."""\nfrom triton import jit\nimport triton\nimport triton.language as tl\n',
])
def test_allowed_headers(header):
    assert check(header + GOOD_KERNEL) == {"parameters": ["x", "y", "m", "n"], "constexprs": {"BLOCK": 1024}}


def test_constexpr_defaults_may_name_earlier_constants_and_helpers_are_jit_functions():
    source = HEADER + "WIDE = 256\n\n@triton.jit\ndef helper(v):\n    return v * 2\n" + GOOD_KERNEL.replace(
        "BLOCK: tl.constexpr = 1024", "BLOCK: tl.constexpr = WIDE * 4, EVEN: tl.constexpr = True")
    assert check(source)["constexprs"] == {"BLOCK": 1024, "EVEN": True}


@pytest.mark.parametrize("source, message", [
    (HEADER + "import torch\n" + GOOD_KERNEL, "this imports torch; import only triton, triton.language or math"),
    (HEADER + "import numba\n" + GOOD_KERNEL, "this imports numba"),
    (HEADER + "import os\nos.system('true')\n" + GOOD_KERNEL, "this imports os"),
    (HEADER + "triton.language.exp = None\n" + GOOD_KERNEL, "may not change what other modules hold"),
    (HEADER + GOOD_KERNEL.replace("@triton.jit", "@triton.autotune(configs=[], key=['n'])\n@triton.jit"),
     "has 2 decorators"),
    (HEADER + GOOD_KERNEL.replace("@triton.jit", "@triton.heuristics({'BLOCK': lambda args: 1024})"),
     "decorated with triton.heuristics, not triton.jit"),
    (HEADER + GOOD_KERNEL.replace("@triton.jit", "@triton.jit(do_not_specialize=['n'])"),
     "@triton.jit(do_not_specialize=...) is not allowed"),
    (HEADER + GOOD_KERNEL.replace("@triton.jit", "@triton.jit(print)"), "takes no arguments"),
    (HEADER + GOOD_KERNEL.replace("@triton.jit", "@cuda.jit"), "not triton.jit"),
    (HEADER + GOOD_KERNEL.replace("@triton.jit\n", ""), "a plain Python function would run on the host"),
    (HEADER + GOOD_KERNEL.replace("BLOCK: tl.constexpr = 1024", "BLOCK: tl.constexpr"), "has no default"),
    (HEADER + GOOD_KERNEL.replace("BLOCK: tl.constexpr = 1024", "BLOCK: int = 1024"), "parameter annotations"),
    (HEADER + GOOD_KERNEL.replace("BLOCK: tl.constexpr = 1024", "BLOCK: tl.constexpr = 'wide'"),
     "must be a number or True/False"),
    (HEADER + GOOD_KERNEL.replace("x, y, m, n, BLOCK", "x, y, n, BLOCK"), "must take exactly 4 parameters"),
    (HEADER + GOOD_KERNEL.replace("x, y, m, n, BLOCK: tl.constexpr = 1024", "BLOCK: tl.constexpr = 1024, x=0, y=0, m=0, n=0"),
     "before its tl.constexpr ones"),
    (HEADER + GOOD_KERNEL.replace("row = tl.program_id(0)", "row = eval('0')"), "eval is not allowed"),
    (HEADER + GOOD_KERNEL.replace("def row_softmax", "def other"), "no kernel named row_softmax"),
    (HEADER + "if True:\n    pass\n" + GOOD_KERNEL, "an if statement, which runs on the host"),
])
def test_refused(source, message):
    assert message in rejected(source)


def test_the_numba_rules_are_unchanged_by_the_dialect():
    # A Triton file is not a Numba file, and the Numba rules' own text still names Numba's modules.
    with pytest.raises(rules.StudentError) as e:
        rules.check_source(HEADER + GOOD_KERNEL, "row_softmax.py", KERNEL, 4)
    assert "import only numba, numba.cuda or math" in str(e.value)


def lab_files():
    return [LAB / "row_softmax.py", LAB / "solution" / "row_softmax.py"] + sorted((LAB / "wrong").glob("*.py"))


@pytest.mark.parametrize("path", lab_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lab_10s_files_follow_the_rules_or_are_refused_as_they_expect(path):
    first = path.read_text().splitlines()[0]
    expect = first[len("# expect: "):] if first.startswith("# expect: ") else None
    try:
        rules.check_triton_file(str(path), KERNEL, 4)
    except rules.StudentError as e:
        assert expect and expect in str(e), str(e)
        return
    # Accepted: then it must be one the GPU judges (its expectation is a check verdict).
    assert path.parent.name != "wrong" or expect != "this imports os"


# --- the compile process (Triton, no GPU) ---------------------------------------------------------

def compile_in(tmp_path: Path, source: str, *extra: str, num_warps: str = "8") -> subprocess.CompletedProcess:
    pytest.importorskip("triton", reason="triton is not installed (the GPU image has triton 3.6; CI does not)")
    (tmp_path / "row_softmax.py").write_text(source)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH")) if p))
    env.pop("TRITON_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-m", "layerbench.lab.triton_compile", "row_softmax.py", KERNEL, TYPES, "90",
                           "kernel.json", "--num-warps", num_warps, *extra], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_solution_comes_back_as_ptx_with_the_labs_parameters_and_two_scratch_pointers(tmp_path):
    done = compile_in(tmp_path, (LAB / "solution" / "row_softmax.py").read_text())
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "kernel.json").read_text())
    assert sorted(result) == ["entry", "num_warps", "ptx", "shared_bytes"]
    assert result["entry"] == KERNEL and result["num_warps"] == 8
    ptx = result["ptx"]
    assert ".target sm_90" in ptx and ".reqntid 256" in ptx
    params = re.search(r"\.entry row_softmax\((.*?)\)", ptx, flags=re.S).group(1)
    assert re.findall(r"\.param \.(\w)(\d+)", params) == [("u", "64")] * 6  # x, y, m, n; global and profile scratch
    assert (tmp_path / "triton-cache").is_dir(), "Triton's cache is the working folder's"


def test_num_warps_is_the_labs_and_becomes_the_required_block(tmp_path):
    done = compile_in(tmp_path, HEADER + GOOD_KERNEL, num_warps="4")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "kernel.json").read_text())
    assert result["num_warps"] == 4 and ".reqntid 128" in result["ptx"]


def test_a_compile_error_names_the_file_and_a_result_is_never_overwritten(tmp_path):
    done = compile_in(tmp_path, HEADER + GOOD_KERNEL.replace("tl.arange(0, BLOCK)", "tl.arange(0, BLOCK) + nowhere"))
    assert done.returncode == 1 and "Triton could not compile row_softmax" in done.stderr and "nowhere" in done.stderr
    assert not (tmp_path / "kernel.json").exists()
    (tmp_path / "kernel.json").write_text("{}")  # made first (by the student's code, say): refused, not overwritten
    done = compile_in(tmp_path, HEADER + GOOD_KERNEL)
    assert done.returncode != 0 and (tmp_path / "kernel.json").read_text() == "{}"


def test_a_rule_breaker_is_refused_before_it_is_imported(tmp_path):
    done = compile_in(tmp_path, HEADER + "import os\nos.system('touch ran')\n" + GOOD_KERNEL)
    assert done.returncode == 1 and "this imports os" in done.stderr
    assert not (tmp_path / "ran").exists()


def test_a_python_without_triton_exits_no_triton_in_one_line(tmp_path):
    # Runs everywhere: triton made unimportable (sys.modules["triton"] = None) in the process, as on a
    # machine without it. The machine's fault, not the file's: NO_TRITON (3), one line, no traceback,
    # no result; the rules are still checked first.
    (tmp_path / "row_softmax.py").write_text((LAB / "solution" / "row_softmax.py").read_text())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH")) if p))
    code = ("import sys; sys.modules['triton'] = None\n"
            "from layerbench.lab import triton_compile\n"
            f"sys.exit(triton_compile.main(['row_softmax.py', '{KERNEL}', '{TYPES}', '90', 'kernel.json', '--num-warps', '8']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    from layerbench.lab import triton_compile
    assert done.returncode == triton_compile.NO_TRITON == 3, done.stderr
    assert done.stderr.count("\n") == 1 and "cannot import triton" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "kernel.json").exists()
