#!/usr/bin/env bash
# One call on a lent GPU machine: build from clean, run every test, run the default suite twice
# is not needed here; once, timed. Logs and the results land in $OUT (the device tool's folder)
# or ./device-out. Prints a short table last.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-device-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
rm -rf build
scripts/test.sh >"$out/test.log" 2>&1
echo "tests exit code: $?"
grep -E "tests passed|tests failed|Skipped|\*\*\*Failed|Not Run" "$out/test.log" | head -40
start=$(date +%s.%N)
build/layerbench run --out "$out/latest.json" >"$out/suite.log" 2>"$out/suite.err"
echo "suite exit code: $? wall: $(echo "$(date +%s.%N) - $start" | bc) s (process, context creation included)"
tail -n 40 "$out/suite.log"
