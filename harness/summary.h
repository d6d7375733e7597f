// The console summary printed after the cases: one line per case, launch overhead per layer, and
// what each layer paid once before its first result.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/case_runner.h"

namespace lb {

void print_summary(const std::vector<CaseResult>& results, const nlohmann::json& context);
void print_launch_overhead(const std::vector<CaseResult>& results);
void print_one_time_costs(const std::vector<CaseResult>& results, const nlohmann::json& context);

}  // namespace lb
