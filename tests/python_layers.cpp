// Python layers for the tests only (linked into layerbench_faulty): a correct NumPy layer, a wrong
// one (a missing element, an exception), and one whose package is missing.
#include "variants/python/python_layer.h"

namespace lb {
namespace {
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "py-numpy", .summary = "NumPy on the CPU (tests only)", .rank = 101,
                                     .dir = "tests/python_layers/py-numpy", .modules = {"numpy"}});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "py-wrong", .summary = "wrong on purpose (tests only)", .rank = 102,
                                     .dir = "tests/python_layers/py-wrong", .modules = {"numpy"}});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "py-missing", .summary = "its package is missing (tests only)",
                                     .rank = 103, .dir = "tests/python_layers/py-missing",
                                     .modules = {"lb_no_such_module"}});
}  // namespace
}  // namespace lb
