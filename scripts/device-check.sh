#!/usr/bin/env bash
# The proof on a lent GPU machine, in steps that each fit one device call (under 9 minutes on one
# H100 or H200) and leave their results as files: run `scripts/device-check.sh build labs examples`,
# then `tests`, then `suite`, back to back on one warm machine (the build stays between calls).
#
#   build     a clean build (scripts/build.sh), after the wheels of .whl/ are installed
#   tests     scripts/test.sh: every test, the GPU ones included, with its summary and timings (the
#             machine has no registry: Chromium, Slurm and PostgreSQL are not tried, and their tests
#             skip saying so); $DEVICE_CHECK_TESTS, when set, is a ctest -R regex of the tests to run
#   labs      every lab's model solution graded alone on the GPU, with its wall time (the JSON is
#             labs/NN/expected/<gpu>.solution.json); skeletons and planted files are GPU tests
#   trips     lab 8's solution and every planted file that reaches a grade, graded, with their wall
#             times (labs/08-transfer/expected/<gpu>.planted.json is made from these: its tiers)
#   examples  the example workload folders through every layer that takes them: stencil5 with
#             row_softmax (each folder's cupy.py, numba.py and triton.py among them), saxpy_inout
#             (an in/out buffer), softmax_passes (a kernel sequence)
#   suite     the default suite twice, each timed as a whole process: the first with every kernel
#             cache empty (ours, CuPy's, Numba's, PyCUDA's, Triton's, Inductor's, JAX's), the second
#             hitting them; then the pair compared (tools/compare-runs, layerbench compare)
#   sanitize  compute-sanitizer's tools over every layer and workload (scripts/sanitize.sh)
#   peers     where our kernels stand against their peers, each alone (after build): the candidate
#             kernels beside the shipped ones and the libraries (tools/experiments/kernel-candidates.sh),
#             Triton's and torch.compile's kernels and every autotuned configuration
#             (tools/experiments/framework-peers.py triton), ncu's DRAM throughput, L2 hit rate and
#             sectors per request of the runtime and triton layers' transposes, and JAX's matmul
#             compiles under XLA's default flags, Triton GEMMs off, and autotuning off
#
# Wheels in .whl/ (scripts/collect-wheels.sh; the machine has no package registry) are installed
# once per machine into $DEVICE_CHECK_SITE and put on PYTHONPATH, which the build, the tests and the
# embedded interpreter follow (docs/offline-install.md). Each step writes into $OUT/<step>/ and packs
# it into $OUT/<step>.tar.gz (the device tool brings back at most 8 files); its summary lines come
# last in the output, each with the step's wall time. Every long command stops (SIGINT: a run keeps
# the cases it finished) when the call has run $DEVICE_CHECK_LIMIT_S seconds (570: the device tool
# ends a command at 600), so that what was done still comes back.
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
[ $# -gt 0 ] || { usage; exit 2; }
for step in "$@"; do
  case "$step" in
    build | tests | labs | trips | examples | suite | sanitize | peers) ;;
    -h | --help) usage; exit 0 ;;
    *) echo "device-check: no step '$step' (build, tests, labs, trips, examples, suite, sanitize, peers)" >&2; exit 2 ;;
  esac
done
out="${OUT:-device-out}"
mkdir -p "$out"
lb=build/layerbench
summary=()
note() { summary+=("$*"); echo "$*"; }

if compgen -G ".whl/*.whl" >/dev/null; then
  site="${DEVICE_CHECK_SITE:-/tmp/layerbench-site}"
  wanted="$(ls .whl/*.whl | sha256sum)"
  if [ "$(cat "$site/.wheels" 2>/dev/null)" != "$wanted" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl ||
      { echo "device-check: could not install .whl/ into $site"; exit 1; }
    echo "$wanted" >"$site/.wheels"
  fi
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
case "$gpu" in
  *H100*) kind=h100 ;;
  *H200*) kind=h200 ;;
  *) kind="$(echo "$gpu" | tr 'A-Z ' 'a-z-')" ;;
esac
export LAYERBENCH_PYTHON="${LAYERBENCH_PYTHON:-python3}"

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
call_start=$SECONDS
# bounded COMMAND...: COMMAND, stopped by SIGINT (then SIGKILL 20 s later) at the call's limit.
bounded() {
  local left=$(( ${DEVICE_CHECK_LIMIT_S:-570} - (SECONDS - call_start) ))
  [ "$left" -gt 5 ] || { echo "device-check: no time left for: $*"; return 124; }
  timeout -s INT -k 20 "$left" "$@"
}

step_build() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$1/gpu.txt"
  rm -rf build
  bounded scripts/build.sh >"$1/build.log" 2>&1
  local code=$?
  cp build/timings.json "$1/" 2>/dev/null
  note "build: exit $code"
}

step_tests() {
  LAYERBENCH_SKIP_CHROMIUM=1 LAYERBENCH_SKIP_TEST_SERVICES=1 bounded scripts/test.sh \
    ${DEVICE_CHECK_TESTS:+-R "$DEVICE_CHECK_TESTS"} >"$1/test.log" 2>&1
  local code=$?
  cp build/timings.json "$1/" 2>/dev/null
  cp build/test.log "$1/ctest.log" 2>/dev/null
  note "tests: exit $code | $(grep -E 'tests passed' "$1/test.log" | tail -1)"
  grep -E '^test: ' "$1/test.log" | tail -n 25
}

step_labs() {
  local lab file start code
  for lab in $($lb lab list | awk '/^  [0-9]/ {print $1}'); do
    file=$(python3 -c "import json; print(json.load(open('labs/$lab/lab.json'))['student_file'])")
    start=$(date +%s%N)
    bounded $lb lab grade "$lab" "labs/$lab/solution/$file" --json "$1/$lab.solution.json" >"$1/$lab.solution.txt" 2>&1
    code=$?
    note "lab $lab: exit $code, $(ms_since "$start") ms | $(grep '^GRADE' "$1/$lab.solution.txt" | sed 's/^GRADE [^:]*: //')"
  done
}

step_trips() {
  local file name start code
  for file in labs/08-transfer/solution/transfer.cu labs/08-transfer/wrong/*.cu; do
    grep -q '^// expect-grade: graded' "$file" || [ "${file#*/solution/}" != "$file" ] || continue
    name="$(basename "$file" .cu)"
    start=$(date +%s%N)
    bounded $lb lab grade 08-transfer "$file" --json "$1/$name.json" >"$1/$name.txt" 2>&1
    code=$?
    note "trip $name: exit $code, $(ms_since "$start") ms | $(grep '^GRADE' "$1/$name.txt" | sed 's/^GRADE [^:]*: //')"
  done
}

# One workload-dir run: its results file and log, and its whole-process time.
folder_run() {
  local dir="$1" name="$2" start code
  shift 2
  start=$(date +%s%N)
  bounded $lb run "$@" -o "$dir/$name.json" >"$dir/$name.log" 2>&1
  code=$?
  note "examples $name: exit $code, $(ms_since "$start") ms | $(grep -cE ' ok( |$)' "$dir/$name.log") ok lines, $(grep -cE 'FAIL|failed' "$dir/$name.log") failed lines"
}

step_examples() {
  folder_run "$1" workload-folders --workload-dir examples/workloads/stencil5 --workload-dir examples/workloads/row_softmax
  folder_run "$1" saxpy-inout --workload-dir examples/workloads/saxpy_inout -s 2^26
  folder_run "$1" softmax-passes --workload-dir examples/workloads/softmax_passes \
    --workload-dir examples/workloads/row_softmax -s 65536x1024
}

step_suite() {
  # Every kernel cache empty for suite 1: ours, CuPy's, Numba's, PyCUDA's (under XDG_CACHE_HOME),
  # Triton's, Inductor's and JAX's (each under its own variable or the home's caches).
  local caches run start code
  caches="$(mktemp -d)"
  export LAYERBENCH_KERNEL_CACHE="$caches/lb" CUPY_CACHE_DIR="$caches/cupy" NUMBA_CACHE_DIR="$caches/numba" \
    XDG_CACHE_HOME="$caches/xdg" TRITON_CACHE_DIR="$caches/triton" TORCHINDUCTOR_CACHE_DIR="$caches/inductor" \
    JAX_COMPILATION_CACHE_DIR="$caches/jax"
  for run in 1 2; do
    start=$(date +%s%N)
    bounded $lb run --out "$1/suite$run.json" >"$1/suite$run.log" 2>"$1/suite$run.err"
    code=$?
    note "suite $run: exit $code, wall $(ms_since "$start") ms (whole process) | $(grep -E '^[0-9]+ cases' "$1/suite$run.log" | tail -1)"
  done
  tools/compare-runs "$1/suite1.json" "$1/suite2.json" >"$1/compare-runs.txt" 2>&1
  $lb compare "$1/suite1.json" "$1/suite2.json" >"$1/compare.txt" 2>&1
  note "suite compare: exit $?"
  tail -n 30 "$1/compare.txt"
}

step_sanitize() {
  bounded scripts/sanitize.sh --budget "${DEVICE_CHECK_SANITIZE_BUDGET_S:-240}" --out "$1" >"$1/sanitize.log" 2>&1
  note "sanitize: exit $? | $(tail -n 3 "$1/sanitize.log" | tr '\n' ' ')"
}

step_peers() {
  local flags metrics
  bounded tools/experiments/kernel-candidates.sh "$1/kernel-candidates.txt" >"$1/kernel-candidates.log" 2>&1
  note "peers: kernel-candidates exit $?"
  bounded python3 tools/experiments/framework-peers.py triton >"$1/framework-peers.txt" 2>&1
  note "peers: framework-peers triton exit $?"
  metrics=dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  bounded ncu --clock-control none --metrics "$metrics" -k regex:transpose --launch-count 8 --csv \
    $lb run -w transpose -l runtime,triton -s 4096x4096,8192x8192 --check --out "$1/ncu-run.json" \
    >"$1/ncu-transpose.csv" 2>"$1/ncu-transpose.err"
  note "peers: ncu of the transposes exit $?"
  for flags in "" --xla_gpu_enable_triton_gemm=false --xla_gpu_autotune_level=0; do
    echo "XLA_FLAGS=$flags" >>"$1/jax-compiles.txt"
    XLA_FLAGS="$flags" bounded python3 tools/experiments/framework-peers.py jax >>"$1/jax-compiles.txt" 2>&1
  done
  note "peers: $(grep -c 'first call' "$1/jax-compiles.txt") JAX compiles timed"
}

for step in "$@"; do
  dir="$out/$step"
  rm -rf "$dir"
  mkdir -p "$dir"
  start=$(date +%s%N)
  "step_$step" "$dir"
  note "== $step: $(ms_since "$start") ms on $gpu ($kind), commit ${LAYERBENCH_SOURCE_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}"
  tar czf "$out/$step.tar.gz" -C "$out" "$step" && rm -rf "$dir"
done
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
