// `layerbench lab start`: a lab's own files copied where the student works.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "lab/spec/lab_spec.h"

namespace lb::lab {

// Copies the lab's own files (the regular files directly in its folder: README.md, the student
// file, lab.json; never its solution/, wrong/ or expected/ folders) into `dest`, creating it. Refuses, copying nothing, when
// any of them already exists there (UsageError naming it). Returns the copied names.
std::vector<std::string> start_lab(const LabSpec& spec, const std::filesystem::path& dest);

}  // namespace lb::lab
