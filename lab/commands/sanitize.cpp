#include "lab/commands/sanitize.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <sstream>

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Headlines that are not errors: the banner, the summary, a leak check's header.
bool is_banner(const std::string& line) {
  return line.starts_with("COMPUTE-SANITIZER") || line.starts_with("ERROR SUMMARY") ||
         line.starts_with("LEAK SUMMARY") || line.starts_with("Target application returned");
}

}  // namespace

std::vector<fs::path> cuda_tool_dirs() {
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH"); path) {
    std::istringstream parts(path);
    for (std::string dir; std::getline(parts, dir, ':');)
      if (!dir.empty()) dirs.emplace_back(dir);
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(fs::path(home) / "bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  return dirs;
}

ToolLookup find_cuda_tool(const std::string& name, const std::vector<fs::path>& dirs) {
  for (const fs::path& dir : dirs) {
    const fs::path candidate = dir / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return {candidate, {}};
  }
  return {{}, name + " is not installed (looked on the PATH, in $CUDA_HOME/bin and /usr/local/cuda/bin; it comes "
              "with the CUDA toolkit)"};
}

ToolLookup find_cuda_tool(const std::string& name) { return find_cuda_tool(name, cuda_tool_dirs()); }

double sanitize_time_limit(double lab_limit_s) {
  return std::max(lab_limit_s * kSanitizeTimeFactor, kSanitizeMinLimitS);
}

std::vector<std::string> sanitizer_prefix(const fs::path& tool, const fs::path& log_file, int print_limit) {
  return {tool.string(),
          "--tool",
          "memcheck",
          "--log-file",
          log_file.string(),  // the report goes here, never to the child's stdout (its JSON lines)
          "--print-limit",
          std::to_string(print_limit),  // host frames are printed too; the parser leaves them out
          // 4 KiB nobody owns after every allocation: a read past an input's end never lands in the
          // next buffer, inside an allocation, where memcheck could not see it.
          "--padding",
          "4096",
          // No CUDA API errors: PyCUDA and cuda-bindings probe driver entry points with
          // cuGetProcAddress and get hundreds of CUDA_ERROR_INVALID_VALUE for those this driver
          // lacks, which would fill the print limit before the student's memory error. The API
          // error a faulting kernel causes is the check's own line (its CUDA error).
          "--report-api-errors",
          "no"};
}

SanitizerReport parse_sanitizer_log(const std::string& log) {
  SanitizerReport report;
  std::istringstream lines(log);
  SanitizerFinding* current = nullptr;
  for (std::string raw; std::getline(lines, raw);) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    // Every line starts with the prefix "========= "; a finding's own lines are indented further.
    std::string line = raw;
    bool prefixed = false;
    if (line.starts_with("=========")) {
      line = line.substr(line.find_first_not_of('=') == std::string::npos ? line.size() : line.find_first_not_of('='));
      prefixed = true;
      if (line.starts_with(" ")) line = line.substr(1);
    }
    if (!prefixed) {  // not the tool's: the child's stderr interleaved, or a log without prefixes
      if (trim(line).empty()) continue;
      if (!std::isspace(static_cast<unsigned char>(line[0])) && trim(line).starts_with("Error")) {
        report.tool_error = trim(line);
        continue;
      }
    }
    const bool indented = !line.empty() && std::isspace(static_cast<unsigned char>(line[0]));
    const std::string text = trim(line);
    if (text.empty()) {
      current = nullptr;
      continue;
    }
    if (text.starts_with("ERROR SUMMARY:")) {
      report.errors = std::atoi(text.c_str() + std::string("ERROR SUMMARY:").size());
      current = nullptr;
      continue;
    }
    if (!indented) {
      if (is_banner(text)) {
        current = nullptr;
      } else if (text.starts_with("Error") || text.starts_with("Internal")) {
        report.tool_error = text;  // "Error: Target application terminated before first instrumented API call"
        current = nullptr;
      } else {
        report.findings.push_back({text, {}, {}, {}});
        current = &report.findings.back();
      }
      continue;
    }
    if (!current) continue;
    if (text.starts_with("at ") && current->where.empty()) {
      current->where = text.substr(3);
    } else if (text.starts_with("by thread ") && current->who.empty()) {
      current->who = text.substr(3);
    } else if (text.starts_with("Address ") || text.starts_with("Access ") || text.starts_with("and is ")) {
      current->detail += (current->detail.empty() ? "" : " ") + text;
    }
    // Frames ("Device Frame:", "Host Frame:", "Saved host backtrace ...") are left out.
  }
  // Memory errors first, then the CUDA API errors they cause ("Program hit ... on CUDA API call").
  std::stable_partition(report.findings.begin(), report.findings.end(),
                        [](const SanitizerFinding& f) { return !f.headline.starts_with("Program hit"); });
  return report;
}

std::vector<std::string> sanitizer_lines(const SanitizerReport& report, std::size_t shown) {
  std::vector<std::string> lines;
  if (!report.finished()) {
    lines.push_back("compute-sanitizer memcheck did not finish" +
                    (report.tool_error.empty() ? std::string(" (no ERROR SUMMARY in its log)") : ": " + report.tool_error));
  } else if (report.errors == 0) {
    lines.push_back("compute-sanitizer memcheck: 0 errors");
    return lines;
  } else {
    lines.push_back("compute-sanitizer memcheck: " + std::to_string(report.errors) +
                    (report.errors == 1 ? " error" : " errors") +
                    (report.findings.size() > shown ? " (the first " + std::to_string(shown) + " below)" : ""));
  }
  for (std::size_t i = 0; i < report.findings.size() && i < shown; ++i) {
    const SanitizerFinding& f = report.findings[i];
    lines.push_back("  " + f.headline + (f.where.empty() ? "" : " at " + f.where));
    std::string second = f.who.empty() ? "" : "by " + f.who;
    if (!f.detail.empty()) second += (second.empty() ? "" : ": ") + f.detail;
    if (!second.empty()) lines.push_back("    " + second);
  }
  return lines;
}

fs::path temp_log_path(const std::string& stem) {
  static std::atomic<int> count{0};
  return fs::temp_directory_path() /
         ("layerbench_" + stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(count++) + ".log");
}

}  // namespace lb::lab
