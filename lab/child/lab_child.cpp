// The child of `lab check|grade|profile` (`layerbench lab run-child`): the only process that
// touches the GPU, and the only one that runs the student's code, as the lab's runner says.
#include "lab/child/child_process.h"
#include "lab/runners/runner.h"
#include "variants/driver/kernel_program.h"

namespace lb::lab {

int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request, std::FILE* out) {
  if (const std::string why = driver::unavailable_reason(); !why.empty()) {
    write_child_event(out, NoGpu{why});
    return kExitCannotRun;
  }
  return spec.runner->run_child(spec, file, request, out);
}

}  // namespace lb::lab
