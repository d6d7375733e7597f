// Where a CPU layer's threads run while it is timed. Unbound, Linux places the OpenMP team where it
// likes, and a placement holds for a whole case: two threads sharing a CPU while another CPU idles
// make every sample of that case slow by the same amount, and the next run places them otherwise.
// On the lent 16-vCPU H100 machine, three runs of the CPU layers differed by up to 1.31x (saxpy on
// thrust-omp, 2^26, whose static schedule waits for the slowest thread); pinned as this does (there
// by OMP_PROC_BIND=close OMP_PLACES=cores), by up to 1.09x (docs/methodology.md, "Host-timed cases").
#pragma once
#include <sched.h>

#include <string>

namespace lb {

// For its lifetime, pins thread i of the OpenMP team (the default team size) to the i-th CPU this
// process may run on, the calling thread being thread 0; restores every thread's CPUs when it ends,
// so that threads started afterwards (a Python layer's, the CUDA driver's) are not confined.
// Nothing is pinned where the process may run on one CPU, where the team is smaller than its CPUs
// (OMP_NUM_THREADS chose a share of the machine), or where the OS refuses (why_not() says which).
class PinnedOpenMpTeam {
 public:
  PinnedOpenMpTeam();
  ~PinnedOpenMpTeam();
  PinnedOpenMpTeam(const PinnedOpenMpTeam&) = delete;
  PinnedOpenMpTeam& operator=(const PinnedOpenMpTeam&) = delete;
  bool pinned() const { return pinned_; }
  const std::string& why_not() const { return why_not_; }

 private:
  cpu_set_t allowed_{};
  bool attempted_ = false, pinned_ = false;
  std::string why_not_;
};

}  // namespace lb
