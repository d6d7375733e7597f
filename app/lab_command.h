// `layerbench lab ...`: coursework labs (list, start, check, profile, grade, leaderboard, and the internal
// run-child). app/cli.cpp hands over every word after `lab`; --help works at each level. The
// command line only: what each command does is lab/'s (lab_start.h, lab_check.h, lab_grade.h,
// profile.h, leaderboard.h).
#pragma once
#include <string>
#include <vector>

namespace lb::lab {

// Runs `layerbench lab <args>`; returns the exit status (see `layerbench lab --help`).
int run_lab_cli(const std::vector<std::string>& args);

}  // namespace lb::lab
