"""Where things live (docs/architecture.md): the layout rules of the tree, each a test that fails
naming what breaks it. Each rule is a function of the tree it is given, so that the tests can also
show, on a small tree made here, that it fails when broken.

- lab/ holds no file at its root but a README or an umbrella header: code lives in its rooms;
- no code outside a lab runner's folder (lab/runners/<runner>/) names a runner or includes its
  headers: the names are registered once, in lab/runners/runners.cpp, and read from there;
- lab/grading includes nothing of lab/commands: the commands use the grade, never the reverse;
- no include loop between the C++ sources (a file and its header are one module);
- no import loop in the Python package (python/layerbench), an import inside a function included;
- no Python file over MAX_PYTHON_LINES lines;
- scripts/ holds what a user runs, no test;
- docs/results and the tests' fixtures stay small: what is read, not archives;
- a committed grade names the file it graded where the tree has it.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_PYTHON_LINES = 600
# Bytes under docs/results, and with every tests/**/fixtures/. Raised from 4 and 5 MB when results
# began to keep each case's timed samples (samples_ms, up to 500 a case: P24); raised again in P27,
# when the headline H100 run (docs/results/h100/results.json) became a 20-layer run with its samples
# (0.8 MB of them, which compare's rank test reads) and its same-build pair joined the fixtures
# (0.5 MB gzipped). Samples nothing reads are not kept (warm-caches.json, h200-frameworks/). Raised
# in P29 by the 15 runs of one build behind docs/methodology.md's "Host-timed cases" (0.09 MB
# gzipped, without samples) and the quiet pairs compare's allowances are held to (fixtures/quiet/).
# Raised in P31 by the H100 run of transpose and reduce beside their peers (0.12 MB, without samples).
RESULTS_LIMIT = 6_250_000
RESULTS_AND_FIXTURES_LIMIT = 7_900_000
CPP_SUFFIXES = {".h", ".hpp", ".cuh", ".cpp", ".cc", ".cu"}


def tracked(root: Path) -> list[Path]:
    """The files of the tree: git's tracked files in a checkout (a build folder, a report written
    into docs/results/ or a virtual environment is no part of it), else every file under root."""
    if (root / ".git").exists():
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        return [root / p for p in listed.decode().split("\0") if p and (root / p).is_file()]
    skip = {".git", ".venv", ".deps", ".whl", "build", "__pycache__"}
    return [p for p in root.rglob("*") if p.is_file() and not skip & set(p.relative_to(root).parts)]


# --- lab/ ----------------------------------------------------------------------------------------

def lab_root_files(root: Path) -> list[str]:
    """Files at lab/'s root that are neither its README nor an umbrella header (lab/lab.h)."""
    return sorted(p.name for p in (root / "lab").iterdir()
                  if p.is_file() and p.name not in ("README.md", "lab.h"))


REGISTRATION = re.compile(r'make_unique<\w+>\(\s*"([^"]+)"')


def runner_names(root: Path) -> list[str]:
    """The lab runners lab/runners/runners.cpp registers, by name."""
    return REGISTRATION.findall((root / "lab" / "runners" / "runners.cpp").read_text())


def runner_name_uses(root: Path, files: list[Path]) -> list[str]:
    """`file:line: what` for each string literal naming a registered runner, and each include of a
    header in a runner's folder, in the lab's code (lab/, app/) outside the runner's own folder and
    the registry. The Python runners' own code is lab/runners/python/ and the package it loads,
    python/layerbench/lab/; the layers that share some runners' names (numba, pycuda, cuda-core)
    live in variants/, where the name is the layer's."""
    names = runner_names(root)
    literal = re.compile(r"""(["'])(%s)\1""" % "|".join(map(re.escape, names)))
    runners = root / "lab" / "runners"
    folders = sorted(p.name for p in runners.iterdir() if p.is_dir())
    include = re.compile(r'#\s*include\s*"lab/runners/(%s)/' % "|".join(map(re.escape, folders))) if folders else None
    found = []
    for path in files:
        rel = path.relative_to(root)
        if rel.parts[0] not in ("lab", "app") or path.suffix not in CPP_SUFFIXES | {".py"}:
            continue
        if path == runners / "runners.cpp" or (path.is_relative_to(runners) and path.parent != runners):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if include and (m := include.search(line)):
                found.append(f"{rel}:{number}: includes lab/runners/{m.group(1)}/")
            code = line.split("//")[0] if path.suffix != ".py" else line.split("#")[0]
            found += [f"{rel}:{number}: {m.group(0)}" for m in literal.finditer(code)]
    return found


def test_lab_root_holds_only_a_readme_or_an_umbrella_header():
    assert lab_root_files(REPO) == [], "move these into lab/'s rooms (spec, commands, child, runners, grading)"


def test_the_runners_are_registered():
    assert len(runner_names(REPO)) >= 3, "lab/runners/runners.cpp: the registrations were not found"


def test_no_code_outside_a_runners_folder_names_a_runner():
    assert runner_name_uses(REPO, tracked(REPO)) == []


def grading_includes_of_commands(root: Path, files: list[Path]) -> list[str]:
    """"file:line: the include" for each include of lab/commands/ in lab/grading/."""
    found = []
    for path in files:
        rel = path.relative_to(root)
        if rel.parts[:2] != ("lab", "grading") or path.suffix not in CPP_SUFFIXES:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if re.match(r'\s*#\s*include\s*"lab/commands/', line):
                found.append(f"{rel.as_posix()}:{number}: {line.strip()}")
    return found


def test_grading_includes_nothing_of_the_commands():
    assert grading_includes_of_commands(REPO, tracked(REPO)) == []


# --- include and import loops ----------------------------------------------------------------------

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def include_graph(root: Path, files: list[Path]) -> dict[str, set[str]]:
    """Module -> the modules it includes, over the repository's own C++ sources. A module is a path
    without its suffix (a.h, a.cpp and a.cu are module a); an include is resolved against the
    including file's folder, then the repository root (the build's include path)."""
    sources = {p for p in files if p.suffix in CPP_SUFFIXES}
    graph: dict[str, set[str]] = {}
    for path in sorted(sources):
        module = path.relative_to(root).with_suffix("").as_posix()
        edges = graph.setdefault(module, set())
        for name in INCLUDE.findall(path.read_text(errors="replace")):
            for base in (path.parent, root):
                target = (base / name).resolve()
                if target in sources:
                    included = target.relative_to(root).with_suffix("").as_posix()
                    if included != module:
                        edges.add(included)
                    break
    return graph


def python_import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports, anywhere in its file (an import inside
    a function is still a dependency). Modules are dotted names relative to the package's parent."""
    top = package.parent
    modules = {p.relative_to(top).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__"): p
               for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = name.split(".")
                    base = parts[:len(parts) - node.level + (1 if is_package else 0)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
            for target in targets:
                # The longest module the name lies in: `from . import fmt` is module pkg.fmt.
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    edges.add(target)
    return graph


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm), each sorted:
    every include or import loop, once."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_include_loop():
    assert loops(include_graph(REPO, tracked(REPO))) == []


def test_no_import_loop_in_the_python_package():
    assert loops(python_import_graph(REPO / "python" / "layerbench")) == []


# --- sizes and places --------------------------------------------------------------------------------

def long_python_files(files: list[Path], root: Path) -> list[str]:
    return [f"{p.relative_to(root)}: {n} lines" for p in files if p.suffix == ".py"
            and (n := len(p.read_text(errors="replace").splitlines())) > MAX_PYTHON_LINES]


def test_no_python_file_is_over_the_limit():
    assert long_python_files(tracked(REPO), REPO) == [], f"split these: at most {MAX_PYTHON_LINES} lines a file"


TEST_MARKS = re.compile(r"^\s*(?:def test_\w+|import pytest|from pytest|import unittest|TEST(?:_F|_P)?\()", re.M)


def scripts_that_are_tests(files: list[Path], root: Path) -> list[str]:
    """Files under scripts/ that are tests: named as one (test_*.py, *_test.*), or holding test
    functions, pytest or unittest. Scripts that run the tests (scripts/test.sh) are not tests."""
    found = []
    for p in files:
        rel = p.relative_to(root)
        if rel.parts[0] != "scripts":
            continue
        if re.match(r"test_.*\.py$|.*_test\.\w+$", p.name) or TEST_MARKS.search(p.read_text(errors="replace")):
            found.append(str(rel))
    return found


def test_scripts_holds_no_test():
    assert scripts_that_are_tests(tracked(REPO), REPO) == [], "tests live under tests/"


def sizes(files: list[Path], root: Path) -> tuple[int, int]:
    """(bytes under docs/results, bytes under every tests/**/fixtures/)."""
    results = sum(p.stat().st_size for p in files if p.relative_to(root).parts[:2] == ("docs", "results"))
    fixtures = sum(p.stat().st_size for p in files
                   if p.relative_to(root).parts[0] == "tests" and "fixtures" in p.relative_to(root).parts[:-1])
    return results, fixtures


def test_docs_results_and_fixtures_are_small():
    results, fixtures = sizes(tracked(REPO), REPO)
    assert results <= RESULTS_LIMIT, (f"docs/results holds {results:,} bytes (at most {RESULTS_LIMIT:,}): "
                                      "keep only what is read")
    assert results + fixtures <= RESULTS_AND_FIXTURES_LIMIT, (
        f"docs/results and the fixtures hold {results + fixtures:,} bytes (at most {RESULTS_AND_FIXTURES_LIMIT:,}): "
        "trim fixtures to the cases a test reads")


def graded_files_missing(root: Path, files: list[Path]) -> list[str]:
    """The submissions that committed grade files (`lab grade --json`: labs/*/expected/, the runs
    under docs/results/) name by a path the tree no longer has: a grade says which file it graded."""
    missing = []
    for path in files:
        rel = path.relative_to(root)
        if path.suffix != ".json" or not (rel.parts[0] == "labs" and "expected" in rel.parts
                                          or rel.parts[:2] == ("docs", "results")):
            continue
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("submissions"), list):
            continue
        missing += [f"{rel}: {s['file']}" for s in data["submissions"]
                    if isinstance(s, dict) and "file" in s and not (root / s["file"]).is_file()]
    return missing


def test_committed_grades_name_files_in_the_tree():
    assert graded_files_missing(REPO, tracked(REPO)) == [], "a file moved: write its grade's path where it is now"


# --- each rule fails when broken (a small tree made here) --------------------------------------------

@pytest.fixture()
def tree(tmp_path):
    def write(rel: str, text: str = "") -> Path:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path
    write("lab/README.md")
    write("lab/runners/runners.cpp", 'r.push_back(std::make_unique<ARunner>("alpha", ".cu"));\n'
                                     'r.push_back(std::make_unique<BRunner>("beta-two", ".py"));\n')
    write.root = tmp_path
    return write


def test_the_rules_see_what_breaks_them(tree):
    root = tree.root
    assert lab_root_files(root) == []
    tree("lab/lab_check.cpp")
    assert lab_root_files(root) == ["lab_check.cpp"]

    tree("lab/runners/alpha/alpha_runner.cpp", 'if (name == "alpha") {}')  # its own folder: allowed
    tree("variants/beta-two/layer.cpp", 'name = "beta-two";')  # a layer of the same name: not lab code
    tree("lab/runners/runner_defaults.cpp", '#include "lab/runners/alpha/alpha_runner.h"\n')
    tree("lab/commands/check.cpp", 'if (spec.runner == "beta-two") {}  // "alpha" in a comment\n')
    tree("app/main.py", "RUNNERS = {'alpha': 1}  # 'beta-two'\n")
    assert runner_names(root) == ["alpha", "beta-two"]
    assert sorted(runner_name_uses(root, tracked(root))) == [
        "app/main.py:1: 'alpha'", 'lab/commands/check.cpp:1: "beta-two"',
        "lab/runners/runner_defaults.cpp:1: includes lab/runners/alpha/"]

    tree("lab/grading/writers/w.cpp", '#include "lab/grading/grading.h"\n#include "lab/commands/lab_check.h"\n')
    assert grading_includes_of_commands(root, tracked(root)) == [
        'lab/grading/writers/w.cpp:2: #include "lab/commands/lab_check.h"']

    tree("lab/a/one.h", '#include "lab/b/two.h"\n')
    tree("lab/b/two.h")
    tree("lab/b/two.cpp", '#include "lab/b/two.h"\n#include "../a/one.h"\n')
    assert loops(include_graph(root, tracked(root))) == [["lab/a/one", "lab/b/two"]]

    tree("pkg/__init__.py", "from .a import x\n")
    tree("pkg/a.py", "from . import b\nx = 1\n")
    tree("pkg/b.py", "def f():\n    from .sub.c import y\n")
    tree("pkg/sub/__init__.py")
    tree("pkg/sub/c.py", "from ..a import x\ny = x\n")
    assert loops(python_import_graph(root / "pkg")) == [["pkg.a", "pkg.b", "pkg.sub.c"]]

    tree("tools/long.py", "x = 1\n" * (MAX_PYTHON_LINES + 1))
    tree("tools/short.py", "x = 1\n" * MAX_PYTHON_LINES)
    assert long_python_files(tracked(root), root) == [f"tools/long.py: {MAX_PYTHON_LINES + 1} lines"]

    tree("scripts/test.sh", "ctest --test-dir build\n")
    tree("scripts/check.py", "import pytest\n")
    tree("scripts/test_rows.py", "")
    assert sorted(scripts_that_are_tests(tracked(root), root)) == ["scripts/check.py", "scripts/test_rows.py"]

    tree("labs/01-x/solution/x.cu")
    tree("labs/01-x/expected/h100.solution.json", '{"submissions": [{"file": "labs/01-x/solution/x.cu"}]}')
    assert graded_files_missing(root, tracked(root)) == []
    tree("labs/01-x/expected/h100.planted.json", '{"submissions": [{"file": "tests/labs/planted/01-x/y.cu"}]}')
    assert graded_files_missing(root, tracked(root)) == [
        "labs/01-x/expected/h100.planted.json: tests/labs/planted/01-x/y.cu"]

    tree("docs/results/h100/results.json", "x" * 100)
    tree("tests/reports/fixtures/run.json", "y" * 10)
    tree("tests/reports/test_report.py", "z" * 1000)
    assert sizes(tracked(root), root) == (100, 10)
