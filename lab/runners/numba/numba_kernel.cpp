#include "lab/runners/numba/numba_kernel.h"

#include <nlohmann/json.hpp>

#include "lab/runners/compiled_ptx.h"
#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {

namespace fs = std::filesystem;

NumbaPtx numba_result(const fs::path& result, const std::vector<int>& parameter_bits) {
  const nlohmann::json json =
      nlohmann::json::parse(compile_result_text(result, kMaxNumbaResultBytes), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.size() != 2 || !json.contains("ptx") || !json.contains("entry") ||
      !json["ptx"].is_string() || !json["entry"].is_string())
    throw StudentCompileError("the compile process's result is not {\"ptx\": TEXT, \"entry\": NAME}");
  NumbaPtx kernel{json["ptx"].get<std::string>(), json["entry"].get<std::string>()};
  check_ptx_entry(kernel.ptx, kernel.entry, parameter_bits, "the lab's arguments make as Numba passes them");
  return kernel;
}

NumbaPtx compile_numba_kernel(const LabSpec& spec, const fs::path& file, int sm, const StudentBuild& build) {
  NumbaPtx kernel;
  kernel.compile_ms = run_python_compile(
      {.tool = "Numba", .module = "layerbench.lab.numba_compile", .argument_types = spec.arguments}, spec, file, sm,
      build, [&](const fs::path& result) { kernel = numba_result(result, parameter_bits(spec, KernelAbi::kNumba)); });
  return kernel;
}

}  // namespace lb::lab
