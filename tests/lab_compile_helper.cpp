// Linked into every lab test (tests/CMakeLists.txt, lb_lab_test). A test executable is not
// layerbench: a kernel compiled in the limited compile process (lab/runners/nvrtc/limited_compile.h)
// runs the real binary's hidden helper, not this executable, which would start itself again, every
// one of its tests, for each compile, in a chain to the compile's time limit.
#include "lab/runners/nvrtc/limited_compile.h"

namespace {
const bool kCompilesWithLayerbench = (lb::lab::set_kernel_compile_program(LB_EXE), true);
}  // namespace
