#include "lab/runners/triton/triton_runner.h"

#include "common/python_interpreter.h"
#include "lab/runners/compiled_ptx.h"
#include "lab/runners/nvrtc/folder_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/python/python_student.h"  // precheck_python_file: the rules, in the parent
#include "lab/runners/triton/triton_kernel.h"

namespace lb::lab {

std::filesystem::path TritonRunner::student_executable() const { return chosen_python(); }

void TritonRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  precheck_python_file(spec, file, PythonLabRules::kTriton);
  // The rules first (a student without Triton still learns what the file breaks), then Triton,
  // which the child's compile process needs: without it the check cannot run here.
  if (const std::string why = triton_unavailable_reason(); !why.empty()) throw RunnerUnavailable(why);
}

std::string TritonRunner::compile_failed_rule(const std::string& file_name) const {
  return file_name +
         " breaks the Triton lab's rules or does not compile (it may define @triton.jit functions, import triton, "
         "triton.language and math, and assign constants; nothing else runs)";
}

std::unique_ptr<StudentProgram> TritonRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                   const TargetDevice& device, const StudentBuild& build) const {
  const TritonPtx compiled = compile_triton_kernel(spec, file, device.sm, build);
  // The PTX loaded (the driver compiles it for this GPU), launched as KernelAbi::kTriton says: a
  // FolderStudentKernel for a lab on a workload folder, else a StudentKernel, chosen once, here.
  const driver::CompiledProgram program = ptx_program(compiled.ptx);
  const bool exact = build.exact_buffers;
  const unsigned shared = compiled.shared_bytes;
  if (spec.folder)
    return std::make_unique<LoadedProgram>(program, compiled.entry, [&spec, device, exact, shared](driver::Kernel k) {
      return std::make_unique<FolderStudentKernel>(spec, k, device, exact, KernelAbi::kTriton, shared);
    });
  return std::make_unique<LoadedProgram>(program, compiled.entry, [&spec, device, exact, shared](driver::Kernel k) {
    return std::make_unique<StudentKernel>(spec, k, device, exact, KernelAbi::kTriton, shared);
  });
}

}  // namespace lb::lab
