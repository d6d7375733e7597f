#!/usr/bin/env bash
# Installs what the build needs and this machine lacks, from the distribution's packages.
# Needs the CUDA toolkit (nvcc) already; everything else comes from apt when missing. On a machine
# without a package registry (the lent GPU machines) it only checks, and says what is missing.
set -euo pipefail

missing=()
have_header() { echo "#include <$1>" | ${CXX:-g++} -x c++ -std=c++20 -fsyntax-only - 2>/dev/null; }
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header benchmark/benchmark.h || missing+=(libbenchmark-dev)
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header cblas.h || missing+=(libopenblas-dev)

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: the CUDA toolkit (nvcc) is required and was not found" >&2
  exit 1
fi
# The Python reports tool (matplotlib, pytest; Chromium for one test) has its own step, which
# never fails the build.
scripts/install-report-deps.sh
# The Python layers' adapter (pybind11, NumPy), after the step above, which may create .venv.
scripts/install-python-deps.sh
# Google Benchmark's source into .deps/, for a Release build with a release library (never fails
# the build: without it CMake uses the system's library).
scripts/fetch-deps.sh || echo "install-deps: going on without it (cmake/Dependencies.cmake says what that means)" >&2

[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if command -v apt-get >/dev/null &&
   $sudo apt-get update -qq &&
   DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  exit 0
fi
echo "install-deps: could not install ${missing[*]}; CMake will try to fetch the libraries instead" >&2
