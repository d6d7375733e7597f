#include "common/data_root.h"

#include <cstdlib>
#include <string>

namespace lb {
namespace {

namespace fs = std::filesystem;

// LB_BUILD_ROOT (the build tree), LB_INSTALL_DATA_FROM_BIN, LB_INSTALL_NATIVE_FROM_BIN and
// LB_INSTALL_PYTHON_FROM_BIN (the installed folders relative to the installed executable's) come
// from cmake/install.cmake.

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// True when `dir` is `root` or inside it (both made canonical where they exist).
bool inside(const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  const std::string d = fs::weakly_canonical(dir, ec).string() + "/";
  const std::string r = fs::weakly_canonical(root, ec).string() + "/";
  return !ec && d.compare(0, r.size(), r) == 0;
}

bool in_build_tree() {
  static const bool yes = inside(executable_dir(), LB_BUILD_ROOT);
  return yes;
}

const char* data_dir_from_environment() {
  const char* dir = std::getenv("LAYERBENCH_DATA_DIR");
  return dir && *dir ? dir : nullptr;
}

}  // namespace

const fs::path& data_root() {
  static const fs::path root = [] {
    if (const char* dir = data_dir_from_environment()) return fs::path(dir);
    if (in_build_tree()) return fs::path(LB_SOURCE_ROOT);
    return (executable_dir() / LB_INSTALL_DATA_FROM_BIN).lexically_normal();
  }();
  return root;
}

const fs::path& native_module_dir() {
  static const fs::path dir = in_build_tree() ? fs::path(LB_BUILD_ROOT) / "python"
                                              : (executable_dir() / LB_INSTALL_NATIVE_FROM_BIN).lexically_normal();
  return dir;
}

const fs::path& python_package_dir() {
  static const fs::path dir = data_dir_from_environment() || in_build_tree()
                                  ? data_root() / "python"
                                  : (executable_dir() / LB_INSTALL_PYTHON_FROM_BIN).lexically_normal();
  return dir;
}

}  // namespace lb
