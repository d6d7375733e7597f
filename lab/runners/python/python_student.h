// What the embedded interpreter does for the labs: a Numba lab file checked against the lab's rules
// on its syntax tree, in the parent (nothing of it runs: lab/runners/numba/ imports it only in a
// compile process of its own), and CUDA C++ kernel text that PyCUDA or cuda.core compiles in the
// child; launched by the lab's runner, never by the student's code.
#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "lab/child/student_program.h"

namespace lb::lab {

// Which of python/layerbench/lab/rules.py's rules a file is held to: a Numba file's (lab 5) or a
// Triton file's (lab 10).
enum class PythonLabRules { kNumba, kTriton };

// The file parses and follows the rules (see docs/labs.md); throws StudentCompileError naming the
// file and line of the first problem, UsageError when it cannot be read.
void precheck_python_file(const LabSpec& spec, const std::filesystem::path& file,
                          PythonLabRules rules = PythonLabRules::kNumba);

// The file's kernel, compiled for this GPU by the lab's runner (PyCUDA, cuda.core), as a
// program the harness runs. `program`: the runner's class in python/layerbench/lab, module.Class.
std::unique_ptr<StudentProgram> load_python_program(const LabSpec& spec, const std::filesystem::path& file,
                                                    const TargetDevice& device, const StudentBuild& build,
                                                    const std::string& program);

}  // namespace lb::lab
