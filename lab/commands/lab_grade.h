// `layerbench lab grade`: check each submission, then time it beside the lab's baseline layer at
// the lab's benchmark sizes, and grade it (lab/grading/grading.h: the grade's every rule),
// printing a grade per submission and writing the grades in each format asked for, each by its
// writer (lab/grading/grade_writer.h).
#pragma once
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/grading/autograder_results.h"
#include "lab/commands/lab_check.h"

namespace lb::lab {

struct GradeOptions {
  CheckOptions check;
  std::string json_path, csv_path, markdown_path;  // empty: not written
  AutograderRequest autograder;  // --format: one grading system's results file (one submission)
  // Grade even where student_isolation() is weaker than a user of its own under the seccomp filter
  // (lab/child/student_sandbox.h); the outputs state it either way.
  bool accept_weak_isolation = false;
};

// Returns 0 when every submission passed its check, 1 when one did not, 3 when there is no usable
// GPU; UsageError (2) for a missing file, an unwritable output or a bad --format request, or an
// isolation weaker than a user of its own under the filter without accept_weak_isolation, before
// anything runs.
int grade_submissions(const LabSpec& spec, const std::vector<std::filesystem::path>& files,
                      const GradeOptions& options, std::FILE* out);

}  // namespace lb::lab
