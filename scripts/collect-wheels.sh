#!/usr/bin/env bash
# Collects, on a machine with a package registry, the wheels a GPU machine without one needs for
# layerbench's Python layers, into one folder to carry there and install offline
# (docs/offline-install.md). Pinned, one version of each package, for one Python version and
# x86_64 Linux:
#   - numpy: the GPU machine's own NumPy (2.5) is newer than the Numba layers can import: NumPy 2.5
#     removed np.row_stack, which numba-cuda 0.30.4 overloads at import for any NumPy 2. So a NumPy
#     they accept travels too: the project's pin, inside numba 0.68.0's range (numpy<2.6,>=1.22)
#     and CuPy 14.2's (>=2.0,<2.6);
#   - pycuda: PyPI has only its source, so its wheel is built here with the local CUDA toolkit for
#     the target Python (CURAND off: besides glibc and libstdc++, the wheel then needs only the
#     driver's libcuda.so.1 at run time; stripped). Built on this machine, it needs the glibc and
#     libstdc++ symbol versions this machine's compiler used: the script prints the newest of each
#     (Debian 12 here: GLIBC_2.34, GLIBCXX_3.4.29, so glibc 2.34+ and GCC 11+'s libstdc++);
#   - jsonschema and its dependencies, for the lab autograder's schema tests and the results reader;
#   - what `pip install <checkout>` builds with (pyproject.toml's build-system.requires:
#     scikit-build-core and its packaging and pathspec, pybind11, Cython; ninja, which
#     scikit-build-core asks for where the machine has none), so the package builds there offline
#     with the machine's own CMake and CUDA toolkit (docs/offline-install.md, "The package");
#   - pycuda's pure-Python dependencies (pytools and what pytools 2026 needs) and cuda-cccl
#     (the cuda-compute layer), each named with --no-deps so nothing else slips in. cuda-cccl is
#     1.1.1, as in variants/python/requirements.txt: it has serialize/deserialize (the layer's disk
#     cache of built algorithms) and compiles Python operators with numba-cuda, which the GPU
#     machine has (its extras ask numba<0.66, which --no-deps leaves aside: numba 0.68 works with
#     it); from 1.2 on it needs numba-cuda-mlir, a 68 MiB wheel, more than a device run can carry
#     beside the working tree (64 MiB in all).
# What the GPU machine already has (cuda-bindings, cuda-core, cuda-pathfinder, cupy, numba,
# numba-cuda, typing-extensions, markupsafe, ...) is not collected.
set -euo pipefail

say() { echo "collect-wheels: $*" >&2; }
die() { say "error: $*"; exit 1; }

usage() {
  cat <<'EOF'
Usage: scripts/collect-wheels.sh [options]

Fills a folder with the wheels layerbench's Python layers need on a GPU machine that has no
package registry (see docs/offline-install.md). Needs a registry here, the target Python version
here (to build PyCUDA's wheel) and a CUDA toolkit.

Options:
  --out DIR              where the wheels go (default: .whl in the source root); its old *.whl
                         files are replaced
  --python-version X.Y   the target machine's Python (default: 3.12)
  --python PATH          an interpreter of that version to build PyCUDA with (default: pyenv's
                         newest X.Y.*, else pythonX.Y on PATH)
  --cuda-root DIR        the CUDA toolkit PyCUDA is built against (default: $CUDA_ROOT, else
                         /usr/local/cuda)
  -h, --help             this text
EOF
}

# --- the pins --------------------------------------------------------------------------------------
NUMPY=numpy==2.2.6                    # variants/python/requirements.txt; numba, numba-cuda, CuPy accept it
PYCUDA_VERSION=2026.1                 # built here from PyPI's source
FROM_REGISTRY=(
  "$NUMPY"
  pytools==2026.1.1                   # pycuda: pytools>=2011.2
  platformdirs==4.14.7                # pycuda: platformdirs>=2.2.0; pytools: >=2.2
  siphash24==1.9                      # pytools 2026: siphash24>=1.6 (binary)
  mako==1.4.3                         # pycuda: mako (needs MarkupSafe>=2.0: the GPU machine has it)
  cuda-cccl==1.1.1                    # cuda-compute (requirements.txt); needs numpy, cuda-pathfinder,
                                      # cuda-core, typing_extensions, and for Python operators
                                      # numba>=0.60 and numba-cuda: all there but numpy (carried)
  # The lab autograder tests (tests/lab_autograder) hold `lab grade --format`'s files to each
  # grading system's schema on the GPU machine too: jsonschema and what it imports.
  jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1 attrs==26.1.0
  typing-extensions==4.16.0           # referencing on Python < 3.13; pip install of the package resolves it
  # `pip install <checkout>`'s build: pyproject.toml's build-system.requires (the same pins) and
  # scikit-build-core's own requirements for Python 3.11+; ninja where the machine has none.
  scikit-build-core==1.1.2 packaging==26.4 pathspec==1.1.1 pybind11==2.13.6 Cython==3.3.1 ninja==1.13.2
)
BUILD_TOOLS=(setuptools==84.2.1 "$NUMPY")  # PyCUDA's build: setuptools (bdist_wheel), NumPy headers

# --- the command line ------------------------------------------------------------------------------
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$ROOT/.whl"
pyver=3.12
python=""
cuda_root="${CUDA_ROOT:-/usr/local/cuda}"
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out="$2"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --python-version) [ $# -ge 2 ] || die "--python-version needs X.Y"; pyver="$2"; shift 2 ;;
    --python-version=*) pyver="${1#*=}"; shift ;;
    --python) [ $# -ge 2 ] || die "--python needs an interpreter"; python="$2"; shift 2 ;;
    --python=*) python="${1#*=}"; shift ;;
    --cuda-root) [ $# -ge 2 ] || die "--cuda-root needs a folder"; cuda_root="$2"; shift 2 ;;
    --cuda-root=*) cuda_root="${1#*=}"; shift ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$pyver" =~ ^3\.[0-9]+$ ]] || die "--python-version must look like 3.12, not '$pyver'"
[ "$(uname -m)" = x86_64 ] || die "this builds PyCUDA for x86_64 and runs on $(uname -m)"

# --- what it needs here ----------------------------------------------------------------------------
[ -x "$cuda_root/bin/nvcc" ] || die "no nvcc in $cuda_root/bin (set --cuda-root or \$CUDA_ROOT)"
[ -f "$cuda_root/include/cuda.h" ] || die "no $cuda_root/include/cuda.h (set --cuda-root)"
stub=""
for s in "$cuda_root/lib64/stubs/libcuda.so" "$cuda_root/lib/stubs/libcuda.so" "$cuda_root/targets/x86_64-linux/lib/stubs/libcuda.so"; do
  [ -f "$s" ] && { stub="$s"; break; }
done
[ -n "$stub" ] || die "no stub libcuda.so under $cuda_root (PyCUDA links against it where no driver is installed)"
if [ -z "$python" ]; then
  python="$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$pyver".*/bin/python 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -z "$python" ] && python="$(command -v "python$pyver" || true)"
  [ -n "$python" ] || die "no Python $pyver here (install one, e.g. 'pyenv install $pyver', or pass --python)"
fi
got="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" || die "cannot run '$python'"
[ "$got" = "$pyver" ] || die "'$python' is Python $got, not $pyver"

work="$(mktemp -d "${TMPDIR:-/tmp}/collect-wheels.XXXXXX")"
trap 'rm -rf "$work"' EXIT
stage="$work/wheels"
mkdir -p "$stage"

# --- PyCUDA, built ---------------------------------------------------------------------------------
say "building pycuda==$PYCUDA_VERSION for Python $pyver ($python) against $cuda_root ($("$cuda_root/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p'))"
"$python" -m venv "$work/build-env" || die "cannot make a venv with $python"
pip="$work/build-env/bin/python -m pip"
$pip install -q --disable-pip-version-check "${BUILD_TOOLS[@]}" || die "pip could not install ${BUILD_TOOLS[*]}"
$pip download -q --disable-pip-version-check --no-deps --no-binary=:all: --no-build-isolation \
  -d "$work/src" "pycuda==$PYCUDA_VERSION" || die "pip could not download pycuda==$PYCUDA_VERSION's source"
tar -xzf "$work/src/pycuda-$PYCUDA_VERSION.tar.gz" -C "$work/src" || die "cannot unpack pycuda-$PYCUDA_VERSION.tar.gz"
src="$work/src/pycuda-$PYCUDA_VERSION"
# configure.py writes siteconf.py, which the build reads: our toolkit, no CURAND, no debug symbols.
# (libstdc++ stays a shared library: linked in statically it would need a newer glibc, 2.36 here.)
(cd "$src" && "$work/build-env/bin/python" configure.py --cuda-root="$cuda_root" --no-cuda-enable-curand \
   --ldflags=-s >/dev/null) || die "pycuda's configure.py failed"
PATH="$cuda_root/bin:$PATH" $pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
  -w "$stage" "$src" >"$work/pycuda-build.log" 2>&1 || { tail -n 30 "$work/pycuda-build.log" >&2; die "pycuda's build failed (log above)"; }
wheel="$(ls "$stage"/pycuda-"$PYCUDA_VERSION"-*.whl 2>/dev/null)" || die "the pycuda build made no wheel"
# What the wheel's extension needs from the target machine: libcuda.so.1 (the driver), glibc, libstdc++.
(cd "$work" && rm -rf check && mkdir check && cd check && python3 -m zipfile -e "$wheel" . >/dev/null 2>&1) ||
  die "cannot unpack $wheel to check it"
driver_so="$(ls "$work"/check/pycuda/_driver*.so)" || die "the pycuda wheel has no pycuda/_driver*.so"
needed="$(objdump -p "$driver_so" | awk '/NEEDED/ {print $2}' | sort | tr '\n' ' ')"
[[ "$needed" == *libcuda.so.1* ]] || die "pycuda's _driver does not link libcuda.so.1 (needs: $needed)"
if [[ "$needed" == *libcurand* ]]; then die "pycuda's _driver still needs libcurand (needs: $needed)"; fi
versions="$(objdump -T "$driver_so" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n 1) $(objdump -T "$driver_so" | grep -o 'GLIBCXX_[0-9.]*' | sort -Vu | tail -n 1)"
say "built $(basename "$wheel"): needs ${needed% } (newest symbol versions: $versions)"

# --- the rest, from the registry -------------------------------------------------------------------
platforms=(--platform manylinux2014_x86_64)
for minor in $(seq 17 28); do platforms+=(--platform "manylinux_2_${minor}_x86_64"); done
say "downloading ${FROM_REGISTRY[*]}"
$pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version "$pyver" \
  --implementation cp "${platforms[@]}" -d "$stage" "${FROM_REGISTRY[@]}" || die "pip could not download the pinned wheels"

# --- one version of each, into the output folder ---------------------------------------------------
names="$(for w in "$stage"/*.whl; do basename "$w" | cut -d- -f1 | tr 'A-Z.-' 'a-z__'; done | sort)"
dupes="$(uniq -d <<<"$names")"
[ -z "$dupes" ] || die "two versions of: $dupes"
mkdir -p "$out" || die "cannot make $out"
rm -f "$out"/*.whl
cp "$stage"/*.whl "$out"/
say "$(ls "$out"/*.whl | wc -l) wheels in $out:"
for w in "$out"/*.whl; do printf '  %8.1f MiB  %s\n' "$(stat -c %s "$w" | awk '{print $1 / 1048576}')" "$(basename "$w")" >&2; done
total="$(cat "$out"/*.whl | wc -c)"
say "total $(awk -v b="$total" 'BEGIN {printf "%.1f MiB", b / 1048576}') ($total bytes); a device run carries at most 64 MiB with the working tree"
