#include "common/python_interpreter.h"

#include <cstdlib>
#include <filesystem>

#include "common/data_root.h"

namespace lb {

std::string chosen_python() {
  if (const char* env = std::getenv("LAYERBENCH_PYTHON"); env && *env) return env;
  const std::filesystem::path venv = data_root() / ".venv" / "bin" / "python3";
  std::error_code ec;  // an unreadable folder is a missing .venv: python3 then
  return std::filesystem::exists(venv, ec) ? venv.string() : "python3";
}

std::string python_package_root() { return python_package_dir().string(); }

std::vector<std::string> reports_command(const std::string& subcommand) {
  std::string path = python_package_root();
  if (const char* env = std::getenv("PYTHONPATH"); env && *env) path += std::string(":") + env;
  setenv("PYTHONPATH", path.c_str(), 1);
  return {chosen_python(), "-m", "layerbench.reports", subcommand};
}

}  // namespace lb
