#!/usr/bin/env bash
# The host-side tests under AddressSanitizer + UndefinedBehaviorSanitizer (docs/hardening.md).
# Configures build-asan (RelWithDebInfo at -O1, -DLAYERBENCH_SANITIZE=ON), builds the gtest
# executables (and the layerbench binaries test_cli drives; not the Python extension modules), runs
# their tests with ctest (GPU tests skip, and say so, without a GPU) and prints a short summary.
# Exit status 0 when every test passed or skipped and no sanitizer reported anything; 1 otherwise.
#
# Bounded for CI (2 cores, no GPU): the build stops after LB_SANITIZE_BUILD_LIMIT seconds (default
# 2400), the tests after LB_SANITIZE_TEST_LIMIT (default 1200), a single test after 300 (a whole
# gtest executable, run as one test without a GPU, after 1800: tests/CMakeLists.txt).
# Expects the build's dependencies to be installed (scripts/build.sh or scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"

build="${LB_SANITIZE_BUILD_DIR:-build-asan}"
build_limit="${LB_SANITIZE_BUILD_LIMIT:-2400}"
test_limit="${LB_SANITIZE_TEST_LIMIT:-1200}"
# These gtest executables: the CPU-side tests run here, and on a GPU machine the GPU ones too.
# layerbench and layerbench_faulty come with test_cli. Left out: the pytest and cython tests (an
# instrumented extension module cannot load into an uninstrumented python3), docs' check, and the
# install test (`cmake --install` wants every target built, and this folder builds only the ones
# above; the plain run (scripts/test.sh) checks it). Not yet under the sanitizers, added to
# tests/CMakeLists.txt after this list was made and not yet tried here: test_devices, test_isolation,
# test_run_safety (these three time a run or a signal), test_lab_autograder, test_lab_leaderboard,
# test_lab_transfer and test_python_boundary.
targets=(test_workloads test_measurement test_nvrtc test_lab_tools test_layers test_cli test_lab test_ladder
         test_lab_python test_thrust test_vendor test_stream_gate test_same_kernel test_verify_power
         test_plausibility test_outputs test_mutation_kill test_child_event test_record test_folder_workload
         test_lab_folder)
exclude='_NOT_BUILT$|pytest$|^cython[.]|^docs[.]|^install[.]'
jobs="$(nproc)"

logs="$PWD/$build/sanitizer-logs"
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be; exitcode 86
# (both tools) so that a sanitizer's exit is not read as layerbench's own 1 (a failed case).
# ASan's and LSan's reports also go to files named after the program (log_path), those of child
# processes whose stderr a test swallows included (test_cli runs layerbench, the lab its child);
# UBSan's always go to stderr (g++'s combined runtime ignores log_path), so its lines are looked
# for in ctest's log. The suppression files say why each entry is not a bug of ours.
supp="$PWD/tests/sanitizers"
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:exitcode=86:log_path=$logs/asan:log_exe_name=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86:suppressions=$supp/ubsan.supp"
symbolizer="$(command -v llvm-symbolizer || true)"
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

# Each stage's wall and CPU seconds (sanitized.build, sanitized.ctest) go to a timing record,
# $LAYERBENCH_TIMINGS or $build/timings.json (scripts/record-timing.py; .ci/run names build/'s).
timings="${LAYERBENCH_TIMINGS:-$build/timings.json}"
source scripts/timing.sh  # cpu_seconds, record_stage
record() {  # record STAGE WALL_S CPU_START [KEY=VALUE ...]
  record_stage "$timings" "$@"
}
mkdir -p "$build"
start=$SECONDS
cpu_seconds
build_cpu=$cpu
echo "test-sanitized: configuring $build (RelWithDebInfo at -O1 -g1, LAYERBENCH_SANITIZE=ON)"
# Google Benchmark: the system's library (LAYERBENCH_RELEASE_BENCHMARK=OFF): its DEBUG warning does
# not matter to a test, and this needs no network and no build of it.
# -O1 and line tables only (-g1): what ASan advises, and half the compile time of -O2 with the
# sanitizers (files that ask for -O3 themselves keep it). Device code is compiled as always.
# Without a GPU the host side of nvcc's .cu files never runs but for their layers' registration: they
# are compiled as the plain build compiles them (uninstrumented, -O3), so ccache gives them back
# from scripts/build.sh's build (CCACHE_BASEDIR: paths relative to the checkout); g++'s files, the
# thrust-omp layer's .cu among them, are all instrumented as before. With a GPU, everything is.
# Without a GPU, too, each gtest executable is one ctest test (-DLAYERBENCH_GTEST_PER_EXECUTABLE=ON,
# tests/CMakeLists.txt): all its tests in one process, instead of one process per test, whose start
# and exit under the sanitizers (about 0.4 s) was most of the time of the ~600 GPU tests that only
# skip here; gtest's XML names each test that failed or skipped (scripts/gtest-results.py, in the
# summary). With a GPU, one ctest test per gtest test, as scripts/test.sh: those that need the
# device alone run alone.
cuda_flags=(-DLAYERBENCH_SANITIZE_CUDA_HOST=ON -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O1 -Xcompiler=-g1 -DNDEBUG"
            -DLAYERBENCH_GTEST_PER_EXECUTABLE=OFF)
if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  cuda_flags=(-DLAYERBENCH_SANITIZE_CUDA_HOST=OFF -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O3 -DNDEBUG"
              -DLAYERBENCH_GTEST_PER_EXECUTABLE=ON)
  echo "test-sanitized: no GPU: the host side of nvcc's .cu files uninstrumented, as the plain build's (from ccache);"
  echo "test-sanitized: each gtest executable's tests in one process"
fi
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# Files compiled with a precompiled header (cmake/PrecompiledHeaders.cmake) are cached only with these.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
generator=()  # Ninja where installed, as scripts/build.sh; a build folder keeps its first generator
[ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAYERBENCH_SANITIZE=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" "${cuda_flags[@]}" \
      -DLAYERBENCH_RELEASE_BENCHMARK=OFF -DLAYERBENCH_BUILD_TESTS=ON >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; echo "test-sanitized: configure failed"; exit 1; }
echo "test-sanitized: building ${targets[*]} (-j$jobs, at most ${build_limit} s)"
build_status=0
timeout "$build_limit" cmake --build "$build" -j"$jobs" --target "${targets[@]}" >"$build/build.log" 2>&1 ||
  build_status=$?
build_s=$((SECONDS - start))
record sanitized.build "$build_s" "$build_cpu" jobs="$jobs"
if [ "$build_status" -ne 0 ]; then
  tail -n 40 "$build/build.log"
  [ "$build_status" -eq 124 ] && echo "test-sanitized: the build ran past ${build_limit} s"
  echo "test-sanitized: build failed after ${build_s} s (whole log: $build/build.log)"
  exit 1
fi

# -j by cores on a GPU machine too: the tests that need the GPU alone run by themselves
# (RUN_SERIAL, tests/test_properties.cmake), as in scripts/test.sh.
rm -rf "$logs" "$build/tests/gtest-results" && mkdir -p "$logs"
# The gtest executables this script does not build (above) are left out: as one ctest test per
# executable, named after it; as one per test, <target>_NOT_BUILT (gtest_discover_tests).
for name in $(ctest --test-dir "$build" -N 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: \(test_[a-z_]*\)$/\1/p'); do
  [ -x "$build/tests/$name" ] || exclude+="|^$name\$"
done
# The plain build's test times, where this folder has none of its own (a fresh one, as in CI): ctest
# starts the longest tests first, instead of in the order defined and ending with one running alone.
costs=Testing/Temporary/CTestCostData.txt
plain="${LAYERBENCH_BUILD_DIR:-build}"
if [ ! -f "$build/$costs" ] && [ -f "$plain/$costs" ]; then
  mkdir -p "$(dirname "$build/$costs")" && cp "$plain/$costs" "$build/$costs"
fi
echo "test-sanitized: running the tests (ctest -j$jobs, at most ${test_limit} s)"
test_start=$SECONDS
cpu_seconds
test_cpu=$cpu
test_status=0
timeout "$test_limit" ctest --test-dir "$build" -j"$jobs" --timeout 300 -E "$exclude" --output-on-failure \
  >"$build/ctest.log" 2>&1 || test_status=$?
test_s=$((SECONDS - test_start))
counts="$(grep -E '^[0-9]+% tests passed' "$build/ctest.log" | tail -n 1 |
          sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests failed out of ([0-9]+)/failed=\1 tests=\2/' || true)"
[[ "$counts" == failed=* ]] || counts=""
record sanitized.ctest "$test_s" "$test_cpu" jobs="$jobs" $counts

# --- summary ---------------------------------------------------------------------------------
reports=("$logs"/*)
[ -e "${reports[0]}" ] || reports=()
echo
echo "== sanitized host tests (ASan + UBSan), $build =="
grep -E '^[0-9]+% tests passed' "$build/ctest.log" || echo "ctest did not finish (status $test_status)"
skipped="$(grep -c '\*\*\*Skipped' "$build/ctest.log" || true)"
if [ -d "$build/tests/gtest-results" ]; then  # one ctest test per gtest executable: their tests' counts
  python3 scripts/gtest-results.py "$build/tests/gtest-results" "$build/ctest.log" || true
else
  echo "skipped (no GPU, or a tool missing): $skipped"
fi
grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Child aborted|Exception)\)' \
  "$build/ctest.log" || true
[ "$test_status" -eq 124 ] && echo "the tests ran past ${test_limit} s"
echo "sanitizer reports: ${#reports[@]}"
if [ ${#reports[@]} -gt 0 ]; then
  # One line per kind of report: tool and program, the error, the first place in our sources.
  for report in "${reports[@]}"; do
    what="$(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+( [a-z]+)*|runtime error: .*' "$report" || echo '?')"
    where="$( (grep -oE "$PWD/[^ :]+:[0-9]+" "$report" || true) | head -n 1 | sed "s|$PWD/||")"
    echo "$(basename "$report" | cut -d. -f1-2): $what ${where:+at $where}"
  done | sort | uniq -c | sort -rn | head -n 20
  echo "the reports: $logs"
fi
ub="$(grep -c 'runtime error:' "$build/ctest.log" || true)"
echo "UBSan runtime errors in ctest's log: $ub"
grep -oE '[^ ]+:[0-9]+:[0-9]+: runtime error: .*' "$build/ctest.log" | sed "s|$PWD/||" | sort | uniq -c | head -n 10 || true
echo "time: build ${build_s} s, tests ${test_s} s (whole log: $build/ctest.log)"
[ "$test_status" -eq 0 ] && [ ${#reports[@]} -eq 0 ] && [ "$ub" -eq 0 ]
