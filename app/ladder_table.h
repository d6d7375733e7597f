// `layerbench ladder`'s table: one line per rung of a ladder run at one size (median time, rate,
// fraction of the vendor line or of the run's ceiling, speed-up over the rung below), then the
// vendor line at the top of the ladder. Made from the results and the run's context alone.
#pragma once
#include <string>
#include <vector>

#include "harness/records.h"

namespace lb {

// The name of the vendor library a ladder is measured against (the workload's descriptor: "cuBLAS"
// for matmul, "CUB" for reduce); "vendor" when it names none.
std::string vendor_library(const Workload& workload);

// The table as text. `results`: rung cases of one workload and size (a case without a rung is the
// vendor line). The fraction is of the vendor line when it ran, else of the run's ceiling
// (matmul: cuBLAS SGEMM; reduce: the copy bandwidth, which reduce is also always shown against).
std::string ladder_table(const std::vector<CaseResult>& results, const Ceilings& ceilings);

}  // namespace lb
