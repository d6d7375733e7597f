#!/usr/bin/env bash
# Installs what the build needs and this machine lacks, from the distribution's packages (apt).
# Needs the CUDA toolkit (nvcc) already; everything else comes from apt when missing. On a machine
# without a package registry (the lent GPU machines) what .deps/ holds stands in for the packages
# (scripts/fetch-deps.sh fills it where apt works; carry it there), and the rest is said in one line.
# Every line it prints starts with "install-deps:" (or the name of the step that printed it).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "install-deps: $*" >&2; }
deps="${LAYERBENCH_DEPS_DIR:-.deps}"

missing=()
have_header() { echo "#include <$1>" | ${CXX:-g++} -x c++ -std=c++20 -E -o /dev/null - 2>/dev/null; }  # found, not compiled
carried() { compgen -G "$deps/$1" >/dev/null; }  # carried FILE-GLOB: .deps/ holds one
# OpenBLAS itself, not any cblas.h: the reference BLAS (libblas-dev) has a cblas.h too.
have_openblas() {
  printf '%s\n' 'extern "C" char* openblas_get_config(void);' 'int main() { return openblas_get_config() ? 0 : 1; }' |
    ${CXX:-g++} -x c++ - -o /dev/null -lopenblas 2>/dev/null
}
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
# Ninja: scripts/build.sh's generator where present (make otherwise).
command -v ninja >/dev/null || missing+=(ninja-build)
have_header nlohmann/json.hpp || carried 'nlohmann-json3-dev_*.deb' || missing+=(nlohmann-json3-dev)
have_header openssl/hmac.h || missing+=(libssl-dev)  # the labs' keyed hash (OpenSSL 3's HMAC)
have_header CLI/CLI.hpp || carried 'libcli11-dev_*.deb' || missing+=(libcli11-dev)
have_header benchmark/benchmark.h || carried 'benchmark_*.orig.tar.gz' || missing+=(libbenchmark-dev)
have_header gtest/gtest.h || [ -f /usr/src/googletest/CMakeLists.txt ] || carried 'googletest_*.deb' ||
  missing+=(libgtest-dev)
have_openblas || missing+=(libopenblas-dev)
# ccache: a rebuild and the sanitized build (scripts/test-sanitized.sh) reuse what was compiled.
command -v ccache >/dev/null || missing+=(ccache)

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  say "the CUDA toolkit (nvcc) is required and was not found"
  exit 1
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # Capped: where no package registry can be reached this fails within the minute, not later.
  apt_log="$(mktemp "${TMPDIR:-/tmp}/install-deps.XXXXXX")"
  if command -v apt-get >/dev/null &&
     timeout 120 $sudo apt-get -o Acquire::Retries=0 -o Acquire::http::Timeout=20 update -qq >"$apt_log" 2>&1 &&
     DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$apt_log" 2>&1; then
    say "installed ${missing[*]}"
  else
    grep -E '^(E|W):' "$apt_log" | tail -n 3 | sed 's/^/install-deps:   apt: /' >&2 || true
    optional=""
    [[ " ${missing[*]} " == *" libopenblas-dev "* ]] &&
      optional=" (without libopenblas-dev the cpu layer's matmul is a blocked loop nest, and says so)"
    say "could not install ${missing[*]} (needs apt, root or sudo, and a package registry)${optional}; CMake will say what it lacks"
  fi
  rm -f "$apt_log"
fi

# The Python reports tool (matplotlib, pytest) has its own step, which never fails the build.
# (Chromium, for one test only, is installed by scripts/test.sh.)
scripts/install-report-deps.sh
# The Python layers' adapter (pybind11, NumPy), after the step above, which may create .venv.
scripts/install-python-deps.sh
# Into .deps/, with apt: Google Benchmark's source (a Release build builds it: Debian's library is a
# debug build) and the packages a machine without a registry may lack. Never fails the build:
# without them CMake uses the system's libraries, and says what that means.
scripts/fetch-deps.sh || say "going on without them (cmake/Dependencies.cmake says what that means)"
exit 0
