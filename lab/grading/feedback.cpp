#include "lab/grading/feedback.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "workloads/problem.h"

namespace lb::lab {
namespace {

std::string number(double x) {
  if (std::isnan(x)) return "NaN";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

// Still what it started as (NaN poison counts as equal to itself).
bool unwritten(float got, float start) {
  if (std::isnan(start)) return std::isnan(got);
  return std::memcmp(&got, &start, sizeof got) == 0;
}

struct Wrong {
  std::vector<std::int64_t> indices;  // every wrong element, in order
  bool all_unwritten = true;          // every wrong element still holds its start value
  bool any_nan = false;
};

std::string what_start_was(std::span<const float> start) {
  if (!start.empty() && std::isnan(start[0])) return "still the poison";
  if (!start.empty() && start[0] == 0.0f) return "still zero";
  return "still their starting values";
}

// Rows or columns from `first` on are wrong, and only they: the grid's y (rows) or x (columns)
// stops short.
std::string matrix_cause(const Shape& s, const Wrong& w, std::span<const float> start) {
  std::int64_t min_row = s.m, min_col = s.n;
  for (std::int64_t i : w.indices) {
    min_row = std::min(min_row, i / s.n);
    min_col = std::min(min_col, i % s.n);
  }
  const std::int64_t wrong = static_cast<std::int64_t>(w.indices.size());
  const std::string unwritten_text = w.all_unwritten ? " were never written (" + what_start_was(start) + ")" : " are wrong";
  if (min_col > 0 && wrong == s.m * (s.n - min_col))
    return "columns from " + std::to_string(min_col) + " on" + unwritten_text + ": does your grid cover N (" +
           std::to_string(s.n) + " columns)?";
  if (min_row > 0 && wrong == (s.m - min_row) * s.n)
    return "rows from " + std::to_string(min_row) + " on" + unwritten_text + ": does your grid cover M (" +
           std::to_string(s.m) + " rows)?";
  return "";
}

std::string cause(const Shape& shape, bool matrix, const Wrong& w, std::int64_t total, std::span<const float> start) {
  const std::int64_t first = w.indices.front();
  const auto wrong = static_cast<std::int64_t>(w.indices.size());
  const bool suffix = wrong == total - first;  // indices are ascending and distinct
  if (matrix) {
    if (std::string c = matrix_cause(shape, w, start); !c.empty()) return c;
  } else if (w.all_unwritten && suffix && first > 0) {
    return "elements from " + std::to_string(first) + " on were never written (" + what_start_was(start) +
           "): does your grid cover n?";
  }
  const std::int64_t tail = total % 4;
  if (!matrix && tail != 0 && first == total - tail && suffix && wrong < total)
    return "only the last n % 4 = " + std::to_string(tail) +
           " elements are wrong: if your kernel takes 4 elements at a time, what happens to those left over?";
  if (w.all_unwritten)
    return std::to_string(wrong) + " of " + std::to_string(total) + " elements were never written (" +
           what_start_was(start) + ")" + (wrong == total ? ": did the kernel run, and write its output?" : "");
  if (w.any_nan) return "the result holds NaN where no poison was left: computed from an element out of range?";
  return std::to_string(wrong) + " of " + std::to_string(total) + " elements are wrong";
}

}  // namespace

std::string explain_result(const Workload& workload, const Shape& shape, std::span<const float> got,
                           std::span<const float> start, const Reference& reference) {
  const auto total = static_cast<std::int64_t>(got.size());
  Wrong w;
  for (std::int64_t i = 0; i < total; ++i) {
    // The test verify() applies (workloads/problem.h), element by element.
    if (relative_error(got[i], reference.expected[i], reference.scale[i]) <= reference.tolerance) continue;
    w.indices.push_back(i);
    w.all_unwritten = w.all_unwritten && i < static_cast<std::int64_t>(start.size()) && unwritten(got[i], start[i]);
    w.any_nan = w.any_nan || std::isnan(got[i]);
  }
  if (w.indices.empty()) return "";
  const std::int64_t first = w.indices.front();
  const double expected = reference.expected[first];
  const std::string is = std::isnan(got[first]) ? " is NaN" : " is " + number(got[first]);

  // One number out of many inputs: reduce's sum (a 1-element vector or a 1x1 product is an element).
  if (total == 1 && shape.m * shape.n > 1) {
    std::string line = "wrong sum: got " + number(got[0]) + ", expected " + number(expected);
    if (w.all_unwritten) return line + " — the output was never written (" + what_start_was(start) + ")";
    const double magnitude = reference.scale[0];  // sum of |x|
    if (!std::isnan(got[0]) && std::abs(expected) < 0.5 * magnitude) {
      // A sum of terms of both signs that mostly cancel: a ratio to it would mislead (a few
      // elements dropped can flip its sign); the error against the terms' total size does not.
      char text[160];
      std::snprintf(text, sizeof text, " — off by %.3g, %.2g%% of the sum of |x| (%.4g)", got[0] - expected,
                    100.0 * std::abs(got[0] - expected) / magnitude, magnitude);
      line += std::string(text) + ": are some elements skipped or added twice, or a block's partial sum lost?";
    } else if (!std::isnan(got[0]) && expected != 0) {
      char percent[64];
      std::snprintf(percent, sizeof percent, "%.3g%%", 100.0 * got[0] / expected);
      line += std::string(" — the sum is about ") + percent + " of the expected one";
      const double ratio = got[0] / expected;
      if (ratio > 0 && ratio < 1) line += ": are some elements skipped, or some blocks' or threads' partial sums lost?";
      else if (ratio > 1) line += ": are some elements added more than once?";
    }
    return line;
  }

  const bool matrix = workload.size_form() != SizeForm::kCount;
  std::string where = "element " + std::to_string(first);
  if (matrix) where += " (row " + std::to_string(first / shape.n) + ", column " + std::to_string(first % shape.n) + ")";
  return where + is + ", expected " + number(expected) + " — " + cause(shape, matrix, w, total, start);
}

std::string hint_across_sizes(const std::vector<SizeOutcome>& outcomes, bool matrix, unsigned block_x,
                              unsigned block_y) {
  auto multiple = [&](const Shape& s) {
    return matrix ? s.n % block_x == 0 && s.m % block_y == 0 : s.n % block_x == 0;
  };
  bool any_failed = false, multiple_passed = false;
  for (const SizeOutcome& o : outcomes) {
    if (!o.passed && multiple(o.shape)) return "";
    any_failed = any_failed || !o.passed;
    multiple_passed = multiple_passed || (o.passed && multiple(o.shape));
  }
  if (!any_failed || !multiple_passed) return "";
  const std::string block = matrix ? std::to_string(block_x) + "x" + std::to_string(block_y) : std::to_string(block_x);
  return "wrong only at sizes that are not a multiple of the block size (" + block +
         "): does the last, partial block do its share, and do its extra threads stay in bounds?";
}

}  // namespace lb::lab
