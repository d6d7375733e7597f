#!/usr/bin/env bash
# Builds tools/experiments/kernel-candidates.cu (with the matmul tiles matmul_tiles.py writes) with
# nvcc and runs it on this machine's GPU: candidate transpose, reduce and matmul kernels beside the
# shipped ones and cuBLAS/CUB, one line per kernel and size on stdout, or in FILE.
#   tools/experiments/kernel-candidates.sh [FILE]
# ONLY=transpose runs the transposes alone, a launch each (for ncu -k regex:'transpose|tr_cand').
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
dir="$(mktemp -d)"
python3 tools/experiments/matmul_tiles.py "$dir"
nvcc -std=c++17 -O3 -arch=native -I. -I"$dir" -I"$(dirname "$(command -v nvcc)")/../include/cccl" \
  tools/experiments/kernel-candidates.cu -lcublas -o "$dir/kernel-candidates"
if [ -n "${1:-}" ]; then "$dir/kernel-candidates" >"$1"; else "$dir/kernel-candidates"; fi
