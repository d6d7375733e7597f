// Where layerbench finds the files it reads at run time: the labs (labs/), the lab runners and the
// Python layers' modules (lab/*.py, variants/<layer>/*.py), the kernel texts those layers compile
// (workloads/), the reports tool and the results schema (schemas/). They keep the source tree's
// layout wherever they are, so every reader asks for data_root() / "<path in the source tree>".
// One answer for the whole process, found once:
//   1. $LAYERBENCH_DATA_DIR, when set (a copy of those folders elsewhere);
//   2. the source tree, when this executable lies in the build tree that built it;
//   3. else <prefix>/share/layerbench, found from the executable (/proc/self/exe is
//      <prefix>/bin/layerbench after `cmake --install build --prefix <prefix>`, cmake/install.cmake).
#pragma once
#include <filesystem>

namespace lb {

const std::filesystem::path& data_root();

// The Python extension modules the build made (variants/cython's lb_cython; lb_native):
// <build>/python in the build tree, <prefix>/lib/layerbench/python installed. Follows the
// executable, not $LAYERBENCH_DATA_DIR: they are built for this binary's Python.
const std::filesystem::path& native_module_dir();

// The folder that holds the `layerbench` Python package (python/README.md): data_root() / "python"
// (the source tree, $LAYERBENCH_DATA_DIR, a plain `cmake --install`), except where the install put
// the package elsewhere, relative to the executable: `pip install` (pyproject.toml) installs the
// binary inside the package, <site-packages>/layerbench/_prefix/bin, and the package is then found
// at <site-packages> (cmake/install.cmake: LAYERBENCH_INSTALL_PYTHON_DIR).
const std::filesystem::path& python_package_dir();

}  // namespace lb
