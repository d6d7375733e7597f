#!/usr/bin/env bash
# Builds and runs the fuzz targets for a bounded time each (docs/fuzzing.md):
#   fuzz_sizes         libFuzzer (clang, ASan + UBSan): the size parser, workloads/sizes.cpp
#   fuzz_results_load  atheris: the reports tool's results loader, python/layerbench/reports/results.py (+ csv, compare)
#
# usage: scripts/fuzz.sh [SECONDS] [--update-corpus] [--only sizes|results]
#   SECONDS          time per target, default 60
#   --update-corpus  afterwards, merge the new inputs that add coverage (small ones only) into
#                    fuzz/corpus/<target>/; without it the repository is not modified
#   --only T         run one target: sizes or results
#
# Seeds: fuzz/corpus/<target>/ and the reproducers of past findings, fuzz/findings/<target>/.
# Prints, for each target, its executions and findings (crashes, timeouts, broken properties),
# and exits 1 on any finding or a target that does not build; 0 otherwise. A target whose tools are
# missing (no clang++ with libFuzzer; no Python or no atheris wheel) prints one SKIP line and counts
# as passed. Build outputs, the working corpus and finding inputs go to build-fuzz/.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-fuzz"
WORK="$BUILD/work"
SECONDS_EACH=60
UPDATE=0
ONLY=""

while [ $# -gt 0 ]; do
  case "$1" in
    --update-corpus) UPDATE=1 ;;
    --only) shift; ONLY="${1:-}" ;;
    --only=*) ONLY="${1#--only=}" ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *[!0-9]*|'') echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) SECONDS_EACH="$1" ;;
  esac
  shift
done
case "$ONLY" in ""|sizes|results) ;; *) echo "fuzz.sh: --only takes sizes or results, not '$ONLY'" >&2; exit 2 ;; esac
[ "$SECONDS_EACH" -ge 1 ] || { echo "fuzz.sh: SECONDS must be at least 1" >&2; exit 2; }

mkdir -p "$BUILD" "$WORK"
FAILED=0
RAN=0
JOBS="$(nproc 2>/dev/null || echo 2)"

say() { printf '%s\n' "$*"; }

# --- running one target -------------------------------------------------------------------------
# run_target NAME CORPUS_DIR FINDINGS_DIR MAX_SMALL_BYTES COMMAND... : fuzzes into a fresh working
# corpus, seeded from the repository's corpus and findings (read, not written), then reports
# executions and findings.
run_target() {
  local name="$1" corpus="$2" findings_dir="$3" small="$4"
  shift 4
  local dir="$WORK/$name"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/tmp"
  local seeds=("$ROOT/$corpus")
  [ -d "$ROOT/$findings_dir" ] && seeds+=("$ROOT/$findings_dir")
  local start=$SECONDS rc=0
  TMPDIR="$dir/tmp" timeout --kill-after=30 $((SECONDS_EACH + 600)) \
    "$@" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -rss_limit_mb=2048 \
    -artifact_prefix="$dir/artifacts/" "$dir/corpus" "${seeds[@]}" >"$dir/log" 2>&1 || rc=$?
  local took=$((SECONDS - start))
  RAN=$((RAN + 1))
  local execs findings new
  execs="$(awk '/^stat::number_of_executed_units:/ {print $2}' "$dir/log" | tail -1)"
  [ -n "$execs" ] || execs="$(grep -oE '^#[0-9]+' "$dir/log" | tail -1 | tr -d '#')"
  new="$(awk '/^stat::new_units_added:/ {print $2}' "$dir/log" | tail -1)"
  findings="$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)"
  if [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ]; then findings=1; fi  # died without an artifact
  say "$name: ${execs:-0} executions in ${took} s, ${new:-0} new inputs, $findings finding(s)"
  if [ "$findings" -gt 0 ]; then
    FAILED=1
    say "$name: FINDING (exit status $rc); log: $dir/log"
    grep -E 'FINDING:|^SUMMARY|Uncaught Python exception|^[A-Za-z.]*(Error|Exception|Finding): |runtime error:|ERROR: (AddressSanitizer|libFuzzer)' "$dir/log" \
      | head -8 | sed 's/^/  /'
    find "$dir/artifacts" -type f | sed 's/^/  input: /'
  fi
  if [ "$UPDATE" -eq 1 ] && [ "$findings" -eq 0 ]; then
    # Only small new inputs, and only those that add an edge to the corpus's coverage (libFuzzer's
    # merge; -use_counters=0: a new hit count of a known edge does not count).
    mkdir -p "$dir/small"
    find "$dir/corpus" -type f -size -"$((small + 1))"c -exec cp {} "$dir/small/" \;
    local before after
    before="$(ls "$ROOT/$corpus" | wc -l)"
    TMPDIR="$dir/tmp" "$@" -merge=1 -use_counters=0 "$ROOT/$corpus" "$dir/small" >"$dir/merge.log" 2>&1 || say "$name: merge failed; see $dir/merge.log"
    after="$(ls "$ROOT/$corpus" | wc -l)"
    say "$name: corpus $corpus: $before -> $after files"
  fi
}

# --- fuzz_sizes: libFuzzer + ASan + UBSan over the real parser and workloads ---------------------
fuzz_sizes() {
  local cxx="${FUZZ_CXX:-}"
  if [ -z "$cxx" ]; then
    for c in clang++ clang++-20 clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
      if command -v "$c" >/dev/null 2>&1; then cxx="$c"; break; fi
    done
  fi
  if [ -z "$cxx" ] || ! command -v "$cxx" >/dev/null 2>&1; then
    say "fuzz_sizes: SKIP: no clang++ found${cxx:+ ($cxx)} (libFuzzer needs clang; FUZZ_CXX picks one)"
    return
  fi
  local flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
               -fno-omit-frame-pointer -Wno-unknown-pragmas -I"$ROOT")
  mkdir -p "$BUILD/obj"
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' \
    >"$BUILD/probe.cpp"
  if ! "$cxx" "${flags[@]}" "$BUILD/probe.cpp" -o "$BUILD/probe" >"$BUILD/probe.log" 2>&1; then
    say "fuzz_sizes: SKIP: $cxx cannot link -fsanitize=fuzzer,address,undefined (libFuzzer runtime missing? see build-fuzz/probe.log)"
    return
  fi
  # The real code: the parser, the workload registry and every workload spec (no CUDA needed;
  # without -fopenmp their OpenMP pragmas are ignored, and the target never runs those loops).
  local sources=("$ROOT/fuzz/fuzz_sizes.cpp" "$ROOT/workloads/sizes.cpp" "$ROOT/harness/sizes.cpp" "$ROOT/workloads/registry.cpp"
                 "$ROOT/workloads/problem.cpp" "$ROOT/common/usage_error.cpp")
  sources+=("$ROOT"/workloads/*/*.cpp)
  local bin="$BUILD/fuzz_sizes" stale=0
  if [ ! -x "$bin" ]; then stale=1
  else
    for f in "${sources[@]}" "$ROOT"/harness/sizes.h "$ROOT"/workloads/*.h "$ROOT"/common/*.h "$0"; do
      [ "$f" -nt "$bin" ] && stale=1
    done
  fi
  if [ "$stale" -eq 1 ]; then
    local start=$SECONDS objs=() src obj
    rm -f "$BUILD"/obj/*.o
    for src in "${sources[@]}"; do
      objs+=("$BUILD/obj/$(echo "${src#"$ROOT"/}" | tr '/' '_').o")
    done
    local pids=() i=0
    for src in "${sources[@]}"; do
      "$cxx" "${flags[@]}" -c "$src" -o "${objs[$i]}" 2>"${objs[$i]}.log" &
      pids+=($!)
      i=$((i + 1))
      if [ "${#pids[@]}" -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    wait
    local ok=1
    for obj in "${objs[@]}"; do
      if [ ! -s "$obj" ]; then ok=0; say "fuzz_sizes: BUILD FAILED: $(basename "$obj" .o)"; head -20 "$obj.log"; fi
    done
    if [ "$ok" -eq 1 ] && ! "$cxx" "${flags[@]}" "${objs[@]}" -o "$bin" 2>"$BUILD/link.log"; then
      ok=0; say "fuzz_sizes: BUILD FAILED (link)"; head -20 "$BUILD/link.log"
    fi
    if [ "$ok" -eq 0 ]; then rm -f "$bin"; FAILED=1; return; fi
    say "fuzz_sizes: built $bin with $cxx in $((SECONDS - start)) s"
  fi
  run_target fuzz_sizes fuzz/corpus/sizes fuzz/findings/sizes 64 "$bin" -timeout=10 -max_len=128 -dict="$ROOT/fuzz/sizes.dict"
}

# --- fuzz_results_load: atheris over python/layerbench/reports/results.py -------------------------------------------
fuzz_results() {
  local py="${FUZZ_PYTHON:-}"
  if [ -z "$py" ]; then
    for p in python3.11 python3; do
      if command -v "$p" >/dev/null 2>&1; then py="$p"; break; fi
    done
  fi
  if [ -z "$py" ] || ! "$py" -c 'import venv' >/dev/null 2>&1; then
    say "fuzz_results_load: SKIP: no python3 with venv found${py:+ ($py)}"
    return
  fi
  local venv="$BUILD/venv" req="$ROOT/fuzz/requirements.txt"
  local want have=""
  want="$("$py" -c 'import sys; print(sys.version.split()[0])') $(sha256sum "$req" | cut -c1-16)"
  [ -f "$venv/.lb-stamp" ] && have="$(cat "$venv/.lb-stamp")"
  if [ "$want" != "$have" ] || ! "$venv/bin/python" -c 'import atheris' >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! "$py" -m venv "$venv" >"$BUILD/venv.log" 2>&1 ||
       ! "$venv/bin/pip" install --disable-pip-version-check -q --only-binary=atheris -r "$req" >>"$BUILD/venv.log" 2>&1 ||
       ! "$venv/bin/python" -c 'import atheris' >>"$BUILD/venv.log" 2>&1; then
      say "fuzz_results_load: SKIP: could not install atheris (fuzz/requirements.txt) for $("$py" -V 2>&1) into build-fuzz/venv (no wheel for this Python, or no network?); see build-fuzz/venv.log"
      rm -rf "$venv"
      return
    fi
    echo "$want" >"$venv/.lb-stamp"
  fi
  # libFuzzer's -merge (and -fork) run argv[0] again: give it an executable.
  local wrapper="$BUILD/fuzz_results_load"
  # The package from python/ of this tree, or of $LB_FUZZ_ROOT when set (another tree, a proposed fix).
  printf '#!/bin/sh\nPYTHONPATH="${LB_FUZZ_ROOT:-%s}/python${PYTHONPATH:+:$PYTHONPATH}" exec "%s" "%s" "$@"\n' \
    "$ROOT" "$venv/bin/python" "$ROOT/fuzz/fuzz_results_load.py" >"$wrapper"
  chmod +x "$wrapper"
  export LB_FUZZ_ARGV0="$wrapper"
  run_target fuzz_results_load fuzz/corpus/results fuzz/findings/results 4096 "$wrapper" \
    -timeout=20 -max_len=65536
}

start_all=$SECONDS
[ -z "$ONLY" ] || [ "$ONLY" = sizes ] && fuzz_sizes
[ -z "$ONLY" ] || [ "$ONLY" = results ] && fuzz_results
if [ "$FAILED" -ne 0 ]; then
  say "fuzz: FAILED in $((SECONDS - start_all)) s (findings or a build failure above; docs/fuzzing.md says how to reproduce)"
  exit 1
fi
if [ "$RAN" -eq 0 ]; then
  say "fuzz: no target ran (each SKIP line above says why); nothing to report"
  exit 0
fi
say "fuzz: no findings in $((SECONDS - start_all)) s"
