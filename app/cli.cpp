#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

#include "app/devices.h"
#include "app/folder_checks.h"
#include "app/lab_command.h"
#include "app/run_command.h"
#include "common/gpu.h"
#include "common/python_interpreter.h"
#include "harness/benchmark_flags.h"
#include "harness/host_info.h"
#include "harness/layer_sessions.h"
#include "harness/plan.h"
#include "harness/results_json.h"  // version_line
#include "harness/sizes.h"
#include "variants/python/python_layer.h"
#include "variants/python/workload_folder.h"

namespace lb {
namespace {

std::string sizes_text(const Workload& w) {
  std::string text;
  for (const Shape& s : w.default_sizes()) text += (text.empty() ? "" : ", ") + w.size_label(s);
  return text;
}

// Where a Python layer's library was found: "path (how)", or why it was not.
std::string where_found(const PythonLibrary& library) {
  if (!library.error.empty()) return library.error;
  return library.path + (library.found_via.empty() ? "" : " (" + library.found_via + ")");
}

// A folder `list` read and checked, with what its checks found.
struct CheckedFolder {
  WorkloadFolderSummary summary;
  FolderCheckReport report;
};

// Each --workload-dir, checked before anything is printed (a bad folder: one line, exit 2), as `run`
// checks it before its first case (app/folder_checks.h): read (schema, kernels.cu, NVRTC), its name
// unique among the built-ins and the other folders, then at each of its default sizes and each
// -s size of its form, workload.json evaluated, and inputs, reference and tolerance called at the
// smallest that fits.
std::vector<CheckedFolder> check_workload_folders(const std::vector<std::string>& dirs,
                                                  const std::vector<std::string>& size_texts) {
  std::vector<CheckedFolder> folders;
  const double host_memory = host_memory_bytes(), device_memory = device_limits().memory_bytes;
  for (const std::string& dir : dirs) {
    const std::unique_ptr<FolderWorkload> w = read_workload_folder(dir);
    const std::string json = (std::filesystem::path(dir) / "workload.json").string();
    if (find_workload(w->name()))
      throw UsageError(json + ": name: '" + w->name() + "' is a built-in workload's name; choose another");
    for (std::size_t i = 0; i < folders.size(); ++i)
      if (folders[i].summary.name == w->name())
        throw UsageError(json + ": name: '" + w->name() + "' is also the name of --workload-dir " + dirs[i] + "; choose another");
    // The default sizes and, as `run -s` gives them to the folders, the -s sizes of its form.
    std::vector<std::string> own;
    for (const std::string& text : size_texts)
      if (dimensions_written(text) == 1 || dimensions_written(text) == dimension_count(w->size_form())) own.push_back(text);
    std::vector<PlannedSize> sizes = sizes_for(*w, {}, false, false, host_memory, device_memory);
    if (!own.empty()) {
      const std::vector<PlannedSize> given = sizes_for(*w, own, true, true, host_memory, device_memory);
      sizes.insert(sizes.end(), given.begin(), given.end());
    }
    folders.push_back({folder_summary(*w), check_folder_before_cases(*w, sizes, 0, kListReferenceBudget)});
  }
  return folders;
}

int list_command(const std::vector<std::string>& workload_dirs, const std::vector<std::string>& size_texts) {
  const std::vector<CheckedFolder> folders = check_workload_folders(workload_dirs, size_texts);
  std::printf("Workloads:\n");
  for (const Workload* w : all_workloads())
    std::printf("  %-11s %-40s default sizes: %s\n", w->name().c_str(), w->summary().c_str(), sizes_text(*w).c_str());
  for (std::size_t i = 0; i < folders.size(); ++i) {
    const WorkloadFolderSummary& f = folders[i].summary;
    const FolderCheckReport& r = folders[i].report;
    const std::string layers = joined(f.python_layers);
    std::printf("  %-11s %-40s default sizes: %s\n", f.name.c_str(), f.summary.c_str(), joined(f.default_sizes).c_str());
    std::printf("  %-11s from %s: %s %s (size form %s), Python implementations: %s, sha256 %s\n", "",
                workload_dirs[i].c_str(), f.kernels.size() == 1 ? "kernel" : "kernels, in order,",
                joined(f.kernels).c_str(), f.size_form.c_str(), layers.empty() ? "none" : layers.c_str(),
                f.content_hash.substr(0, 12).c_str());
    std::printf("  %-11s its kernels.cu through: %s\n", "", folder_layers_text().c_str());
    std::printf("  %-11s checked at %s: extents, range draws, grids, bytes and flops; inputs, reference and tolerance at %s\n",
                "", joined(r.sizes_checked).c_str(), r.reference_sizes.empty() ? "none (no size fits)" : joined(r.reference_sizes).c_str());
    if (!r.reference_not_run.empty())
      std::printf("  %-11s reference not run by list at %s (above list's budget of %.0f MiB of host memory a size; run "
                  "runs it there)\n", "", joined(r.reference_not_run).c_str(), kListReferenceBudget / (1024 * 1024));
    for (const std::string& skipped : r.skipped) std::printf("  %-11s skipped by run: %s\n", "", skipped.c_str());
    std::printf("  %-11s run finds case by case: the kernels' results (every case verified), faults, and the reference "
                "and inputs at the other sizes\n", "");
  }
  std::printf("\nLayers:\n");
  for (const Layer* l : all_layers()) {
    const std::string reason = l->unavailable_reason();
    std::printf("  %-15s %-12s %s\n", l->name.c_str(), reason.empty() ? "available" : "unavailable",
                l->summary.c_str());
    if (!reason.empty()) std::printf("  %-15s %-12s why: %s\n", "", "", reason.c_str());
    for (const auto& [workload, why] : l->not_provided)
      std::printf("  %-15s %-12s no %s: %s\n", "", "", workload.c_str(), why.c_str());
  }
  std::string last_ladder;
  for (const Rung* r : ladder_rungs()) {
    if (last_ladder.empty())
      std::printf("\nLadders (layerbench ladder <workload>; run --rung <id>, <workload>/all or all), through %s:\n",
                  rung_layers_text().c_str());
    if (r->workload != last_ladder) std::printf("  %s\n", r->workload.c_str());
    last_ladder = r->workload;
    std::printf("    %-40s %s\n", r->id().c_str(), r->title.c_str());
  }
  const std::optional<EmbeddedPython> python = embedded_python();
  if (!python) return 0;  // a build without the Python layers
  std::printf("\nPython layers: embedded Python %s, with the packages of %s\n", python->version.c_str(),
              python->executable.c_str());
  // The CUDA libraries each one loaded: two versions of one library in a process is the commonest
  // way a Python CUDA setup breaks.
  for (const Layer* l : all_layers())
    for (const PythonLibrary& lib : python_layer_libraries(l->name))
      std::printf("  %-15s %-8s %-6s %s\n", l->name.c_str(), lib.name.c_str(), lib.version.c_str(),
                  where_found(lib).c_str());
  return 0;
}

// A number above 0 (CLI11's PositiveNumber names the largest double instead of the value typed).
const CLI::Validator kAboveZero(
    [](std::string& value) -> std::string {
      std::size_t used = 0;
      double x = 0;
      try {
        x = std::stod(value, &used);
      } catch (const std::exception&) {
      }
      if (used == 0 || used != value.size()) return "'" + one_line(value) + "' is not a number";
      return x > 0 && std::isfinite(x) ? "" : "'" + one_line(value) + "' must be above 0";
    },
    "> 0");

// A seed: a whole number from 0 to 2^64 - 1, in decimal (CLI11 would wrap -1 and clamp larger ones).
const CLI::Validator kSeed(
    [](std::string& value) -> std::string {
      std::uint64_t seed = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seed);
      if (value.empty() || error != std::errc() || end != value.data() + value.size())
        return "'" + one_line(value) + "' is not a whole number from 0 to 18446744073709551615";
      return "";
    },
    "0..2^64-1");

// The measurement options `run` and `ladder` share.
// 1, 0.5, 3: a default as --help shows it.
std::string shortest(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

void add_measurement_options(CLI::App* sub, RunArgs& args, bool& no_kernel_cache) {
  sub->add_option("--seed", args.seed, "Seed for the random inputs (default: a fresh one, recorded in the JSON)")
      ->check(kSeed);
  sub->add_option("--mode", args.mode,
                  "GPU samples: cold (the L2 flushed before each) or hot (back to back); CPU layers run hot")
      ->capture_default_str()
      ->check(CLI::IsMember({"cold", "hot"}));
  sub->add_flag("--host-clock", args.host_clock,
                "Time every GPU layer by the host clock around a run() and its stream's drain, as the jax layer "
                "(which enqueues on streams of its own) always is: the reference to compare such a layer with");
  sub->add_option("--noise", args.noise_percent, "Stop sampling once the samples' relative standard deviation is under this (%)")
      ->capture_default_str()
      ->check(kAboveZero);
  sub->add_option("--min-samples", args.rule.min_samples, "...but not before this many samples")
      ->capture_default_str()
      ->check(kAboveZero);
  sub->add_option("--min-time", args.rule.min_time_s,
                  "...and this much measured time (s), or " + std::to_string(StoppingRule{}.enough_samples) +
                      " samples where they come first (short kernels)")
      ->capture_default_str()
      ->check(kAboveZero);
  sub->add_option("--max-time", args.max_time_s,
                  "Stop sampling a case after this wall-clock time even if noisy (s) [default: " +
                      shortest(StoppingRule{}.max_time_s) + ", " + shortest(thorough(StoppingRule{}).max_time_s) +
                      " with --thorough]")
      ->check(kAboveZero);
  sub->add_flag("--thorough", args.thorough,
                "Sample every case for --min-time of measured time however many samples that takes, with a\n"
                "longer --max-time: the sampling before the default suite was made to fit in a minute");
  sub->add_flag("--to-cap", args.to_cap,
                "Sample a case whose noise stays above --noise until --max-time, instead of stopping once\n"
                "its noise has settled above the target or is out of its reach");
  sub->add_option("--kernel-cache", args.layers.kernel_cache_dir,
                  "Directory of the compiled-kernel cache of run-time-compiling layers (driver)\n"
                  "(default: $LAYERBENCH_KERNEL_CACHE, else ~/.cache/layerbench/kernels)");
  sub->add_flag("--no-kernel-cache", no_kernel_cache, "Compile every kernel at run time; read and write no cache");
  sub->add_flag("-v,--verbose", args.verbose, "The summary lists every one-time cost (default: one line per layer)");
}

// `layerbench report|compare|csv|merge|db ...` hands over to the Python reports tool in the source tree
// (matplotlib and friends stay out of the C++ build). The interpreter is $LAYERBENCH_PYTHON, else
// the project's .venv, else python3 on the PATH. Returns only if the hand-over failed.
int hand_over_to_reports(const std::string& subcommand, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const fs::path package = fs::path(python_package_root()) / "layerbench" / "reports";
  if (!fs::exists(package)) {
    std::fprintf(stderr, "layerbench: error: '%s' needs the reports tool, which is not at %s\n", subcommand.c_str(),
                 package.c_str());
    return 2;
  }
  std::vector<std::string> words = reports_command(subcommand);  // common/python_interpreter.h
  const std::string python = words.front();
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
               "timed with CUDA events, verified against a double-precision CPU reference, and written to\n"
               "JSON in Google Benchmark's layout.",
               "layerbench"};
  app.set_version_flag("--version", version_line());
  app.require_subcommand(1);
  // Listed for `layerbench --help`; `help [COMMAND]` is rewritten to `[COMMAND] --help` before parsing.
  app.add_subcommand("help", "Print the help of layerbench or of COMMAND: layerbench help [COMMAND]");
  CLI::App* list = app.add_subcommand("list", "List the workloads and layers, and whether each layer can run here");
  list->allow_extras();  // named below, in the order typed (CLI11 lists them back to front)
  std::vector<std::string> list_workload_dirs, list_sizes;
  list->add_option("-s,--size", list_sizes,
                   "Sizes to check each --workload-dir at besides its default sizes, comma-separated, as run's -s")
      ->delimiter(',');
  list->add_option("--workload-dir", list_workload_dirs,
                   "A workload folder to check and list with the built-in workloads (workload.json, kernels.cu,\n"
                   "reference.py: docs/your-own-workload.md); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  // Handed over whole to the report tool (python -m layerbench.reports), --help included.
  const std::vector<std::pair<const char*, const char*>> reports_commands = {
      {"report", "Make report.md, report.html and plots from a results file (python/layerbench/reports)"},
      {"compare", "Compare two results files case by case, with a regression verdict (python/layerbench/reports)"},
      {"csv", "Write a results file as CSV, one row per case (python/layerbench/reports)"},
      {"merge", "Merge results files of several GPUs, hosts or tasks into one (python/layerbench/reports)"},
      {"db", "A results database with history: add, list, compare (python/layerbench/reports)"}};
  for (const auto& [name, help] : reports_commands) {
    CLI::App* sub = app.add_subcommand(name, help);
    sub->set_help_flag();
    sub->prefix_command();
  }

  // Handed over whole to app/lab_command.cpp, --help included.
  CLI::App* lab = app.add_subcommand("lab", "Coursework labs: list, start, check, profile and grade your kernel, a class leaderboard (see `layerbench lab --help`)");
  lab->set_help_flag();
  lab->prefix_command();

  RunArgs args;
  CLI::App* run = app.add_subcommand("run", "Run cases (workload x layer x size), verify them and write JSON");
  run->add_option("-w,--workload", args.suite.workloads, "Workloads to run, comma-separated (default: all; see `layerbench list`)")
      ->delimiter(',');
  run->add_option("-l,--layer", args.suite.layers, "Layers to run, comma-separated (default: all available here)")->delimiter(',');
  run->add_option("-s,--size", args.suite.sizes,
                  "Sizes, comma-separated: n as 1000 or 2^20; matmul also MxNxK, one number is a cube\n"
                  "(default: each workload's sweep, up to n = 2^28 and matmul 4096^3)")
      ->delimiter(',');
  run->add_option("-o,--out", args.out, "Results file (JSON; Google Benchmark's layout)")->capture_default_str();
  run->add_option("--rung", args.suite.rungs,
                  "Ladder rungs to run too, comma-separated (docs/ladders.md; `layerbench list` shows them):\n"
                  "matmul/03_smem_tiling (or matmul/3, matmul/smem_tiling), matmul/all, reduce/all, all.\n"
                  "Each runs at every size on each -l layer that runs rungs (runtime, driver; no -l: runtime),\n"
                  "named <workload>/<layer>:<NN_name>/<size>. Without -w only the rungs run; with -w the\n"
                  "layers' own kernels of those workloads run too")
      ->delimiter(',');
  bool no_kernel_cache = false;
  add_measurement_options(run, args, no_kernel_cache);
  run->add_option("--kernel-text", args.kernel_texts,
                  "The driver layer compiles FILE in place of its built-in workloads/WORKLOAD/kernels.cu\n"
                  "(the same kernel names; launch's serves launch_async and launch_sync), nothing rebuilt.\n"
                  "Repeatable, one per workload. The results (the driver's \"kernels\") and the console say\n"
                  "so. For known-wrong kernels (tests/mutations/mutation-kill.py) or trying an edit")
      ->type_name("WORKLOAD=FILE")
      ->allow_extra_args(false);
  run->add_option("--workload-dir", args.workload_dirs,
                  "A workload folder to run (workload.json, kernels.cu, reference.py: docs/your-own-workload.md):\n"
                  "its kernel through every layer that takes kernel text\n(" + folder_layers_text() +
                      ")\nand its own Python implementations (cupy.py, numba.py, ...), each case verified against its\n"
                  "reference.py, at its default sizes unless -s. Repeatable; without -w\n"
                  "only the folders' workloads run, with -w those it names (folders' or built-in)")
      ->type_name("DIR")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::string devices;
  bool concurrent = false;
  run->add_option("--devices", devices,
                  "GPUs to run the plan on, each in a process of its own: all, or indices such as 0,2 (default:\n"
                  "device 0, in this process). Each writes OUT.device<i>.json; --out gets them merged (docs/fleet.md)")
      ->type_name("all|I,J");
  run->add_flag("--concurrent", concurrent,
                "With --devices: run the devices at once rather than one after another (they then share power,\n"
                "PCIe and CPU: a warning says so)");
  run->add_flag("--check", args.check,
                "Run each case once and verify it; no timing: no ceilings, no L2 flush, no stream gate, no\n"
                "sampling. For compute-sanitizer and cuda-gdb (scripts/sanitize.sh); the JSON records verdicts");
  run->allow_extras();
  run->footer("--benchmark_filter=REGEX runs only the cases whose name (matmul/runtime/4096x4096x4096/manual_time)\n"
              "it finds, as Google Benchmark's filter does; --benchmark_repetitions=N measures each case N times.\n"
              "Google Benchmark's other flags do not apply (layerbench times each case itself) and are refused.\n"
              "Exit status: 0 ok, 1 a case failed, 2 bad input, 130 interrupted (Ctrl-C or SIGTERM: the current\n"
              "sample ends, the results so far are written; a second Ctrl-C exits at once).");

  LadderArgs ladder_args;
  bool ladder_no_kernel_cache = false;
  CLI::App* ladder = app.add_subcommand(
      "ladder", "Run an optimisation ladder (every rung of matmul or reduce) at one size and print it rung by rung");
  ladder->add_option("workload", ladder_args.workload, "The ladder: matmul or reduce")->required();
  ladder->add_option("-s,--size", ladder_args.size, "One size (default: matmul 4096 = 4096^3, reduce 2^28)");
  ladder->add_option("-l,--layer", ladder_args.layer, "The layer that runs the rungs: runtime or driver")
      ->capture_default_str();
  ladder->add_option("-o,--out", ladder_args.run.out, "Results file (default: results/ladder-<workload>.json)");
  add_measurement_options(ladder, ladder_args.run, ladder_no_kernel_cache);
  ladder->footer("Each rung's median time, GFLOP/s (matmul) or GB/s (reduce), its fraction of cuBLAS / CUB (the vendor\n"
                 "layer's line, measured in the same run; without that layer, matmul against the run's cuBLAS SGEMM\n"
                 "ceiling) and of the copy bandwidth (reduce), and its speed-up over the rung below. The results\n"
                 "file is `run`'s (rung cases carry a \"rung\" object). Exit status: 0 ok, 1 a rung failed, 2 bad input,\n"
                 "130 interrupted (as for `run`).");

  // `layerbench help [COMMAND]` is `layerbench [COMMAND] --help`: every command's help, the handed-over
  // ones' included, comes from the command itself.
  std::vector<char*> words(argv, argv + argc);
  std::string help_flag = "--help";
  if (argc > 1 && std::string(argv[1]) == "help") {
    if (argc > 3) {
      std::fprintf(stderr, "layerbench: error: help takes at most one command: %s (see layerbench --help)\n",
                   one_line(argv[3]).c_str());
      return 2;
    }
    words.erase(words.begin() + 1);
    words.push_back(help_flag.data());
    argc = static_cast<int>(words.size());
    argv = words.data();
  }

  try {
    // A first word that is no command: CLI11 would only say that a subcommand is required.
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) commands.push_back(sub->get_name());
    if (argc > 1 && std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
      const std::string word = argv[1];
      if (word != "--help" && word != "-h" && word != "--version") {
        std::string names;
        for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c;
        throw UsageError("unknown command '" + one_line(word) + "' (commands: " + names + "; see layerbench --help)");
      }
    }
    app.parse(argc, argv);
    if (!list->remaining().empty()) {
      std::string extras;
      for (const auto& word : list->remaining()) extras += (extras.empty() ? "" : " ") + word;
      throw UsageError("list takes no arguments: " + one_line(extras));
    }
    if (app.got_subcommand(list)) return list_command(list_workload_dirs, list_sizes);
    if (app.got_subcommand(lab)) return lab::run_lab_cli(lab->remaining());
    if (app.got_subcommand(ladder)) {
      ladder_args.run.layers.kernel_cache_enabled = !ladder_no_kernel_cache;
      return ladder_command(ladder_args, argc, argv);
    }
    for (const auto& [name, help] : reports_commands)
      if (app.got_subcommand(name)) return hand_over_to_reports(name, app.get_subcommand(name)->remaining());
    if (concurrent && devices.empty()) throw UsageError("--concurrent needs --devices (all, or indices such as 0,2)");
    if (!devices.empty()) {
      std::string why_none;
      const int count = visible_device_count(&why_none);
      return run_on_devices(parse_devices(devices, count, why_none), concurrent, args.out, argc, argv);
    }
    args.benchmark_flags = run->remaining();
    args.layers.kernel_cache_enabled = !no_kernel_cache;
    args.layers.kernel_texts = read_kernel_texts(args.kernel_texts);
    return run_command(args, argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "layerbench: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "layerbench: error: %s\n", one_line(e.what()).c_str());
    return 2;
  }
}

}  // namespace lb
