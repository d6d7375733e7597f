#include "app/run_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "app/console_for_results.h"
#include "app/folder_checks.h"
#include "app/ladder_table.h"
#include "app/summary.h"
#include "common/output_file.h"
#include "common/usage_error.h"
#include "harness/benchmark_flags.h"
#include "harness/environment.h"
#include "harness/interrupt.h"
#include "harness/record.h"
#include "harness/run_cases.h"
#include "harness/sizes.h"
#include "variants/python/workload_folder.h"
#include "workloads/problem.h"

namespace lb {

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

namespace {

// The layer that lets `run --kernel-text NAME=FILE` replace kernel text NAME (Layer::kernel_texts:
// the driver layer's workloads/NAME/kernels.cu); nullptr when none does.
const Layer* kernel_text_layer(const std::string& name) {
  for (const Layer* l : all_layers())
    if (std::find(l->kernel_texts.begin(), l->kernel_texts.end(), name) != l->kernel_texts.end()) return l;
  return nullptr;
}


// A replaced kernel text is for its layer (the driver): -l must name that layer when it names any.
void check_kernel_text_layers(const RunArgs& args) {
  if (args.suite.layers.empty()) return;
  for (const auto& [name, given] : args.layers.kernel_texts) {
    const Layer* layer = kernel_text_layer(name);
    if (std::find(args.suite.layers.begin(), args.suite.layers.end(), layer->name) == args.suite.layers.end())
      throw UsageError("--kernel-text " + name + "=" + one_line(given.file) + " applies to the " + layer->name +
                       " layer only; -l named " + one_line(joined(args.suite.layers)));
  }
}

// One line per --kernel-text: the text a layer compiled in place of its own, or that none did. What
// the layer compiled is in its session's free-form record (the driver layer's "kernels").
void print_kernel_text_notes(const RunArgs& args, const RunContext& context) {
  for (const auto& [name, given] : args.layers.kernel_texts) {
    const std::string layer = kernel_text_layer(name)->name;
    const auto found = context.layers.find(layer);
    const nlohmann::json info = found != context.layers.end() ? found->second.described : nlohmann::json::object();
    const nlohmann::json kernels =
        info.is_object() ? info.value("kernels", nlohmann::json::object()) : nlohmann::json::object();
    const bool used = kernels.contains(name) && kernels[name].value("replaced_kernel_text", false);
    if (used)
      std::printf("%s: %s kernels compiled from %s, not the built-in text\n", layer.c_str(), name.c_str(),
                  one_line(given.file).c_str());
    else
      std::printf("%s: --kernel-text %s=%s not used: no %s case compiled %s's kernels\n", layer.c_str(),
                  name.c_str(), one_line(given.file).c_str(), layer.c_str(), name.c_str());
  }
}

std::string iso_time_now() {
  const std::time_t now = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return text;
}

MeasureOptions measure_options(const RunArgs& args) {
  MeasureOptions options;
  options.seed = args.seed ? *args.seed : std::random_device{}();
  options.rule = args.rule;
  options.rule.target_rel_noise = args.noise_percent / 100.0;
  options.rule.stop_early_above_target = !args.to_cap;
  if (args.thorough) options.rule = thorough(options.rule);
  if (args.max_time_s) options.rule.max_time_s = *args.max_time_s;
  options.cold = args.mode == "cold";
  options.check_only = args.check;
  options.host_clock = args.host_clock;
  return options;
}

struct RunOutcome {
  RunRecord record;
  bool interrupted = false;
  bool failed() const {
    return std::any_of(record.cases.begin(), record.cases.end(),
                       [](const CaseResult& r) { return r.status == CaseStatus::kFailed; });
  }
  // Cases, not repetitions (--benchmark_repetitions: a CaseResult each).
  std::size_t cases_started() const {
    return std::count_if(record.cases.begin(), record.cases.end(),
                         [](const CaseResult& r) { return r.repetition_index == 0; });
  }
  // 130 after an interrupt (128 + SIGINT, as shells report it), 1 when a case failed, else 0.
  int exit_code() const { return interrupted ? 130 : failed() ? 1 : 0; }
};

// A run, step by step, once planned: open the measurement environment, run the cases, record the
// results (with `extra_context` added to the context) and write them. `run` and `ladder` share it.
// An interrupt (interrupt.h) ends the cases early; what was measured is still recorded.
RunOutcome measure_and_record(SuitePlan plan, const RunArgs& args, int argc, char** argv, ConsoleForResults& console,
                              const std::optional<LadderInfo>& ladder = std::nullopt) {
  RunInfo info{iso_time_now(), new_run_id(), argv[0], {}, 0};
  for (int i = 0; i < argc; ++i) {
    if (i) info.command_line += ' ';
    info.command_line += argv[i];
  }

  if (args.check && !args.benchmark_flags.empty())
    throw UsageError("'" + args.benchmark_flags.front() + "' does not apply to --check, which runs no benchmark " +
                     "(select cases with -w, -l, -s)");
  const BenchmarkFlags flags = parse_benchmark_flags(args.benchmark_flags);
  keep_filtered_cases(plan, flags.filter);
  check_writable(args.out);
  print_plan_notes(plan, stderr);

  const InterruptHandler interrupts;
  const auto env = open_environment(plan.any_gpu(), measure_options(args));

  LayerSessions sessions(args.layers);
  Progress progress(stderr, Progress::is_terminal(stderr));
  ConsoleTable table(&progress, argv[0], name_width(plan.cases, flags.repetitions));
  const auto started = std::chrono::steady_clock::now();
  RunOutcome outcome;
  outcome.record.cases = run_cases(plan.cases, *env, sessions, table, progress, flags.repetitions);
  outcome.interrupted = interrupt_requested();
  if (env->context_probe) read_context_probe(*env->context_probe, "end");
  info.suite_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  RunContext& context = outcome.record.context;
  context = run_context(info, plan, *env, sessions);
  context.ladder = ladder;
  if (outcome.interrupted)
    context.interrupted = InterruptInfo{interrupt_signal_name(), plan.cases.size(), outcome.cases_started()};
  console.save_results(args.out, results_json(outcome.record).dump(2) + "\n");
  return outcome;
}

}  // namespace

namespace {

// The names of the layers `picked` chooses, in the registry's order; "no layer" when none.
std::string layer_names(bool (*picked)(const Layer&)) {
  std::string text;
  for (const Layer* l : all_layers())
    if (picked(*l)) text += (text.empty() ? "" : ", ") + l->name;
  return text.empty() ? "no layer" : text;
}

}  // namespace

std::string rung_layers_text() {
  return layer_names([](const Layer& l) { return l.runs_rungs; });
}

std::string folder_layers_text() {
  return layer_names([](const Layer& l) { return static_cast<bool>(l.folder_variant); });
}

// --kernel-text NAME=FILE, each checked and read now, before anything runs: NAME a kernel text a
// layer compiles at run time, FILE a readable file that is not empty. UsageError naming the bad
// value otherwise.
std::map<std::string, LayerConfig::KernelText> read_kernel_texts(const std::vector<std::string>& specs) {
  namespace fs = std::filesystem;
  std::map<std::string, LayerConfig::KernelText> texts;
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw UsageError("--kernel-text '" + one_line(spec) + "': expected WORKLOAD=FILE, e.g. reduce=my_reduce.cu");
    const std::string name = spec.substr(0, eq), file = spec.substr(eq + 1);
    const std::string what = "--kernel-text " + one_line(spec);
    if (!kernel_text_layer(name)) {
      std::vector<std::string> known;
      for (const Layer* l : all_layers()) known.insert(known.end(), l->kernel_texts.begin(), l->kernel_texts.end());
      const std::string texts_there = known.empty() ? "no layer of this build compiles kernel text at run time"
                                                    : "kernel texts: " + joined(known);
      if (find_workload(name))
        throw UsageError(what + ": workload '" + one_line(name) + "' has no workloads/" + one_line(name) +
                         "/kernels.cu of its own (" + texts_there + ")");
      throw UsageError(what + ": unknown workload '" + one_line(name) + "' (" + texts_there + ")");
    }
    if (const auto twice = texts.find(name); twice != texts.end())
      throw UsageError(what + ": " + name + "'s kernel text is already replaced by '" + one_line(twice->second.file) +
                       "'");
    std::error_code ec;
    if (fs::is_directory(file, ec))
      throw UsageError(what + ": '" + one_line(file) + "' is a directory, not a kernel text");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw UsageError(what + ": cannot read '" + one_line(file) + "': " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw UsageError(what + ": cannot read '" + one_line(file) + "'");
    if (text.str().empty()) throw UsageError(what + ": '" + one_line(file) + "' is empty");
    texts[name] = {file, text.str()};
  }
  return texts;
}

// --workload-dir DIR, each folder checked and registered with its variants (one line and exit 2 for
// a bad one). Without -w, the run is the folders' workloads; with -w, -w selects among them and the
// built-in ones.
void add_workload_folders(RunArgs& args) {
  std::vector<const FolderWorkload*> folders;
  for (const std::string& dir : args.workload_dirs) {
    const FolderWorkload* w = &register_workload_folder(dir);  // the same folder again: the same workload
    if (std::find(folders.begin(), folders.end(), w) != folders.end())
      throw UsageError("--workload-dir " + dir + ": given twice (the folder of workload '" + w->name() + "')");
    folders.push_back(w);
  }
  if (args.suite.workloads.empty())
    for (const FolderWorkload* w : folders) args.suite.workloads.push_back(w->name());
}

// A run: plan the suite, measure and record it, print the summary.
int run_command(RunArgs& args, int argc, char** argv) {
  add_workload_folders(args);
  const SuitePlan plan = plan_suite(args.suite);
  // Every size of every folder's cases evaluated, and its reference called at the smallest that fits:
  // a bad folder is one line and exit 2 before anything is measured (no size but the plan's tried).
  check_folders_of_plan(plan, args.seed.value_or(0));
  check_kernel_text_layers(args);
  if (!args.check && under_compute_sanitizer()) {
    std::fprintf(stderr, "layerbench: under compute-sanitizer: each case is checked once, not timed (as with --check)\n");
    args.check = true;
  }
  ConsoleForResults console(args.out);
  const RunOutcome outcome = measure_and_record(plan, args, argc, argv, console);
  const RunContext& context = outcome.record.context;
  print_kernel_text_notes(args, context);
  if (args.check) print_check_summary(outcome.record.cases, context, args.out);
  else print_summary(outcome.record.cases, context, args.out, args.verbose);
  if (outcome.interrupted)
    std::printf("interrupted: %zu of %zu cases started; the results of those are in %s\n",
                context.interrupted->cases_started, context.interrupted->cases_planned, args.out.c_str());
  return outcome.exit_code();
}


// `layerbench ladder matmul|reduce`: every rung of the ladder at one size through one layer, plus
// the vendor layer's variant of the workload as the top line where that layer is built and can run
// here; a `run` of those cases (the same plan -> environment -> cases -> record path), then the
// ladder's table.
int ladder_command(LadderArgs& args, int argc, char** argv) {
  const std::vector<const Rung*> rungs = ladder_rungs(args.workload);
  if (rungs.empty()) {
    std::string ladders;
    for (const Rung* r : ladder_rungs())
      if (ladders.find(r->workload) == std::string::npos) ladders += (ladders.empty() ? "" : ", ") + r->workload;
    throw UsageError("no ladder '" + args.workload + "' (ladders: " + (ladders.empty() ? "none registered" : ladders) +
                     ")");
  }
  const Layer* layer = find_layer(args.layer);
  if (!layer || !layer->runs_rungs)
    throw UsageError("layer '" + args.layer + "' does not run ladder rungs (" + rung_layers_text() + " do)");
  if (args.size.empty()) {
    const Workload* w = find_workload(args.workload);
    args.size = w && !w->descriptor().ladder_default_size.empty() ? w->descriptor().ladder_default_size : "2^28";
  }
  if (args.run.out == kDefaultOut) args.run.out = "results/ladder-" + args.workload + ".json";
  args.run.suite = SuiteRequest{{}, {args.layer}, {args.size}, {args.workload + "/all"}};
  SuitePlan plan = plan_suite(args.run.suite);

  // The top line: the vendor library through the layer that calls it (Layer::ladder_top_line);
  // without it, the run's ceiling.
  std::string top_line = "ceiling";
  const Layer* vendor = nullptr;
  for (const Layer* l : all_layers())
    if (l->ladder_top_line && find_variant(l->name, args.workload)) vendor = l;
  if (vendor && !plan.cases.empty()) {
    if (const std::string why = vendor->unavailable_reason(); !why.empty()) {
      plan.unavailable[why].push_back(vendor->name);
    } else {
      plan.layers.push_back(vendor);
      Case top = plan.cases.front();  // its shape, and why it does not fit when it does not
      top.layer = vendor;
      top.rung = nullptr;
      plan.cases.insert(plan.cases.begin(), top);
      top_line = "vendor";
    }
  }
  const LadderInfo ladder{args.workload, args.layer, args.size, rungs.size(), top_line};
  ConsoleForResults console(args.run.out);
  const RunOutcome outcome = measure_and_record(plan, args.run, argc, argv, console, ladder);
  const std::vector<CaseResult>& results = outcome.record.cases;
  std::printf("%s", ladder_table(results, outcome.record.context.ceilings).c_str());
  const auto failed = std::count_if(results.begin(), results.end(),
                                    [](const CaseResult& r) { return r.status == CaseStatus::kFailed; });
  std::printf("%zu cases in %.1f s, %ld failed; results written to %s\n", results.size(),
              outcome.record.context.suite_wall_s, static_cast<long>(failed), args.run.out.c_str());
  if (outcome.interrupted) std::printf("interrupted: the rungs after the last one above did not run\n");
  return outcome.exit_code();
}

}  // namespace lb
