// `lab grade --format`: the grading systems' results files (lab/grading/autograder_results.h) from
// synthetic grades (CPU): a test per check size with its share, the performance test, refused, did
// not compile, visibility, scores that add up; bad flags refused in one line, exit 2, before
// anything runs (CPU, through the binary); lab 1's solution graded for real (GPU; skipped without).
// tests/lab_autograder/ holds the files to each system's published schema (lab/grading/schemas/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "common/gpu.h"
#include "harness/device_peaks.h"
#include "lab/grading/autograder_results.h"
#include "lab/grading/grade_writer.h"
#include "lab/grading/grading.h"
#include "lab/spec/lab_spec.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;
using nlohmann::json;

const Ceiling kCopy{"copy bandwidth", "GB/s", 3000};

Timing timed(double ms, double gbps) { return Timing{ms, 0.001, gbps, 0, 50}; }

// Lab 1 graded as `lab grade` grades it: `failing` sizes failed (their feedback "wrong at SIZE"),
// the others passed; timed at 2^26 with the student's kernel at `ms` against ours at 0.27 ms.
Grade graded(const LabSpec& spec, const std::vector<std::string>& failing = {}, double ms = 0.3,
             std::optional<RateLimit> limit = std::nullopt) {
  std::vector<SizeResult> sizes;
  for (std::size_t i = 0; i < spec.check_size_texts.size(); ++i) {
    const std::string& size = spec.check_size_texts[i];
    const bool failed = std::find(failing.begin(), failing.end(), size) != failing.end();
    sizes.push_back({size, check_size_label(spec, i), !failed, failed ? "wrong at " + size : ""});
  }
  const std::size_t passed = sizes.size() - failing.size();
  const double bytes = spec.workload->bytes_moved(spec.benchmark_sizes.front());
  BenchmarkResult b{"67108864", timed(ms, bytes / ms / 1e6), timed(0.27, bytes / 0.27 / 1e6), ""};
  if (limit) b.limit = *limit;
  return grade_submission(spec, "a.cu", sizes, passed == sizes.size() ? std::vector{b} : std::vector<BenchmarkResult>{},
                          kCopy);
}

AutograderOptions options_for(const char* format) {
  AutograderOptions o;
  o.format = find_autograder_format(format);
  return o;
}

double sum(const std::vector<AutograderTest>& tests, double AutograderTest::*field) {
  return std::accumulate(tests.begin(), tests.end(), 0.0, [&](double s, const AutograderTest& t) { return s + t.*field; });
}

// Whole hundredths: the shares are, and their sums must be, exactly.
long long hundredths(double x) { return std::llround(x * 100.0); }

TEST(LabAutograder, EachCheckSizeIsATestWithItsShareThenPerformance) {
  const LabSpec spec = find_lab(kLabs, "1");  // 7 sizes, check 60, performance 40
  const std::vector<AutograderTest> tests = autograder_tests(spec, graded(spec));
  ASSERT_EQ(tests.size(), spec.check_sizes.size() + 1);
  EXPECT_EQ(tests[0].name, "check: n = 1");
  EXPECT_EQ(tests[6].name, "check: n = 16777216 (2^24)");
  EXPECT_EQ(tests[6].key, "2^24");
  EXPECT_EQ(tests[7].key, "performance");
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_TRUE(tests[i].passed);
    EXPECT_EQ(tests[i].score, tests[i].max_score);
    EXPECT_NEAR(tests[i].max_score, 60.0 / 7, 0.01) << tests[i].name;
  }
  EXPECT_EQ(hundredths(sum(tests, &AutograderTest::max_score)), 10000);
  EXPECT_EQ(hundredths(sum(tests, &AutograderTest::score)), 10000);
}

// Every subset of failing sizes: each test's maximum is the same as in every other submission (a
// grading system's weight; PrairieLearn paints a test red when points differ from max_points), a
// test that passed has its whole share, one that failed none, the maxima add up to the lab's points
// and the scores to the grade's, to the hundredth.
TEST(LabAutograder, SharesAddUpToTheGradeForEverySetOfFailingSizes) {
  const LabSpec spec = find_lab(kLabs, "1");
  const std::size_t n = spec.check_size_texts.size();
  const std::vector<AutograderTest> all_passed = autograder_tests(spec, graded(spec));
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<std::string> failing;
    for (std::size_t i = 0; i < n; ++i)
      if (mask & (1u << i)) failing.push_back(spec.check_size_texts[i]);
    const Grade g = graded(spec, failing);
    const std::vector<AutograderTest> tests = autograder_tests(spec, g);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(tests[i].passed, !(mask & (1u << i)));
      EXPECT_EQ(tests[i].score, tests[i].passed ? tests[i].max_score : 0.0);
      EXPECT_EQ(tests[i].max_score, all_passed[i].max_score) << "mask " << mask << ": " << tests[i].name;
      EXPECT_EQ(tests[i].max_score, i == 0 ? 8.58 : 8.57) << "mask " << mask << ": " << tests[i].name;
    }
    EXPECT_EQ(tests[n].max_score, 40) << "mask " << mask;
    const json pl = autograder_results(spec, g, kCopy, options_for("prairielearn"));
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(pl["tests"][i]["points"] == pl["tests"][i]["max_points"], tests[i].passed) << "mask " << mask;
    EXPECT_EQ(hundredths(sum(tests, &AutograderTest::max_score)), 10000) << "mask " << mask;
    EXPECT_EQ(hundredths(sum(tests, &AutograderTest::score)), hundredths(g.points())) << "mask " << mask;
    // GitHub Classroom's reporter adds the scores in order, in doubles: "Points 51.43/100", exactly.
    const json gh = autograder_results(spec, g, kCopy, options_for("github-classroom"));
    double points = 0;
    for (const json& t : gh["tests"]) points += t["score"].get<double>();
    EXPECT_EQ(points, std::round(g.points() * 100.0) / 100.0) << "mask " << mask;
  }
}

TEST(LabAutograder, AFailedSizeSaysWhyAndThePerformanceTestWasNotTimed) {
  const LabSpec spec = find_lab(kLabs, "1");
  const Grade g = graded(spec, {"257"});
  EXPECT_DOUBLE_EQ(g.points(), 51.43);  // 60 less n = 257's fixed share
  const std::vector<AutograderTest> tests = autograder_tests(spec, g);
  EXPECT_FALSE(tests[4].passed);
  EXPECT_EQ(tests[4].message, "wrong at 257");
  EXPECT_EQ(tests[4].output, "FAIL  n = 257: wrong at 257");
  EXPECT_EQ(tests[4].max_score, 8.57) << "n = 257's share, the same as when it passes";
  EXPECT_FALSE(tests[7].passed);
  EXPECT_EQ(tests[7].score, 0);
  EXPECT_EQ(tests[7].max_score, 40);
  EXPECT_EQ(tests[7].message, "not timed: 1 of 7 check sizes failed");
  EXPECT_TRUE(has(tests[7].output, "the performance part is graded only for a kernel that passes them all"))
      << tests[7].output;
}

TEST(LabAutograder, PerformanceTestSaysSpeedTierAndCeilingAndGradescopeRanksIt) {
  const LabSpec spec = find_lab(kLabs, "1");
  const Grade g = graded(spec, {}, 0.27 / 0.7);  // 0.70 of ours: tier 0.6, 25 points
  const AutograderTest perf = autograder_tests(spec, g).back();
  EXPECT_TRUE(perf.passed) << "a tier reached";
  EXPECT_EQ(perf.score, 25);
  EXPECT_EQ(perf.message, "0.70 of the speed of ours, tier at least 0.60 of ours: 25 of 40 points");
  EXPECT_TRUE(has(perf.output, "of the GPU's copy bandwidth")) << perf.output;
  EXPECT_TRUE(has(perf.output, "the next tier, at least 0.85 of ours, is worth 40")) << perf.output;
  EXPECT_TRUE(has(perf.output, "n = 67108864: yours 0.3857 ms, ours 0.2700 ms: 0.70 of ours")) << perf.output;

  const json doc = autograder_results(spec, g, kCopy, options_for("gradescope"));
  EXPECT_EQ(doc["score"], 85);
  ASSERT_EQ(doc["leaderboard"].size(), 2u) << doc.dump(1);
  EXPECT_EQ(doc["leaderboard"][0]["name"], "speed vs ours");
  EXPECT_EQ(doc["leaderboard"][0]["value"], 0.7);
  EXPECT_EQ(doc["leaderboard"][0]["order"], "desc");
  EXPECT_EQ(doc["leaderboard"][1]["name"], "% of the GPU's copy bandwidth");
  EXPECT_NEAR(doc["leaderboard"][1]["value"].get<double>(), 100.0 * *g.ceiling_fraction, 0.05);
  EXPECT_EQ(doc["tests"][7]["status"], "passed");
  EXPECT_EQ(doc["tests"][7]["score"], 25);
  EXPECT_EQ(doc["tests"][7]["max_score"], 40);
  EXPECT_EQ(doc["output_format"], "text") << "simple_format would read a compiler's <float> as HTML";

  const Grade slow = graded(spec, {}, 10.0);  // below every tier
  EXPECT_FALSE(autograder_tests(spec, slow).back().passed);
  EXPECT_TRUE(has(autograder_tests(spec, slow).back().message, "below every tier: 0 of 40 points"));
}

TEST(LabAutograder, RefusedEarnsNothingSaysWhyAndDoesNotRank) {
  const LabSpec spec = find_lab(kLabs, "1");
  const DevicePeaks h100 = peaks_from_attributes(9, 0, 132, 1980000, 2619000, 5120, 52428800, false);
  const Grade g = graded(spec, {}, 0.162, rate_limit(*spec.workload, spec.benchmark_sizes.front(), h100, true));
  ASSERT_EQ(g.outcome, GradeOutcome::kRefused);
  const std::vector<AutograderTest> tests = autograder_tests(spec, g);
  EXPECT_TRUE(tests[0].passed) << "the check's points are kept";
  EXPECT_FALSE(tests.back().passed);
  EXPECT_EQ(tests.back().score, 0);
  EXPECT_EQ(tests.back().message, "refused: " + g.refusal);
  EXPECT_TRUE(tests.back().output.starts_with(std::string("refused: ") + kSkippedWork)) << tests.back().output;
  EXPECT_TRUE(has(tests.back().output, "n = 67108864: yours 0.1620 ms")) << tests.back().output;
  EXPECT_FALSE(autograder_results(spec, g, kCopy, options_for("gradescope")).contains("leaderboard"));
  const json gh = autograder_results(spec, g, kCopy, options_for("github-classroom"));
  EXPECT_EQ(gh["status"], "fail");
  EXPECT_EQ(gh["tests"][7]["status"], "fail");
  EXPECT_EQ(gh["max_score"], 100);
}

TEST(LabAutograder, DidNotCompileFailsEveryTestWithTheCompilerMessage) {
  const LabSpec spec = find_lab(kLabs, "1");
  Grade g;
  g.file = "broken.cu";
  g.outcome = GradeOutcome::kDidNotCompile;
  g.sizes_total = spec.check_sizes.size();
  g.compiler_message = "broken.cu(2): error: expected an expression\n1 error detected";
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i)
    g.sizes.push_back({spec.check_size_texts[i], check_size_label(spec, i), false, "the file did not compile"});
  for (const AutograderTest& t : autograder_tests(spec, g)) {
    EXPECT_FALSE(t.passed) << t.name;
    EXPECT_EQ(t.score, 0) << t.name;
    EXPECT_TRUE(has(t.output, "broken.cu(2): error: expected an expression\n1 error detected")) << t.output;
  }
  const json pl = autograder_results(spec, g, kCopy, options_for("prairielearn"));
  EXPECT_EQ(pl["gradable"], true) << "0 points, as every output of lab grade gives it";
  EXPECT_EQ(pl["score"], 0);
  EXPECT_EQ(pl["message"], "01-vector-add: 0 / 100 (did not compile)");

  g.compiler_message = std::string(10000, 'x');  // a compiler can print pages: each test carries a part
  const std::string out = autograder_tests(spec, g).front().output;
  EXPECT_LT(out.size(), 4200u);
  EXPECT_TRUE(has(out, "more bytes: `layerbench lab check` prints the whole message")) << out.substr(out.size() - 100);
}

TEST(LabAutograder, CouldNotRunIsAnErrorForGitHubClassroom) {
  const LabSpec spec = find_lab(kLabs, "1");
  Grade g;
  g.outcome = GradeOutcome::kCouldNotRun;
  g.sizes_total = spec.check_sizes.size();
  g.feedback = {"the check could not read its child's output: it wrote 'garbage'"};
  const json gh = autograder_results(spec, g, kCopy, options_for("github-classroom"));
  EXPECT_EQ(gh["status"], "error");
  EXPECT_EQ(gh["tests"][0]["status"], "error");
  EXPECT_EQ(gh["tests"][0]["line_no"], 0) << "the reporter prints '- line N' unless it is 0";
  EXPECT_TRUE(has(gh["tests"][7]["message"].get<std::string>(), "could not read its child's output")) << gh.dump(1);
}

TEST(LabAutograder, PrairieLearnScoreIsTheFractionOfThePoints) {
  const LabSpec spec = find_lab(kLabs, "1");
  const json pl = autograder_results(spec, graded(spec, {"1"}), kCopy, options_for("prairielearn"));
  EXPECT_EQ(pl["gradable"], true);
  EXPECT_DOUBLE_EQ(pl["score"].get<double>(), 0.5142);  // 60 less n = 1's 8.58, of 100
  EXPECT_EQ(pl["tests"].size(), 8u);
  EXPECT_EQ(pl["tests"][0]["points"], 0);
  EXPECT_EQ(pl["tests"][1]["points"], pl["tests"][1]["max_points"]);
  EXPECT_TRUE(pl["tests"][0].contains("description"));
  EXPECT_FALSE(pl.contains("leaderboard"));
}

TEST(LabAutograder, VisibilityIsTheDefaultUnlessATestIsNamed) {
  const LabSpec spec = find_lab(kLabs, "1");
  AutograderOptions o = autograder_options(spec, {"gradescope", "r.json", "hidden", {"2^24=visible", "performance=after_published"}}, 1);
  const json doc = autograder_results(spec, graded(spec), kCopy, o);
  EXPECT_EQ(doc["visibility"], "hidden");
  std::vector<std::string> got;
  for (const json& t : doc["tests"]) got.push_back(t["visibility"]);
  EXPECT_EQ(got, (std::vector<std::string>{"hidden", "hidden", "hidden", "hidden", "hidden", "hidden", "visible",
                                           "after_published"}));
  o = autograder_options(spec, {"gradescope", "r.json", "", {}}, 1);
  EXPECT_EQ(autograder_results(spec, graded(spec), kCopy, o)["tests"][0]["visibility"], "visible");
}

TEST(LabAutograder, EveryFormatIsOneTableEntry) {
  const LabSpec spec = find_lab(kLabs, "1");
  EXPECT_EQ(autograder_format_names(), "gradescope, prairielearn, github-classroom");
  for (const AutograderWriter* f : autograder_formats()) {
    EXPECT_EQ(find_autograder_format(f->name()), f);
    EXPECT_EQ(find_grade_writer(f->name()), f) << "one registry";
    AutograderOptions o;
    o.format = f;
    EXPECT_TRUE(autograder_results(spec, graded(spec), kCopy, o).is_object()) << f->name();
  }
  EXPECT_EQ(find_autograder_format("moodle"), nullptr);
  EXPECT_TRUE(autograder_results(spec, graded(spec), kCopy, {}).is_null()) << "no --format, no file";
}

TEST(LabAutograder, BadRequestsAreOneLineNamingTheValue) {
  const LabSpec spec = find_lab(kLabs, "1");
  const std::vector<std::pair<AutograderRequest, std::string>> cases = {
      {{"moodle", "r.json", "", {}}, "--format 'moodle': not a grading system's format (gradescope, prairielearn, github-classroom)"},
      {{"gradescope", "", "", {}}, "--format gradescope needs --results PATH (Gradescope reads /autograder/results/results.json)"},
      {{"", "r.json", "", {}}, "--results r.json: needs --format"},
      {{"", "", "hidden", {}}, "--visibility and --visibility-of need --format gradescope"},
      {{"gradescope", "r.json", "secret", {}}, "--visibility: 'secret' is not a visibility (visible, hidden, after_due_date, after_published)"},
      {{"gradescope", "r.json", "", {"2^24"}}, "--visibility-of '2^24': expected TEST=VISIBILITY"},
      {{"gradescope", "r.json", "", {"2^25=hidden"}}, "'2^25' is neither a check size of 01-vector-add (1, 127, 255, 256, 257, 1000003, 2^24) nor 'performance'"},
      {{"gradescope", "r.json", "", {"performance=soon"}}, "--visibility-of 'performance=soon': 'soon' is not a visibility"},
      {{"gradescope", "r.json", "", {"257=hidden", "257=visible"}}, "names '257' twice"},
      {{"prairielearn", "r.json", "hidden", {}}, "--visibility: PrairieLearn's results have no per-test visibility"},
      {{"github-classroom", "r.json", "", {"257=hidden"}}, "--visibility-of: GitHub Classroom's results have no per-test visibility"},
      {{"gradescope", "r.json", "", {"257=hid\nden"}}, "'hid\\x0aden' is not a visibility"},
  };
  for (const auto& [request, expected] : cases) {
    try {
      autograder_options(spec, request, 1);
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const UsageError& e) {
      EXPECT_TRUE(has(e.what(), expected)) << e.what();
      EXPECT_FALSE(has(e.what(), "\n")) << e.what();
    }
  }
  EXPECT_THROW(autograder_options(spec, {"gradescope", "r.json", "", {}}, 2), UsageError);
  EXPECT_EQ(autograder_options(spec, {}, 5).format, nullptr) << "no --format: grade a class as before";
}

// --- through the binary ---------------------------------------------------------------------------

class LabAutograderCli : public LabCliTest {
 protected:
  // A stand-in for `lab run-child` that passes every size and times 2^26 (0.90 of ours), on its
  // events channel (fd 3).
  std::string child() const {
    const std::string script = stand_in_child(
        lab1_every_size_passed(), test_environment_line(),
        "{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.3, \"gbps\": 2684.4, \"samples\": 40}, "
        "\"runtime\": {\"median_ms\": 0.27, \"gbps\": 2982.6, \"samples\": 40}}\n");
    write(dir_ / "child.sh", script);
    fs::permissions(dir_ / "child.sh", fs::perms::owner_all);
    return "LAYERBENCH_LAB_RUNNER=" + (dir_ / "child.sh").string();
  }
  const std::string solution = solution_file("01-vector-add", "vector_add.cu").string();
};

TEST_F(LabAutograderCli, BadValuesExit2WithOneLineBeforeAnythingRuns) {
  write(dir_ / "a.cu", "// a submission\n");
  write(dir_ / "b.cu", "// another\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a.cu --format moodle --results r.json", "'moodle'"},
      {"a.cu --format gradescope", "--results PATH"},
      {"a.cu --results r.json", "--results r.json: needs --format"},
      {"a.cu b.cu --format gradescope --results r.json", "got 2 files"},
      {"a.cu --format gradescope --results r.json --visibility secret", "'secret'"},
      {"a.cu --format gradescope --results r.json --visibility-of 2^25=hidden", "'2^25'"},
      {"a.cu --format gradescope --results r.json --visibility-of performance", "'performance'"},
      {"a.cu --format prairielearn --results r.json --visibility hidden", "PrairieLearn's results have no per-test visibility"},
      {"a.cu --format github-classroom --results r.json --visibility-of 257=hidden", "GitHub Classroom's results"},
      {"a.cu --format gradescope --results a.cu", "--results a.cu: is a submission being graded"},
      {"a.cu --format gradescope --results r.json --json r.json", "--json and --results both name r.json"},
      {"a.cu --format gradescope --results /proc/r.json", "/proc/r.json"},
  };
  for (const auto& [args, names] : cases) {
    const Outcome o = run("lab grade 1 " + args, child());
    EXPECT_EQ(o.code, 2) << args << "\n" << o.out << o.err;
    EXPECT_TRUE(o.err.starts_with("layerbench lab: error: ")) << args << ": " << o.err;
    EXPECT_TRUE(has(o.err, names)) << args << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    EXPECT_EQ(o.out, "") << args;
    EXPECT_FALSE(fs::exists(dir_ / "r.json")) << args << ": nothing ran, nothing written";
    EXPECT_EQ(slurp(dir_ / "a.cu"), "// a submission\n") << args;
  }
}

TEST_F(LabAutograderCli, WritesTheFileAndOnStandardOutputKeepsItThere) {
  const Outcome o = run("lab grade 1 " + solution + " --format gradescope --results results.json", child());
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "wrote results.json")) << o.out;
  const json doc = json::parse(slurp(dir_ / "results.json"));
  EXPECT_EQ(doc["score"], 100);
  EXPECT_EQ(doc["tests"].size(), 8u);
  EXPECT_TRUE(doc.contains("execution_time"));

  // GitHub Classroom's step encodes the result itself: JSON alone on standard output, the grade on stderr.
  const Outcome piped = run("lab grade 1 " + solution + " --format github-classroom --results -", child());
  EXPECT_EQ(piped.code, 0) << piped.err;
  const json gh = json::parse(piped.out);
  EXPECT_EQ(gh["status"], "pass");
  EXPECT_EQ(gh["max_score"], 100);
  EXPECT_TRUE(has(piped.err, "GRADE ")) << piped.err;
}

// --- on a GPU: lab 1's solution, graded for real, in every format ---------------------------------

TEST_F(LabAutograderCli, TheReferenceSolutionInEveryFormatOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const LabSpec spec = find_lab(kLabs, "1");
  for (const AutograderWriter* f : autograder_formats()) {
    const std::string name(f->name());
    const Outcome o = run("lab grade 1 " + solution + " --format " + name + " --results " + name + ".json");
    ASSERT_EQ(o.code, 0) << name << "\n" << o.out << o.err;
    const json doc = json::parse(slurp(dir_ / (name + ".json")));
    ASSERT_EQ(doc["tests"].size(), spec.check_sizes.size() + 1) << doc.dump(1);
    double check = 0;
    for (std::size_t i = 0; i < spec.check_sizes.size(); ++i)
      check += doc["tests"][i][name == "prairielearn" ? "points" : "score"].get<double>();
    EXPECT_EQ(hundredths(check), spec.check_points * 100) << name << ": every size passed";
    const json& perf = doc["tests"].back();
    const std::string text = perf.value(name == "github-classroom" ? "message" : "output", "");
    EXPECT_TRUE(has(text, "of the speed of ours")) << name << ": " << text;
    std::printf("%s: %s\n", name.c_str(), text.c_str());
  }
}

}  // namespace
