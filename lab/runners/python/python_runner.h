// The Python runners, through the embedded interpreter (lab/runners/python/python_student.h): pycuda
// and cuda-core (CUDA C++ kernel text, which the parent compiles with NVRTC to report errors,
// compiled and launched from Python in the child; the student's file holds no Python). Numba's
// labs, whose file is Python, are lab/runners/numba/'s: compiled in a process of their own. Each is registered with its program class in python/layerbench/lab
// ("kernel_text.PycudaProgram"), which the child loads: the Python side keeps no table of runners.
#pragma once
#include <string>
#include <utility>

#include "lab/runners/kernel_runner.h"

namespace lb::lab {

class PythonRunner final : public KernelRunner {
 public:
  PythonRunner(std::string name, std::string extension, std::string program)
      : KernelRunner(std::move(name), std::move(extension)), program_(std::move(program)) {}
  bool embedded_python() const override { return true; }
  void precheck(const LabSpec& spec, const std::filesystem::path& file) const override;
  std::unique_ptr<StudentProgram> load(const LabSpec& spec, const std::filesystem::path& file,
                                       const TargetDevice& device, const StudentBuild& build) const override;

 private:
  std::string program_;  // module.Class in python/layerbench/lab
};

}  // namespace lb::lab
