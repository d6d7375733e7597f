#!/usr/bin/env bash
# Two runs of one build, back to back, on a machine left alone: a pair that `compare`'s allowances
# are held to (tests/reports/fixtures/quiet/<name>/: a.json.gz, b.json.gz and machine.txt, which
# states the machine and its load; tests/reports/test_quiet_pairs.py; docs/reports.md).
#
#   scripts/quiet-pair.sh OUT_DIR [layerbench run options...]     e.g. -l cpu,thrust-omp
#
# It waits up to 5 minutes for the 1-minute load average to fall under 0.3 per CPU before each run,
# and refuses (exit 3) where it does not: a pair made beside other work says nothing of quiet runs.
# Each run's results are gzipped into OUT_DIR; machine.txt gets the CPU, the GPU, the commit, and
# the load averages before and after each run. Needs build/layerbench (scripts/build.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
out="$1"; shift
lb=build/layerbench
[ -x "$lb" ] || { echo "quiet-pair: no $lb (build it first: scripts/build.sh)" >&2; exit 2; }
[ -e "$out" ] && [ ! -d "$out" ] && { echo "quiet-pair: $out exists and is not a folder" >&2; exit 2; }
mkdir -p "$out" || exit 2
cpus=$(nproc)
quiet() {  # waits for the load to settle; says the load it found
  local limit=$(( SECONDS + 300 ))
  while :; do
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    if awk -v l="$load" -v c="$cpus" 'BEGIN { exit !(l < 0.3 * c) }'; then echo "$load"; return 0; fi
    [ $SECONDS -lt $limit ] || { echo "$load"; return 1; }
    sleep 10
  done
}
{
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cpus CPUs, $(uname -sr)"
  command -v nvidia-smi >/dev/null && echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "commit: ${LAYERBENCH_SOURCE_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}"
  echo "command: $lb run $*"
} > "$out/machine.txt"
for side in a b; do
  if ! load=$(quiet); then
    echo "quiet-pair: the 1-minute load average stayed at $load on $cpus CPUs (wanted under $(awk -v c="$cpus" 'BEGIN { print 0.3 * c }')): not a quiet machine" >&2
    exit 3
  fi
  echo "run $side: load average before $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
  start=$SECONDS
  "$lb" run "$@" -o "$out/$side.json" > "$out/$side.log" 2>&1
  code=$?
  echo "run $side: exit $code in $(( SECONDS - start )) s; load average after $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
  [ $code -eq 0 ] || { echo "quiet-pair: run $side exited $code (its log: $out/$side.log)" >&2; exit 1; }
  gzip -9nf "$out/$side.json"
done
cat "$out/machine.txt"
