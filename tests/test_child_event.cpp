// The lab's parent/child protocol (lab/child/child_event.h): every kind of event round-trips through its
// JSON line; a line that is not JSON, a known event with a field missing or of the wrong type, and a
// runner's own event that the lab's runner does not know are each a ChildProtocolError, which the
// parent reports and fails on (a check never passes, a grade earns no performance points). The host
// trip's own events are tested with it (test_lab_transfer.cpp). CPU only: stand-in children write
// the lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness/device_peaks.h"
#include "lab/child/child_event.h"
#include "lab/child/child_process.h"
#include "lab/child/grade_keys.h"
#include "lab/commands/lab_check.h"
#include "lab/commands/lab_grade.h"
#include "lab/spec/lab_spec.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb::lab;
using namespace lb::lab::testing;
using nlohmann::json;

// One of every kind, with every field set (and the variants of the optional ones).
std::vector<ChildEvent> every_kind() {
  const Figures student{.median_ms = 0.3, .samples = 40, .noise = 0.004, .gbps = 2684.4, .gflops = 0.5,
                        .stop = "noise reached"};
  const Figures ours{.median_ms = 0.27, .samples = 41, .noise = 0.003, .gbps = 2982.6, .gflops = 0.25,
                     .stop = "max time"};
  return {
      NoGpu{"no CUDA driver (libcuda.so.1 not found)"},
      CompileFailed{"bad.cu(4): error: expected a \";\"\n1 error detected"},
      SizeChecked{"257", true, ""},
      SizeChecked{"2^24", false, "element 3 is 0, expected 1.5"},
      CudaFailure{"an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)"},
      Failure{"lab runner run(): ZeroDivisionError: division by zero"},
      TimingEnvironment{.gpu = "NVIDIA H100 80GB HBM3",
                        .ceilings = {{"copy_gbps", 2991.5}, {"sgemm_gflops", 51000.0}},
                        .peaks = {{"dram_gbps", 3352.32}, {"fp32_gflops", 66900.0}, {"l2_bytes", 52428800.0}},
                        .cache_mode = "cold"},
      TimingEnvironment{.gpu = "Test GPU", .ceilings = json::object(), .peaks = nullptr, .cache_mode = "hot"},
      BenchmarkTimed{.size = "67108864", .student = student, .ours = ours, .ours_error = "", .samples_verified = 4,
                     .input_reset_ms = 0.11},
      BenchmarkTimed{.size = "67108864", .student = student, .ours = std::nullopt,
                     .ours_error = "every timed sample was discarded: the GPU's clock was throttled",
                     .samples_verified = 3, .input_reset_ms = 0.2},
      // Lab 8's: the hand-over of a and b inside both trips' clocks (trip_child.h).
      BenchmarkTimed{.size = "67108864", .student = student, .ours = ours, .ours_error = "", .samples_verified = 42,
                     .input_reset_ms = 61.5, .sample_verify_ms = 48.25, .handover_ms = 12.125},
      BenchmarkFailed{"67108864", "timed sample 12 was wrong"},
      Profiled{"67108864", true, ""},
      Profiled{"67108864", false, "element 3 is 0"},
      StudentBuilt{"nvcc -O3 -arch=sm_90 -c transfer.cu", 1890.5},
      RunnerEvent{"trip", json{{"event", "trip"}, {"anything", {1, "the runner's"}}}},
  };
}

// --- every kind round-trips ---------------------------------------------------------------------

TEST(ChildEvent, EveryKindRoundTrips) {
  const std::vector<ChildEvent> events = every_kind();
  std::vector<bool> kinds(std::variant_size_v<ChildEvent>, false);
  for (const ChildEvent& event : events) {
    kinds[event.index()] = true;
    const json line = to_json(event);
    EXPECT_EQ(child_event_from_json(line), event) << line.dump();
    // As the child writes it and the parent reads it: one line of text.
    const std::string text = line.dump();
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_EQ(parse_child_event(text), event) << text;
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) EXPECT_TRUE(kinds[i]) << "no event of kind " << i << " tested";
}

// handover_ms (lab 8's alone) is written only when there is one, so every other lab's line is as
// it was; a line without it reads as 0, and one with it gives it back.
TEST(ChildEvent, TheHandOverIsWrittenOnlyWhereThereIsOne) {
  BenchmarkTimed timed{.size = "2^26", .student = {.median_ms = 0.3, .samples = 40},
                       .ours = Figures{.median_ms = 0.27, .samples = 40}};
  EXPECT_FALSE(to_json(timed).contains("handover_ms")) << to_json(timed).dump();
  timed.handover_ms = 11.75;
  const json line = to_json(timed);
  EXPECT_EQ(line.at("handover_ms"), 11.75) << line.dump();
  EXPECT_EQ(std::get<BenchmarkTimed>(parse_child_event(line.dump())).handover_ms, 11.75);
  const ChildEvent without = parse_child_event(
      R"({"benchmark": "2^26", "student": {"median_ms": 0.3, "samples": 40}, "runtime": {"median_ms": 0.27, "samples": 40}})");
  EXPECT_EQ(std::get<BenchmarkTimed>(without).handover_ms, 0.0);
  EXPECT_THROW(parse_child_event(R"({"benchmark": "2^26", "student": {"median_ms": 0.3, "samples": 40}, )"
                                 R"("runtime": {"median_ms": 0.27, "samples": 40}, "handover_ms": "12"})"),
               ChildProtocolError);
}

// The wire format is the one the first versions wrote (and stand-in children in other tests write).
TEST(ChildEvent, LinesAreTheDocumentedOnes) {
  EXPECT_EQ(to_json(NoGpu{"why"}), json::parse(R"({"event": "no_gpu", "reason": "why"})"));
  EXPECT_EQ(to_json(CompileFailed{"log"}), json::parse(R"({"event": "compile_error", "message": "log"})"));
  EXPECT_EQ(to_json(SizeChecked{"257", true, ""}), json::parse(R"({"size": "257", "passed": true})"));
  EXPECT_EQ(to_json(CudaFailure{"x"}), json::parse(R"({"cuda_error": "x"})"));
  EXPECT_EQ(to_json(Failure{"x"}), json::parse(R"({"error": "x"})"));
  EXPECT_EQ(to_json(BenchmarkFailed{"2^26", "x"}), json::parse(R"({"benchmark": "2^26", "error": "x"})"));
  EXPECT_EQ(to_json(Profiled{"2^26", true, ""}), json::parse(R"({"profiled": "2^26", "passed": true})"));
  EXPECT_EQ(to_json(StudentBuilt{"nvcc x.cu", 2.5}), json::parse(R"({"event": "built", "what": "nvcc x.cu", "ms": 2.5})"));
  const json timed = to_json(every_kind()[8]);
  EXPECT_TRUE(timed.contains("runtime") && !timed.contains("runtime_error")) << timed.dump();
  const json untimed = to_json(every_kind()[9]);
  EXPECT_TRUE(untimed.contains("runtime_error") && !untimed.contains("runtime")) << untimed.dump();
}

// A line whose "event" names none of the above is the runner's own, kept whole for its ChildNotes;
// the parent refuses it when the runner has none (EverySizePassedWithAStrayLineFails).
TEST(ChildEvent, AnUnknownEventIsTheRunnersOwnLine) {
  const std::string line = R"({"event": "finished", "at": [1, 2]})";
  EXPECT_EQ(parse_child_event(line), ChildEvent(RunnerEvent{"finished", json::parse(line)}));
  EXPECT_STREQ(unknown_event(RunnerEvent{"finished", json::parse(line)}).what(), "an unknown event 'finished'");
  const json parsed = json::parse(line);
  const EventFields f(parsed, "finished");  // holds a reference: `parsed` outlives it
  EXPECT_THROW(f.one_of("at", "x", "y"), ChildProtocolError);
  try {
    f.text("why");
    ADD_FAILURE() << "a missing field was read";
  } catch (const ChildProtocolError& e) {
    EXPECT_STREQ(e.what(), "a finished line whose 'why' is missing");
  }
}

// Optional fields, absent, read as documented.
TEST(ChildEvent, OptionalFieldsReadAsDocumented) {
  const ChildEvent env = parse_child_event(R"({"event": "environment", "gpu": "G", "ceilings": {"copy_gbps": 3000}})");
  const auto& e = std::get<TimingEnvironment>(env);
  EXPECT_TRUE(e.peaks.is_null());
  EXPECT_EQ(e.cache_mode, "hot");  // the looser bound
  const ChildEvent b = parse_child_event(
      R"({"benchmark": "67108864", "student": {"median_ms": 0.3, "samples": 40}, "runtime": {"median_ms": 0.27, "samples": 40}})");
  const auto& t = std::get<BenchmarkTimed>(b);
  EXPECT_EQ(t.student.median_ms, 0.3);
  EXPECT_EQ(t.student.gbps, 0);
  EXPECT_EQ(t.samples_verified, 0u);
  ASSERT_TRUE(t.ours);
  EXPECT_EQ(t.ours->samples, 40u);
}

// --- lines that are no event: each a ChildProtocolError naming what is wrong ----------------------

std::string protocol_error_of(const std::string& line) {
  try {
    parse_child_event(line);
  } catch (const ChildProtocolError& e) {
    return e.what();
  }
  return "(read as an event)";
}

TEST(ChildEvent, LinesThatAreNoEventAreErrorsNamingWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // not JSON, not an object, nothing the child says
      {"hello from a stray printf", "not JSON: 'hello from a stray printf'"},
      {R"({"size": "257", "passed": true)", "not JSON"},
      {"[1, 2, 3]", "not a JSON object"},
      {"42", "not a JSON object"},
      {R"({"what": 1})", "none of its messages"},
      // an event that is not a name (an unknown name is a runner's line: RunnerOwnLines below)
      {R"({"event": 3})", "'event' is not a string"},
      // known events, a field missing
      {R"({"size": "257"})", "a size line whose 'passed' is missing"},
      {R"({"event": "no_gpu"})", "'reason' is missing"},
      {R"({"event": "compile_error"})", "'message' is missing"},
      {R"({"event": "environment", "gpu": "G"})", "'ceilings' is missing"},
      {R"({"benchmark": "2^26"})", "a benchmark line whose 'student' is missing"},
      {R"({"benchmark": "2^26", "student": {"median_ms": 1, "samples": 3}})", "'runtime_error' is missing"},
      {R"({"benchmark": "2^26", "student": {"samples": 3}, "runtime_error": "x"})", "'student.median_ms' is missing"},
      {R"({"profiled": "2^26"})", "a profiled line whose 'passed' is missing"},
      // known events, a field of the wrong type
      {R"({"size": "257", "passed": "yes"})", "'passed' is not true or false"},
      {R"({"size": 257, "passed": true})", "'size' is not a string"},
      {R"({"size": "257", "passed": false, "feedback": 3})", "'feedback' is not a string"},
      {R"({"cuda_error": null})", "'cuda_error' is not a string"},
      {R"({"error": ["x"]})", "'error' is not a string"},
      {R"({"event": "environment", "gpu": "G", "ceilings": [1]})", "'ceilings' is not an object"},
      {R"({"event": "environment", "gpu": "G", "ceilings": {"copy_gbps": "fast"}})", "'ceilings.copy_gbps' is not a number"},
      {R"({"event": "environment", "gpu": "G", "ceilings": {}, "peaks": 3})", "'peaks' is not an object"},
      {R"({"event": "environment", "gpu": "G", "ceilings": {}, "peaks": {"dram_gbps": "x"}})", "'peaks.dram_gbps' is not a number"},
      {R"({"event": "environment", "gpu": "G", "ceilings": {}, "cache_mode": "lukewarm"})", "'cache_mode' is neither cold nor hot"},
      {R"({"benchmark": "2^26", "student": {"median_ms": "0.3", "samples": 3}, "runtime_error": "x"})",
       "'student.median_ms' is not a number"},
      {R"({"benchmark": "2^26", "student": {"median_ms": 0.3, "samples": -3}, "runtime_error": "x"})",
       "'student.samples' is not a count"},
      {R"({"benchmark": "2^26", "student": {"median_ms": 0.3, "samples": 3}, "runtime": 5})", "'runtime' is not an object"},
      {R"({"benchmark": "2^26", "student": {"median_ms": 0.3, "samples": 3}, "runtime_error": "x", "samples_verified": 1.5})",
       "'samples_verified' is not a count"},
      {R"({"profiled": "2^26", "passed": 1})", "'passed' is not true or false"},
      // the student's build (the host trip's child makes one)
      {R"({"event": "built", "what": "nvcc"})", "a built line whose 'ms' is missing"},
      {R"({"event": "environment", "gpu": "G", "ceilings": {"h2d_gbps": "fast"}})", "'ceilings.h2d_gbps' is not a number"},
  };
  for (const auto& [line, expected] : cases) {
    const std::string error = protocol_error_of(line);
    EXPECT_TRUE(has(error, expected)) << line << "\n  gave: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  // A long line is quoted short, and control characters are spelled out.
  const std::string long_error = protocol_error_of(std::string(5000, 'x'));
  EXPECT_LT(long_error.size(), 300u) << long_error;
  EXPECT_TRUE(has(protocol_error_of("bad\x01line"), "bad\\x01line")) << protocol_error_of("bad\x01line");
}

// --- the parent: a line it cannot read fails the check, never passes it --------------------------

class ChildEventParent : public LabCliTest {
 protected:
  // A stand-in child (stand_in_child): `lines` for --mode check, `environment` and `timed` for a grade's timing.
  fs::path child(const std::string& lines, const std::string& timed = "",
                 const std::string& environment = test_environment_line()) const {
    const fs::path script = dir_ / "child.sh";
    write(script, stand_in_child(lines, environment, timed));
    fs::permissions(script, fs::perms::owner_all);
    return script;
  }
  static std::string every_size_passed() { return lab1_every_size_passed(); }
  std::string check(const LabSpec& spec, const fs::path& runner, int* status) const {
    const fs::path out_file = dir_ / "check.txt";
    std::FILE* out = std::fopen(out_file.c_str(), "w");
    *status = check_submission(spec, kSolution, {{runner.string()}, 1, false, false}, out);
    std::fclose(out);
    return slurp(out_file);
  }
  const fs::path kSolution = solution_file("01-vector-add", "vector_add.cu");
};

TEST_F(ChildEventParent, EverySizePassedWithAStrayLineFails) {
  const LabSpec spec = find_lab(kLabs, "1");
  int status = -1;
  const std::string ok = check(spec, child(every_size_passed()), &status);
  EXPECT_EQ(status, kExitPassed) << ok;

  for (const std::string& bad : {std::string("hello\n"), std::string("{\"event\": \"finished\"}\n"),
                                 std::string("{\"size\": \"1\"}\n"), std::string("{\"size\": \"1\", \"passed\": \"yes\"}\n")}) {
    const std::string out = check(spec, child(every_size_passed() + bad), &status);
    EXPECT_EQ(status, kExitFailed) << bad << out;
    EXPECT_TRUE(has(out, "FAIL: the check could not read its child's output: it wrote a")) << bad << out;
    EXPECT_FALSE(has(out, "PASS: all")) << out;
  }
}

TEST_F(ChildEventParent, AnUnreadableSizeLineIsReportedOnTheSizesItLeftOut) {
  const LabSpec spec = find_lab(kLabs, "1");
  int status = -1;
  const std::string out =
      check(spec, child("{\"size\": \"1\", \"passed\": true}\n{\"size\": \"127\", \"passed\": 1}\n"), &status);
  EXPECT_EQ(status, kExitFailed) << out;
  EXPECT_TRUE(has(out, "  PASS  n = 1\n")) << out;
  EXPECT_TRUE(has(out, "  FAIL  n = 127: the check could not read its child's output: it wrote a size line whose "
                       "'passed' is not true or false"))
      << out;
  EXPECT_TRUE(has(out, "  SKIP  n = 255")) << out;
}

TEST_F(ChildEventParent, AGradeWhoseTimingChildWritesAnUnreadableLineEarnsNoPerformancePoints) {
  const LabSpec spec = find_lab(kLabs, "1");
  const std::string timed =
      "{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.3, \"gbps\": 2684.4, \"samples\": 40}, "
      "\"runtime\": {\"median_ms\": 0.27, \"gbps\": 2982.6, \"samples\": 40}}\n";
  const auto grade = [&](const std::string& timing_lines, int* status,
                         const std::string& environment = test_environment_line()) {
    GradeOptions options;
    options.check = {{child(every_size_passed(), timing_lines, environment).string()}, 1, false, false};
    options.json_path = (dir_ / "g.json").string();
    options.accept_weak_isolation = true;  // none chosen: the stand-in child runs nothing of a student's
    const fs::path out_file = dir_ / "grade.txt";
    std::FILE* out = std::fopen(out_file.c_str(), "w");
    *status = grade_submissions(spec, {kSolution}, options, out);
    std::fclose(out);
    return std::make_pair(slurp(out_file), nlohmann::json::parse(slurp(dir_ / "g.json")));
  };
  int status = -1;
  const auto [good_out, good] = grade(timed, &status);
  EXPECT_EQ(status, kExitPassed) << good_out;
  EXPECT_EQ(good["submissions"][0]["points"], 100) << good_out;

  const auto [bad_out, bad] = grade(timed + "{\"benchmark\": \"67108864\", \"student\": 1}\n", &status);
  EXPECT_EQ(bad["submissions"][0]["points"], 60) << bad_out;
  EXPECT_EQ(bad["submissions"][0]["performance"]["points"], 0) << bad_out;
  EXPECT_TRUE(has(bad_out, "the check could not read its child's output: it wrote a benchmark line whose 'student' "
                           "is not an object"))
      << bad_out;
}

// The GPU's peaks and ceilings come from a child of their own, which loads no student code; an
// environment line from the timing child is an extra one, and an environment without peaks (or
// without the ceiling) earns no performance points: a figure missing is never a check skipped.
TEST_F(ChildEventParent, TheEnvironmentComesFromItsOwnChildAndNeedsEveryFigure) {
  const LabSpec spec = find_lab(kLabs, "1");
  const std::string timed =
      "{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.3, \"gbps\": 2684.4, \"samples\": 40}, "
      "\"runtime\": {\"median_ms\": 0.27, \"gbps\": 2982.6, \"samples\": 40}}\n";
  const auto timed_report = [&](const std::string& timing_lines, const std::string& environment) {
    return run_child_process(spec, kSolution, ChildMode::kTime,
                             {{child(every_size_passed(), timing_lines, environment).string()}, 1}, 30);
  };
  const ChildReport good = timed_report(timed, test_environment_line());
  EXPECT_TRUE(good.protocol_error.empty()) << good.protocol_error;
  ASSERT_TRUE(good.environment);
  EXPECT_EQ(good.environment->gpu, "Test GPU");
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{test_environment_line() + timed, test_environment_line()}, "'environment' where 'benchmark 67108864' was due"},
      {{timed, "{\"event\": \"environment\", \"gpu\": \"G\", \"ceilings\": {\"copy_gbps\": 3000.0}, \"peaks\": null}\n"},
       "an environment without the GPU's peaks"},
      {{timed, "{\"event\": \"environment\", \"gpu\": \"G\", \"ceilings\": {}, \"peaks\": {\"dram_gbps\": 3352.32}}\n"},
       "an environment without the GPU's copy bandwidth"},
      {{timed, ""}, "no usable environment line: no 'environment' line: it ended without it"},
  };
  for (const auto& [lines, why] : cases) {
    const ChildReport bad = timed_report(lines.first, lines.second);
    EXPECT_TRUE(has(bad.protocol_error, why)) << why << "\n" << bad.protocol_error;
  }
}

// Some peaks are not every peak: a size whose speed limit the environment leaves unchecked (matmul
// without an fp32 peak, an integrated GPU, a working set the L2 can hold) refuses the performance
// part, naming the size and the figure, as a missing environment does.
TEST_F(ChildEventParent, AnEnvironmentThatLeavesASizesSpeedLimitUncheckedIsRefused) {
  const auto environment = [](const json& peaks, const char* cache_mode) {
    return std::optional<TimingEnvironment>(TimingEnvironment{
        .gpu = "G", .ceilings = {{"copy_gbps", 3000.0}, {"sgemm_gflops", 50000.0}}, .peaks = peaks,
        .cache_mode = cache_mode});
  };
  const json dram_only = {{"dram_gbps", 3352.32}, {"l2_bytes", 52428800.0}, {"compute_capability", "9.0"}};
  json integrated = dram_only;
  integrated["integrated"] = true;
  json huge_l2 = dram_only;
  huge_l2["l2_bytes"] = 4e9;  // hot: the whole working set could be served by lines left in the L2
  const LabSpec lab1 = find_lab(kLabs, "1"), lab4 = find_lab(kLabs, "4");
  const std::vector<std::tuple<const LabSpec*, std::optional<TimingEnvironment>, std::string>> cases = {
      {&lab4, environment(dram_only, "cold"),
       "an environment that leaves the speed limit at 2048x2048x2048 unchecked: no fp32 peak"},
      {&lab1, environment(integrated, "cold"),
       "an environment that leaves the speed limit at 67108864 unchecked: an integrated GPU"},
      {&lab1, environment(huge_l2, "hot"), "an environment that leaves the speed limit at 67108864 unchecked: working set"},
  };
  for (const auto& [spec, env, why] : cases) {
    const std::string refusal = spec->runner->environment_refusal(*spec, env);
    EXPECT_TRUE(has(refusal, why)) << why << "\n" << refusal;
  }
  EXPECT_EQ(lab1.runner->environment_refusal(lab1, environment(dram_only, "cold")), "");

  // Through the grade's children: the refusal is the timing report's protocol error.
  const std::string timed =
      "{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.3, \"gbps\": 2684.4, \"samples\": 40}, "
      "\"runtime\": {\"median_ms\": 0.27, \"gbps\": 2982.6, \"samples\": 40}}\n";
  const std::string integrated_line = "{\"event\": \"environment\", \"gpu\": \"G\", \"ceilings\": {\"copy_gbps\": 3000.0}, "
                                      "\"peaks\": " + integrated.dump() + ", \"cache_mode\": \"cold\"}\n";
  const ChildReport report = run_child_process(lab1, kSolution, ChildMode::kTime,
                                               {{child(every_size_passed(), timed, integrated_line).string()}, 1}, 30);
  EXPECT_TRUE(has(report.protocol_error, "leaves the speed limit at 67108864 unchecked: an integrated GPU"))
      << report.protocol_error;
}

// Every committed lab's environment as an H100's or an H200's children write it has a speed limit
// at every benchmark size: the refusal above never meets a lab's normal case (lab 8 bounds its
// trips by the host link its timing child measures).
TEST(EnvironmentRefusal, NoCommittedLabIsRefusedOnAnH100OrAnH200) {
  // cudaDeviceGetAttribute's figures: clocks in kHz.
  const json h100 = lb::peaks_json(lb::peaks_from_attributes(9, 0, 132, 1980000, 2619000, 5120, 52428800, false));
  const json h200 = lb::peaks_json(lb::peaks_from_attributes(9, 0, 132, 1980000, 3134000, 6144, 62914560, false));
  for (const LabSpec& spec : checkable_labs()) {
    for (const json& peaks : {h100, h200}) {
      const bool trip = !spec.runner->environment_apart();  // lab 8: its timing child's link, no peaks
      const TimingEnvironment env =
          trip ? TimingEnvironment{.gpu = "G", .ceilings = {{"h2d_gbps", 55.0}, {"d2h_gbps", 55.0}},
                                   .peaks = nullptr, .cache_mode = "hot"}
               : TimingEnvironment{.gpu = "G", .ceilings = {{"copy_gbps", 3000.0}, {"sgemm_gflops", 50000.0}},
                                   .peaks = peaks, .cache_mode = "cold"};
      EXPECT_EQ(spec.runner->environment_refusal(spec, env), "") << spec.name << " " << peaks.dump();
    }
  }
}

// --- the channel: only file descriptor 3 is read; what the student's code prints is shown --------

// A child whose stdout (where a kernel's device printf goes) claims every size passed and a
// faster timing, while its events channel says size 257 failed: the check believes the channel.
TEST_F(ChildEventParent, LinesOnStandardOutputAreTheStudentsOutputNeverEvents) {
  const LabSpec spec = find_lab(kLabs, "1");
  std::string forged;
  for (const char* size : {"1", "127", "255", "256", "257", "1000003", "2^24"})
    forged += std::string("echo '{\"size\": \"") + size + "\", \"passed\": true}'\n";
  std::string channel;
  for (const char* size : {"1", "127", "255", "256", "257", "1000003", "2^24"})
    channel += std::string("echo >&3 '{\"size\": \"") + size + "\", \"passed\": " +
               (std::string(size) == "257" ? "false, \"feedback\": \"element 256 is NaN\"" : "true") + "}'\n";
  const fs::path script = dir_ / "forging.sh";
  write(script, "#!/bin/sh\n" + forged + channel + "echo 'printed on stderr' >&2\n");
  fs::permissions(script, fs::perms::owner_all);
  int status = -1;
  const std::string out = check(spec, script, &status);
  EXPECT_EQ(status, kExitFailed) << out;
  EXPECT_TRUE(has(out, "  FAIL  n = 257: element 256 is NaN")) << out;
  EXPECT_FALSE(has(out, "PASS: all")) << out;

  // The same child through run_child_process: what it printed is the student's output, capped.
  const ChildReport report = run_child_process(spec, kSolution, ChildMode::kCheck, {{script.string()}, 1}, 30);
  EXPECT_TRUE(report.protocol_error.empty()) << report.protocol_error;
  EXPECT_TRUE(has(report.student_output(), "{\"size\": \"257\", \"passed\": true}")) << report.student_output();
  EXPECT_TRUE(has(report.student_output(), "printed on stderr")) << report.student_output();
  EXPECT_FALSE(report.by_size.at("257").passed);
}

TEST_F(ChildEventParent, WhatTheStudentPrintedIsShownCappedSayingHowMuchWasCut) {
  const LabSpec spec = find_lab(kLabs, "1");
  const fs::path script = dir_ / "chatty.sh";
  write(script, "#!/bin/sh\nhead -c 100000 /dev/zero | tr '\\0' x\n" + std::string("cat >&3 <<'EOF'\n") +
                    every_size_passed() + "EOF\n");
  fs::permissions(script, fs::perms::owner_all);
  const ChildReport report = run_child_process(spec, kSolution, ChildMode::kCheck, {{script.string()}, 1}, 30);
  EXPECT_EQ(report.child.out_bytes, 100000u);
  const std::string shown = report.student_output();
  EXPECT_LT(shown.size(), 4200u);
  EXPECT_TRUE(has(shown, "95904 more bytes not shown: 100000 in all")) << shown.substr(4000);
  EXPECT_EQ(report.sizes_passed(), 7u);
}

// A child that stops with a status of its own: its last line on stderr is the student's output
// (a kernel's printf, a Python print), quoted as theirs, one line and capped, never as our reason.
TEST_F(ChildEventParent, WhyTheChildStoppedQuotesItsLastStderrLineAsTheStudents) {
  const LabSpec spec = find_lab(kLabs, "1");
  const fs::path script = dir_ / "stops.sh";
  write(script, "#!/bin/sh\necho 'the grader: every size passed, 100 points' >&2\n"
                "printf '\\033[2Jcleared\\n' >&2\nexit 5\n");
  fs::permissions(script, fs::perms::owner_all);
  const ChildReport report = run_child_process(spec, kSolution, ChildMode::kCheck, {{script.string()}, 1}, 30);
  ASSERT_TRUE(report.ended_abnormally());
  const std::string why = report.why_stopped();
  EXPECT_TRUE(has(why, "the check stopped (exit status 5); your code's last line on standard error: '")) << why;
  EXPECT_TRUE(has(why, "\\x1b[2Jcleared'")) << why;  // control characters spelled out
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;

  write(script, "#!/bin/sh\necho 'PASS: all' >&2\nprintf 'y%.0s' $(seq 1 500) >&2\nexit 5\n");
  const std::string long_why = run_child_process(spec, kSolution, ChildMode::kCheck, {{script.string()}, 1}, 30)
                                   .why_stopped();
  EXPECT_TRUE(has(long_why, "yyy...'")) << long_why;
  EXPECT_LT(long_why.size(), 300u) << long_why;
}

// A line missing, extra, repeated or out of order on the channel: a protocol error, never a pass.
TEST_F(ChildEventParent, EveryLineInItsPlaceOrTheReportIsNotTrusted) {
  const LabSpec spec = find_lab(kLabs, "1");
  const std::string all = every_size_passed();
  const std::string first_six = all.substr(0, all.rfind("{\"size\": \"2^24\""));
  const std::string swapped = "{\"size\": \"127\", \"passed\": true}\n{\"size\": \"1\", \"passed\": true}\n" +
                              all.substr(all.find("{\"size\": \"255\""));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {first_six, "no 'size 2^24' line: it ended without it"},
      {all + "{\"size\": \"2^24\", \"passed\": true}\n", "an extra line ('size 2^24') after its last"},
      {swapped, "'size 127' where 'size 1' was due"},
      {"{\"size\": \"1\", \"passed\": true}\n{\"error\": \"x\"}\n{\"size\": \"127\", \"passed\": true}\n",
       "a line after its last ('error')"},
      {"\n" + all, "a line that is not JSON"},
  };
  for (const auto& [lines, why] : cases) {
    int status = -1;
    const std::string out = check(spec, child(lines), &status);
    EXPECT_EQ(status, kExitFailed) << lines << out;
    EXPECT_FALSE(has(out, "PASS: all")) << out;
    const ChildReport report = run_child_process(spec, kSolution, ChildMode::kCheck, {{child(lines).string()}, 1}, 30);
    EXPECT_TRUE(has(report.protocol_error, why)) << why << "\n" << report.protocol_error;
  }
}

// The child's command line and environment hold no seed: the keys of its mode come on its
// standard input, derived from the grade's secret, which never leaves the parent.
TEST_F(ChildEventParent, TheChildGetsItsModesKeysOnStandardInputAndNoSeed) {
  const LabSpec spec = find_lab(kLabs, "1");
  const fs::path script = dir_ / "recording.sh";
  write(script, "#!/bin/sh\necho \"$@\" > " + (dir_ / "args.txt").string() + "\nenv > " +
                    (dir_ / "env.txt").string() + "\ncat > " + (dir_ / "stdin.txt").string() + "\ncat >&3 <<'EOF'\n" +
                    every_size_passed() + "EOF\n");
  fs::permissions(script, fs::perms::owner_all);
  const std::uint64_t secret = 0x5EC2E7;
  const ChildReport report = run_child_process(spec, kSolution, ChildMode::kCheck, {{script.string()}, secret}, 30);
  EXPECT_EQ(report.sizes_passed(), 7u) << report.protocol_error;
  const std::string args = slurp(dir_ / "args.txt");
  EXPECT_FALSE(has(args, "--seed")) << args;
  EXPECT_TRUE(has(args, "--mode check --events-fd 3")) << args;
  const GradeKeys handed = GradeKeys::from_text(slurp(dir_ / "stdin.txt"));
  EXPECT_EQ(handed.check, GradeKeys::derive(secret, spec, ChildMode::kCheck).check);
  EXPECT_EQ(handed.check.size(), spec.check_sizes.size());
  EXPECT_TRUE(handed.judge.empty() && handed.samples.empty()) << "a check needs no timing keys";
  // Its environment holds neither the secret nor any key, in decimal or in hexadecimal (as its
  // standard input spells them), nor the keys' text.
  const std::string environment = slurp(dir_ / "env.txt");
  ASSERT_FALSE(environment.empty());
  std::vector<std::uint64_t> values = handed.check;
  values.push_back(secret);
  for (const std::uint64_t value : values) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(value));
    EXPECT_FALSE(has(environment, std::to_string(value))) << value << "\n" << environment;
    EXPECT_FALSE(has(environment, hex)) << hex << "\n" << environment;
  }
  EXPECT_FALSE(has(environment, "check ")) << environment;
}

// --- the keys: HMAC-SHA256, each one its own -----------------------------------------------------

TEST(GradeKeys, KeyedHashIsHmacSha256) {
  // Python: hmac.new(struct.pack('<Q', 0x0123456789abcdef), b'what do ya want for nothing?',
  // hashlib.sha256).digest()[:8], read little-endian.
  EXPECT_EQ(keyed_hash(0x0123456789abcdefull, "what do ya want for nothing?"), 0x52332dffde755556ull);
}

TEST(GradeKeys, EveryKeyDiffersAndRoundTripsThroughText) {
  const LabSpec spec = find_lab(kLabs, "1");
  const GradeKeys timed = GradeKeys::derive(42, spec, ChildMode::kTime);
  const GradeKeys checked = GradeKeys::derive(42, spec, ChildMode::kCheck);
  ASSERT_EQ(timed.judge.size(), spec.benchmark_sizes.size());
  ASSERT_EQ(timed.samples.size(), spec.benchmark_sizes.size());
  std::set<std::uint64_t> all(checked.check.begin(), checked.check.end());
  all.insert(timed.judge.begin(), timed.judge.end());
  all.insert(timed.samples.begin(), timed.samples.end());
  for (std::size_t i = 0; i < 100; ++i) all.insert(GradeKeys::sample_key(timed.samples[0], i));
  EXPECT_EQ(all.size(), checked.check.size() + 2 * spec.benchmark_sizes.size() + 100);
  EXPECT_NE(GradeKeys::derive(43, spec, ChildMode::kTime).judge, timed.judge) << "another secret, other keys";
  const GradeKeys back = GradeKeys::from_text(timed.to_text());
  EXPECT_EQ(back.judge, timed.judge);
  EXPECT_EQ(back.samples, timed.samples);
  EXPECT_THROW(GradeKeys::from_text("check 12\njudge zz\nsamples\n"), std::runtime_error);
  EXPECT_THROW(GradeKeys::from_text(""), std::runtime_error);
  EXPECT_THROW(key_at(back.check, 0, "check size"), std::runtime_error);
}

}  // namespace
