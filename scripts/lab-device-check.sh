#!/usr/bin/env bash
# The labs on a GPU machine, for a closing note or a teacher's first look: every lab's reference
# solution graded, every skeleton checked, each lab's planted wrong submissions graded as a class
# (CSV + JSON), the watchdog's stop time on a kernel that never ends, and (where installed)
# compute-sanitizer on an out-of-bounds kernel and ncu on lab 1's solution.
# Expects build/layerbench (scripts/build.sh). Files go to $OUT or ./lab-out; a summary comes last.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-lab-out}"
mkdir -p "$out"
lb=build/layerbench
labs=$($lb lab list | awk '/^  [0-9]/ {print $1}')
for lab in $labs; do
  file=$(python3 -c "import json,sys; print(json.load(open('labs/$lab/lab.json'))['student_file'])")
  echo "== $lab"
  $lb lab grade "$lab" "labs/$lab/solution/$file" --json "$out/$lab.solution.json" --markdown "$out/$lab.solution.md" \
    >"$out/$lab.solution.txt" 2>&1
  echo "solution: exit $? | $(grep '^GRADE' "$out/$lab.solution.txt") | $(grep 'runs at' "$out/$lab.solution.txt" | sed 's/^ *//')"
  $lb lab check "$lab" "labs/$lab/$file" >"$out/$lab.skeleton.txt" 2>&1
  echo "skeleton: exit $? | $(grep -m1 'FAIL ' "$out/$lab.skeleton.txt" | sed 's/^ *//')"
  if compgen -G "labs/$lab/wrong/*" >/dev/null; then
    planted=$(ls labs/$lab/wrong/* | grep -v '/hang\.')
    # shellcheck disable=SC2086
    $lb lab grade "$lab" $planted --csv "$out/$lab.planted.csv" --json "$out/$lab.planted.json" \
      >"$out/$lab.planted.txt" 2>&1
    echo "planted: exit $? | $(($(wc -l <"$out/$lab.planted.csv") - 1)) graded (CSV: $out/$lab.planted.csv)"
  fi
done
hang=labs/01-vector-add/wrong/hang.cu
start=$(date +%s%N)
$lb lab check 01-vector-add "$hang" >"$out/hang.txt" 2>&1
echo "watchdog: exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms for the whole check | $(grep -m1 'stopped' "$out/hang.txt" | sed 's/^ *//')"
$lb lab check --sanitize 01-vector-add labs/01-vector-add/wrong/no_bounds_check.cu >"$out/sanitize.txt" 2>&1
echo "sanitize (no bounds check): exit $?"
$lb lab profile 01-vector-add labs/01-vector-add/solution/vector_add.cu >"$out/profile.txt" 2>&1
echo "profile (lab 1 solution): exit $?"
