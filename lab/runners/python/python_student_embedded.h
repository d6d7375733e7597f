// The Python labs' side that embeds CPython (lab/runners/python/python_student_embedded.cpp, built into the Python
// layers' library, variants/python/CMakeLists.txt, because that is where pybind11 is): the rules
// check and the runner of python/layerbench/lab, called through the interpreter the Python layers
// use. lab/runners/python/python_student.cpp (in lb_lab) calls these; in a build without an embeddable Python they
// throw StudentCompileError saying so.
#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "lab/child/student_program.h"

namespace lb::lab {

// layerbench.lab's `check` (check_file: a Numba file's rules; check_triton_file: a Triton file's):
// throws StudentCompileError naming the file and line of the first rule the file breaks (or its
// syntax error), or when no Python can be embedded here.
void check_python_lab_rules(const LabSpec& spec, const std::filesystem::path& file, const char* check);

// layerbench.lab.load with the runner's program class: PyCUDA or cuda.core loads `cubin`, the kernel
// text already compiled for this GPU in the limited compile process (lab/runners/nvrtc/limited_compile.h:
// never in the child, which holds the grade's keys), through its own loader (a Numba file is never
// loaded here: lab/runners/numba/). On the current (primary) context. StudentCompileError when the
// module has no such kernel. `program_class` is
// the runner's class in python/layerbench/lab (module.Class, as lab/runners/runners.cpp registers
// it), passed in: the runners are lb_lab's, which the Python layers' library (where this file is
// built) does not link.
std::unique_ptr<StudentProgram> load_python_lab_kernels(const LabSpec& spec, const std::filesystem::path& file,
                                                        int sm_count, const StudentBuild& build,
                                                        const std::string& program_class, const std::string& cubin);

}  // namespace lb::lab
