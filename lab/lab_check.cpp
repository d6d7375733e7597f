#include "lab/lab_check.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/feedback.h"
#include "lab/lab_kernel.h"
#include "lab/watchdog.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string size_label(const LabSpec& spec, std::size_t i) {
  const std::string label = spec.workload->size_label(spec.check_sizes[i]);
  std::string text = (spec.workload->takes_matrix_sizes() ? "MxNxK = " : "n = ") + label;
  if (spec.check_size_texts[i] != label) text += " (" + spec.check_size_texts[i] + ")";
  return text;
}

void print_compile_error(std::FILE* out, const fs::path& file, const std::string& message) {
  std::fprintf(out, "%s does not compile:\n", file.c_str());
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) std::fprintf(out, "  %s\n", line.c_str());
  std::fprintf(out,
               "FAIL: compile error (the check compiles %s alone, as device code: no host code, no host headers, "
               "no library calls)\n",
               file.filename().c_str());
}

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  return last;
}

// Why the child stopped before reporting a size: the time limit, a signal, or its own error.
std::string why_child_stopped(const ChildOutcome& child, double limit_s) {
  char text[256];
  if (child.timed_out) {
    std::snprintf(text, sizeof text, "stopped after %g s: the kernel did not finish (an infinite loop?)", limit_s);
    return text;
  }
  if (!child.exited) {
    std::snprintf(text, sizeof text, "the check crashed (signal %d, %s)", child.signal, strsignal(child.signal));
    return text;
  }
  const std::string err = last_line(child.err);
  return "the check stopped (exit status " + std::to_string(child.exit_code) + ")" + (err.empty() ? "" : ": " + err);
}

std::string cuda_error_text(const std::string& error) {
  std::string text = "CUDA error: " + error;
  if (error.find("ILLEGAL_ADDRESS") != std::string::npos || error.find("MISALIGNED") != std::string::npos)
    text += " — does a thread read or write past the end of an array (a missing bounds check)?";
  else if (error.find("LAUNCH_OUT_OF_RESOURCES") != std::string::npos)
    text += " — the kernel needs more registers or shared memory than this block size allows";
  return text;
}

}  // namespace

std::vector<std::string> default_runner() {
  if (const char* runner = std::getenv("LAYERBENCH_LAB_RUNNER"); runner && *runner) {
    std::istringstream words(runner);
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w);
    return argv;
  }
  return {fs::read_symlink("/proc/self/exe").string()};
}

int check_submission(const LabSpec& spec, const fs::path& file, const CheckOptions& options, std::FILE* out) {
  if (!fs::is_regular_file(file)) throw UsageError("no such file: " + file.string());
  try {
    compile_student_kernel(spec, file, kHostCheckSm, {driver::KernelCache::default_dir(), true});
  } catch (const StudentCompileError& e) {
    print_compile_error(out, file, e.what());
    return kExitFailed;
  }

  std::vector<std::string> argv = options.runner;
  for (const std::string& word :
       {std::string("lab"), std::string("run-check"), (spec.dir / "lab.json").string(), file.string(),
        std::string("--seed"), std::to_string(options.seed)})
    argv.push_back(word);
  std::fflush(out);
  const ChildOutcome child = run_with_time_limit(argv, spec.time_limit_s);

  std::map<std::string, json> by_size;
  std::istringstream lines(child.out);
  for (std::string line; std::getline(lines, line);) {
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const std::string event = j.value("event", "");
    if (event == "no_gpu") {
      std::fprintf(out, "cannot run the check here: no usable GPU (%s)\n", j.value("reason", "").c_str());
      return kExitCannotRun;
    }
    if (event == "compile_error") {
      print_compile_error(out, file, j.value("message", ""));
      return kExitFailed;
    }
    if (j.contains("size")) by_size[j["size"].get<std::string>()] = j;
  }

  std::fprintf(out, "%s: %s\n", spec.name.c_str(), spec.title.c_str());
  std::vector<SizeOutcome> outcomes;
  std::size_t passed = 0;
  bool stopped = false;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const std::string label = size_label(spec, i);
    const auto found = by_size.find(spec.check_size_texts[i]);
    if (stopped) {
      std::fprintf(out, "  SKIP  %s: not run\n", label.c_str());
    } else if (found != by_size.end() && found->second.contains("passed")) {
      const bool ok = found->second["passed"].get<bool>();
      passed += ok;
      outcomes.push_back({spec.check_sizes[i], ok});
      if (ok) std::fprintf(out, "  PASS  %s\n", label.c_str());
      else std::fprintf(out, "  FAIL  %s: %s\n", label.c_str(), found->second.value("feedback", "").c_str());
    } else {
      const std::string why = found != by_size.end() ? cuda_error_text(found->second.value("cuda_error", ""))
                                                     : why_child_stopped(child, spec.time_limit_s);
      std::fprintf(out, "  FAIL  %s: %s\n", label.c_str(), why.c_str());
      stopped = true;
    }
  }
  const std::string hint = hint_across_sizes(outcomes, spec.workload->takes_matrix_sizes(), spec.launch.block_x,
                                             spec.launch.block_y);
  if (!hint.empty()) std::fprintf(out, "  hint: %s\n", hint.c_str());
  const std::size_t total = spec.check_sizes.size();
  if (passed == total) std::fprintf(out, "PASS: all %zu sizes passed\n", total);
  else std::fprintf(out, "FAIL: %zu of %zu sizes passed\n", passed, total);
  return passed == total ? kExitPassed : kExitFailed;
}

}  // namespace lb::lab
