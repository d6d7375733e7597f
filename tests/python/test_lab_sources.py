"""The coursework labs' sources and specs (labs/<lab>/: its files, solution/ and wrong/), no GPU
needed: every lab.json has every field of the format in docs/labs.md with a valid vocabulary;
every skeleton, reference solution and planted mistake compiles with NVRTC alone (no include
path, as the runner compiles a student's file) for sm_90 and defines the lab's kernel with the
spec's signature; skeletons have //@@ gaps and are not solutions; nothing under labs/<lab>/ is a
solution. Whether the solutions are right and the planted files wrong is the runner's GPU test.

Python labs (student_file *.py, Numba kernels; docs/labs.md, "Python labs") are checked the same
way with their own tools: python/layerbench/lab's rules check passes the skeleton, the solution and
the planted mistakes that are wrong on the GPU, and rejects the planted rule breakers with their
`# expect:` text; what passes the rules compiles to PTX for sm_90 with Numba (cuda.compile_ptx
with cc=(9, 0): no GPU needed) for the lab's argument types, in the numba runner's compile process
(python -m layerbench.lab.numba_compile, in a folder of its own), never in this one."""
from __future__ import annotations

import copy
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "labs"

def solution_dir(lab: str) -> Path:
    return LABS / lab / "solution"


def wrong_dir(lab: str) -> Path:
    return LABS / lab / "wrong"


# The argument vocabulary of each workload, in the order the runner passes them, with C types.
VOCABULARY = {
    "vector_add": {"a": "const float*", "b": "const float*", "c": "float*", "n": "long long"},
    "saxpy": {"alpha": "float", "x": "const float*", "y": "float*", "n": "long long"},
    "reduce": {"x": "const float*", "n": "long long", "out": "float*"},
    "matmul": {"A": "const float*", "B": "const float*", "C": "float*", "M": "int", "N": "int", "K": "int"},
}
FIELDS = ["title", "order", "workload", "student_file", "kernel", "signature", "arguments", "output_starts",
          "launch", "check_sizes", "benchmark_sizes", "points", "baseline_layer", "tiers", "time_limit_s"]
GRIDS = {"cover_n": 1, "grid_stride": 1, "cover_mn": 2}  # grid rule -> block dimensions it needs
# The functions a host-trip lab's file defines (lab/runners/host_trip/trip.h), the spec's kernel among them.
TRIP_FUNCTIONS = ["lab_host_alloc", "lab_host_free", "lab_setup", "lab_trip", "lab_teardown"]
SIZE_1D = re.compile(r"^(\d+|2\^\d+)$")
SIZE_MNK = re.compile(r"^\d+x\d+x\d+$")
SIZE_MN = re.compile(r"^\d+x\d+$")


def lab_dirs() -> list[Path]:
    return sorted(p for p in LABS.iterdir() if (p / "lab.json").is_file())


LAB_NAMES = [p.name for p in lab_dirs()]


def load_spec(lab: str) -> dict:
    spec = json.loads((LABS / lab / "lab.json").read_text())
    return with_folder(spec, LABS / lab) if "workload_dir" in spec else spec


# A lab on a workload folder (lab.json's "workload_dir", relative to the lab's folder) takes its
# kernel, its parameters (typed by the folder's buffers and scalars), what its outputs start as and
# its launch from the folder's workload.json (lab/spec/lab_spec.cpp), which its own JSON Schema
# checks (workloads/folder/workload.schema.json): they are filled in here as the runner reads them.
C_TYPES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long"}
FROM_THE_FOLDER = ("kernel", "signature", "arguments", "output_starts", "launch")


def with_folder(spec: dict, lab_dir: Path) -> dict:
    given_again = [f for f in FROM_THE_FOLDER if f in spec]
    folder = json.loads((lab_dir / spec["workload_dir"] / "workload.json").read_text())
    buffers = {b["name"]: b for b in folder["buffers"]}
    scalars = {s["name"]: s for s in folder.get("scalars", [])}
    vocabulary = {}
    for a in folder["kernel"]["arguments"]:
        if a in buffers:
            b = buffers[a]
            vocabulary[a] = ("const " if b["role"] == "input" else "") + C_TYPES[b["type"]] + "*"
        else:
            vocabulary[a] = C_TYPES[scalars[a]["type"]] if a in scalars else "long long"
    kernel = folder["kernel"]["name"]
    return dict(spec, workload=folder["name"], kernel=kernel, arguments=list(vocabulary),
                signature=f"void {kernel}({', '.join(f'{t} {a}' for a, t in vocabulary.items())})",
                output_starts=next(b.get("starts_as", "poison") for b in folder["buffers"] if b["role"] == "output"),
                launch=folder["launch"], folder=folder, vocabulary=vocabulary,
                given_again=given_again)


def is_python_lab(lab: str) -> bool:
    return load_spec(lab)["student_file"].endswith(".py")


CUDA_LABS = [lab for lab in LAB_NAMES if not is_python_lab(lab)]
PYTHON_LABS = [lab for lab in LAB_NAMES if is_python_lab(lab)]


def parse_signature(signature: str) -> tuple[str, list[tuple[str, str]]]:
    """'void k(const float* a, long long n)' -> ('k', [('const float*', 'a'), ('long long', 'n')]); an
    host-trip lab's trip returns cudaError_t."""
    m = re.fullmatch(r"\s*(?:void|cudaError_t)\s+(\w+)\s*\((.*)\)\s*", signature, flags=re.S)  # a list may wrap
    if not m:
        raise ValueError(f"not a void kernel signature: {signature!r}")
    params = []
    for part in filter(None, (p.strip() for p in m.group(2).split(","))):
        part = re.sub(r"\b__restrict__\b", "", part)
        pm = re.fullmatch(r"(.*?[\s*])(\w+)", part.strip())
        if not pm:
            raise ValueError(f"cannot read parameter {part!r} of {signature!r}")
        ctype = re.sub(r"\s*\*\s*", "* ", pm.group(1)).strip()
        params.append((re.sub(r"\s+", " ", ctype), pm.group(2)))
    return m.group(1), params


def spec_errors(spec: dict) -> list[str]:
    """Everything wrong with one lab.json; empty when it is valid."""
    host = spec.get("runner") == "host-trip"  # the student's host code launches: no launch shape
    errors = [f"missing field {f!r}" for f in FIELDS if f not in spec and not (host and f == "launch")]
    if host and "launch" in spec:
        errors.append("a host-trip lab has no launch")
    if errors:
        return errors
    workload = spec["workload"]
    folder = spec.get("folder")  # a lab on a workload folder: with_folder
    if folder is None and workload not in VOCABULARY:
        return [f"unknown workload {workload!r}"]
    if spec.get("given_again"):
        errors.append(f"{spec['given_again']} are the folder's: lab.json on a workload folder does not give them")
    vocab = spec["vocabulary"] if folder is not None else VOCABULARY[workload]
    if not isinstance(spec["order"], int) or spec["order"] < 1:
        errors.append("order must be a positive integer")
    python = spec["student_file"].endswith(".py")
    if not re.fullmatch(r"[\w.-]+\.(cu|py)", spec["student_file"]):
        errors.append("student_file must be a plain .cu or .py file name")
    if sorted(spec["arguments"]) != sorted(vocab) or len(spec["arguments"]) != len(vocab):
        errors.append(f"arguments {spec['arguments']} must be each of {list(vocab)} once")
    if python and folder is None:  # "kernel(a, b, c, n): what they are" -- Numba's types come from the runner
        m = re.match(r"\s*(\w+)\s*\(([^)]*)\)", spec["signature"])
        if not m or m.group(1) != spec["kernel"]:
            errors.append(f"signature must start with {spec['kernel']}(...)")
        elif [p.strip() for p in m.group(2).split(",")] != spec["arguments"]:
            errors.append(f"signature's parameters {m.group(2)!r} differ from arguments")
    try:
        # A folder lab's signature is the folder's C one, whatever its runner (lab 10's is Triton).
        c_signature = not python or folder is not None
        name, params = parse_signature(spec["signature"]) if c_signature else (spec["kernel"], [])
        if name != spec["kernel"]:
            errors.append(f"signature names {name!r}, kernel is {spec['kernel']!r}")
        if c_signature and [p for _, p in params] != spec["arguments"]:
            errors.append(f"signature's parameters {[p for _, p in params]} differ from arguments")
        for ctype, p in params:
            if p in vocab and ctype != vocab[p]:
                errors.append(f"parameter {p} is {ctype!r}, the {workload} runner passes {vocab[p]!r}")
    except ValueError as e:
        errors.append(str(e))
    if folder is not None:  # what outputs start as and the launch: the folder's, checked by its own schema
        return errors + sizes_and_points_errors(spec, {"n": SIZE_1D, "MxN": SIZE_MN, "MxNxK": SIZE_MNK}[folder["size_form"]])
    if spec["output_starts"] not in ("poison", "zero"):
        errors.append(f"output_starts {spec['output_starts']!r} is not poison or zero")
    if spec["output_starts"] == "zero" and workload != "reduce":
        errors.append("output_starts zero is for reduce only")
    launch = spec.get("launch", {"grid": "cover_n", "block": [1]})  # host-trip: none, nothing to check
    grid, block = launch.get("grid"), launch.get("block")
    if grid not in GRIDS:
        errors.append(f"launch.grid {grid!r} is not one of {list(GRIDS)}")
    elif not (isinstance(block, list) and len(block) == GRIDS[grid] and all(isinstance(b, int) and b > 0 for b in block)):
        errors.append(f"launch.block {block!r} must be {GRIDS[grid]} positive integer(s) for grid {grid}")
    elif (grid == "cover_mn") != (workload == "matmul"):
        errors.append("grid cover_mn is matmul's, and matmul's only")
    elif math.prod(block) > 1024:
        errors.append("a block has at most 1024 threads")
    return errors + sizes_and_points_errors(spec, SIZE_MNK if workload == "matmul" else SIZE_1D)


def sizes_and_points_errors(spec: dict, size: re.Pattern) -> list[str]:
    errors = []
    for key in ("check_sizes", "benchmark_sizes"):
        if not spec[key] or not all(isinstance(s, str) and size.match(s) for s in spec[key]):
            errors.append(f"{key} {spec[key]} are not sizes of the form {size.pattern}")
    points = spec["points"]
    if set(points) != {"check", "performance"} or sum(points.values()) != 100:
        errors.append(f"points {points} must be check + performance = 100")
    tiers = spec["tiers"]
    fractions = [t.get("at_least") for t in tiers]
    if not (isinstance(spec["baseline_layer"], str) and spec["baseline_layer"]):
        errors.append("baseline_layer names the layer the student's kernel is timed against")
    if not tiers or any(t.get("fraction_of") != spec["baseline_layer"] for t in tiers):
        errors.append("every tier is a fraction_of the baseline layer")
    elif not all(isinstance(f, (int, float)) and 0 < f <= 1 for f in fractions) or fractions != sorted(fractions, reverse=True):
        errors.append(f"tier fractions {fractions} must be in (0, 1], best first")
    elif max(t["points"] for t in tiers) != points.get("performance"):
        errors.append("the top tier must be worth all the performance points")
    if not (isinstance(spec["time_limit_s"], (int, float)) and 0 < spec["time_limit_s"] <= 60):
        errors.append("time_limit_s must be in (0, 60]")
    return errors


def strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return "\n".join(line.split("//")[0].rstrip() for line in source.splitlines() if line.split("//")[0].strip())


def declared_params(source: str, kernel: str) -> list[tuple[str, str]]:
    """The parameter list of `extern "C" __global__ void <kernel>(...)` in a source."""
    m = re.search(r'extern\s+"C"\s+__global__\s+(?:__launch_bounds__\([^)]*\)\s*)?void\s+' + re.escape(kernel)
                  + r"\s*\(([^)]*)\)", strip_comments(source))
    assert m, f'no extern "C" __global__ void {kernel}(...) definition'
    return parse_signature(f"void {kernel}({m.group(1)})")[1]


def nvrtc_compile(source: str, name: str, sm: int = 90) -> bytes:
    """NVRTC alone, as the runner compiles a student's file: no include path, no host headers."""
    nvrtc = pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings is not installed (variants/python/requirements.txt)")
    status, program = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    assert status == nvrtc.nvrtcResult.NVRTC_SUCCESS
    try:
        options = [f"--gpu-architecture=sm_{sm}".encode(), b"--std=c++17"]
        status, = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetProgramLogSize(program)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(program, log)
            raise RuntimeError(f"NVRTC could not compile {name}: {log.decode(errors='replace').strip()}")
        _, size = nvrtc.nvrtcGetCUBINSize(program)
        cubin = b" " * size
        nvrtc.nvrtcGetCUBIN(program, cubin)
        return cubin
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def sources() -> list[tuple[str, str, Path]]:
    """(lab, role, path) of every source the runner compiles."""
    out = []
    for lab in CUDA_LABS:
        student = load_spec(lab)["student_file"]
        out.append((lab, "skeleton", LABS / lab / student))
        out.append((lab, "solution", solution_dir(lab) / student))
        out += [(lab, "planted", p) for p in sorted(wrong_dir(lab).glob("*.cu"))]
    return out


SOURCES = sources()


def refused_before_any_compile(path: Path) -> bool:
    """A planted file that breaks its lab's rules (the rule lexers say "... not allowed") or is a
    compile bomb: the rules or the limited compile process refuse or stop it
    (tests/test_lab_kernel_text.cpp, tests/test_lab_transfer.cpp), so it is not compiled here,
    where NVRTC has no limit (the bomb would run for minutes at gigabytes)."""
    lines = path.read_text().splitlines()
    first = lines[0] if lines else ""
    return first.startswith("// expect: ") and (
        "not allowed" in first or "did not compile: the compiler ran past" in first)


COMPILED_SOURCES = [s for s in SOURCES if not refused_before_any_compile(s[2])]


def test_the_four_labs_exist_in_order():
    assert LAB_NAMES[:4] == ["01-vector-add", "02-saxpy-grid-stride", "03-reduce", "04-tiled-matmul"]
    assert [load_spec(lab)["order"] for lab in LAB_NAMES] == list(range(1, len(LAB_NAMES) + 1))


@pytest.mark.parametrize("lab", LAB_NAMES)
def test_lab_json_is_valid(lab):
    assert spec_errors(load_spec(lab)) == []


@pytest.mark.parametrize("lab", LAB_NAMES)
def test_lab_folder_has_readme_skeleton_solution_and_planted_mistakes(lab):
    spec = load_spec(lab)
    assert (LABS / lab / "README.md").is_file()
    readme = (LABS / lab / "README.md").read_text()
    assert f"layerbench lab check {lab}" in readme and spec["kernel"] in readme
    assert f"layerbench lab grade {lab}" in readme, "the student's README says how to get a grade"
    assert "Not graded yet" not in readme
    assert (LABS / lab / spec["student_file"]).is_file()
    assert (solution_dir(lab) / spec["student_file"]).is_file()
    assert len(list(wrong_dir(lab).glob("*" + Path(spec["student_file"]).suffix))) >= 1


@pytest.mark.parametrize("mutate, message", [
    (lambda s: s.pop("tiers"), "missing field 'tiers'"),
    (lambda s: s.update(workload="transpose"), "unknown workload"),
    (lambda s: s.update(arguments=["a", "b", "c"]), "must be each of"),
    (lambda s: s.update(signature=s["signature"].replace("long long n", "int n")), "parameter n is 'int'"),
    (lambda s: s.update(kernel="other"), "signature names"),
    (lambda s: s.update(output_starts="zero"), "zero is for reduce only"),
    (lambda s: s["launch"].update(grid="cover_mn"), "launch.block"),
    (lambda s: s.update(check_sizes=["17x33x65"]), "check_sizes"),
    (lambda s: s.update(points={"check": 60, "performance": 50}), "points"),
    (lambda s: s["tiers"].reverse(), "best first"),
    (lambda s: s.pop("baseline_layer"), "missing field 'baseline_layer'"),
    (lambda s: s["tiers"][0].update(fraction_of="driver"), "fraction_of the baseline layer"),
])
def test_the_spec_check_rejects_a_bad_spec(mutate, message):
    spec = copy.deepcopy(load_spec("01-vector-add"))
    mutate(spec)
    assert any(message in e for e in spec_errors(spec)), spec_errors(spec)


def test_a_folder_lab_takes_its_kernel_from_the_folder_and_refuses_it_given_again():
    folder_labs = [lab for lab in LAB_NAMES if "workload_dir" in json.loads((LABS / lab / "lab.json").read_text())]
    assert folder_labs, "a lab on a workload folder (P22): labs/09-stencil5"
    spec = load_spec(folder_labs[0])
    assert spec["signature"] == "void stencil5(const float* x, const float* w, float* y, long long n)"
    assert spec_errors(spec) == []
    raw = json.loads((LABS / folder_labs[0] / "lab.json").read_text())
    again = with_folder(dict(raw, kernel="stencil5"), LABS / folder_labs[0])
    assert any("are the folder's" in e for e in spec_errors(again)), spec_errors(again)


@pytest.mark.parametrize("lab, role, path", COMPILED_SOURCES,
                         ids=[f"{lab}/{role}/{p.name}" for lab, role, p in COMPILED_SOURCES])
def test_source_compiles_with_nvrtc_alone_and_defines_the_kernel(lab, role, path):
    spec = load_spec(lab)
    source = path.read_text()
    if spec.get("runner") == "host-trip":  # host code, built by nvcc in the child: tests/test_lab_transfer.cpp
        code = strip_comments(source)
        for function in TRIP_FUNCTIONS:
            assert re.search(r'extern\s+"C"\s+[\w\s*]*\b' + function + r"\s*\(", code), f"no extern \"C\" {function}"
        m = re.search(r'extern\s+"C"\s+cudaError_t\s+' + re.escape(spec["kernel"]) + r"\s*\(([^)]*)\)", code)
        assert m and parse_signature(f"void {spec['kernel']}({m.group(1)})")[1] == parse_signature(spec["signature"])[1]
        return
    assert "#include" not in strip_comments(source), "the runner compiles with NVRTC alone: no includes"
    cubin = nvrtc_compile(source, f"{lab}/{path.name}")
    assert cubin[:4] == b"\x7fELF"
    assert spec["kernel"].encode() + b"\0" in cubin  # extern "C": the symbol is the plain name
    assert declared_params(source, spec["kernel"]) == parse_signature(spec["signature"])[1]


def test_a_compile_error_is_reported():
    with pytest.raises(RuntimeError, match="NVRTC could not compile broken.cu"):
        nvrtc_compile('extern "C" __global__ void broken( {', "broken.cu")


def test_a_host_include_does_not_compile_with_nvrtc_alone():
    with pytest.raises(RuntimeError, match="NVRTC could not compile"):
        nvrtc_compile('#include <cstdio>\nextern "C" __global__ void k() {}', "host.cu")


@pytest.mark.parametrize("lab", CUDA_LABS)
def test_skeleton_has_gaps_and_is_not_the_solution(lab):
    spec = load_spec(lab)
    skeleton = (LABS / lab / spec["student_file"]).read_text()
    solution = (solution_dir(lab) / spec["student_file"]).read_text()
    assert "//@@" in skeleton
    assert "//@@" not in solution
    # The kernel body without comments: a skeleton's must be (much) shorter than the solution's.
    assert len(strip_comments(skeleton)) < len(strip_comments(solution))


@pytest.mark.parametrize("lab", LAB_NAMES)
def test_no_file_in_the_lab_folder_is_a_solution(lab):
    strip = strip_py_comments if is_python_lab(lab) else strip_comments
    suffix = Path(load_spec(lab)["student_file"]).suffix
    solutions = {strip(p.read_text()) for p in (solution_dir(lab)).iterdir() if p.is_file()}
    for p in (LABS / lab).iterdir():  # what `lab start` copies: the lab folder's own files
        if p.is_file() and p.suffix in (".cu", ".cuh", ".h", ".py"):
            assert strip(p.read_text()) not in solutions, f"{p} is a solution"
            assert p.suffix != suffix or p.name == load_spec(lab)["student_file"], f"{p}: one {suffix} per lab folder"


def planted_header(path, comment: str):
    """A planted file's expectations ({"expect": text, "expect-check": "pass", "expect-grade": ...},
    its first lines, as tests/test_lab.cpp reads them) and the line after them."""
    header = {}
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        found = re.fullmatch(re.escape(comment) + r" (expect(?:-check|-sanitize|-grade|-feedback)?): (\S.{0,60})", line)
        if not found:
            return header, line
        header[found[1]] = found[2]
    return header, ""


@pytest.mark.parametrize("lab, role, path", [s for s in SOURCES if s[1] == "planted"],
                         ids=[f"{lab}/{p.name}" for lab, role, p in SOURCES if role == "planted"])
def test_planted_mistake_says_what_to_expect_and_differs_from_the_solution(lab, role, path):
    header, description = planted_header(path, "//")
    assert header, "first lines: // expect: <short substring>, or // expect-check: pass, ... (tests/test_lab.cpp)"
    assert description.startswith("// ") and len(description) > 10, "after them: what the mistake is"
    solution = (solution_dir(lab) / load_spec(lab)["student_file"]).read_text()
    assert strip_comments(path.read_text()) != strip_comments(solution)


# --- Python labs ----------------------------------------------------------------------------------

def strip_py_comments(source: str) -> str:
    """The code without comments and docstrings (ast.unparse drops comments)."""
    import ast

    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body[0] = ast.Pass()
    return ast.unparse(tree)


def lab_rules():
    import layerbench.lab as lb_lab_python

    return lb_lab_python


def is_triton_lab(lab: str) -> bool:
    return load_spec(lab).get("runner") == "triton"


def check_rules(lab: str, path: Path):
    """The lab's rules on `path`: a Triton lab's (check_triton_file), else a Numba lab's."""
    rules, spec = lab_rules(), load_spec(lab)
    check = rules.check_triton_file if is_triton_lab(lab) else rules.check_file
    return check(str(path), spec["kernel"], len(spec["arguments"]))


def compile_command(lab: str, path: Path) -> list[str]:
    """The runner's compile process for `path` (copied into its working folder), as the child starts it."""
    spec = load_spec(lab)
    if is_triton_lab(lab):
        types = ",".join(spec["vocabulary"][a] for a in spec["arguments"])
        return [sys.executable, "-m", "layerbench.lab.triton_compile", path.name, spec["kernel"], types, "90",
                "kernel.json", "--num-warps", str(spec["launch"]["block"][0] // 32)]
    return [sys.executable, "-m", "layerbench.lab.numba_compile", path.name, spec["kernel"],
            ",".join(spec["arguments"]), "90", "kernel.json"]


def python_sources() -> list[tuple[str, str, Path]]:
    out = []
    for lab in PYTHON_LABS:
        student = load_spec(lab)["student_file"]
        out.append((lab, "skeleton", LABS / lab / student))
        out.append((lab, "solution", solution_dir(lab) / student))
        out += [(lab, "planted", p) for p in sorted(wrong_dir(lab).glob("*.py"))]
    return out


PY_SOURCES = python_sources()


def test_there_is_a_python_lab():
    assert "05-numba-vector-add" in PYTHON_LABS


@pytest.mark.parametrize("lab, role, path", PY_SOURCES, ids=[f"{lab}/{role}/{p.name}" for lab, role, p in PY_SOURCES])
def test_python_source_follows_the_rules_or_is_rejected_as_it_expects(lab, role, path, tmp_path_factory):
    rules = lab_rules()
    expect = planted_header(path, "#")[0].get("expect") if role == "planted" else None
    try:
        check_rules(lab, path)
    except rules.StudentError as e:
        assert role == "planted", f"the {role} breaks the lab's rules: {e}"
        assert expect in str(e), f"expected {expect!r} in: {e}"
        assert str(e).startswith(f"{path}:"), str(e)
        return
    # It follows the rules: it must then be a kernel Numba (Triton) compiles for the lab's argument
    # types, in the compile process the runner uses (never imported here: a signature string runs
    # Python on import, and wrong/signature_runs_host_code.py exits the process that imports it).
    if is_triton_lab(lab):
        pytest.importorskip("triton", reason="triton is not installed (the GPU image has triton 3.6; CI does not)")
    else:
        pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (variants/python/requirements.txt)")
    if role == "planted" and expect and "PermissionError" in expect:
        # It stops or outlives whatever runs it (wrong/signature_stops_grader.py stopped this pytest
        # in CI): only the student's sandbox holds it, where test_student_sandbox compiles it.
        pytest.skip("attacks the process that runs it: compiled only in the student's sandbox "
                    "(StudentSandbox.LabFivesPlantedSignaturesGetPermissionErrors)")
    work = tmp_path_factory.mktemp("compile")
    shutil.copy(path, work / path.name)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH")) if p)  # keeps carried wheels
    done = subprocess.run(compile_command(lab, path), cwd=work, env=env, capture_output=True, text=True, timeout=600)
    if not (work / "kernel.json").exists():
        # Only a planted file may hand back nothing, and only one that expects it (the C++ side's words).
        assert role == "planted" and expect == "handed back no kernel", (done.returncode, done.stdout, done.stderr)
        return
    assert done.returncode == 0, done.stderr
    result = json.loads((work / "kernel.json").read_text())
    assert ".target sm_90" in result["ptx"] and f".entry {result['entry']}(" in result["ptx"]


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_python_planted_files_cover_the_rules_and_the_gpu(lab):
    rules = lab_rules()
    rejected = []
    for p in sorted(wrong_dir(lab).glob("*.py")):
        try:
            check_rules(lab, p)
        except rules.StudentError:
            rejected.append(p.name)
    total = len(list(wrong_dir(lab).glob("*.py")))
    assert len(rejected) >= 2, "planted rule breakers (host code, patching) are missing"
    assert total - len(rejected) >= 3, "planted files that are wrong on the GPU are missing"


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_python_skeleton_has_gaps_and_is_not_the_solution(lab):
    spec = load_spec(lab)
    skeleton = (LABS / lab / spec["student_file"]).read_text()
    solution = (solution_dir(lab) / spec["student_file"]).read_text()
    assert "#@@" in skeleton
    assert "#@@" not in solution
    assert len(strip_py_comments(skeleton)) < len(strip_py_comments(solution))


@pytest.mark.parametrize("lab, role, path", [s for s in PY_SOURCES if s[1] == "planted"],
                         ids=[f"{lab}/{p.name}" for lab, role, p in PY_SOURCES if role == "planted"])
def test_python_planted_mistake_says_what_to_expect(lab, role, path):
    header, description = planted_header(path, "#")
    assert header, "first lines: # expect: <short substring>, or # expect-check: pass, ... (tests/test_lab.cpp)"
    assert description.startswith("# ") and len(description) > 10, "after them: what the mistake is"
    solution = (solution_dir(lab) / load_spec(lab)["student_file"]).read_text()
    assert strip_py_comments(path.read_text()) != strip_py_comments(solution)
