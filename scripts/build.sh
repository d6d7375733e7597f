#!/usr/bin/env bash
# Configures and builds layerbench in build/ (Release). Extra arguments go to CMake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
