#!/usr/bin/env bash
# Measures what a fresh clone costs on this machine, as CI and a new user meet it: clones this
# checkout's HEAD into a temporary folder (no build, no .venv, no .deps, nothing compiled before)
# and runs there, with an empty compiler cache of its own, either
#   --build  scripts/build.sh: the dependencies, the configure, the build; or
#   --ci     .ci/run (the default): scripts/test.sh (which builds), scripts/test-sanitized.sh, the
#            fuzzers; the sanitized build gets from that cache only what the plain build put there.
# Its timing record (build/timings.json: each stage's wall and CPU seconds and the load average when
# it ended; scripts/record-timing.py) is copied to OUT, e.g. docs/results/timings/cpu2-ci.json, which
# README.md and docs/hardening.md quote through tools/doc-figures. Run it on an otherwise idle
# machine: the load average in the record shows when it was not. The temporary folder is removed.
#
# usage: scripts/time-fresh-clone.sh [--build|--ci] OUT.json
set -euo pipefail
cd "$(dirname "$0")/.."
mode=ci
case "${1:-}" in
  --build) mode=build; shift ;;
  --ci) shift ;;
  -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -eq 1 ] || { echo "time-fresh-clone: usage: scripts/time-fresh-clone.sh [--build|--ci] OUT.json" >&2; exit 2; }
out="$1"
if [ -L "$out" ] || { [ -e "$out" ] && [ ! -f "$out" ]; }; then
  echo "time-fresh-clone: '$out' is not a regular file; not writing over it" >&2
  exit 2
fi
[ -d "$(dirname "$out")" ] || { echo "time-fresh-clone: no folder '$(dirname "$out")' for '$out'" >&2; exit 2; }
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/layerbench-fresh.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-local --no-hardlinks . "$tmp/clone"
cd "$tmp/clone"
echo "time-fresh-clone: $(git log -1 --format='%h %s' | cut -c1-80) in $tmp/clone ($mode, empty compiler cache)" >&2
# An empty cache: nothing compiled before comes back, what the run compiles is reused within it.
export CCACHE_DIR="$tmp/ccache"
unset CCACHE_BASEDIR LAYERBENCH_BUILD_DIR
status=0
if [ "$mode" = build ]; then
  scripts/build.sh || status=$?
else
  .ci/run || status=$?
fi
if [ ! -f build/timings.json ]; then
  echo "time-fresh-clone: no build/timings.json was written (exit status $status)" >&2
  exit 1
fi
cp build/timings.json "$out.tmp.$$" && mv "$out.tmp.$$" "$out"
echo "time-fresh-clone: the timing record is $out (exit status of the run: $status)" >&2
exit "$status"
