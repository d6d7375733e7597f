#!/usr/bin/env bash
# compute-sanitizer over every layer x workload on edge sizes, through `layerbench run --check`
# (one verified run per case; no ceilings, L2 flush, stream gate or sampling, which the
# sanitizers' serialised launches would upset). Each tool -- memcheck, racecheck, initcheck,
# synccheck -- runs over the whole set: the vector workloads and the launch workloads, matmul, transpose and
# every ladder rung through the runtime layer, each tool in its own process at the same time as
# the others, bounded by --budget seconds. The Python layers run inside layerbench, so they are
# covered where this machine has them. Fails (exit 1) on any sanitizer error, any case that is not
# ok, or a tool that ran out of time; prints one summary line per tool.
#
#   scripts/sanitize.sh [--tools memcheck,racecheck,initcheck,synccheck] [--budget 480]
#                       [--layers L1,L2] [--sets S1,S2] [--out DIR] [--exe build/layerbench]
#   scripts/sanitize.sh --list-sets   (the sets; checks that they name every workload; no GPU)
set -uo pipefail
cd "$(dirname "$0")/.."

tools="memcheck,racecheck,initcheck,synccheck"
budget=480
layers=""
only_sets=""
out="${OUT:-sanitize-out}"
exe="build/layerbench"
list_sets=0
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --tools) tools="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --sets) only_sets="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --exe) exe="$2"; shift 2 ;;
    --list-sets) list_sets=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "sanitize: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$budget" in ''|*[!0-9]*) echo "sanitize: error: --budget '$budget' is not a whole number of seconds" >&2; exit 2 ;; esac
for tool in ${tools//,/ }; do
  case "$tool" in memcheck|racecheck|initcheck|synccheck) ;;
    *) echo "sanitize: error: unknown tool '$tool' (memcheck, racecheck, initcheck, synccheck)" >&2; exit 2 ;;
  esac
done

[ -x "$exe" ] || { echo "sanitize: error: '$exe' not found; build first (scripts/build.sh)" >&2; exit 2; }
# The sets, each one `run --check`: edge sizes are the smallest, ones that leave a partial float4
# or warp or block, and a prime past one block's reach; matmul's leave partial tiles on each side,
# and its last two split K (variants/gpu_launch.h's matmul_grid), on the 4-byte and the 16-byte path.
layer_args=()
[ -n "$layers" ] && layer_args=(-l "$layers")
# name|arguments|whether --layers applies. The rungs run through the runtime layer (the driver layer
# compiles the same text), each ladder at its own edge sizes.
sets=(
  "vector|-w vector_add,saxpy,reduce -s 1,33,1000003|yes"
  "launch|-w launch_async,launch_sync -s 7|yes"
  "matmul|-w matmul -s 1,17x33x65,130x257x70,128x1x300,256x256x1024|yes"
  "transpose|-w transpose -s 1,1x4097,4097x1,33x65,257x255|yes"
  "rungs-matmul|--rung matmul/all -l runtime -s 1,17x33x65,130x257x70,384x768x1024|no"
  "rungs-reduce|--rung reduce/all -l runtime -s 1,33,1000003|no"
)
# Every workload the binary registers is in a set: a new workload that is not fails here, before
# any tool runs, instead of going unchecked.
workloads=$("$exe" list | sed -n '/^Workloads:/,/^$/{s/^  \([a-z_0-9]*\) .*/\1/p}')
[ -n "$workloads" ] || { echo "sanitize: error: '$exe list' named no workloads" >&2; exit 2; }
for workload in $workloads; do
  if ! printf '%s\n' "${sets[@]}" | grep -Eq -- "-w ([a-z_0-9]+,)*$workload(,|[[:space:]])"; then
    echo "sanitize: error: workload '$workload' is in no set of scripts/sanitize.sh; add its edge sizes there" >&2
    exit 2
  fi
done
# --sets: only the named sets (the coverage check above is over all of them).
if [ -n "$only_sets" ]; then
  chosen=()
  for name in ${only_sets//,/ }; do
    match=$(printf '%s\n' "${sets[@]}" | grep -m1 "^$name|") ||
      { echo "sanitize: error: unknown set '$name' ($(printf '%s\n' "${sets[@]}" | cut -d'|' -f1 | paste -sd,))" >&2; exit 2; }
    chosen+=("$match")
  done
  sets=("${chosen[@]}")
fi
if [ "$list_sets" = 1 ]; then printf '%s\n' "${sets[@]}"; exit 0; fi

sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
[ -x "$sanitizer" ] || { echo "sanitize: error: compute-sanitizer not found (CUDA toolkit's bin/)" >&2; exit 2; }
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "sanitize: no usable GPU here (nvidia-smi -L failed): nothing to check"
  exit 0
fi
mkdir -p "$out"
rm -f "$out/summary-lines.txt"

# One tool over every set, in order, within the budget; writes $out/<tool>.summary.
run_tool() {
  local tool="$1" start=$SECONDS errors=0 warnings=0 cases=0 bad_cases=0 timed_out=0 failed_runs=0
  for entry in "${sets[@]}"; do
    local name args layered left=$(( budget - (SECONDS - start) ))
    IFS='|' read -r name args layered <<<"$entry"
    if [ "$left" -le 0 ]; then timed_out=1; echo "$tool: $name not run: budget of $budget s spent" >>"$out/$tool.log"; continue; fi
    local log="$out/$tool-$name.log" json="$out/$tool-$name.json"
    local extra=()
    [ "$layered" = yes ] && extra=("${layer_args[@]}")
    # --report-api-errors no: a CUDA call that returns an error is not reported as one. layerbench
    # checks every return code itself (an error fails its case, which counts below), while the
    # Python layers' libraries probe on purpose: cuda.bindings asks cuGetProcAddress for entry
    # points this driver may lack (CUDA_ERROR_INVALID_VALUE), as cuda-python's own sanitizer CI
    # does not report either (NVIDIA/cuda-python#687).
    # memcheck's --padding: 4 KiB nobody owns after every allocation, so an access past a buffer's
    # end never lands in the next buffer, where memcheck could not see it (docs/hardening.md).
    local padding=()
    [ "$tool" = memcheck ] && padding=(--padding 4096)
    # shellcheck disable=SC2086
    timeout --signal=TERM --kill-after=20 "$left" "$sanitizer" --tool "$tool" --error-exitcode 86 \
      --report-api-errors no --print-limit 20 "${padding[@]}" "$exe" run --check $args "${extra[@]}" -o "$json" >"$log" 2>&1
    local code=$?
    case "$code" in 124|137) timed_out=1 ;; esac
    # memcheck, initcheck and synccheck end with "ERROR SUMMARY: N errors"; racecheck with
    # "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)".
    local summary n
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY: [0-9]+ (error|hazard)" "$log" | tail -1 | sed 's/^========= //')
    n=$(sed -nE 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/p; s/.*RACECHECK SUMMARY: .*\(([0-9]+) error.*/\1/p' <<<"$summary")
    if [ -z "$n" ]; then n=0; failed_runs=$((failed_runs + 1)); summary="no summary (exit $code)"; fi
    # Racecheck's warnings are hazards it could not prove (a synchronisation it does not see); they
    # are counted and shown, and do not fail the check.
    warnings=$((warnings + $(sed -nE 's/.*RACECHECK SUMMARY: .* ([0-9]+) warning.*/\1/p' <<<"$summary" | grep . || echo 0)))
    echo "$tool $name: $summary" >>"$out/summary-lines.txt"
    errors=$((errors + n))
    if [ -f "$json" ]; then
      local counts  # "<cases> <cases not ok>", from one read of the results
      counts=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["benchmarks"]; print(len(b), sum(x["status"] != "ok" for x in b))' "$json")
      cases=$((cases + ${counts% *}))
      bad_cases=$((bad_cases + ${counts#* }))
    fi
    echo "$tool $name: exit $code, $n errors, $(( SECONDS - start )) s so far" >>"$out/$tool.log"
  done
  echo "$tool|$errors|$warnings|$cases|$bad_cases|$timed_out|$failed_runs|$(( SECONDS - start ))" >"$out/$tool.summary"
}

echo "sanitize: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $("$sanitizer" --version | grep -Eo 'Version [0-9.]+' | head -1), tools ${tools}, budget ${budget} s each, logs in $out/"
started=$SECONDS
for tool in ${tools//,/ }; do run_tool "$tool" & done
wait

status=0
printf '\n%-10s %7s %9s %7s %7s %8s  %s\n' tool errors warnings cases "not ok" time verdict
for tool in ${tools//,/ }; do
  IFS='|' read -r _ errors warnings cases bad timed_out failed_runs seconds <"$out/$tool.summary"
  problems=()
  [ "$errors" != 0 ] && problems+=("ERRORS: see $out/$tool-*.log")
  [ "$bad" != 0 ] && problems+=("cases not ok: see $out/$tool-*.json")
  [ "$failed_runs" != 0 ] && problems+=("$failed_runs runs ended without a sanitizer summary")
  [ "$timed_out" != 0 ] && problems+=("ran out of its $budget s")
  if [ ${#problems[@]} -gt 0 ]; then
    status=1
    verdict="$(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')"
  elif [ "$warnings" != 0 ]; then
    verdict="clean (warnings: see $out/$tool-*.log)"
  else
    verdict="clean"
  fi
  printf '%-10s %7s %9s %7s %7s %7ss  %s\n' "$tool" "$errors" "$warnings" "$cases" "$bad" "$seconds" "$verdict"
done
echo "sanitize: $(( SECONDS - started )) s in all; each run's own summary line:"
sort "$out/summary-lines.txt" | sed 's/^/  /'

exit $status
