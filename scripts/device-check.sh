#!/usr/bin/env bash
# One call on a lent GPU machine: a clean build, every test, then the default suite twice (the
# first with an empty kernel cache, the second hitting it), each timed as a whole process.
# Logs and results go to $OUT (the device tool's folder) or ./device-out; a short table comes last.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-device-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
rm -rf build
scripts/test.sh >"$out/test.log" 2>&1
echo "tests exit code: $?"
grep -E "tests passed|\(Failed\)|\(Skipped\)|Not Run" "$out/test.log" | head -40
export LAYERBENCH_KERNEL_CACHE="$(mktemp -d)"
for run in 1 2; do
  start=$(date +%s%N)
  build/layerbench run --out "$out/suite$run.json" >"$out/suite$run.log" 2>"$out/suite$run.err"
  code=$?
  echo "suite $run exit code: $code, wall $(( ($(date +%s%N) - start) / 1000000 )) ms (whole process, context creation included)"
done
sed -n '/^workload /,$p' "$out/suite2.log" | head -n 110
python3 scripts/compare-runs.py "$out/suite1.json" "$out/suite2.json"
