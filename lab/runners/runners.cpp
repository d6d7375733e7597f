// Every lab runner, one line each: lab.json's "runner" names one, and a lab.json without it gets
// the first whose extension its student file has.
#include <memory>
#include <vector>

#include "lab/runners/host_trip/host_trip_runner.h"
#include "lab/runners/numba/numba_runner.h"
#include "lab/runners/nvrtc/nvrtc_runner.h"
#include "lab/runners/python/python_runner.h"
#include "lab/runners/triton/triton_runner.h"

namespace lb::lab {
namespace {

const std::vector<std::unique_ptr<const Runner>>& runners() {
  static const std::vector<std::unique_ptr<const Runner>> all = [] {
    std::vector<std::unique_ptr<const Runner>> r;
    r.push_back(std::make_unique<NvrtcRunner>("nvrtc", ".cu"));
    r.push_back(std::make_unique<NumbaRunner>("numba", ".py"));
    // After numba: a .py lab without "runner" is Numba's; a Triton lab names "runner": "triton".
    r.push_back(std::make_unique<TritonRunner>("triton", ".py"));
    // A Python runner names its program class in python/layerbench/lab (module.Class).
    r.push_back(std::make_unique<PythonRunner>("pycuda", ".cu", "kernel_text.PycudaProgram"));
    r.push_back(std::make_unique<PythonRunner>("cuda-core", ".cu", "kernel_text.CudaCoreProgram"));
    r.push_back(std::make_unique<HostTripRunner>("host-trip", ".cu"));
    // The name lab.json files used before the runners had folders: a course's own lab 8 keeps working.
    r.push_back(std::make_unique<HostTripRunner>("nvcc-host", ".cu"));
    return r;
  }();
  return all;
}

}  // namespace

const Runner* find_runner(const std::string& name) {
  for (const auto& runner : runners())
    if (runner->name() == name) return runner.get();
  return nullptr;
}

const Runner* default_runner_for(const std::string& student_file) {
  for (const auto& runner : runners())
    if (student_file.ends_with(runner->extension())) return runner.get();
  return nullptr;
}

std::string runner_names() {
  std::string names;
  for (const auto& runner : runners()) names += (names.empty() ? "" : ", ") + runner->name();
  return names;
}

}  // namespace lb::lab
