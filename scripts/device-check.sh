#!/usr/bin/env bash
# One call on a lent GPU machine: a clean build, every test, compute-sanitizer over every case
# (scripts/sanitize.sh), then the default suite twice (the
# first with empty kernel caches, ours and the libraries', the second hitting them), each timed as a whole
# process; the second is left out when the call has used $DEVICE_CHECK_SECOND_RUN_BEFORE_S (450)
# seconds, so that the call ends inside the device tool's 10-minute limit.
# Wheels in .whl/ (scripts/collect-wheels.sh; the machine has no package registry) are installed
# into a target folder first and put on PYTHONPATH, which the build, the tests and layerbench's
# embedded interpreter all follow (docs/offline-install.md).
# Logs and results go to $OUT (the device tool's folder) or ./device-out; a short table comes last.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-device-out}"
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
  site="${DEVICE_CHECK_SITE:-/tmp/layerbench-site}"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl ||
    { echo "device-check: could not install .whl/ into $site"; exit 1; }
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  echo "installed $(ls .whl/*.whl | wc -l) wheels from .whl/ into $site"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
call_start=$(date +%s)
rm -rf build
scripts/test.sh >"$out/test.log" 2>&1
echo "tests exit code: $?"
grep -E "tests passed|\(Failed\)|\(Skipped\)|Not Run" "$out/test.log" | head -40
build/layerbench list | sed -n '/^Python layers/,$p'
# compute-sanitizer's four tools over every layer x workload on edge sizes (run --check), in parallel,
# each bounded; DEVICE_CHECK_SANITIZE=0 leaves it out.
if [ "${DEVICE_CHECK_SANITIZE:-1}" != 0 ]; then
  scripts/sanitize.sh --budget "${DEVICE_CHECK_SANITIZE_BUDGET_S:-240}" --out "$out/sanitize" | tail -n 30
  echo "sanitize exit code: ${PIPESTATUS[0]}"
fi
# Every kernel cache starts empty for suite 1: ours, CuPy's, Numba's and PyCUDA's (under XDG_CACHE_HOME).
export LAYERBENCH_KERNEL_CACHE="$(mktemp -d)" CUPY_CACHE_DIR="$(mktemp -d)" NUMBA_CACHE_DIR="$(mktemp -d)" \
  XDG_CACHE_HOME="$(mktemp -d)"
for run in 1 2; do
  if [ "$run" = 2 ] && [ $(( $(date +%s) - call_start )) -gt "${DEVICE_CHECK_SECOND_RUN_BEFORE_S:-450}" ]; then
    echo "suite 2 left out: the call has run $(( $(date +%s) - call_start )) s"
    break
  fi
  start=$(date +%s%N)
  build/layerbench run --out "$out/suite$run.json" >"$out/suite$run.log" 2>"$out/suite$run.err"
  code=$?
  echo "suite $run exit code: $code, wall $(( ($(date +%s%N) - start) / 1000000 )) ms (whole process, context creation included)"
done
if [ -f "$out/suite2.json" ]; then
  LAYERBENCH_PYTHON=python3 tools/compare-runs "$out/suite1.json" "$out/suite2.json" >"$out/compare.txt"
  tail -n 25 "$out/compare.txt"
  LAYERBENCH_PYTHON=python3 tools/layer-figures "$out/suite1.json" "$out/suite2.json"
else
  LAYERBENCH_PYTHON=python3 tools/layer-figures "$out/suite1.json"
fi
