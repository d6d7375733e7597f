// `layerbench lab leaderboard`: one self-contained HTML page ranking a class's submissions from the
// grade files `lab grade --json` wrote. JSON is read only at the edge (read_grade_document); the
// ranking and the page are pure functions of the typed grades (tests/test_lab_leaderboard.cpp).
#pragma once
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace lb::lab {

// One submission of a grade file, with the fields of JsonWriter::submission (grade_writer.h) the board shows.
struct BoardEntry {
  std::string file;     // as `lab grade` was given it: two students' vector_add.cu differ by folder
  std::string outcome;  // "graded", "refused", "check failed", "did not compile", "could not run"
  double points = 0, max_points = 0;
  double sizes_passed = 0, sizes = 0;      // the check's
  std::optional<double> speed;             // ours / yours (time), geometric mean over benchmark sizes
  std::optional<double> ceiling_fraction;  // yours / the GPU's ceiling
  std::string refusal;                     // the plausibility check's text, for "refused"
  std::vector<std::string> feedback;       // what the student was told, one line each
  std::string graded_at, gpu, source;      // of the grade file it came from (source: its path)
};

// One `lab grade --json` file.
struct GradeDocument {
  std::string source;                      // its path, for messages
  std::string lab, title, graded_at, gpu;  // gpu empty where the grade had none
  std::string ceiling_what;                // "copy bandwidth", "cuBLAS SGEMM"
  std::vector<BoardEntry> submissions;
};

// Reads and checks one grade file: UsageError naming the file and the field when it cannot be read,
// is not JSON, or is not laid out as `lab grade --json` writes it. Fields it does not use are ignored.
GradeDocument read_grade_document(const std::filesystem::path& path);
GradeDocument parse_grade_document(const nlohmann::json& j, const std::string& source);

struct Board {
  std::string lab, title, ceiling_what, ours = "ours (the runtime layer)";  // what_ours_is
  std::vector<std::string> gpus, sources;  // distinct, in order of the files
  std::string first_graded, last_graded;
  std::vector<BoardEntry> ranked;     // graded and timed: by speed, then points, then file
  std::vector<BoardEntry> refused;    // faster than the hardware allows: not ranked
  std::vector<BoardEntry> unranked;   // did not compile, failed the check, could not run, not timed
  std::vector<std::string> replaced;  // one line per earlier grade a later one replaced
};

// The board of `lab` from these grade files, in the order given. A file of another lab is a
// UsageError naming it. A submission (the same `file`) in several grades: the latest `graded_at`
// wins, and at the same time the one given last; `replaced` says which grade was dropped.
Board make_board(const std::vector<GradeDocument>& documents, const std::string& lab);

// The page: no script, no external resource; every text from a grade file HTML-escaped.
std::string board_html(const Board& board);
std::string html_escape(const std::string& text);

// Reads `grade_files`, writes the page to `out_path` (common/output_file.h; "-" standard output)
// and says what it wrote on `log`. UsageError (exit 2) for bad input or an unwritable output.
void write_leaderboard(const std::string& lab, const std::string& ours,
                       const std::vector<std::filesystem::path>& grade_files, const std::string& out_path,
                       std::FILE* log);

}  // namespace lb::lab
