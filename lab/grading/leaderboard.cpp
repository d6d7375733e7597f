#include "lab/grading/leaderboard.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "common/format_number.h"
#include "common/output_file.h"
#include "common/usage_error.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kind_of(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "true or false";
    default: return j.is_number() ? "a number" : "something else";
  }
}

// The fields of one grade file, each error naming the file and the field's path in it.
struct Reader {
  const std::string& source;

  [[noreturn]] void bad(const std::string& field, const std::string& what) const {
    throw UsageError(source + ": field '" + field + "': " + what +
                     " (not laid out as `layerbench lab grade --json` writes a grade file)");
  }
  const json& member(const json& object, const std::string& path, const std::string& key) const {
    const std::string field = path.empty() ? key : path + "." + key;
    if (!object.contains(key)) bad(field, "missing");
    return object.at(key);
  }
  const json& typed(const json& object, const std::string& path, const std::string& key, json::value_t type,
                    const char* expected, bool null_allowed = false) const {
    const json& j = member(object, path, key);
    const bool ok = type == json::value_t::number_float ? j.is_number() : j.type() == type;
    if (!ok && !(null_allowed && j.is_null()))
      bad(path.empty() ? key : path + "." + key,
          std::string("expected ") + expected + (null_allowed ? " or null" : "") + ", found " + kind_of(j));
    return j;
  }
  std::string text(const json& o, const std::string& path, const std::string& key, bool null_allowed = false) const {
    const json& j = typed(o, path, key, json::value_t::string, "a string", null_allowed);
    return j.is_null() ? std::string() : j.get<std::string>();
  }
  std::optional<double> number(const json& o, const std::string& path, const std::string& key,
                               bool null_allowed = false) const {
    const json& j = typed(o, path, key, json::value_t::number_float, "a number", null_allowed);
    return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
  }
  const json& object(const json& o, const std::string& path, const std::string& key) const {
    return typed(o, path, key, json::value_t::object, "an object");
  }
};

bool known_outcome(const std::string& outcome) {
  for (const char* o : {"graded", "refused", "check failed", "did not compile", "could not run"})
    if (outcome == o) return true;
  return false;
}

BoardEntry parse_submission(const Reader& r, const json& s, const std::string& path) {
  if (!s.is_object()) r.bad(path, std::string("expected an object, found ") + kind_of(s));
  BoardEntry e;
  e.file = r.text(s, path, "file");
  e.outcome = r.text(s, path, "outcome");
  if (!known_outcome(e.outcome)) r.bad(path + ".outcome", "unknown outcome '" + e.outcome + "'");
  e.points = *r.number(s, path, "points");
  e.max_points = *r.number(s, path, "max_points");
  const json& check = r.object(s, path, "check");
  e.sizes_passed = *r.number(check, path + ".check", "sizes_passed");
  e.sizes = *r.number(check, path + ".check", "sizes");
  const std::string perf_path = path + ".performance";
  const json& perf = r.object(s, path, "performance");
  e.speed = r.number(perf, perf_path, "speed_vs_runtime", true);
  e.ceiling_fraction = r.number(perf, perf_path, "fraction_of_ceiling", true);
  e.refusal = r.text(perf, perf_path, "refused", true);
  const json& feedback = r.typed(s, path, "feedback", json::value_t::array, "an array of lines");
  for (std::size_t i = 0; i < feedback.size(); ++i) {
    if (!feedback[i].is_string())
      r.bad(path + ".feedback[" + std::to_string(i) + "]",
            std::string("expected a string, found ") + kind_of(feedback[i]));
    e.feedback.push_back(feedback[i].get<std::string>());
  }
  return e;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ea, eb, ec;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  if (!ea && !eb && ca == cb) return true;
  return fs::equivalent(a, b, ec);  // links to one file; false (ec set) where either is missing
}

// Speed descending, then points descending, then the file's name: a strict order, so that the
// board is the same whatever order the grade files were given in.
bool ranks_before(const BoardEntry& a, const BoardEntry& b) {
  if (*a.speed != *b.speed) return *a.speed > *b.speed;
  if (a.points != b.points) return a.points > b.points;
  return a.file < b.file;
}

}  // namespace

GradeDocument parse_grade_document(const json& j, const std::string& source) {
  const Reader r{source};
  if (!j.is_object())
    throw UsageError(source + ": not a grade file (" + kind_of(j) +
                     "; `layerbench lab grade --json` writes an object with 'lab' and 'submissions')");
  GradeDocument d;
  d.source = source;
  d.lab = r.text(j, "", "lab");
  d.title = r.text(j, "", "title");
  d.graded_at = r.text(j, "", "graded_at");
  d.gpu = r.text(j, "", "gpu", true);
  d.ceiling_what = r.text(r.object(j, "", "ceiling"), "ceiling", "what");
  const json& submissions = r.typed(j, "", "submissions", json::value_t::array, "an array");
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    BoardEntry e = parse_submission(r, submissions[i], "submissions[" + std::to_string(i) + "]");
    e.graded_at = d.graded_at;
    e.gpu = d.gpu;
    e.source = source;
    d.submissions.push_back(std::move(e));
  }
  return d;
}

GradeDocument read_grade_document(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(path.string() + ": is a folder, not a grade file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read the grade file " + path.string() + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    std::string why = e.what();
    if (const auto end = why.find("] "); why.rfind("[json.exception", 0) == 0 && end != std::string::npos)
      why = why.substr(end + 2);
    throw UsageError(path.string() + ": not JSON: " + why);
  }
  return parse_grade_document(j, path.string());
}

Board make_board(const std::vector<GradeDocument>& documents, const std::string& lab) {
  Board board;
  board.lab = lab;
  std::vector<BoardEntry> kept;
  std::map<std::string, std::size_t> at;  // file -> its index in `kept`
  for (const GradeDocument& d : documents) {
    if (d.lab != lab) throw UsageError(d.source + ": is a grade of lab '" + d.lab + "', not of " + lab);
    if (board.sources.empty()) {
      board.title = d.title;
      board.ceiling_what = d.ceiling_what;
    }
    board.sources.push_back(d.source);
    if (!d.gpu.empty() && std::find(board.gpus.begin(), board.gpus.end(), d.gpu) == board.gpus.end())
      board.gpus.push_back(d.gpu);
    if (board.first_graded.empty() || d.graded_at < board.first_graded) board.first_graded = d.graded_at;
    if (d.graded_at > board.last_graded) board.last_graded = d.graded_at;
    for (const BoardEntry& e : d.submissions) {
      const auto found = at.find(e.file);
      if (found == at.end()) {
        at[e.file] = kept.size();
        kept.push_back(e);
        continue;
      }
      BoardEntry& old = kept[found->second];
      const bool newer = e.graded_at >= old.graded_at;  // ISO 8601 UTC: text order is time order
      const BoardEntry& dropped = newer ? old : e;
      const BoardEntry& winner = newer ? e : old;
      board.replaced.push_back(e.file + ": the grade of " + winner.graded_at + " (" + winner.source +
                               ") replaces the one of " + dropped.graded_at + " (" + dropped.source + ")");
      if (newer) old = e;
    }
  }
  for (BoardEntry& e : kept) {
    if (e.outcome == "refused")
      board.refused.push_back(std::move(e));
    else if (e.outcome == "graded" && e.speed)
      board.ranked.push_back(std::move(e));
    else
      board.unranked.push_back(std::move(e));
  }
  std::sort(board.ranked.begin(), board.ranked.end(), ranks_before);
  const auto by_file = [](const BoardEntry& a, const BoardEntry& b) { return a.file < b.file; };
  std::sort(board.refused.begin(), board.refused.end(), by_file);
  std::stable_sort(board.unranked.begin(), board.unranked.end(), [](const BoardEntry& a, const BoardEntry& b) {
    return a.points != b.points ? a.points > b.points : a.file < b.file;
  });
  return board;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : one_line(text)) {  // a control character in a file name shows as \xNN
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

constexpr const char* kStyle = R"(
:root { --ink: #1d2430; --muted: #5b6472; --line: #dde1e7; --stripe: #f6f7f9; --bar: #3b7dd8; --ours: #1d2430;
        --refused: #b3261e; --refused-bg: #fdf0ef; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--ink); background: #fff; }
main { max-width: 1180px; margin: 0 auto; }
h1 { font-size: 26px; margin: 0 0 4px; }
h1 .lab { color: var(--muted); font-weight: 500; }
h2 { font-size: 19px; margin: 32px 0 6px; }
p { margin: 4px 0; }
.meta { color: var(--muted); }
.meta b { color: var(--ink); font-weight: 600; }
.how { margin-top: 10px; max-width: 62em; }
table { width: 100%; border-collapse: collapse; margin-top: 8px; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 10px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); }
thead th { position: sticky; top: 0; background: #fff; border-bottom: 2px solid var(--ink); font-size: 13px;
           text-transform: uppercase; letter-spacing: .03em; color: var(--muted); white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--stripe); }
td.num, th.num, td.outcome { text-align: right; white-space: nowrap; }
td.outcome { text-align: left; }
td.name { min-width: min(calc(40ch + 20px), 40vw); overflow-wrap: anywhere; font-size: 14px;
          font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td.why { overflow-wrap: anywhere; color: var(--muted); font-size: 14px; }
td.speed { width: 34%; white-space: nowrap; }
.speed .value { display: inline-block; width: 3.2em; text-align: right; margin-right: 10px; font-weight: 600; }
.bar { display: inline-block; position: relative; vertical-align: middle; width: calc(100% - 4.4em); height: 12px;
       background: #e9edf2; border-radius: 2px; }
.bar .fill { position: absolute; left: 0; top: 0; bottom: 0; background: var(--bar); border-radius: 2px; }
.bar .fill.faster { background: #2f9e5f; }
.bar .ours { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--ours); }
tr.top td.rank { font-weight: 700; }
.key { display: inline-block; width: 2px; height: 12px; background: var(--ours); vertical-align: middle;
       margin: 0 2px; }
section.refused h2 { color: var(--refused); }
section.refused tbody tr { background: var(--refused-bg); }
section.refused td.why { color: var(--refused); }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 36px; color: var(--muted); font-size: 13px; }
footer li { overflow-wrap: anywhere; }
)";

std::string points_text(const BoardEntry& e) {
  return format_number("%g", e.points) + " / " + format_number("%g", e.max_points);
}

std::string fraction_text(const BoardEntry& e) {
  return e.ceiling_fraction ? format_number("%.0f%%", 100.0 * *e.ceiling_fraction) : std::string("–");
}

std::string gpu_cell(const Board& board, const BoardEntry& e) {
  return board.gpus.size() > 1 ? "<td>" + html_escape(e.gpu) + "</td>" : "";
}
std::string gpu_head(const Board& board) { return board.gpus.size() > 1 ? "<th>GPU</th>" : ""; }

std::string ranked_table(const Board& board) {
  if (board.ranked.empty()) return "<p class=\"empty\">No submission was graded and timed.</p>\n";
  double scale = 1.0;  // the bar's full width: the fastest submission, or ours when none is faster
  for (const BoardEntry& e : board.ranked) scale = std::max(scale, *e.speed);
  std::ostringstream h;
  h << "<table class=\"board\"><thead><tr><th class=\"num\">rank</th><th>submission</th><th>speed vs ours</th>"
    << "<th class=\"num\">points</th><th class=\"num\">of " << html_escape(board.ceiling_what) << "</th>"
    << gpu_head(board) << "<th>outcome</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < board.ranked.size(); ++i) {
    const BoardEntry& e = board.ranked[i];
    const double width = std::clamp(*e.speed / scale, 0.0, 1.0) * 100.0;
    h << "<tr" << (i < 3 ? " class=\"top\"" : "") << "><td class=\"num rank\">" << i + 1 << "</td><td class=\"name\">"
      << html_escape(e.file) << "</td><td class=\"speed\"><span class=\"value\">" << format_number("%.2f", *e.speed)
      << "</span><span class=\"bar\"><span class=\"fill" << (*e.speed > 1.0 ? " faster" : "")
      << "\" style=\"width:" << format_number("%.1f", width)
      << "%\"></span><span class=\"ours\" style=\"left:" << format_number("%.1f", 100.0 / scale)
      << "%\" title=\"ours\"></span></span></td><td class=\"num\">" << points_text(e) << "</td><td class=\"num\">"
      << fraction_text(e) << "</td>" << gpu_cell(board, e) << "<td class=\"outcome\">" << html_escape(e.outcome)
      << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  return h.str();
}

// A compile error or a failed check size says more in its first lines than the outcome alone.
std::string feedback_lines(const BoardEntry& e) {
  std::string out;
  int shown = 0;
  for (const std::string& line : e.feedback) {
    // grading.cpp's rule for a failed check, the same on every such row: the check column says it
    if (line.find("check sizes failed: the performance part is graded only") != std::string::npos) continue;
    if (shown++ == 3) break;
    out += (out.empty() ? "" : "<br>") + html_escape(line);
  }
  return out;
}

std::string refused_section(const Board& board) {
  if (board.refused.empty()) return "";
  std::ostringstream h;
  h << "<section class=\"refused\" id=\"refused\"><h2>Refused: faster than the hardware allows</h2>\n"
    << "<p>These kernels passed the check but ran, at some benchmark size, faster than the GPU's theoretical peak "
       "allows a correct kernel to: they skipped work the check cannot see. They keep their check points, earn no "
       "performance points, and are not ranked.</p>\n"
    << "<table><thead><tr><th>submission</th><th class=\"num\">points</th><th class=\"num\">speed measured</th>"
    << gpu_head(board) << "<th>why refused</th></tr></thead>\n<tbody>\n";
  for (const BoardEntry& e : board.refused)
    h << "<tr><td class=\"name\">" << html_escape(e.file) << "</td><td class=\"num\">" << points_text(e)
      << "</td><td class=\"num\">" << (e.speed ? format_number("%.2f", *e.speed) : std::string("–")) << "</td>"
      << gpu_cell(board, e) << "<td class=\"why\">" << (e.refusal.empty() ? feedback_lines(e) : html_escape(e.refusal))
      << "</td></tr>\n";
  h << "</tbody></table></section>\n";
  return h.str();
}

std::string unranked_section(const Board& board) {
  if (board.unranked.empty()) return "";
  std::ostringstream h;
  h << "<section class=\"unranked\" id=\"unranked\"><h2>Not ranked: did not compile, failed the check, or could "
       "not be timed</h2>\n"
    << "<p>Performance is graded only for a kernel that passes every check size; these earn the check's share "
       "for the sizes they passed.</p>\n"
    << "<table><thead><tr><th>submission</th><th>outcome</th><th class=\"num\">check</th>"
    << "<th class=\"num\">points</th>" << gpu_head(board) << "<th>why</th></tr></thead>\n<tbody>\n";
  for (const BoardEntry& e : board.unranked)
    h << "<tr><td class=\"name\">" << html_escape(e.file) << "</td><td class=\"outcome\">" << html_escape(e.outcome)
      << "</td><td class=\"num\">" << format_number("%g", e.sizes_passed) << " / " << format_number("%g", e.sizes)
      << " sizes</td><td class=\"num\">" << points_text(e) << "</td>" << gpu_cell(board, e) << "<td class=\"why\">"
      << feedback_lines(e) << "</td></tr>\n";
  h << "</tbody></table></section>\n";
  return h.str();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + html_escape(item);
  return out;
}

}  // namespace

std::string board_html(const Board& board) {
  const std::size_t total = board.ranked.size() + board.refused.size() + board.unranked.size();
  const std::string when = board.first_graded == board.last_graded
                               ? html_escape(board.first_graded)
                               : html_escape(board.first_graded) + " to " + html_escape(board.last_graded);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>Leaderboard: " << html_escape(board.lab) << "</title>\n<style>" << kStyle << "</style></head>\n"
    << "<body><main>\n<header><h1>" << html_escape(board.title) << " <span class=\"lab\">" << html_escape(board.lab)
    << "</span></h1>\n"
    << "<p class=\"meta\">GPU <b>" << (board.gpus.empty() ? std::string("not known") : joined(board.gpus))
    << "</b> · graded <b>" << when << "</b> · " << total << " submission" << (total == 1 ? "" : "s") << ": "
    << board.ranked.size() << " ranked, " << board.refused.size() << " refused, " << board.unranked.size()
    << " not ranked</p>\n"
    << "<p class=\"how\"><b>Speed vs ours</b> = the median time of " << html_escape(board.ours)
    << " ÷ the median time of yours, both timed by <code>layerbench lab grade</code> in the same run on "
       "the same GPU, over the lab's benchmark sizes (their geometric mean): 1.00 is as fast as ours (the "
       "mark <span class=\"key\"></span> on each bar; a green bar is faster than ours). Ranked by speed, then points, "
       "then name. <b>Of "
    << html_escape(board.ceiling_what) << "</b>: your rate as a fraction of the GPU's, measured in the same run.</p>\n"
    << "</header>\n<section class=\"ranked\" id=\"ranked\"><h2>Ranked</h2>\n"
    << ranked_table(board) << "</section>\n"
    << refused_section(board) << unranked_section(board)
    << "<footer><p>Made by <code>layerbench lab leaderboard</code> from " << joined(board.sources) << ".</p>\n";
  if (!board.replaced.empty()) {
    h << "<p>" << board.replaced.size() << " submission" << (board.replaced.size() == 1 ? " was" : "s were")
      << " graded more than once: the latest grade is shown.</p><ul>\n";
    for (const std::string& line : board.replaced) h << "<li>" << html_escape(line) << "</li>\n";
    h << "</ul>\n";
  }
  h << "</footer>\n</main></body></html>\n";
  return h.str();
}

void write_leaderboard(const std::string& lab, const std::string& ours, const std::vector<fs::path>& grade_files,
                       const std::string& out_path, std::FILE* log) {
  for (const fs::path& file : grade_files)
    if (out_path != kStandardOutput && same_file(out_path, file))
      throw UsageError("-o " + out_path +
                       ": is one of the grade files being read; writing the board there would "
                       "destroy it (pick another file)");
  std::vector<GradeDocument> documents;
  for (const fs::path& file : grade_files) documents.push_back(read_grade_document(file));
  Board board = make_board(documents, lab);
  board.ours = ours;
  check_writable(out_path);  // after the inputs: bad input leaves nothing behind, not even a folder
  try {
    write_output(out_path, board_html(board));
  } catch (const OutputError& e) {
    throw UsageError(e.what());  // nothing measured is lost: the board is made again from the same files
  }
  for (const std::string& line : board.replaced) std::fprintf(log, "%s\n", one_line(line).c_str());
  std::fprintf(log, "wrote %s: %zu ranked, %zu refused, %zu not ranked\n", one_line(out_path).c_str(),
               board.ranked.size(), board.refused.size(), board.unranked.size());
}

}  // namespace lb::lab
