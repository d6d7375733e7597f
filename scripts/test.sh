#!/usr/bin/env bash
# Quick start 2: installs what is missing, builds, and runs every test. GPU tests skip (and say
# so) on a machine without a CUDA device; on a GPU machine they run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
# One test process at a time on a GPU machine, so tests do not share the device; -j otherwise.
jobs="$(nproc)"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && jobs=1
ctest --output-on-failure -j"$jobs"
