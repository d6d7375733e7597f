#!/usr/bin/env bash
# Configures and builds layerbench in build/ (Release; $LAYERBENCH_BUILD_DIR names another folder).
# Extra arguments go to CMake's configure step.
# It says what it does, stage by stage, with the time each took: the dependencies (what
# scripts/install-deps.sh installs), the configure (CMake's layerbench lines: which BLAS the cpu
# layer links, where Google Benchmark comes from, the Python layers), and the build's progress
# (one line rewritten in place on a terminal; elsewhere, as in CI, a line at each tenth of the way).
# Everything the steps print goes to build/build.log, which a failure points at.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
build="${LAYERBENCH_BUILD_DIR:-build}"
log="$build/build.log"
mkdir -p "$build"
: >"$log"

say() { echo "build: $*" >&2; }
# ccache (when CMake finds it: CMakeLists.txt) keys its cache on paths relative to the checkout, so
# that another build folder or clone of it reuses what this one compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# Files compiled with a precompiled header (cmake/PrecompiledHeaders.cmake) are cached only with these.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
# The timing record: each stage's wall and CPU seconds (user + sys of what it ran) and the machine,
# in $build/timings.json (scripts/record-timing.py); scripts/test.sh adds its stages to it.
timings="$build/timings.json"
rm -f "$timings"
source scripts/timing.sh  # cpu_seconds, record_stage
record() {  # record STAGE [KEY=VALUE ...]: the stage begun last, ended now
  record_stage "$timings" "$1" "$((SECONDS - stage_start))" "$stage_cpu" "${@:2}"
}
elapsed() {  # elapsed SECONDS -> "7s", "3m05s"
  local s=$1
  if [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}
tty=0
[ -t 2 ] && [ "${TERM:-dumb}" != dumb ] && tty=1
# On failure: the error lines the stage logged (from line $stage_from of the log on), and where
# the whole log is.
fail() {  # fail STAGE
  [ "$tty" = 1 ] && printf '\r\033[K' >&2
  if tail -n +"$((stage_from + 1))" "$log" | grep -q '^CMake Error'; then
    # CMake's message: the first error and the lines that explain it.
    tail -n +"$((stage_from + 1))" "$log" | sed -n '/^CMake Error/,$p' | grep -v -E '^(-- |$)' |
      head -n 10 | sed 's/^/  /' >&2 || true
  else
    tail -n +"$((stage_from + 1))" "$log" |
      grep -E -i ': (fatal )?error|error:|\*\*\* |undefined reference|not found' |
      grep -v -E '\*\*\* Waiting for unfinished jobs' | head -n 15 | sed 's/^/  /' >&2 || true
  fi
  say "$1 FAILED after $(elapsed $((SECONDS - stage_start))); the whole log is $log"
  exit 1
}
begin() {  # begin STAGE-TEXT: a stage starts
  stage_start=$SECONDS
  cpu_seconds
  stage_cpu=$cpu
  stage_from=$(wc -l <"$log")
  say "$1"
}

total_start=$SECONDS

# 1. What the build needs and this machine lacks (apt; .deps/; the Python packages). Its own lines
# ("install-deps: installing ...") are shown; everything else the steps print goes to the log.
begin "dependencies: checking (scripts/install-deps.sh)"
set +e
scripts/install-deps.sh 2>&1 | tee -a "$log" |
  grep --line-buffered -E '^(install-deps|install-report-deps|install-python-deps|fetch-deps): ' >&2
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || fail "dependencies"
say "dependencies: ready ($(elapsed $((SECONDS - stage_start))))"
record build.dependencies

# 2. Configure. CMake's "layerbench:" lines say what was found and what was not (OpenBLAS above all).
# Ninja where installed (scripts/install-deps.sh installs it): it keeps both cores busy from the
# first step to the last, where make's recursion leaves one idle between targets. A build folder
# keeps the generator it was first configured with.
generator=()
[ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null && generator=(-G Ninja)
begin "configuring (Release${generator:+, Ninja})"
echo "=== cmake -S . -B $build ${generator[*]} -DCMAKE_BUILD_TYPE=Release $*" >>"$log"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >>"$log" 2>&1 || fail "configure"
tail -n +"$((stage_from + 1))" "$log" | sed -n 's/^-- layerbench: /build:   /p' >&2
say "configured ($(elapsed $((SECONDS - stage_start))))"
record build.configure

# 3. Build, showing make's "[ 42%]" (or ninja's "[12/345]") lines: on a terminal one line rewritten
# in place, elsewhere a line each time the build passes another tenth. Compiler warnings and the
# rest go to the log only.
jobs="$(nproc)"
begin "building with $jobs jobs (every line in $log)"
echo "=== cmake --build $build -j$jobs" >>"$log"
width=$(( $(tput cols 2>/dev/null || echo 100) - 1 ))
progress() {  # reads the build's output; prints its progress to standard error
  local line pct shown=-1 steps=0 text
  while IFS= read -r line; do
    if [[ "$line" =~ ^\[\ *([0-9]+)%\] ]]; then
      pct=${BASH_REMATCH[1]}
    elif [[ "$line" =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      pct=$(( 100 * BASH_REMATCH[1] / BASH_REMATCH[2] ))
    else
      continue
    fi
    [[ "$line" == *"Built target"* ]] || steps=$((steps + 1))
    # The time first, so that a line cut to the terminal's width keeps it.
    text="build: ${line%%]*}] $(elapsed $((SECONDS - stage_start))) ${line#*] }"
    if [ "$tty" = 1 ]; then
      printf '\r\033[K%s' "${text:0:$width}" >&2
    elif [[ "$line" != *"Built target"* ]] && [ $((pct / 10)) -gt "$shown" ]; then
      shown=$((pct / 10))
      echo "$text" >&2
    fi
  done
  [ "$tty" = 1 ] && printf '\r\033[K' >&2
  echo "$steps" >"$build/.build-steps"
}
set +e
cmake --build "$build" -j"$jobs" 2>&1 | tee -a "$log" | progress
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || fail "build"
warnings=$(tail -n +"$((stage_from + 1))" "$log" | grep -c -E 'warning:' || true)
steps=$(cat "$build/.build-steps" 2>/dev/null || echo 0)
rm -f "$build/.build-steps"
what="$steps steps"
[ "$steps" = 0 ] && what="up to date"
[ "$warnings" -gt 0 ] && what+=", $warnings compiler warnings in $log"
record build.compile jobs="$jobs" steps="$steps" warnings="$warnings"
stage_start=$total_start stage_cpu=0
record build.total
say "built $build/layerbench ($what, $(elapsed $((SECONDS - stage_start)))); all stages $(elapsed $((SECONDS - total_start)))"
