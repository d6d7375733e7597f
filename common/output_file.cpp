#include "common/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/usage_error.h"

namespace lb {

namespace {

namespace fs = std::filesystem;

// Where a write to `path` lands: a symlink's target, followed through every link (a target that
// does not exist yet too, which the write then creates), else the path itself.
fs::path landing(const std::string& path) {
  fs::path at = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(at, ec)); ++hops) {
    const fs::path next = fs::read_symlink(at, ec);
    if (ec) break;
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  return at;
}

// The temporary file a write to `target` goes through (and check_writable probes with).
std::string temporary_beside(const fs::path& target) { return target.string() + ".tmp." + std::to_string(getpid()); }

// A device, FIFO or socket: something that exists and is neither a regular file nor a folder.
bool is_special(const fs::path& target) {
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  return !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

}  // namespace

void check_writable(const std::string& path) {
  if (path.empty()) throw UsageError("output path is empty");
  if (path == kStandardOutput) return;
  const fs::path target = landing(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw UsageError("output path '" + path + "' is a directory");
  if (is_special(target)) {  // opening a FIFO would wait for a reader: ask for permission instead
    if (::access(target.c_str(), W_OK) != 0)
      throw UsageError("cannot write output file '" + path + "': " + std::strerror(errno));
    return;
  }
  if (target.has_parent_path() && !fs::exists(target.parent_path(), ec)) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw UsageError("cannot create the directory of output file '" + path + "': " + ec.message());
  }
  const std::string probe = temporary_beside(target);
  std::ofstream out(probe);
  if (!out) throw UsageError("cannot write output file '" + path + "': " + std::strerror(errno));
  out.close();
  fs::remove(probe, ec);
}

void write_output(const std::string& path, const std::string& text) {
  if (path == kStandardOutput) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw OutputError("cannot write to standard output: " + std::string(std::strerror(errno)));
    return;
  }
  const fs::path target = landing(path);
  if (is_special(target)) {  // written straight through: a rename would put a file in the node's place
    std::ofstream out(target, std::ios::binary);
    out << text;
    if (!out.flush()) throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
    return;
  }
  const std::string temp = temporary_beside(target);
  {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    if (!out.flush()) {
      const std::string why = std::strerror(errno);
      std::error_code ec;
      fs::remove(temp, ec);
      throw OutputError("cannot write '" + temp + "': " + why);
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw OutputError("cannot move the output into '" + path + "': " + ec.message());
  }
}

}  // namespace lb
