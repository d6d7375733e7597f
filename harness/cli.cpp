#include "harness/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "harness/case_runner.h"
#include "harness/ceilings.h"
#include "harness/device_info.h"
#include "harness/host_info.h"
#include "harness/results_json.h"
#include "harness/sizes.h"
#include "harness/summary.h"

namespace lb {
namespace {

constexpr const char* kDefaultOut = "results/latest.json";

std::string name_of(const Workload* w) { return w->name(); }
std::string name_of(const Layer* l) { return l->name; }

// The items named on the command line, in that order without repeats; all of them when none are.
template <class T>
std::vector<const T*> pick(const std::vector<std::string>& names, const std::vector<const T*>& all,
                           const char* kind) {
  if (names.empty()) return all;
  std::vector<const T*> picked;
  for (const auto& name : names) {
    const auto found = std::find_if(all.begin(), all.end(), [&](const T* item) { return name_of(item) == name; });
    if (found == all.end()) {
      std::string known;
      for (const T* item : all) known += (known.empty() ? "" : ", ") + name_of(item);
      throw UsageError("unknown " + std::string(kind) + " '" + name + "' (known: " + known + ")");
    }
    if (std::find(picked.begin(), picked.end(), *found) == picked.end()) picked.push_back(*found);
  }
  return picked;
}

std::string sizes_text(const Workload& w) {
  std::string text;
  for (const Shape& s : w.default_sizes()) text += (text.empty() ? "" : ", ") + w.size_label(s);
  return text;
}

int list_command() {
  std::printf("Workloads:\n");
  for (const Workload* w : all_workloads())
    std::printf("  %-11s %-40s default sizes: %s\n", w->name().c_str(), w->summary().c_str(), sizes_text(*w).c_str());
  std::printf("\nLayers:\n");
  for (const Layer* l : all_layers()) {
    const std::string reason = l->unavailable_reason();
    std::printf("  %-10s %-12s %s\n", l->name.c_str(), reason.empty() ? "available" : "unavailable",
                l->summary.c_str());
    if (!reason.empty()) std::printf("  %-10s %-12s why: %s\n", "", "", reason.c_str());
  }
  return 0;
}

struct RunArgs {
  std::vector<std::string> workloads, layers, sizes;
  std::string out = kDefaultOut;
  std::optional<std::uint64_t> seed;
  std::string mode = "cold";
  double noise_percent = 0.5;
  StoppingRule rule;
  bool to_cap = false;
  std::vector<std::string> benchmark_flags;
};

std::string iso_time_now() {
  const std::time_t now = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return text;
}

int run_command(const RunArgs& args, int argc, char** argv) {
  const auto workloads = pick(args.workloads, all_workloads(), "workload");
  const auto layers = pick(args.layers, all_layers(), "layer");

  // Sizes, checked against this machine's memory before anything runs.
  std::vector<std::pair<const Workload*, std::vector<Shape>>> plan;
  const double host_memory = host_memory_bytes();
  for (const Workload* w : workloads) {
    std::vector<Shape> shapes;
    if (args.sizes.empty()) shapes = w->default_sizes();
    for (const auto& text : args.sizes) shapes.push_back(parse_shape(text, *w));
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const double need = w->host_bytes(shapes[i]);
      if (need > host_memory) {
        const std::string given = args.sizes.empty() ? w->size_label(shapes[i]) : args.sizes[i];
        const bool cube = w->takes_matrix_sizes() && given.find('x') == std::string::npos;
        throw UsageError("size '" + given + "' for " + w->name() + (cube ? " (one number is a cube)" : "") +
                         " needs " + human_bytes(need) + " of host memory; this machine has " +
                         human_bytes(host_memory) + (cube ? "; pick workloads with --workload" : ""));
      }
    }
    plan.emplace_back(w, shapes);
  }
  for (const auto& flag : args.benchmark_flags)
    if (flag.rfind("--benchmark_", 0) != 0)
      throw UsageError("unknown option '" + flag + "' (see layerbench run --help)");
  check_writable(args.out);

  // Layers that cannot run here are reported once, grouped by reason, and left out.
  std::map<std::string, std::vector<std::string>> skipped;
  std::vector<const Layer*> usable;
  for (const Layer* l : layers) {
    const std::string reason = l->unavailable_reason();
    if (reason.empty()) usable.push_back(l);
    else skipped[reason].push_back(l->name);
  }
  for (const auto& [reason, names] : skipped) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "layerbench: GPU layers skipped (%s): %s\n", list.c_str(), reason.c_str());
  }

  // Google Benchmark sees only its own flags.
  std::vector<std::string> flags = args.benchmark_flags;
  std::vector<char*> gb_argv{argv[0]};
  for (auto& f : flags) gb_argv.push_back(f.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  gb_argv.push_back(nullptr);
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;

  SuiteOptions options;
  options.seed = args.seed ? *args.seed : std::random_device{}();
  options.rule = args.rule;
  options.rule.target_rel_noise = args.noise_percent / 100.0;
  options.rule.stop_early_above_target = !args.to_cap;
  options.cold = args.mode == "cold";

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  nlohmann::json context = {
      {"date", iso_time_now()},
      {"executable", argv[0]},
      {"library_build_type", "release"},
      {"layerbench", {{"version", LB_VERSION}, {"schema_version", kSchemaVersion}, {"seed", options.seed},
                      {"command_line", command_line}}},
      {"host", host_json()},
      {"device", nullptr},
      {"ceilings", nlohmann::json::object()},
      {"layers", nlohmann::json::object()},
  };
  context["host_name"] = context["host"]["hostname"];
  if (!skipped.empty()) context["gpu_unavailable_reason"] = skipped.begin()->first;
  const bool any_gpu = std::any_of(usable.begin(), usable.end(), [](const Layer* l) { return l->on_gpu; });
  nlohmann::json measurement = {{"gpu_cache_mode", args.mode},
                                 {"cpu_cache_mode", "hot"},
                                 {"noise_target", options.rule.target_rel_noise},
                                 {"min_samples", options.rule.min_samples},
                                 {"min_time_s", options.rule.min_time_s},
                                 {"max_time_s", options.rule.max_time_s},
                                 {"stops_early_above_target", options.rule.stop_early_above_target},
                                 {"sm_clock", nullptr}};
  std::unique_ptr<L2Flusher> flusher;
  std::unique_ptr<StreamGate> gate;
  std::unique_ptr<SmClock> sm_clock;
  if (any_gpu) {
    auto& device = context["device"] = device_json();
    device["theoretical_fp32_gflops"] = theoretical_fp32_gflops(device);
    std::fprintf(stderr, "layerbench: measuring the ceilings of %s (copy bandwidth, cuBLAS SGEMM)\n",
                 device["name"].get<std::string>().c_str());
    context["ceilings"] = measure_copy_ceiling();
    context["ceilings"].update(measure_sgemm_ceiling());
    flusher = std::make_unique<L2Flusher>(device["l2_cache_bytes"].get<std::size_t>());
    options.flusher = flusher.get();
    measurement["l2_flush_bytes"] = flusher->bytes();
    gate = std::make_unique<StreamGate>();
    options.gate = gate.get();
    std::string why_not;
    sm_clock = SmClock::open(device["pci_bus_id"].get<std::string>(), &why_not);
    if (sm_clock) {
      options.sm_clock = sm_clock.get();
      options.throttle_mhz = 0.75 * sm_clock->default_mhz();
      measurement["sm_clock"] = {{"source", "NVML, read after each sample"},
                                 {"default_mhz", sm_clock->default_mhz()},
                                 {"throttle_below_mhz", options.throttle_mhz}};
    } else {
      measurement["sm_clock"] = {{"unavailable", why_not}};
    }
  }
  context["measurement"] = measurement;

  std::vector<Case> cases;
  for (const auto& [w, shapes] : plan)
    for (const Shape& s : shapes)
      for (const Layer* l : usable) {
        if (!find_variant(l->name, w->name())) continue;
        if (args.sizes.empty() && l->in_default_sweep && !l->in_default_sweep(*w, s)) {
          std::fprintf(stderr, "layerbench: %s/%s/%s is left out of the default sweep (too slow on this layer); "
                       "ask for it with --size\n", w->name().c_str(), l->name.c_str(), w->size_label(s).c_str());
          continue;
        }
        cases.push_back({w, l, s});
      }

  Progress progress(stderr, Progress::is_terminal(stderr));
  SuiteReporter reporter(&progress);
  const auto started = std::chrono::steady_clock::now();
  const std::vector<CaseResult> results = run_cases(cases, options, reporter, progress);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Layers describe themselves after the cases, so one-time costs paid during them are recorded.
  for (const Layer* l : usable) context["layers"][l->name] = l->describe();
  context.update(reporter.context_json());
  context["layerbench"]["suite_wall_s"] = wall_s;
  write_file_atomically(args.out, results_json(context, results).dump(2) + "\n");

  print_summary(results, context);
  print_launch_overhead(results);
  print_one_time_costs(results, context);
  const auto failed = std::count_if(results.begin(), results.end(), [](const CaseResult& r) { return r.status == "failed"; });
  std::printf("%zu cases in %.1f s, %ld failed; results written to %s\n", results.size(), wall_s, static_cast<long>(failed),
              args.out.c_str());
  return failed > 0 ? 1 : 0;
}

// `layerbench report|compare|csv ...` hands over to the Python reports tool in the source tree
// (matplotlib and friends stay out of the C++ build). The interpreter is $LAYERBENCH_PYTHON, else
// the project's .venv, else python3 on the PATH. Returns only if the hand-over failed.
int hand_over_to_reports(const std::string& subcommand, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const fs::path root(LB_SOURCE_ROOT);
  const fs::path script = root / "reports" / "cli.py";
  if (!fs::exists(script)) {
    std::fprintf(stderr, "layerbench: error: '%s' needs the reports tool, which is not at %s\n", subcommand.c_str(),
                 script.c_str());
    return 2;
  }
  std::string python = "python3";
  if (const char* env = std::getenv("LAYERBENCH_PYTHON"); env && *env) python = env;
  else if (fs::exists(root / ".venv" / "bin" / "python3")) python = (root / ".venv" / "bin" / "python3").string();
  std::vector<std::string> words{python, script.string(), subcommand};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> exec_argv;
  for (auto& w : words) exec_argv.push_back(w.data());
  exec_argv.push_back(nullptr);
  std::fflush(nullptr);
  execvp(exec_argv[0], exec_argv.data());
  std::fprintf(stderr, "layerbench: error: cannot start '%s' for '%s': %s\n", python.c_str(), subcommand.c_str(),
               std::strerror(errno));
  return 2;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"layerbench: the same GPU workloads through different access layers (CUDA runtime, CPU, ...),\n"
               "timed with CUDA events under Google Benchmark, verified against a double-precision CPU\n"
               "reference, and written to JSON.",
               "layerbench"};
  app.set_version_flag("--version", LB_VERSION);
  app.require_subcommand(1);
  app.add_subcommand("list", "List the workloads and layers, and whether each layer can run here");
  // Handed over whole to reports/cli.py, --help included.
  const std::vector<std::pair<const char*, const char*>> reports_commands = {
      {"report", "Make report.md, report.html and plots from a results file (reports/cli.py)"},
      {"compare", "Compare two results files case by case, with a regression verdict (reports/cli.py)"},
      {"csv", "Write a results file as CSV, one row per case (reports/cli.py)"}};
  for (const auto& [name, help] : reports_commands) {
    CLI::App* sub = app.add_subcommand(name, help);
    sub->set_help_flag();
    sub->prefix_command();
  }

  RunArgs args;
  CLI::App* run = app.add_subcommand("run", "Run cases (workload x layer x size), verify them and write JSON");
  run->add_option("-w,--workload", args.workloads, "Workloads to run, comma-separated (default: all; see `layerbench list`)")
      ->delimiter(',');
  run->add_option("-l,--layer", args.layers, "Layers to run, comma-separated (default: all available here)")->delimiter(',');
  run->add_option("-s,--size", args.sizes,
                  "Sizes, comma-separated: n as 1000 or 2^20; matmul also MxNxK, one number is a cube\n"
                  "(default: each workload's sweep, up to n = 2^28 and matmul 4096^3)")
      ->delimiter(',');
  run->add_option("-o,--out", args.out, "Results file (JSON; Google Benchmark's layout)")->capture_default_str();
  run->add_option("--seed", args.seed, "Seed for the random inputs (default: a fresh one, recorded in the JSON)");
  run->add_option("--mode", args.mode,
                  "GPU samples: cold (the L2 flushed before each) or hot (back to back); CPU layers run hot")
      ->capture_default_str()
      ->check(CLI::IsMember({"cold", "hot"}));
  run->add_option("--noise", args.noise_percent, "Stop sampling once the samples' relative standard deviation is under this (%)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--min-samples", args.rule.min_samples, "...but not before this many samples")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--min-time", args.rule.min_time_s, "...and this much measured time (s)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--max-time", args.rule.max_time_s, "Stop sampling a case after this wall-clock time even if noisy (s)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_flag("--to-cap", args.to_cap,
                "Sample a case whose noise stays above --noise until --max-time, instead of stopping once\n"
                "its noise has settled above the target or is out of its reach");
  std::string kernel_cache;
  bool no_kernel_cache = false;
  run->add_option("--kernel-cache", kernel_cache,
                  "Directory of the compiled-kernel cache of run-time-compiling layers (driver)\n"
                  "(default: $LAYERBENCH_KERNEL_CACHE, else ~/.cache/layerbench/kernels)");
  run->add_flag("--no-kernel-cache", no_kernel_cache, "Compile every kernel at run time; read and write no cache");
  run->allow_extras();
  run->footer("Google Benchmark's flags pass through in --flag=value form, e.g. --benchmark_filter=matmul\n"
              "or --benchmark_repetitions=5. Exit status: 0 ok, 1 a case failed, 2 bad input.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "layerbench: error: %s\n", e.what());
    return 2;
  }
  try {
    if (app.got_subcommand("list")) return list_command();
    for (const auto& [name, help] : reports_commands)
      if (app.got_subcommand(name)) return hand_over_to_reports(name, app.get_subcommand(name)->remaining());
    args.benchmark_flags = run->remaining();
    runtime_compile_settings() = {!no_kernel_cache, kernel_cache};
    return run_command(args, argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "layerbench: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace lb
