#!/usr/bin/env bash
# One call on a lent GPU machine: a clean build, every test, then the default suite, timed.
# Logs and results go to $OUT (the device tool's folder) or ./device-out; a short table comes last.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-device-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
rm -rf build
scripts/test.sh >"$out/test.log" 2>&1
echo "tests exit code: $?"
grep -E "tests passed|tests failed|\*\*\*Skipped|\*\*\*Failed|Not Run|Failed  " "$out/test.log" | head -40
start=$(date +%s%N)
build/layerbench run --out "$out/latest.json" >"$out/suite.log" 2>"$out/suite.err"
code=$?
echo "suite exit code: $code, wall $(( ($(date +%s%N) - start) / 1000000 )) ms (whole process, context creation included)"
tail -n 40 "$out/suite.log"
