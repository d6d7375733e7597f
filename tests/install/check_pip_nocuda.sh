#!/usr/bin/env bash
# `pip install <checkout>` where there is no CUDA toolkit (a laptop that only reads results): a copy
# of the checkout (the files git would commit: tracked, and untracked but not ignored; no .git, no
# build folders), a fresh virtual environment, PATH without any folder that holds nvcc and no
# CUDACXX/CUDA_HOME/CUDA_PATH, then pip's own build (build isolation, from the registry this
# machine's pip is configured for). It checks that:
#   - CMake built nothing (cmake/NativeHarness.cmake): no compiler ran, the package has no
#     _prefix/bin, and its _prefix/native-left-out.txt says in one line what was left out and why,
#     the line pip -v shows;
#   - the Python side works from another folder: layerbench.load and layerbench.compare on
#     committed results, `layerbench compare` and `layerbench csv` through the console script;
#   - `layerbench run` says in one line that it needs the harness, and why there is none (exit 2);
#   - `layerbench lab list` lists every lab of labs/ (its title, runner and what a check needs) from
#     the package's own copy, and says in one line that checking and grading need the harness and a
#     GPU (exit 0);
#   - layerbench.__version__ and `layerbench --version` give cmake/version.cmake's version;
#   - the install took less than LB_NOCUDA_LIMIT_S seconds (default 60) on a machine that is not
#     busy (more where the load average is above the cores), and says how long, and where the time went.
# Usage: check_pip_nocuda.sh BUILD_DIR PYTHON. Exits 77 (skipped), saying why, where pip reaches no
# registry.
set -euo pipefail
build=$(cd "$1" && pwd)
python=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=${LB_NOCUDA_LIMIT_S:-60}
fail() { echo "check_pip_nocuda: FAILED: $*" >&2; exit 1; }
say() { echo "check_pip_nocuda: $*"; }

work="$build/pip-nocuda"
rm -rf "$work"
mkdir -p "$work/src" "$work/use"
# The commit the copy is of (it has no .git): the version's commit, as a lent machine's copy has it.
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
export LAYERBENCH_SOURCE_COMMIT=$commit
(cd "$root" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
  (cd "$work/src" && tar -xf -) || fail "could not copy $root's files into $work/src"
[ -f "$work/src/pyproject.toml" ] || fail "the copy has no pyproject.toml"
expected=$(cmake -DSOURCE="$work/src" -P "$root/cmake/version.cmake")

# No CUDA toolkit: every PATH folder with an nvcc left out, and nothing else that names one.
path=""
IFS=: read -ra folders <<<"$PATH"
for d in "${folders[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/nvcc" ] && path="${path:+$path:}$d"
done
export PATH=$path
unset CUDACXX CUDA_HOME CUDA_PATH CUDAToolkit_ROOT CUDA_ROOT LAYERBENCH_PYTHON LAYERBENCH_DATA_DIR LAYERBENCH_EXE PYTHONPATH
! command -v nvcc >/dev/null || fail "nvcc is still on PATH: $(command -v nvcc)"

venv="$work/venv"
"$python" -m venv "$venv" || fail "$python -m venv $venv"
if ! "$venv/bin/python" -m pip install --dry-run --quiet --retries 0 --timeout 20 --ignore-installed --no-deps \
     "$(grep -m1 '^scikit-build-core' "$root/python/requirements-build.txt")" >"$work/registry.log" 2>&1; then
  echo "check_pip_nocuda: skipped: pip reaches no package registry from here ($(tail -n 1 "$work/registry.log"))"
  exit 77
fi

start=$(date +%s.%N)
"$venv/bin/python" -m pip install -v --log "$work/pip-timed.log" "$work/src" >"$work/pip.log" 2>&1 ||
  fail "pip install $work/src: $(tail -n 20 "$work/pip.log")"
took=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
# Where the time went, from pip's time-stamped log: its build environment (scikit-build-core, pybind11,
# Cython), the metadata, the wheel (CMake), and the rest (jsonschema, the install).
phases=$(python3 - "$work/pip-timed.log" <<'PY'
import re, sys
from datetime import datetime
marks = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d+)\s+(.*)", line)
    if not m:
        continue
    t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S,%f")
    marks.setdefault("first", t)
    marks["last"] = t
    for key in ("Installing build dependencies: started", "Installing build dependencies: finished",
                "Preparing metadata (pyproject.toml): finished", "Building wheel for layerbench (pyproject.toml): started",
                "Building wheel for layerbench (pyproject.toml): finished"):
        if key in m.group(2):
            marks.setdefault(key, t)
s = lambda a, b: f"{(marks[b] - marks[a]).total_seconds():.1f} s" if a in marks and b in marks else "?"
print(f"build environment {s('Installing build dependencies: started', 'Installing build dependencies: finished')}, "
      f"wheel (CMake) {s('Building wheel for layerbench (pyproject.toml): started', 'Building wheel for layerbench (pyproject.toml): finished')}, "
      f"all {s('first', 'last')}")
PY
)
load=$(cut -d' ' -f1 /proc/loadavg)
cores=$(nproc)
say "pip install of the checkout without CUDA took $took s ($phases; load average $load on $cores cores; log: $work/pip.log)"

site=$("$venv/bin/python" -c 'import layerbench, pathlib; print(pathlib.Path(layerbench.__file__).parent)')
[ "$site" != "${site#"$venv"}" ] || fail "layerbench imports from $site, not from the venv"
[ ! -e "$site/_prefix/bin" ] || fail "the package has a native binary: $(ls "$site/_prefix/bin")"
line=$(cat "$site/_prefix/native-left-out.txt" 2>/dev/null) || fail "no _prefix/native-left-out.txt in $site"
[ "$(wc -l <"$site/_prefix/native-left-out.txt")" = 1 ] || fail "native-left-out.txt is not one line: $line"
case "$line" in *"left out the native harness"*"no CUDA compiler found"*) ;; *) fail "native-left-out.txt: $line" ;; esac
grep -qF "$line" "$work/pip.log" || fail "pip -v's log does not show the line: $line"
! grep -E "Building (CXX|CUDA|C) object|Linking (CXX|CUDA)" "$work/pip.log" >/dev/null ||
  fail "pip's build compiled something: $(grep -m3 -E 'Building (CXX|CUDA|C) object|Linking (CXX|CUDA)' "$work/pip.log")"

cd "$work/use"
fixtures="$root/tests/reports/fixtures"
"$venv/bin/python" - "$fixtures" "$expected" <<'PY' || fail "the API in the install without CUDA"
import sys
from pathlib import Path
import layerbench
fixtures, expected = Path(sys.argv[1]), sys.argv[2]
assert layerbench.__version__ == expected, (layerbench.__version__, expected)
base, new = layerbench.load(fixtures / "h200_run1.json"), layerbench.load(fixtures / "h200_run2.json")
c = layerbench.compare(base, new, threshold=5)
assert c.rows and all(r.verdict in ("faster", "slower", "same", "unclear") for r in c.rows), c
assert "| BASE |" in c.to_markdown()
try:
    layerbench.run(workloads="vector_add", layers="cpu", sizes=1000)
except layerbench.RunError as e:
    assert "no CUDA compiler found" in str(e), e
else:
    raise AssertionError("run() ran without a native harness")
print(f"check_pip_nocuda: layerbench {layerbench.__version__}: load and compare of {len(c.rows)} cases")
PY
lb="$venv/bin/layerbench"
code=0
"$lb" compare "$fixtures/h200_run1.json" "$fixtures/h200_run2.json" >compare.txt 2>&1 || code=$?
[ "$code" -le 1 ] && grep -q "| BASE |" compare.txt || fail "layerbench compare exited $code: $(tail -n 3 compare.txt)"
"$lb" csv "$fixtures/cpu_only_no_driver.json" >csv.txt 2>&1 || fail "layerbench csv: $(tail -n 3 csv.txt)"
grep -q vector_add csv.txt || fail "layerbench csv names no vector_add: $(head -n 3 csv.txt)"
"$lb" --version >version.txt 2>&1 || fail "layerbench --version: $(cat version.txt)"
grep -qF "layerbench $expected (Python side only: left out the native harness" version.txt ||
  fail "layerbench --version: $(cat version.txt)"
code=0
"$lb" run -l cpu >run.txt 2>&1 || code=$?
[ "$code" = 2 ] && [ "$(wc -l <run.txt)" = 1 ] && grep -q "needs the native harness.*no CUDA compiler found" run.txt ||
  fail "layerbench run without the harness: exit $code, $(cat run.txt)"
code=0
"$lb" lab list >labs.txt 2>&1 || code=$?
[ "$code" = 0 ] || fail "layerbench lab list without the harness: exit $code, $(tail -n 3 labs.txt)"
python3 - "$root/labs" "$site/_prefix/share/layerbench/labs" labs.txt <<'PY' || fail "layerbench lab list without the harness: $(cat labs.txt)"
import json, re, sys
from pathlib import Path
labs, shipped, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]).read_text()
lines = out.splitlines()
assert lines[0] == f"Labs in {shipped}:", lines[0]
rows = [line for line in lines if re.match(r"  \d\d-", line)]
specs = sorted(labs.glob("*/lab.json"))
assert len(rows) == len(specs), f"{len(rows)} labs listed, {len(specs)} in labs/"
for path in specs:
    spec = json.loads(path.read_text())
    row = next((r for r in rows if r.split()[0] == path.parent.name), "")
    assert row.endswith(spec["title"]) and f" {spec['runner']} " in row and " a GPU" in row, (path, row)
assert lines[-1].startswith("Checking and grading (`layerbench lab check|grade`) need the native harness and a GPU: "
                            "this install left out the native harness"), lines[-1]
PY
say "lab list: $(grep -cE '^  [0-9][0-9]-' labs.txt) labs listed without the harness"
# The limit is for a machine that is not busy: where other work loads it (load average above its
# cores), the limit grows by that factor, and says so.
limit=$(python3 -c "import sys; print(f'{float(sys.argv[1]) * max(1.0, float(sys.argv[2]) / float(sys.argv[3])):.0f}')" \
        "$limit" "$load" "$cores")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$took" "$limit" ||
  fail "pip install without CUDA took $took s, over $limit s (${LB_NOCUDA_LIMIT_S:-60} s at a load average of $cores or less; it was $load)"
say "ok: $took s; no compile; $(cat version.txt)"
