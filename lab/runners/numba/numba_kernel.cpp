#include "lab/runners/numba/numba_kernel.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/python_interpreter.h"
#include "common/usage_error.h"
#include "lab/runners/compile_process.h"
#include "lab/runners/compiled_ptx.h"
#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kResultName = "kernel.json";

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : separator) + w;
  return text;
}

}  // namespace

NumbaPtx numba_result(const fs::path& result, const std::vector<int>& parameter_bits) {
  const nlohmann::json json =
      nlohmann::json::parse(compile_result_text(result, kMaxNumbaResultBytes), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.size() != 2 || !json.contains("ptx") || !json.contains("entry") ||
      !json["ptx"].is_string() || !json["entry"].is_string())
    throw StudentCompileError("the compile process's result is not {\"ptx\": TEXT, \"entry\": NAME}");
  NumbaPtx kernel{json["ptx"].get<std::string>(), json["entry"].get<std::string>()};
  if (!is_ptx_identifier(kernel.entry))
    throw StudentCompileError("the compile process's entry name is not a PTX identifier");
  if (kernel.ptx.find('\0') != std::string::npos)
    throw StudentCompileError("the compiled kernel's PTX holds a NUL byte");
  const std::vector<int> found = ptx_parameter_bits(kernel.ptx, kernel.entry);
  if (found != parameter_bits)
    throw StudentCompileError("the compiled kernel " + kernel.entry.substr(0, 80) + " takes " +
                              std::to_string(found.size()) + " parameters, not the " +
                              std::to_string(parameter_bits.size()) + " the lab's arguments make as Numba passes them");
  return kernel;
}

NumbaPtx compile_numba_kernel(const LabSpec& spec, const fs::path& file, int sm, const StudentBuild& build) {
  WorkingFolder folder("numba");
  // The student's file, copied in: the process works in its own folder and names the file as the
  // student did (its messages say "vector_add.py:7").
  const fs::path copy = folder.path() / file.filename();
  std::error_code ec;
  fs::copy_file(file, copy, ec);
  if (ec) throw UsageError("cannot read " + file.string() + ": " + ec.message());
  std::vector<std::string> argv = {chosen_python(), "-m", "layerbench.lab.numba_compile", copy.filename().string(),
                                   spec.kernel, joined(spec.arguments, ","), std::to_string(sm), kResultName};
  if (build.line_info) argv.push_back("--lineinfo");
  if (build.exact_buffers) argv.push_back("--debug");
  const auto t0 = std::chrono::steady_clock::now();
  const CompileProcessOutcome done = run_compile_process(argv, allowed_environment(), folder, ProcessLimits{});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string what = file.string() + ": Numba's compile of " + spec.kernel;
  // What the process printed is the student's output: shown (capped), never parsed.
  const std::string printed = done.output_bytes == 0 ? "" : "\nwhat it printed:\n" + done.shown_output();
  if (!done.exited || done.exit_code != 0)
    throw StudentCompileError(what + " failed (" + done.how_it_ended() + ")" + printed);
  if (!printed.empty()) std::cerr << what << printed << "\n";
  try {
    NumbaPtx kernel = numba_result(folder.path() / kResultName, parameter_bits(spec, KernelAbi::kNumba));
    kernel.compile_ms = ms;
    return kernel;
  } catch (const StudentCompileError& e) {
    throw StudentCompileError(what + ": " + e.what() + printed);
  }
}

}  // namespace lb::lab
