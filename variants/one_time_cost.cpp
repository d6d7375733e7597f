#include "variants/one_time_cost.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace lb {

const char* to_string(CostKind kind) {
  switch (kind) {
    case CostKind::kImport: return "import";
    case CostKind::kContext: return "context";
    case CostKind::kCompile: return "compile";
    case CostKind::kAutotune: return "autotune";
    case CostKind::kLoad: return "load";
    case CostKind::kSetup: return "setup";
  }
  return "setup";
}

CostKind cost_kind(std::string_view what) {
  std::string text(what);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto has = [&](std::string_view word) { return text.find(word) != std::string::npos; };
  // First match wins: a compile that includes its load ("SourceModule ... with the module load")
  // is a compile, so compile is asked before load; an autotune compiles its candidates, and is asked first.
  static constexpr std::array<std::pair<std::string_view, CostKind>, 15> kRules{{
      {"autotune", CostKind::kAutotune},
      {"import ", CostKind::kImport},
      {"interpreter start", CostKind::kImport},
      {"context", CostKind::kContext},
      {"nvrtc", CostKind::kCompile},
      {"compile", CostKind::kCompile},
      {"sourcemodule", CostKind::kCompile},
      {".jit ", CostKind::kCompile},
      {"@vectorize", CostKind::kCompile},
      {"@cuda.reduce", CostKind::kCompile},
      {"cuda.compute build", CostKind::kCompile},
      {"rawmodule", CostKind::kCompile},
      {"cumoduleload", CostKind::kLoad},
      {"module load", CostKind::kLoad},
      {"load", CostKind::kLoad},
  }};
  for (const auto& [word, kind] : kRules)
    if (has(word)) return kind;
  return CostKind::kSetup;
}

nlohmann::json CostLog::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const OneTimeCost& c : entries_) list.push_back({{"what", c.what}, {"ms", c.ms}, {"kind", to_string(c.kind)}});
  return list;
}

}  // namespace lb
