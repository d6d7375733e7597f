#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` into a temporary prefix, moved once installed (the installed
# layerbench finds its files from its own path: common/data_root.h), then run from directories that
# have nothing to do with the source or build tree: `lab list` from /, `lab start` and a CPU `run`
# from a fresh folder, and the report tool (`csv`) on what the run wrote. Usage:
#   check_install.sh BUILD_DIR PYTHON    (PYTHON: the interpreter the reports tool runs with)
set -euo pipefail
build=$(cd "$1" && pwd)
python=$2
fail() { echo "check_install: FAILED: $*" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/lb-install-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/first" >"$scratch/install.log" 2>&1 ||
  fail "cmake --install: $(tail -n 5 "$scratch/install.log")"
mv "$scratch/first" "$scratch/prefix"  # relocatable: nothing in it names where it was installed
exe="$scratch/prefix/bin/layerbench"
[ -x "$exe" ] || fail "no $exe"
for path in share/layerbench/labs share/layerbench/lab share/layerbench/python/layerbench/schemas/results.schema.json \
            share/layerbench/workloads/vector_add/kernels.cu share/layerbench/variants/python/lb_shared.py; do
  [ -e "$scratch/prefix/$path" ] || fail "the install lacks $path"
done
# Whatever is in the environment must not point it back at the tree.
unset LAYERBENCH_LABS LAYERBENCH_DATA_DIR

# lab list, from /: every lab the source tree has, by name
(cd / && "$exe" lab list) >"$scratch/labs.txt" 2>&1 || fail "lab list from /: $(cat "$scratch/labs.txt")"
labs=$(cd "$scratch/prefix/share/layerbench/labs" && ls -d */lab.json | sed 's|/lab.json||')
count=0
for name in $labs; do
  count=$((count + 1))
  grep -q "$name" "$scratch/labs.txt" && continue
  # A lab on a workload folder is left out where the installed layerbench cannot read one (its
  # embedded Python without NumPy): then naming it must say so in one line.
  grep -q '"workload_dir"' "$scratch/prefix/share/layerbench/labs/$name/lab.json" ||
    fail "lab list from / does not name $name: $(cat "$scratch/labs.txt")"
  why=$(cd / && "$exe" lab start "$name" "$scratch/start-$name" 2>&1) && fail "lab start $name worked, but lab list left it out"
  [[ "$why" == *"cannot read a workload folder"* ]] ||
    fail "lab list from / does not name $name, and lab start $name does not say why: $why"
done
[ "$count" -ge 1 ] || fail "no lab installed"

# lab start and a CPU run, from a fresh folder
work="$scratch/work"
mkdir "$work"
first_lab=$(echo "$labs" | head -n 1)
(cd "$work" && "$exe" lab start "$first_lab") >"$scratch/start.txt" 2>&1 || fail "lab start $first_lab: $(cat "$scratch/start.txt")"
[ -n "$(ls -A "$work")" ] || fail "lab start $first_lab wrote nothing into $work"
(cd "$work" && "$exe" run -l cpu -w vector_add -s 1000 -o r.json) >"$scratch/run.txt" 2>&1 ||
  fail "run from $work: $(tail -n 5 "$scratch/run.txt")"
"$python" - "$work/r.json" <<'PY' || fail "the run's results file"
import json, sys
data = json.load(open(sys.argv[1]))
cases = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
assert len(cases) == 1, cases
case = cases[0]
assert (case["workload"], case["layer"], case["n"], case["status"], case["verified"]) == ("vector_add", "cpu", 1000, "ok", True), case
PY
# The reports tool, installed beside it, reads what the run wrote (validated against the installed schema).
(cd "$work" && LAYERBENCH_PYTHON="$python" "$exe" csv r.json) >"$scratch/csv.txt" 2>&1 || fail "csv: $(cat "$scratch/csv.txt")"
grep -q "vector_add" "$scratch/csv.txt" || fail "csv names no vector_add case: $(cat "$scratch/csv.txt")"
echo "check_install: ok: $exe (moved after install) ran lab list from /, lab start, run and csv from $work"
