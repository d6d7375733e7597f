#include "lab/commands/lab_start.h"

#include <algorithm>

namespace lb::lab {

namespace fs = std::filesystem;

std::vector<std::string> start_lab(const LabSpec& spec, const fs::path& dest) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(spec.dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::error_code ec;
  if (fs::exists(dest, ec) && !fs::is_directory(dest, ec))
    throw UsageError(dest.string() + ": exists and is not a folder (start the lab in another folder)");
  for (const fs::path& f : files)
    if (fs::exists(dest / f.filename()))
      throw UsageError((dest / f.filename()).string() + " already exists: not overwriting (start the lab in another folder)");
  if (fs::create_directories(dest, ec); ec)
    throw UsageError("cannot create the folder " + dest.string() + ": " + ec.message());
  std::vector<std::string> copied;
  for (const fs::path& f : files) {
    fs::copy_file(f, dest / f.filename());
    copied.push_back(f.filename().string());
  }
  return copied;
}

}  // namespace lb::lab
