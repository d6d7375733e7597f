#include "lab/runners/compiled_ptx.h"

#include <fstream>
#include <regex>
#include <sstream>

#include "lab/child/student_program.h"

namespace lb::lab {

namespace fs = std::filesystem;

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

bool is_ptx_identifier(const std::string& entry) {
  static const std::regex identifier(R"([A-Za-z_$][A-Za-z0-9_$]{0,4095})");
  return std::regex_match(entry, identifier);
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

}  // namespace lb::lab
