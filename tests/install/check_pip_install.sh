#!/usr/bin/env bash
# `pip install <checkout>` into a fresh virtual environment, then what a user does with it, from a
# folder that has nothing to do with the checkout: `layerbench list`, `python -m layerbench run -l
# cpu -w vector_add -s 1000`, and a script using the Python API (tests/install/api_script.py).
# Usage:
#   check_pip_install.sh cpu BUILD_DIR PYTHON   a clean venv (no system site-packages); pip installs
#                                               from the registry this machine's pip is configured for;
#                                               exits 77 (skipped), saying why, where pip reaches none.
#                                               Then '<checkout>[reports]' into the same venv, which
#                                               fails where its build compiles anything (the build
#                                               folder is kept, and nothing changed)
#   check_pip_install.sh gpu BUILD_DIR PYTHON   on a GPU machine without a registry: a venv that sees
#                                               the system's packages (CuPy), pip installs offline from
#                                               <checkout>/.whl (docs/offline-install.md), then runs
#                                               -l runtime,cupy -w vector_add; exits 77 (skipped)
#                                               without a GPU, saying why
#   check_pip_install.sh MODE BUILD_DIR PYTHON install|use
#                                               the first half (the venv and pip's build), or the
#                                               second (what a user does, with that venv): ctest runs
#                                               the gpu mode's halves as two tests, so that pip's
#                                               build, on every core for minutes, takes no GPU slot
#                                               (tests/CMakeLists.txt)
# PYTHON makes the venv, BUILD_DIR/pip-<mode>/venv (made anew). pip's CMake build folder is
# BUILD_DIR-pip-<mode>, beside BUILD_DIR (kept: a second run compiles only what changed): at the
# same depth under the checkout as BUILD_DIR, its compile lines are BUILD_DIR's once ccache
# (CCACHE_BASEDIR: the checkout) makes their paths relative, so ccache gives back what BUILD_DIR's
# own build compiled and a first run in CI compiles little. pip's time is printed.
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
python=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "check_pip_install: FAILED: $*" >&2; exit 1; }
say() { echo "check_pip_install: $*"; }
case "$mode" in cpu|gpu) ;; *) fail "mode '$mode': cpu or gpu" ;; esac
stage=${4:-both}
case "$stage" in install|use|both) ;; *) fail "stage '$stage': install, use, or none for both" ;; esac

if [ "$mode" = gpu ] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "check_pip_install: skipped: no GPU here (nvidia-smi -L fails); the installed wheel's GPU run needs one"
  exit 77
fi

work="$build/pip-$mode"
venv="$work/venv"
cmake_build="$build-pip-$mode"
# A clean install, and its use, see nothing else: no LAYERBENCH_* of the caller's, and for the cpu
# mode no PYTHONPATH (on the GPU machine PYTHONPATH may name the carried wheels' folder,
# docs/offline-install.md, section 3, which the Python layers need there).
unset LAYERBENCH_PYTHON LAYERBENCH_DATA_DIR LAYERBENCH_EXE
[ "$mode" = cpu ] && unset PYTHONPATH

if [ "$stage" != use ]; then  # the install
mkdir -p "$work"
rm -rf "$venv" "$work/installed"
venv_args=()
pip_args=()
if [ "$mode" = gpu ]; then
  # No registry there: the build's requirements (scikit-build-core, pybind11, Cython) and jsonschema's
  # come from .whl; the Python layers' packages (CuPy) from the system's site-packages.
  [ -d "$root/.whl" ] || fail "no $root/.whl: carry the wheels scripts/collect-wheels.sh collects"
  venv_args=(--system-site-packages)
  pip_args=(--no-index --find-links "$root/.whl")
fi
"$python" -m venv "${venv_args[@]}" "$venv" || fail "$python -m venv $venv"
# A clean install needs the registry (the GPU machines have none: there install.pip_gpu installs
# from .whl): asked once, for the build's first requirement, with nothing installed counting
# (PYTHONPATH may name a folder that holds it: the GPU machine's carried wheels) and no cache.
if [ "$mode" = cpu ] && ! "$venv/bin/python" -m pip install --dry-run --quiet --retries 0 --timeout 20 \
     --ignore-installed --no-cache-dir --no-deps \
     "$(grep -m1 '^scikit-build-core' "$root/python/requirements-build.txt")" >"$work/registry.log" 2>&1; then
  echo "check_pip_install: skipped: pip reaches no package registry from here ($(tail -n 1 "$work/registry.log")); install.pip_gpu installs offline"
  exit 77
fi

export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
# pip's own build environment (build isolation) gets the offline options through the
# environment, which its subprocess inherits.
[ "$mode" = gpu ] && export PIP_NO_INDEX=1 PIP_FIND_LINKS="$root/.whl"
# BUILD_DIR's compilers (scikit-build-core otherwise sets CXX to the Python's own, g++ where BUILD_DIR
# has c++, and ccache would miss on every file).
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" 2>/dev/null; }
[ -n "$(cached CMAKE_CXX_COMPILER)" ] && export CXX="$(cached CMAKE_CXX_COMPILER)"
[ -n "$(cached CMAKE_C_COMPILER)" ] && export CC="$(cached CMAKE_C_COMPILER)"
start=$SECONDS
# -march=native as the plain build compiles (a wheel to carry elsewhere leaves it off: pyproject.toml),
# so that ccache gives its objects back.
"$venv/bin/python" -m pip install --quiet "${pip_args[@]}" \
  -C build-dir="$cmake_build" -C cmake.define.LAYERBENCH_NATIVE_CPU=ON "$root" >"$work/pip.log" 2>&1 ||
  fail "pip install $root ($(tail -n 20 "$work/pip.log"))"
say "pip install took $((SECONDS - start)) s (log: $work/pip.log)"
if [ "$mode" = cpu ]; then
  # Then an extra, as a user adds one later ('.[reports]' after '.', the same venv): pip's build
  # isolation gives this install a build environment of its own, in a new temporary folder, and
  # scikit-build-core configures the kept build folder afresh; nothing may compile again (the objects
  # lie outside what it clears: CMakeLists.txt; pybind11's headers are read from a copy in the build
  # folder: variants/python/CMakeLists.txt). The build's verbose log has every step ninja ran: a
  # compile (g++'s, nvcc's, a precompiled header's) is a step with -c. ccache does not count: a hit
  # is a compile that ccache answered, which a build with nothing to do never asks.
  start=$SECONDS
  "$venv/bin/python" -m pip install -v "${pip_args[@]}" -C build-dir="$cmake_build" \
    -C cmake.define.LAYERBENCH_NATIVE_CPU=ON -C build.verbose=true "$root[reports]" >"$work/pip-extra.log" 2>&1 ||
    fail "the second pip install, $root[reports] ($(tail -n 20 "$work/pip-extra.log"))"
  step='^ *\[[0-9]+/[0-9]+\] '
  grep -qE "${step}|ninja: no work to do" "$work/pip-extra.log" ||
    fail "no word of ninja's in $work/pip-extra.log: the check below would see nothing (-C build.verbose=true)"
  compiled=$(grep -E "${step}.* -c " "$work/pip-extra.log" | sed -E 's/.* -o ([^ ]+).*/\1/' || true)
  [ -z "$compiled" ] || fail "the second pip install ($root[reports], the same build folder) compiled \
$(echo "$compiled" | wc -l) file(s) again, $(echo "$compiled" | head -n 5 | tr '\n' ' ')(log: $work/pip-extra.log)"
  say "second pip install ('.[reports]') took $((SECONDS - start)) s and compiled nothing: its build ran \
$(grep -cE "${step}" "$work/pip-extra.log") step(s), those every build runs (log: $work/pip-extra.log)"
fi
# The install's stamp: what the second half checks for, so that it never uses a venv a failed or
# interrupted install left behind.
echo "$root" >"$work/installed"
[ "$stage" = install ] && exit 0
fi  # the use
[ "$(cat "$work/installed" 2>/dev/null)" = "$root" ] ||
  fail "no finished install of $root in $venv (check_pip_install.sh $mode ... install first)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/lb-pip-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
# The command from the venv's bin, as a user whose PATH has the venv's bin (activated) runs it.
lb="$venv/bin/layerbench"
[ -x "$lb" ] || fail "the install made no $lb"
"$lb" --version >version.txt 2>&1 || fail "layerbench --version: $(cat version.txt)"
"$lb" list >list.txt 2>&1 || fail "layerbench list: $(cat list.txt)"
grep -q vector_add list.txt || fail "layerbench list names no vector_add: $(cat list.txt)"
grep -q cpu list.txt || fail "layerbench list names no cpu layer: $(cat list.txt)"

if [ "$mode" = cpu ]; then
  "$venv/bin/python" -m layerbench run -l cpu -w vector_add -s 1000 -o r.json >run.txt 2>&1 ||
    fail "python -m layerbench run: $(tail -n 5 run.txt)"
  "$venv/bin/python" "$root/tests/install/api_script.py" r.json cpu || fail "the API script"
  # The reports tool through the binary: the package's reader, with the venv's interpreter.
  "$lb" csv r.json >csv.txt 2>&1 || fail "layerbench csv: $(cat csv.txt)"
  grep -q vector_add csv.txt || fail "layerbench csv names no vector_add case: $(cat csv.txt)"
  "$lb" lab list >labs.txt 2>&1 || fail "layerbench lab list: $(cat labs.txt)"
  [ -s labs.txt ] || fail "layerbench lab list printed nothing"
  say "ok: $(head -n 1 version.txt); list, python -m layerbench run -l cpu, the API script, csv and lab list from $scratch"
else
  "$lb" run -l runtime,cupy -w vector_add -s 1000000 -o r.json >run.txt 2>&1 ||
    fail "layerbench run -l runtime,cupy: $(tail -n 5 run.txt)"
  "$venv/bin/python" "$root/tests/install/api_script.py" r.json runtime,cupy || fail "the API script"
  say "ok: the installed wheel ran vector_add on runtime and cupy, verified"
fi
# A release build of Google Benchmark (cmake/Dependencies.cmake; pip's build fetches its source where
# .deps/ lacks it): no "Library was built as DEBUG" warning before the run's table.
! grep -q "built as DEBUG" run.txt || fail "the run printed Google Benchmark's DEBUG warning: $(grep -m1 DEBUG run.txt)"
