#!/usr/bin/env bash
# Quick start 2: installs what is missing, builds, and runs every test. GPU tests skip (and say
# so) on a machine without a CUDA device; on a GPU machine they run.
# Shows the build's stages (scripts/build.sh), then the tests' progress (one line rewritten in place
# on a terminal; elsewhere, as in CI, a line at each tenth of the way and one for each failure),
# the output of the first failures, and a short summary: passed, failed, and skipped grouped by
# reason (scripts/test-summary.py). ctest's whole output goes to build/test.log. The exit status is
# ctest's: non-zero when a test failed. Arguments go to ctest (e.g. -R 'Lab\.' runs those alone).
#
# Tests run side by side, `ctest -j` by cores, on a GPU machine too: GPU tests check answers and
# share the device; those that need it alone (timing, the profiler, the sanitizer) carry the label
# gpu_exclusive and take a whole GPU, some the whole host (tests/test_properties.cmake,
# docs/hardening.md), and are named before the run; they start first (their COST), while nothing
# else runs, so that no test waits for the others to drain. On a GPU machine ctest gets a resource spec file
# (build/gpu-resources.json) with one entry per device found (nvidia-smi -L, or CUDA_VISIBLE_DEVICES
# where set), so that tests spread over the GPUs; without a GPU, none. --quick runs the quick tier
# (ctest -L quick: parsing, verification, the record, one case per layer), what to run before each
# commit, without installing Chromium or the services.
# Each stage's wall and CPU seconds, with the 15 longest tests, go to build/timings.json.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
say() { echo "test: $*" >&2; }
build="${LAYERBENCH_BUILD_DIR:-build}"
quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
fi
scripts/build.sh
if [ "$quick" = 1 ]; then
  set -- -L quick "$@"
else
  # Chromium, for the tests that open a report or a leaderboard in a headless browser
  # (tests/reports/test_chromium.py, tests/python/test_lab_leaderboard_browser.py; it skips, saying
  # why, where Chromium cannot be installed). Running layerbench never needs it.
  scripts/install-report-deps.sh --chromium 2>&1 | sed 's/^/test: /' >&2
  # Slurm, munge and PostgreSQL, which the fleet and history tests start on localhost (tests/slurm,
  # tests/reports/test_db.py); they skip, saying why, where these cannot be installed.
  scripts/install-test-services.sh 2>&1 | sed 's/^/test: /' >&2
fi

cd "$build"
log=test.log
junit=Testing/junit.xml
mkdir -p Testing
rm -f "$junit"
jobs="$(nproc)"
cpu_seconds() {  # cpu=the CPU seconds of this script's finished children so far (bash's `times`,
  # run in this shell: in a $(...) subshell it would count the subshell's children only)
  times >.times
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] } printf "%.1f", s }' .times)
}
cpu_seconds
cpu_start=$cpu
# The GPUs, as ctest's resource "gpus": ids gpu0..gpuK-1, in the order of CUDA_VISIBLE_DEVICES where
# set (tests/gpu_slot.sh maps an id back to its device), each with as many slots as tests/CMakeLists.txt
# says (LB_GPU_SLOTS: a test takes 1, or all of them to have the GPU alone).
resources=()
gpus=0
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
  gpus=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c . || true)
elif command -v nvidia-smi >/dev/null; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
rm -f gpu-resources.json
if [ "$gpus" -gt 0 ]; then
  slots="$(cat gpu_slots.txt)"
  python3 -c '
import json, sys
gpus, slots = int(sys.argv[1]), int(sys.argv[2])
print(json.dumps({"version": {"major": 1, "minor": 0},
                  "local": [{"gpus": [{"id": f"gpu{i}", "slots": slots} for i in range(gpus)]}]}, indent=2))
' "$gpus" "$slots" >gpu-resources.json
  resources=(--resource-spec-file "$PWD/gpu-resources.json")
  say "$gpus GPU(s): tests spread over them ($build/gpu-resources.json, $slots slots each)"
fi
# The tests that hold the GPU alone (a whole GPU's slots; some RUN_SERIAL too), named before the run.
exclusive=""
[ "$quick" = 1 ] || exclusive="$(ctest -N -L gpu_exclusive "$@" 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: //p' || true)"
if [ -n "$exclusive" ]; then
  say "tests that hold the GPU alone (label gpu_exclusive; docs/hardening.md says why), run one at a time, first:"
  echo "$exclusive" | sed 's/^/test:   /' >&2
fi
tty=0
[ -t 2 ] && [ "${TERM:-dumb}" != dumb ] && tty=1
width=$(( $(tput cols 2>/dev/null || echo 100) - 1 ))
start=$SECONDS
elapsed() { local s=$((SECONDS - start)); if [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi; }

# ctest's lines: " 65/644 Test  #66: Name .....***Skipped   0.49 sec".
progress() {
  local line n total name result shown=-1 text
  while IFS= read -r line; do
    [[ "$line" =~ ^\ *([0-9]+)/([0-9]+)\ Test\ +#[0-9]+:\ ([^ ]+).*(Passed|\*\*\*[^0-9]*[^ 0-9])\ +[0-9.]+\ sec$ ]] || continue
    n=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]} name=${BASH_REMATCH[3]} result=${BASH_REMATCH[4]}
    result=${result#\*\*\*}
    text="test: [$n/$total] $(elapsed) $name: $result"
    if [ "$result" != Passed ] && [ "$result" != Skipped ]; then
      [ "$tty" = 1 ] && printf '\r\033[K' >&2
      echo "test: $result: $name" >&2
    fi
    if [ "$tty" = 1 ]; then
      printf '\r\033[K%s' "${text:0:$width}" >&2
    elif [ $((10 * n / total)) -gt "$shown" ]; then
      shown=$((10 * n / total))
      echo "$text" >&2
    fi
  done
  [ "$tty" = 1 ] && printf '\r\033[K' >&2
  return 0
}

say "running the tests with -j$jobs (ctest's whole output: $build/$log)"
set +e
ctest --output-on-failure -j"$jobs" ${resources[@]+"${resources[@]}"} --output-junit "$PWD/$junit" "$@" 2>&1 | tee "$log" | progress
status=${PIPESTATUS[0]}
set -e

# The first failures' output (the end of each), so that CI's log shows why without the whole log.
if [ "$status" -ne 0 ] && [ -f "$junit" ]; then
  python3 - "$junit" <<'EOF' >&2 || true
import sys, xml.etree.ElementTree as ET
failed = [c for c in ET.parse(sys.argv[1]).getroot().iter("testcase") if c.get("status") == "fail"]
for case in failed[:3]:
    out = case.find("system-out")
    lines = [l for l in (out.text if out is not None and out.text else "").splitlines() if l.strip()]
    print(f"test: --- {case.get('name', '?').split('  #')[0]} (last {min(len(lines), 12)} lines of its output)")
    print("\n".join("  " + l for l in lines[-12:]))
if len(failed) > 3:
    print(f"test: --- the other {len(failed) - 3} failures' output is in the log")
EOF
fi
# ctest's own closing line, then the summary (its last line: "tests: N passed, N failed, N skipped").
wall=$((SECONDS - start))
cpu_seconds
# ctest writes "100% tests passed, 0 tests failed out of N", or (later versions, none failed) "100%
# tests passed out of N".
counts="$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1 |
  sed -E -e 's/^[0-9]+% tests passed, ([0-9]+) tests failed out of ([0-9]+)/failed=\1 tests=\2/' \
         -e 's/^100% tests passed out of ([0-9]+)/failed=0 tests=\1/' || true)"
[[ "$counts" == failed=* ]] || counts=""
python3 "$root/scripts/record-timing.py" timings.json "test.ctest$([ "$quick" = 1 ] && echo .quick)" "$wall" \
  "$(awk -v a="$cpu" -v b="$cpu_start" 'BEGIN { printf "%.1f", a - b }')" jobs="$jobs" $counts || true
[ "$quick" = 1 ] || [ ! -f "$junit" ] || python3 "$root/scripts/record-timing.py" timings.json --longest "$junit" 15 || true
say "ctest ran in $(elapsed): $(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1 || echo "no closing line (see $build/$log)")"
if [ -f "$junit" ] && command -v python3 >/dev/null; then
  python3 "$root/scripts/test-summary.py" "$junit" --log "$build/$log" || true
fi
exit "$status"
