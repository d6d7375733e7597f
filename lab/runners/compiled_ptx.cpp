#include "lab/runners/compiled_ptx.h"

#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "common/python_interpreter.h"
#include "common/usage_error.h"
#include "lab/runners/compile_process.h"

namespace lb::lab {

namespace fs = std::filesystem;

double run_python_compile(const PythonCompile& compile, const LabSpec& spec, const fs::path& file, int sm,
                          const StudentBuild& build, const std::function<void(const fs::path& result)>& read_result) {
  constexpr const char* kResultName = "kernel.json";
  std::string folder_name = compile.tool;  // "numba": the folder is /tmp/layerbench-numba-XXXXXX
  for (char& c : folder_name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  WorkingFolder folder(folder_name);
  // The student's file, copied in: the process works in its own folder and names the file as the
  // student did (its messages say "vector_add.py:7").
  const fs::path copy = folder.path() / file.filename();
  std::error_code ec;
  fs::copy_file(file, copy, ec);
  if (ec) throw UsageError("cannot read " + file.string() + ": " + ec.message());
  std::string types;
  for (const std::string& type : compile.argument_types) types += (types.empty() ? "" : ",") + type;
  std::vector<std::string> argv = {chosen_python(), "-m", compile.module, copy.filename().string(),
                                   spec.kernel, types, std::to_string(sm), kResultName};
  argv.insert(argv.end(), compile.options.begin(), compile.options.end());
  if (build.line_info) argv.push_back("--lineinfo");
  if (build.exact_buffers) argv.push_back("--debug");
  std::vector<std::string> environment = allowed_environment();
  environment.insert(environment.end(), compile.environment.begin(), compile.environment.end());

  const auto t0 = std::chrono::steady_clock::now();
  const CompileProcessOutcome done = run_compile_process(argv, environment, folder, ProcessLimits{}, compile.rules);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string what = file.string() + ": " + compile.tool + "'s compile of " + spec.kernel;
  // What the process printed is the student's output: shown (capped), never parsed.
  const std::string printed = done.output_bytes == 0 ? "" : "\nwhat it printed:\n" + done.shown_output();
  if (done.exited && done.exit_code == compile.missing_tool_exit_status)  // the machine's, not the file's
    throw StudentCompileError(what + " could not run: " + compile.missing_tool_hint + printed);
  if (!done.exited || done.exit_code != 0)
    throw StudentCompileError(what + " failed (" + done.how_it_ended() + ")" + printed);
  if (!printed.empty()) std::cerr << what << printed << "\n";
  try {
    read_result(folder.path() / kResultName);
  } catch (const StudentCompileError& e) {
    throw StudentCompileError(what + ": " + e.what() + printed);
  }
  return ms;
}

std::string compile_result_text(const fs::path& result, std::uintmax_t max_bytes) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(result, ec);
  if (ec || !fs::is_regular_file(status)) throw StudentCompileError("the compile process handed back no kernel");
  const std::uintmax_t bytes = fs::file_size(result, ec);
  if (ec || bytes > max_bytes)
    throw StudentCompileError("the compile process handed back " + std::to_string(bytes) + " bytes, more than the " +
                              std::to_string(max_bytes >> 20) + " MiB a kernel's PTX may take");
  std::ifstream in(result, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}


std::vector<int> ptx_parameter_bits(const std::string& ptx, const std::string& entry) {
  // ".visible .entry NAME(" then ".param .TYPE NAME_param_0," ... ")": each parameter's type
  // (Triton's pointers: ".param .u64 .ptr .global .align 1 NAME_param_0", the type first too).
  const std::string head = ".entry " + entry + "(";
  const std::size_t at = ptx.find(head);
  const std::size_t close = at == std::string::npos ? at : ptx.find(')', at + head.size());
  if (close == std::string::npos) throw StudentCompileError("the compiled kernel's PTX defines no kernel " + entry);
  const std::string list = ptx.substr(at + head.size(), close - at - head.size());
  static const std::regex param(R"(\.param\s+(?:\.align\s+\d+\s+)?\.([a-z])(\d+))");
  std::vector<int> bits;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), param); it != std::sregex_iterator(); ++it)
    bits.push_back(std::stoi((*it)[2].str()));
  return bits;
}

void check_ptx_entry(const std::string& ptx, const std::string& entry, const std::vector<int>& parameter_bits,
                     const std::string& whose_parameters) {
  static const std::regex identifier(R"([A-Za-z_$][A-Za-z0-9_$]{0,4095})");
  if (!std::regex_match(entry, identifier))
    throw StudentCompileError("the compile process's entry name is not a PTX identifier");
  if (ptx.find('\0') != std::string::npos) throw StudentCompileError("the compiled kernel's PTX holds a NUL byte");
  const std::vector<int> found = ptx_parameter_bits(ptx, entry);
  if (found != parameter_bits)
    throw StudentCompileError("the compiled kernel " + entry.substr(0, 80) + " takes " + std::to_string(found.size()) +
                              " parameters, not the " + std::to_string(parameter_bits.size()) + " " + whose_parameters);
}

driver::CompiledProgram ptx_program(const std::string& ptx) {
  driver::CompiledProgram program;
  program.cubin = ptx;
  return program;
}

}  // namespace lb::lab
