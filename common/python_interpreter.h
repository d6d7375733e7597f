// The Python interpreter layerbench's Python parts use, found in one place: the reports tool
// (`layerbench report|compare|csv`, app/cli.cpp) runs it, and the embedded interpreter of the
// Python layers and labs (variants/python/python_layer.cpp) takes its packages' search path from it.
// variants/python/CMakeLists.txt finds the same one at configure time ($LAYERBENCH_PYTHON, else
// the project's .venv, else python3), to build against its headers.
#pragma once
#include <string>
#include <vector>

namespace lb {

// $LAYERBENCH_PYTHON, else the project's .venv/bin/python3, else "python3" (found on the PATH by
// whoever runs it).
std::string chosen_python();

// The folder that holds the `layerbench` Python package: python/ of the source tree
// (python/README.md). Python runs our modules by package name with this folder on its path, set by
// whoever starts it (PYTHONPATH, the embedder's sys.path), never by a module.
std::string python_package_root();

// The report tool's command line, `chosen_python() -m layerbench.reports SUBCOMMAND`. It puts
// python_package_root() first on this process's PYTHONPATH, which the tool inherits when the
// caller execs or starts it.
std::vector<std::string> reports_command(const std::string& subcommand);

}  // namespace lb
