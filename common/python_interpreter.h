// The Python interpreter layerbench's Python parts use, found in one place: the reports tool
// (`layerbench report|compare|csv`, app/cli.cpp) runs it, and the embedded interpreter of the
// Python layers and labs (variants/python/python_layer.cpp) takes its packages' search path from it.
// variants/python/CMakeLists.txt finds the same one at configure time ($LAYERBENCH_PYTHON, else
// the project's .venv, else python3), to build against its headers.
#pragma once
#include <string>

namespace lb {

// $LAYERBENCH_PYTHON, else the project's .venv/bin/python3, else "python3" (found on the PATH by
// whoever runs it).
std::string chosen_python();

}  // namespace lb
