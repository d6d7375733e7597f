#include "app/lab_command.h"

#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

#include "common/output_file.h"  // kStandardOutput
#include "common/usage_error.h"
#include "lab/child/key_holder.h"
#include "lab/child/student_sandbox.h"
#include "lab/commands/lab_check.h"
#include "lab/runners/runner.h"
#include "lab/commands/lab_grade.h"
#include "lab/commands/lab_start.h"
#include "lab/grading/grade_writer.h"  // autograder_format_names
#include "lab/grading/leaderboard.h"
#include "lab/commands/profile.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

// Every lab that can be read here, then each one left out, with why, one line each. Exit 0 when a lab
// is listed (or the folder holds none); 1 when every lab was left out: nothing here can be started.
int list_labs(const fs::path& labs_dir) {
  const LabsRead read = read_labs(labs_dir);
  if (read.labs.empty() && read.left_out.empty()) {
    std::printf("No labs in %s\n", labs_dir.c_str());
    return 0;
  }
  if (!read.labs.empty()) {
    std::printf("Labs in %s:\n", labs_dir.c_str());
    for (const LabSpec& lab : read.labs)
      std::printf("  %-20s %-11s %s\n", lab.name.c_str(), lab.workload->name().c_str(), lab.title.c_str());
  }
  if (!read.left_out.empty()) {
    std::printf("%sLeft out here (%zu of %zu labs):\n", read.labs.empty() ? "" : "\n", read.left_out.size(),
                read.labs.size() + read.left_out.size());
    for (const LeftOutLab& lab : read.left_out)
      std::printf("  %-20s %s\n", lab.name.c_str(), one_line(lab.why).c_str());
  }
  if (read.labs.empty()) return 1;
  std::printf("\nStart one with `layerbench lab start LAB`, check your kernel with `layerbench lab check LAB FILE`.\n");
  return 0;
}

// `lab check|grade|profile`: this process is the child subreaper of the whole run (whatever the
// student's code leaves, a setsid daemon included, is adopted here and ended after each child:
// child_process.cpp), and chooses once how the student's code is held (student_sandbox.h), for
// the children, which get it on their command line. Where that is weaker than a user of its own
// under the seccomp filter, `note` says so in one line (a check runs with what there is; a grade
// refuses unless --accept-weak-isolation: lab_grade.cpp).
void isolate_student(const LabSpec& spec, bool note) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    throw std::runtime_error(std::string("prctl(PR_SET_CHILD_SUBREAPER) failed: ") + std::strerror(errno));
  set_student_isolation(choose_student_isolation(spec.runner->student_executable()));
  if (note && !isolation_is_full(student_isolation()))
    std::fprintf(stderr, "layerbench lab: note: %s\n", student_isolation().description.c_str());
}

}  // namespace

int run_lab_cli(const std::vector<std::string>& args) {
  CLI::App app{"Coursework labs: write one kernel (device code only), check it against the workload's\n"
               "double-precision reference on the lab's sizes, with feedback on what went wrong.",
               "layerbench lab"};
  app.require_subcommand(1);
  std::string labs_dir = default_labs_dir().string();
  app.add_option("--labs", labs_dir, "Folder of the labs ($LAYERBENCH_LABS, else the source tree's labs/)")
      ->capture_default_str();

  app.add_subcommand("list", "List the labs, in order, with their workload and title, and each lab left out here, with why\n"
                             "(exit 0 while one is listed, 1 when every lab was left out)");

  std::string lab_name, dest, file;
  CLI::App* start = app.add_subcommand("start", "Copy a lab's files (README.md, the file you edit, lab.json) into DIR");
  start->add_option("LAB", lab_name, "The lab: its folder name (01-vector-add) or number (1, 01)")->required();
  start->add_option("DIR", dest, "Where to put them (default: ./<lab>); existing files are never overwritten");

  std::uint64_t seed = std::random_device{}() ^ (std::uint64_t{std::random_device{}()} << 32);
  CLI::App* check = app.add_subcommand("check", "Compile your kernel for this GPU, run it on the lab's check sizes, verify it");
  check->add_option("LAB", lab_name, "The lab: its folder name (01-vector-add) or number (1, 01)")->required();
  check->add_option("FILE", file, "Your kernel file (device code only)")->required();
  check->add_option("--seed", seed, "")->group("");  // hidden: tests reproduce a run with it
  bool sanitize = false;
  check->add_flag("--sanitize", sanitize,
                  "Also run the check under compute-sanitizer memcheck (when installed) and list the invalid "
                  "memory accesses it finds, with file:line; 10x the lab's time limit (at least 60 s)");
  check->footer(
      "Each size gets fresh random inputs. The kernel runs in a child process under the lab's time\n"
      "limit (time_limit_s in lab.json); this process never touches the GPU.\n"
      "Exit status: 0 every size passed; 1 a size failed, the file did not compile, or the kernel\n"
      "timed out or crashed (these are the student's to fix, so they count as a fail); 2 bad input\n"
      "(unknown lab, missing file, bad lab.json); 3 the check could not run here (no usable GPU).");

  CLI::App* profile = app.add_subcommand(
      "profile", "Profile your kernel once with Nsight Compute (ncu): throughput, occupancy, and why it is slow");
  profile->add_option("LAB", lab_name, "The lab: its folder name (01-vector-add) or number (1, 01)")->required();
  profile->add_option("FILE", file, "Your kernel file (device code only)")->required();
  profile->add_option("--seed", seed, "")->group("");
  profile->footer(
      "One verified run of your kernel at the lab's first benchmark size, under ncu (when installed):\n"
      "duration, DRAM throughput (GB/s and % of peak), compute (SM) throughput, achieved and theoretical\n"
      "occupancy and what limits it, registers per thread, grid and block, and a verdict (memory-,\n"
      "compute- or latency-bound). Time limit: 10x the lab's, at least 120 s.\n"
      "Exit status: 0 profiled; 1 the kernel did not compile, was wrong or crashed; 2 bad input;\n"
      "3 no ncu, no usable GPU, or no permission for the GPU's performance counters.");

  std::vector<std::string> files;
  GradeOptions grade_options;
  CLI::App* grade = app.add_subcommand(
      "grade", "Check, then time your kernel against ours (the lab's baseline layer, runtime in every lab here) and the "
               "GPU's ceiling, and grade it");
  grade->add_option("LAB", lab_name, "The lab: its folder name (01-vector-add) or number (1, 01)")->required();
  grade->add_option("FILES", files, "The submission, or several (e.g. submissions/*.cu): one row each")->required();
  grade->add_option("--json", grade_options.json_path, "Write the grades as JSON to this file");
  grade->add_option("--csv", grade_options.csv_path, "Write one CSV row per submission to this file");
  grade->add_option("--markdown", grade_options.markdown_path, "Write the grades as a markdown report to this file");
  AutograderRequest& autograder = grade_options.autograder;
  grade->add_option("--format", autograder.format,
                    "Write one grading system's results file for the one FILE: " + autograder_format_names() +
                        " (needs --results)");
  grade->add_option("--results", autograder.results_path,
                    "Where --format's file goes (- for standard output): e.g. /autograder/results/results.json "
                    "(Gradescope), /grade/results/results.json (PrairieLearn)");
  grade->add_option("--visibility", autograder.visibility,
                    "gradescope only: every test's visibility: visible (default), hidden, after_due_date, "
                    "after_published");
  grade->add_option("--visibility-of", autograder.visibility_of,
                    "gradescope only: TEST=VISIBILITY for one test, TEST a check size as lab.json writes it (2^24) "
                    "or performance; repeat for more")
      ->allow_extra_args(false);  // one value a flag: FILES after it stay FILES
  grade->add_option("--seed", seed, "")->group("");
  grade->add_flag("--accept-weak-isolation", grade_options.accept_weak_isolation,
                  "Grade even where the student's code cannot run as a user of its own under the seccomp filter "
                  "(not root; a Python that user cannot run; no seccomp): the grade's outputs say what held");
  grade->footer(
      "Points: the check's share for the sizes that passed; the performance points (the lab's tiers)\n"
      "only when every size passed: your speed is the geometric mean, over the lab's benchmark sizes,\n"
      "of (our time / your kernel's time), ours the lab's baseline layer (its lab.json's baseline_layer),\n"
      "both timed here, now, by the same harness.\n"
      "--format writes what a grading system reads: one test per check size (its share of the check's\n"
      "points) and one for performance (speed vs ours, tier, fraction of the GPU's ceiling, or why it\n"
      "earned nothing); gradescope adds a leaderboard (speed vs ours, % of the ceiling). PrairieLearn and\n"
      "GitHub Classroom results have no per-test visibility: --visibility with them is an error.\n"
      "With no usable GPU (exit 3) no results file is written: the grading system reports a grader failure.\n"
      "Exit status: 0 every submission passed its check; 1 one did not; 2 bad input; 3 no usable GPU.");

  std::vector<std::string> grade_files;
  std::string board_path;
  CLI::App* leaderboard = app.add_subcommand(
      "leaderboard", "Rank a class's grades (files of `lab grade --json`) on one self-contained HTML page");
  leaderboard->add_option("LAB", lab_name, "The lab: its folder name (01-vector-add) or number (1, 01)")->required();
  leaderboard->add_option("GRADES", grade_files, "Grade files of this lab, written by `lab grade --json`")->required();
  leaderboard->add_option("-o,--out", board_path, "Write the page (HTML) to this file; - for standard output")
      ->required();
  leaderboard->footer(
      "Ranked by speed vs ours, then points, then name. Refused submissions (faster than the hardware\n"
      "allows) and those that did not compile, failed the check or could not be timed are listed apart,\n"
      "unranked. A submission (the same file, as lab grade named it) in several grade files: the latest\n"
      "graded_at wins.\n"
      "The page has no script and loads nothing: publish it as it is (docs/labs.md, \"A class leaderboard\").\n"
      "Exit status: 0 written; 2 bad input (a grade file unreadable, not JSON, laid out otherwise or of\n"
      "another lab; an unwritable output).");

  // Internal: the child that `check`, `grade` and `profile` start (lab_check.h).
  std::string lab_json, mode = "check";
  bool line_info = false, exact_buffers = false;
  CLI::App* run_child_command = app.add_subcommand("run-child", "")->group("");
  run_child_command->add_option("LAB_JSON", lab_json)->required();
  run_child_command->add_option("FILE", file)->required();
  int events_fd = -1;
  run_child_command->add_option("--mode", mode)->check(CLI::IsMember({"check", "time", "profile", "environment"}));
  run_child_command->add_option("--events-fd", events_fd)->required();
  run_child_command->add_flag("--line-info", line_info);
  run_child_command->add_flag("--exact-buffers", exact_buffers);
  std::string isolation_word_given;
  run_child_command->add_option("--student-isolation", isolation_word_given);  // isolation_word(): its parent's choice

  // Internal: a runner's own helper process, which its child starts (Runner::run_helper: lab 8's
  // trip process).
  std::string helper_runner;
  CLI::App* run_helper_command = app.add_subcommand("run-helper", "")->group("");
  run_helper_command->add_option("RUNNER", helper_runner)->required();
  run_helper_command->prefix_command();  // the words after RUNNER are the runner's own (remaining())

  // The first word that is not an option (or --labs's value) names the command: an unknown one is
  // named here, where CLI11 would say only that a subcommand is required.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--labs") {
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i][0] == '-') continue;
    const auto known = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == args[i]; });
    if (known.empty()) {
      std::fprintf(stderr,
                   "layerbench lab: error: unknown lab command '%s' (commands: list, start, check, profile, grade, "
                   "leaderboard; see layerbench lab --help)\n",
                   one_line(args[i]).c_str());
      return kExitBadInput;
    }
    break;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads a vector back to front
  try {
    app.parse(reversed);
  } catch (const CLI::ExtrasError&) {
    // CLI11 2.1 names the unexpected arguments back to front ("/proc --labs"): name them as typed.
    std::string extras;
    for (const std::string& word : app.remaining(true)) extras += (extras.empty() ? "" : " ") + word;
    std::fprintf(stderr, "layerbench lab: error: not expected: %s (see layerbench lab --help)\n",
                 one_line(extras).c_str());
    return kExitBadInput;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "layerbench lab: error: %s\n", one_line(e.what()).c_str());
    return kExitBadInput;
  }
  try {
    // `seed` is the grade's secret, and run-child reads the keys of its mode on standard input:
    // before either process reads or starts anything, nothing of its user may read its memory
    // (lab/child/key_holder.h; run_child_process and run_child_with_channel make sure again).
    if (app.got_subcommand(check) || app.got_subcommand(profile) || app.got_subcommand(grade) ||
        app.got_subcommand(run_child_command))
      make_key_holder_undumpable();
    if (app.got_subcommand(start)) {
      const LabSpec spec = find_lab(labs_dir, lab_name);
      const fs::path where = dest.empty() ? fs::path(spec.name) : fs::path(dest);
      const std::vector<std::string> copied = start_lab(spec, where);
      std::printf("Started %s (%s) in %s:\n", spec.name.c_str(), spec.title.c_str(), where.c_str());
      for (const auto& name : copied) std::printf("  %s\n", (where / name).c_str());
      std::printf("Edit %s, then: layerbench lab check %s %s\n", (where / spec.student_file).c_str(),
                  spec.name.c_str(), (where / spec.student_file).c_str());
      return 0;
    }
    if (app.got_subcommand(check)) {
      const LabSpec spec = find_lab(labs_dir, lab_name);
      isolate_student(spec, true);
      return check_submission(spec, file, {default_runner(), seed, false, sanitize}, stdout);
    }
    if (app.got_subcommand(profile)) {
      const LabSpec spec = find_lab(labs_dir, lab_name);
      isolate_student(spec, true);
      return profile_submission(spec, file, {default_runner(), seed}, stdout);
    }
    if (app.got_subcommand(grade)) {
      const LabSpec spec = find_lab(labs_dir, lab_name);
      isolate_student(spec, false);  // the grade states it (or refuses): lab_grade.cpp
      grade_options.check = {default_runner(), seed};
      // An output on standard output ("-") has it to itself: the grade's lines go to standard error.
      const bool output_on_stdout = grade_options.json_path == kStandardOutput ||
                                    grade_options.csv_path == kStandardOutput ||
                                    grade_options.markdown_path == kStandardOutput ||
                                    grade_options.autograder.results_path == kStandardOutput;
      return grade_submissions(spec, {files.begin(), files.end()}, grade_options, output_on_stdout ? stderr : stdout);
    }
    if (app.got_subcommand(leaderboard)) {
      const LabSpec spec = find_lab(labs_dir, lab_name);
      write_leaderboard(spec.name, spec.runner->what_ours_is(spec),
                        {grade_files.begin(), grade_files.end()}, board_path,
                        board_path == kStandardOutput ? stderr : stdout);
      return 0;
    }
    if (app.got_subcommand(run_child_command)) {
      ChildMode child_mode = ChildMode::kCheck;
      for (ChildMode m : {ChildMode::kCheck, ChildMode::kTime, ChildMode::kProfile, ChildMode::kEnvironment})
        if (mode == to_string(m)) child_mode = m;
      if (!isolation_word_given.empty()) {
        try {
          set_student_isolation(parse_isolation_word(isolation_word_given));
        } catch (const std::invalid_argument& e) {
          throw UsageError(std::string("lab run-child: ") + e.what());
        }
      }
      return run_child_with_channel(parse_lab_spec(lab_json), file,
                                    {child_mode, read_grade_keys(stdin), line_info, exact_buffers}, events_fd);
    }
    if (app.got_subcommand(run_helper_command)) {
      const Runner* runner = find_runner(helper_runner);
      if (runner == nullptr) throw UsageError("run-helper: no runner '" + helper_runner + "' (runners: " + runner_names() + ")");
      return runner->run_helper(run_helper_command->remaining());
    }
    return list_labs(labs_dir);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "layerbench lab: error: %s\n", one_line(e.what()).c_str());
    return kExitBadInput;
  } catch (const fs::filesystem_error& e) {
    std::fprintf(stderr, "layerbench lab: error: %s\n", one_line(e.what()).c_str());
    return kExitBadInput;
  }
}

}  // namespace lb::lab
