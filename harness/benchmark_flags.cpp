#include "harness/benchmark_flags.h"

#include <benchmark/benchmark.h>

#include <charconv>
#include <regex>

#include "harness/record.h"
#include "harness/sizes.h"

namespace lb {
namespace {

bool is_whole_number_at_least_1(const std::string& value) {
  int n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  return error == std::errc() && end == value.data() + value.size() && n >= 1;
}

// `--benchmark_name=value` -> name, value; a bare boolean flag has the value "".
void check_flag(const std::string& flag) {
  const auto equals = flag.find('=');
  const std::string name = flag.substr(0, equals);
  const std::string value = equals == std::string::npos ? "" : flag.substr(equals + 1);
  const auto bad = [&](const std::string& why) { throw UsageError("'" + one_line(flag) + "': " + why); };
  if (name == "--benchmark_repetitions" && !is_whole_number_at_least_1(value))
    bad("the repetitions must be a whole number, at least 1");
  if ((name == "--benchmark_format" || name == "--benchmark_out_format") && value != "console" && value != "json" &&
      value != "csv")
    bad("the format is console, json or csv");
  if (name == "--benchmark_filter") {
    // Google Benchmark's filter is an extended regular expression; a leading '-' negates it.
    try {
      std::regex(value.starts_with('-') ? value.substr(1) : value, std::regex::extended);
    } catch (const std::regex_error& e) {
      bad(std::string("not a regular expression (") + e.what() + ")");
    }
  }
  if (name == "--benchmark_out") check_writable(value);  // else Google Benchmark exits after the cases
}

}  // namespace

void initialize_google_benchmark(const std::vector<std::string>& flags, char* argv0) {
  for (const auto& flag : flags) {
    if (flag.rfind("--benchmark_", 0) != 0)
      throw UsageError("unknown option '" + one_line(flag) + "' (see layerbench run --help)");
    check_flag(flag);
  }
  std::vector<std::string> words = flags;
  std::vector<char*> gb_argv{argv0};
  for (auto& w : words) gb_argv.push_back(w.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  gb_argv.push_back(nullptr);
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (gb_argc > 1) throw UsageError("unknown option '" + one_line(gb_argv[1]) + "' (see layerbench run --help)");
}

}  // namespace lb
