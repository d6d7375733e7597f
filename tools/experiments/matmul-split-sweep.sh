#!/usr/bin/env bash
# Builds tools/experiments/matmul-split-sweep.cu with nvcc and runs it on this machine's GPU: matmul_tiled at
# every split of K against cuBLAS, the CSV that variants/gpu_launch.h's matmul_grid is fit to
# (docs/workloads.md#matmul-split-k). The CSV goes to stdout, or to FILE.
#   tools/experiments/matmul-split-sweep.sh [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
bin="$(mktemp -d)/matmul-split-sweep"
nvcc -std=c++17 -O3 -arch=native -I. tools/experiments/matmul-split-sweep.cu -lcublas -o "$bin"
if [ -n "${1:-}" ]; then "$bin" >"$1"; else "$bin"; fi
