# Sourced by the scripts that time their stages (scripts/build.sh, scripts/test-sanitized.sh, .ci/run):
#   cpu_seconds                      cpu=the CPU seconds (user + sys) of the sourcing shell's finished
#                                    children so far: bash's `times`, run in that shell (in a $(...)
#                                    subshell it would count the subshell's children only)
#   record_stage FILE STAGE WALL_S CPU_START [KEY=VALUE ...]
#                                    adds STAGE to the timing record FILE (scripts/record-timing.py):
#                                    WALL_S, and the CPU seconds since cpu was CPU_START; never fails
cpu_seconds() {
  local file="${TMPDIR:-/tmp}/lb-times.$$"
  times >"$file"
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] } printf "%.1f", s }' \
    "$file")
  rm -f "$file"
}
record_stage() {
  cpu_seconds
  python3 "$(dirname "${BASH_SOURCE[0]}")/record-timing.py" "$1" "$2" "$3" \
    "$(awk -v a="$cpu" -v b="$4" 'BEGIN { printf "%.1f", a - b }')" "${@:5}" || true
}
