// `layerbench lab leaderboard` (lab/grading/leaderboard.h): the grade files read and checked, the ranking,
// refused and unranked submissions kept apart, grade files merged, the page's escaping, and the
// command's bad input and outputs (CPU only). The page in a browser: tests/python/test_lab_leaderboard.py.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/usage_error.h"
#include "harness/device_peaks.h"
#include "lab/grading/grade_writer.h"
#include "lab/grading/grading.h"
#include "lab/spec/lab_spec.h"
#include "lab/grading/leaderboard.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;
using nlohmann::json;

const fs::path kFixtures = kRoot / "tests" / "labs" / "leaderboard";

// A constructed submission, laid out as JsonWriter::submission (lab/grading/writers/json_writer.cpp) writes one.
json submission(const std::string& file, const std::string& outcome, double points, std::optional<double> speed,
                const std::string& refused = "") {
  return {{"file", file},
          {"lab", "01-vector-add"},
          {"outcome", outcome},
          {"points", points},
          {"max_points", 100},
          {"check", {{"sizes_passed", 7}, {"sizes", 7}, {"points", 60}, {"max_points", 60}}},
          {"performance",
           {{"speed_vs_runtime", speed ? json(*speed) : json(nullptr)},
            {"fraction_of_ceiling", speed ? json(*speed * 0.95) : json(nullptr)},
            {"tier_at_least", nullptr},
            {"points", points - 60},
            {"max_points", 40},
            {"refused", refused.empty() ? json(nullptr) : json(refused)},
            {"benchmarks", json::array()}}},
          {"feedback", {outcome + " feedback"}}};
}

// A grade file as JsonWriter (lab/grading/writers/json_writer.cpp) writes it.
json grade_file(const std::vector<json>& submissions, const std::string& graded_at = "2026-11-22T10:00:00Z",
                const std::string& lab = "01-vector-add") {
  return {{"lab", lab},
          {"title", "Vector add: your first kernel"},
          {"graded_at", graded_at},
          {"gpu", "NVIDIA H100 80GB HBM3"},
          {"ceiling", {{"what", "copy bandwidth"}, {"unit", "GB/s"}, {"value", 2982.4}}},
          {"peaks", nullptr},
          {"submissions", submissions}};
}

std::vector<std::string> files_of(const std::vector<BoardEntry>& entries) {
  std::vector<std::string> files;
  for (const BoardEntry& e : entries) files.push_back(e.file);
  return files;
}

Board board_of(const std::vector<json>& files) {
  std::vector<GradeDocument> documents;
  for (std::size_t i = 0; i < files.size(); ++i)
    documents.push_back(parse_grade_document(files[i], "grades" + std::to_string(i) + ".json"));
  return make_board(documents, "01-vector-add");
}

// The UsageError's message, or "" when none was thrown.
template <typename F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Leaderboard, RanksBySpeedThenPointsThenName) {
  const Board board = board_of({grade_file({
      submission("slow.cu", "graded", 70, 0.40),
      submission("fast.cu", "graded", 100, 1.20),
      submission("tie_b.cu", "graded", 100, 0.90),
      submission("tie_a.cu", "graded", 100, 0.90),
      submission("tie_fewer_points.cu", "graded", 85, 0.90),
  })});
  EXPECT_EQ(files_of(board.ranked),
            (std::vector<std::string>{"fast.cu", "tie_a.cu", "tie_b.cu", "tie_fewer_points.cu", "slow.cu"}));
  EXPECT_TRUE(board.refused.empty());
  EXPECT_TRUE(board.unranked.empty());
}

TEST(Leaderboard, RefusedAndFailedAreListedApartNotRanked) {
  const std::string refusal =
      "faster than the hardware allows: the kernel skipped work (at 67108864: 4970.0 GB/s > 3585.8 GB/s, the DRAM "
      "peak for a 805306368-byte working set)";
  const Board board = board_of({grade_file({
      submission("cheat.cu", "refused", 60, 1.60, refusal), submission("good.cu", "graded", 100, 0.90),
      submission("wrong.cu", "check failed", 42.9, std::nullopt),
      submission("typo.cu", "did not compile", 0, std::nullopt),
      submission("untimed.cu", "graded", 60, std::nullopt),  // ours could not run: no speed to rank by
  })});
  EXPECT_EQ(files_of(board.ranked), std::vector<std::string>{"good.cu"});
  EXPECT_EQ(files_of(board.refused), std::vector<std::string>{"cheat.cu"});
  EXPECT_EQ(files_of(board.unranked), (std::vector<std::string>{"untimed.cu", "wrong.cu", "typo.cu"}));
  const std::string html = board_html(board);
  const auto refused_at = html.find("Refused: faster than the hardware allows");
  ASSERT_NE(refused_at, std::string::npos);
  EXPECT_GT(refused_at, html.find("good.cu"));  // after the ranked table, in a section of its own
  EXPECT_NE(html.find(html_escape(refusal), refused_at), std::string::npos);
  EXPECT_NE(html.find("42.9 / 100"), std::string::npos);
}

TEST(Leaderboard, HostileNamesAreEscaped) {
  const std::string hostile = "students/eve/<script>alert('x')</script>\"&.cu";
  const Board board = board_of(
      {grade_file({submission(hostile, "graded", 100, 0.9), submission("a<b>.cu", "did not compile", 0, std::nullopt),
                   submission("<i>x</i>.cu", "refused", 60, 2.0, "<script>")})});
  const std::string html = board_html(board);
  EXPECT_EQ(html.find("<script"), std::string::npos) << html;
  EXPECT_EQ(html.find("<b>.cu"), std::string::npos);
  EXPECT_EQ(html.find("<i>x"), std::string::npos);
  EXPECT_NE(html.find("students/eve/&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;.cu"), std::string::npos);
  EXPECT_EQ(html_escape("a\nb"), "a\\x0ab");  // a line break in a file name cannot break the page's layout
}

TEST(Leaderboard, ReadsWhatGradeJsonWrites) {
  // The submissions as grading.cpp writes them today, so that the reader cannot drift from the writer.
  const LabSpec spec = find_lab(kLabs, "1");
  const Shape size = spec.benchmark_sizes.front();
  const double bytes = spec.workload->bytes_moved(size);
  const auto timed = [&](double gbps) { return Timing{bytes / gbps / 1e6, 0.002, gbps, 0, 40}; };
  const auto at = [&](double student_gbps) {
    BenchmarkResult b{spec.workload->size_label(size), timed(student_gbps), timed(3000), ""};
    b.limit = rate_limit(*spec.workload, size,
                         peaks_from_attributes(9, 0, 132, 1980000, 2619000, 5120, 52428800, false), true);
    return std::vector<BenchmarkResult>{b};
  };
  const Ceiling ceiling{"copy bandwidth", "GB/s", 2982.4};
  json submissions = json::array();
  submissions.push_back(JsonWriter::submission(spec, grade_submission(spec, "good.cu", 7, 7, at(2700), ceiling)));
  submissions.push_back(JsonWriter::submission(spec, grade_submission(spec, "cheat.cu", 7, 7, at(4970), ceiling)));
  submissions.push_back(JsonWriter::submission(spec, grade_submission(spec, "wrong.cu", 6, 7, {}, ceiling)));
  const Board board = board_of({grade_file({submissions.begin(), submissions.end()})});
  ASSERT_EQ(files_of(board.ranked), std::vector<std::string>{"good.cu"});
  EXPECT_NEAR(*board.ranked[0].speed, 0.9, 1e-9);
  EXPECT_NEAR(*board.ranked[0].ceiling_fraction, 2700 / 2982.4, 1e-9);
  EXPECT_EQ(board.ranked[0].points, 100);
  ASSERT_EQ(files_of(board.refused), std::vector<std::string>{"cheat.cu"});
  EXPECT_TRUE(has(board.refused[0].refusal, "faster than the hardware allows")) << board.refused[0].refusal;
  EXPECT_EQ(board.refused[0].points, 60);
  ASSERT_EQ(files_of(board.unranked), std::vector<std::string>{"wrong.cu"});
  EXPECT_EQ(board.unranked[0].sizes_passed, 6);
}

TEST(Leaderboard, TheFixturesRankAsExpected) {
  // tests/labs/leaderboard/*.json, which the browser test renders too.
  std::vector<GradeDocument> documents;
  for (const char* name : {"class-2026-11-22.json", "regrade-2026-11-24.json"})
    documents.push_back(read_grade_document(kFixtures / name));
  const Board board = make_board(documents, "01-vector-add");
  EXPECT_EQ(files_of(board.ranked),
            (std::vector<std::string>{"students/eve/<img src=x onerror=alert(1)>.cu", "students/ada/vector_add.cu",
                                      "students/bo/vector_add.cu", "students/gus/vector_add.cu"}));
  EXPECT_EQ(files_of(board.refused), std::vector<std::string>{"students/mallory/vector_add.cu"});
  EXPECT_EQ(files_of(board.unranked),
            (std::vector<std::string>{"students/dan/vector_add.cu", "students/fay/vector_add.cu"}));
  EXPECT_EQ(board.gpus, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
}

TEST(Leaderboard, SeveralFilesMergedTheLatestGradeWins) {
  const json monday = grade_file({submission("bo.cu", "graded", 85, 0.62), submission("ada.cu", "graded", 100, 0.9)},
                                 "2026-11-22T10:00:00Z");
  const json friday = grade_file({submission("bo.cu", "graded", 100, 0.95), submission("gus.cu", "graded", 70, 0.4)},
                                 "2026-11-26T10:00:00Z");
  for (const Board& board : {board_of({monday, friday}), board_of({friday, monday})}) {  // either order
    EXPECT_EQ(files_of(board.ranked), (std::vector<std::string>{"bo.cu", "ada.cu", "gus.cu"}));
    EXPECT_DOUBLE_EQ(*board.ranked[0].speed, 0.95);
    ASSERT_EQ(board.replaced.size(), 1u);
    EXPECT_TRUE(has(board.replaced[0], "bo.cu: the grade of 2026-11-26T10:00:00Z")) << board.replaced[0];
    EXPECT_EQ(board.first_graded, "2026-11-22T10:00:00Z");
    EXPECT_EQ(board.last_graded, "2026-11-26T10:00:00Z");
  }
  json elsewhere = grade_file({submission("cy.cu", "graded", 100, 1.1)}, "2026-11-23T10:00:00Z");
  elsewhere["gpu"] = "NVIDIA H200";  // a speed is a ratio on one GPU: boards of two GPUs merge, each row says which
  const Board two_gpus = board_of({monday, elsewhere});
  EXPECT_EQ(two_gpus.gpus, (std::vector<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}));
  EXPECT_TRUE(has(board_html(two_gpus), "<th>GPU</th>"));
  EXPECT_FALSE(has(board_html(board_of({monday})), "<th>GPU</th>"));
  // Graded at the same time (one file given twice, say): the one given last wins.
  const json again = grade_file({submission("bo.cu", "check failed", 30, std::nullopt)}, "2026-11-22T10:00:00Z");
  EXPECT_EQ(files_of(board_of({monday, again}).unranked), std::vector<std::string>{"bo.cu"});
}

TEST(Leaderboard, AGradeOfAnotherLabIsRejected) {
  const std::string error = usage_error([] {
    const GradeDocument d =
        parse_grade_document(grade_file({}, "2026-11-22T10:00:00Z", "02-saxpy-grid-stride"), "saxpy.json");
    make_board({d}, "01-vector-add");
  });
  EXPECT_EQ(error, "saxpy.json: is a grade of lab '02-saxpy-grid-stride', not of 01-vector-add");
}

TEST(Leaderboard, BadLayoutNamesTheFileAndTheField) {
  json points_as_text = grade_file({submission("a.cu", "graded", 100, 0.9)});
  points_as_text["submissions"][0]["points"] = "lots";
  json no_speed = grade_file({submission("a.cu", "graded", 100, 0.9)});
  no_speed["submissions"][0]["performance"].erase("speed_vs_runtime");
  json odd_outcome = grade_file({submission("a.cu", "passed", 100, 0.9)});
  json no_lab = grade_file({});
  no_lab.erase("lab");
  const std::vector<std::pair<json, std::string>> cases = {
      {points_as_text, "g.json: field 'submissions[0].points': expected a number, found a string"},
      {no_speed, "g.json: field 'submissions[0].performance.speed_vs_runtime': missing"},
      {odd_outcome, "g.json: field 'submissions[0].outcome': unknown outcome 'passed'"},
      {no_lab, "g.json: field 'lab': missing"},
      {json::array({1, 2}), "g.json: not a grade file (an array"},
  };
  for (const auto& [doc, expected] : cases) {
    const std::string error = usage_error([&] { parse_grade_document(doc, "g.json"); });
    EXPECT_TRUE(has(error, expected)) << error;
  }
  json extra = grade_file({submission("a.cu", "graded", 100, 0.9)});
  extra["submissions"][0]["performance"]["per_size"] = json::array({1, 2});  // fields it does not read: fine
  extra["schema"] = 3;
  EXPECT_EQ(parse_grade_document(extra, "g.json").submissions.size(), 1u);
}

class LeaderboardCli : public LabCliTest {
 protected:
  void SetUp() override {
    LabCliTest::SetUp();
    write(dir_ / "grades.json", grade_file({submission("a.cu", "graded", 100, 0.9)}).dump(2));
  }
  // One line on stderr, naming `part`; exit status 2; nothing on stdout.
  void expect_one_line_error(const Outcome& o, const std::string& part) const {
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_TRUE(has(o.err, "layerbench lab: error: ") && has(o.err, part)) << o.err;
  }
};

TEST_F(LeaderboardCli, WritesThePage) {
  const Outcome o = run("lab leaderboard 1 grades.json -o out/board.html");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(has(o.out, "wrote out/board.html: 1 ranked, 0 refused, 0 not ranked")) << o.out;
  const std::string html = slurp(dir_ / "out" / "board.html");
  EXPECT_TRUE(has(html, "<td class=\"name\">a.cu</td>")) << html;
  EXPECT_FALSE(has(html, "<script")) << "the page needs no script";
  EXPECT_FALSE(has(html, "http")) << "the page loads nothing";
}

TEST_F(LeaderboardCli, BadJsonIsOneLineNamingTheFile) {
  write(dir_ / "notes.txt", "median 0.02 ms, looked fine\n");
  write(dir_ / "truncated.json", slurp(dir_ / "grades.json").substr(0, 40));
  expect_one_line_error(run("lab leaderboard 1 grades.json notes.txt -o board.html"), "notes.txt: not JSON");
  expect_one_line_error(run("lab leaderboard 1 truncated.json -o board.html"), "truncated.json: not JSON");
  expect_one_line_error(run("lab leaderboard 1 missing.json -o board.html"), "missing.json");
  fs::create_directories(dir_ / "a-folder");
  expect_one_line_error(run("lab leaderboard 1 a-folder -o board.html"), "a-folder: is a folder");
  EXPECT_FALSE(fs::exists(dir_ / "board.html"));
}

TEST_F(LeaderboardCli, WrongLabIsOneLineNamingTheFile) {
  expect_one_line_error(run("lab leaderboard 2 grades.json -o board.html"),
                        "grades.json: is a grade of lab '01-vector-add', not of 02-saxpy-grid-stride");
  EXPECT_FALSE(fs::exists(dir_ / "board.html"));
}

TEST_F(LeaderboardCli, OutputIsRequiredAndNeverDestroysWhatItNames) {
  expect_one_line_error(run("lab leaderboard 1 grades.json"), "--out is required");
  expect_one_line_error(run("lab leaderboard 1"), "GRADES is required");
  fs::create_directories(dir_ / "a-folder");
  expect_one_line_error(run("lab leaderboard 1 grades.json -o a-folder"), "'a-folder' is a directory");
  EXPECT_TRUE(fs::is_directory(dir_ / "a-folder"));
  const std::string grades = slurp(dir_ / "grades.json");
  expect_one_line_error(run("lab leaderboard 1 grades.json -o grades.json"), "is one of the grade files");
  EXPECT_EQ(slurp(dir_ / "grades.json"), grades);
  // A device is written through, never replaced by a file (common/output_file.h).
  const Outcome null_device = run("lab leaderboard 1 grades.json -o /dev/null");
  EXPECT_EQ(null_device.code, 0) << null_device.err;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (fs::exists("/dev/full"))  // a device that cannot take the page: one line, exit 2
    expect_one_line_error(run("lab leaderboard 1 grades.json -o /dev/full"), "/dev/full");
  // Standard output: the page alone, the summary on stderr.
  const Outcome to_stdout = run("lab leaderboard 1 grades.json -o -");
  EXPECT_EQ(to_stdout.code, 0) << to_stdout.err;
  EXPECT_EQ(to_stdout.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(has(to_stdout.err, "wrote -")) << to_stdout.err;
}

TEST_F(LeaderboardCli, IsAKnownLabCommand) {
  const Outcome o = run("lab begin");
  EXPECT_TRUE(has(o.err, "grade, leaderboard;")) << o.err;
  const Outcome help = run("lab leaderboard --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(has(help.out, "graded_at wins")) << help.out;
}

}  // namespace
