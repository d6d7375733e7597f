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

}  // namespace lb
