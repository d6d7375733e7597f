#include "lab/runners/triton/triton_kernel.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/python_interpreter.h"
#include "lab/runners/compile_process.h"
#include "lab/runners/compiled_ptx.h"
#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

bool is_count(const nlohmann::json& value) { return value.is_number_unsigned() && value.get<std::uint64_t>() <= (1u << 30); }

// The threads per block the PTX's entry requires (".reqntid 256" after its parameter list, as
// Triton writes it); 0 where it states none.
unsigned required_threads(const std::string& ptx, const std::string& entry) {
  const std::size_t at = ptx.find(".entry " + entry + "(");
  const std::size_t close = ptx.find(')', at);
  const std::size_t body = ptx.find('{', close);
  if (at == std::string::npos || close == std::string::npos || body == std::string::npos) return 0;
  static const std::regex reqntid(R"(\.reqntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?)");
  const std::string directives = ptx.substr(close, body - close);
  std::smatch m;
  if (!std::regex_search(directives, m, reqntid)) return 0;
  unsigned long threads = 1;
  for (int i = 1; i <= 3; ++i)
    if (m[i].matched) threads *= std::min(std::stoul(m[i].str().substr(0, 6)), 1ul << 20);
  return static_cast<unsigned>(std::min(threads, 1ul << 30));
}

// What to install, for a message that says Triton is missing.
std::string install_triton_hint(const std::string& python) {
  return "install it into that Python (" + python +
         " -m pip install triton; the GPU image has 3.6) or set LAYERBENCH_PYTHON to a Python that has it";
}

}  // namespace

std::string triton_unavailable_reason() {
  const std::string python = chosen_python();
  WorkingFolder folder("triton-probe");
  const CompileProcessOutcome done =
      run_compile_process({python, "-c", "import triton"}, allowed_environment(), folder, ProcessLimits{.wall_s = 60},
                          {.new_processes = true});
  if (done.exited && done.exit_code == 0) return "";
  // Python's last line says why ("ModuleNotFoundError: No module named 'triton'").
  std::string why = done.output;
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  why = why.substr(why.find_last_of('\n') == std::string::npos ? 0 : why.find_last_of('\n') + 1);
  if (why.empty() || !done.exited) why = done.how_it_ended();
  return "the triton runner compiles with Triton, which " + python + " cannot import (" + why.substr(0, 200) +
         "): " + install_triton_hint(python);
}

unsigned triton_block_threads(const LabSpec& spec) {
  if (spec.launch.block_y != 1 || spec.launch.block_x == 0 || spec.launch.block_x % 32 != 0 || spec.launch.block_x > 1024)
    throw StudentCompileError("the lab's block (" + std::to_string(spec.launch.block_x) + " x " +
                              std::to_string(spec.launch.block_y) +
                              ") is not a whole number of warps in one dimension, which a Triton kernel's num_warps makes");
  if (spec.folder) {
    const auto& block = spec.folder->spec().kernels.front().launch.block;
    if (block[1] != 1 || block[2] != 1)
      throw StudentCompileError("the workload folder's block is not one-dimensional, which a Triton kernel's is");
  }
  return spec.launch.block_x;
}

TritonPtx triton_result(const fs::path& result, const std::vector<int>& parameter_bits, unsigned block_threads) {
  const nlohmann::json json =
      nlohmann::json::parse(compile_result_text(result, kMaxTritonResultBytes), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.size() != 4 || !json.contains("ptx") || !json.contains("entry") ||
      !json.contains("num_warps") || !json.contains("shared_bytes") || !json["ptx"].is_string() ||
      !json["entry"].is_string() || !is_count(json["num_warps"]) || !is_count(json["shared_bytes"]))
    throw StudentCompileError(
        "the compile process's result is not {\"ptx\": TEXT, \"entry\": NAME, \"num_warps\": N, \"shared_bytes\": B}");
  TritonPtx kernel{json["ptx"].get<std::string>(), json["entry"].get<std::string>(), json["num_warps"].get<unsigned>(),
                   json["shared_bytes"].get<unsigned>()};
  check_ptx_entry(kernel.ptx, kernel.entry, parameter_bits, "the lab's arguments and Triton's two scratch pointers make");
  const unsigned required = required_threads(kernel.ptx, kernel.entry);
  if (static_cast<std::uint64_t>(kernel.num_warps) * 32 != block_threads || (required != 0 && required != block_threads))
    throw StudentCompileError("the compiled kernel runs " + std::to_string(kernel.num_warps) + " warps (its PTX requires " +
                              std::to_string(required) + " threads), not the lab's block of " +
                              std::to_string(block_threads) + " threads");
  if (kernel.shared_bytes > kMaxTritonSharedBytes)
    throw StudentCompileError("the compiled kernel asks for " + std::to_string(kernel.shared_bytes) +
                              " bytes of shared memory per block, more than the " +
                              std::to_string(kMaxTritonSharedBytes >> 10) + " KiB a GPU has");
  return kernel;
}

TritonPtx compile_triton_kernel(const LabSpec& spec, const fs::path& file, int sm, const StudentBuild& build) {
  const unsigned block = triton_block_threads(spec);
  PythonCompile compile{.tool = "Triton",
                        .module = "layerbench.lab.triton_compile",
                        .argument_types = argument_c_types(spec),
                        .options = {"--num-warps", std::to_string(block / 32)},
                        .missing_tool_exit_status = kTritonCompileNoTriton,
                        .missing_tool_hint = "the compile process cannot import triton: " + install_triton_hint(chosen_python()),
                        .rules = {.new_processes = true}};  // triton.compile runs ptxas
  // Its ptxas where this process's environment names one (a Triton whose own is too old for the
  // GPU). Its cache is the working folder's: triton_compile.py sets it there.
  if (const char* ptxas = std::getenv("TRITON_PTXAS_PATH"); ptxas && *ptxas)
    compile.environment.push_back(std::string("TRITON_PTXAS_PATH=") + ptxas);
  TritonPtx kernel;
  kernel.compile_ms = run_python_compile(compile, spec, file, sm, build, [&](const fs::path& result) {
    kernel = triton_result(result, parameter_bits(spec, KernelAbi::kTriton), block);
  });
  return kernel;
}

}  // namespace lb::lab
