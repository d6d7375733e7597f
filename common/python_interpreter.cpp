#include "common/python_interpreter.h"

#include <cstdlib>
#include <filesystem>

namespace lb {

std::string chosen_python() {
  if (const char* env = std::getenv("LAYERBENCH_PYTHON"); env && *env) return env;
  const std::filesystem::path venv = std::filesystem::path(LB_SOURCE_ROOT) / ".venv" / "bin" / "python3";
  std::error_code ec;  // an unreadable folder is a missing .venv: python3 then
  return std::filesystem::exists(venv, ec) ? venv.string() : "python3";
}

}  // namespace lb
