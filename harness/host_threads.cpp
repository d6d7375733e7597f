#include "harness/host_threads.h"

#include <omp.h>
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

namespace lb {

PinnedOpenMpTeam::PinnedOpenMpTeam() {
  if (sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) {
    why_not_ = std::string("sched_getaffinity: ") + std::strerror(errno);
    return;
  }
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed_)) cpus.push_back(cpu);
  if (cpus.size() < 2) {
    why_not_ = "the process may run on one CPU";
    return;
  }
  // A team smaller than the CPUs was chosen so (OMP_NUM_THREADS: the tests' processes, side by
  // side, take 2 threads each): pinned, every such process would crowd onto the first CPUs.
  if (const int team = omp_get_max_threads(); static_cast<std::size_t>(team) < cpus.size()) {
    why_not_ = "the OpenMP team (" + std::to_string(team) + " threads) is smaller than the process's " +
               std::to_string(cpus.size()) + " CPUs: Linux places it";
    return;
  }
  std::atomic<int> error{0};
  attempted_ = true;
#pragma omp parallel
  {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[static_cast<std::size_t>(omp_get_thread_num()) % cpus.size()], &one);
    if (const int e = pthread_setaffinity_np(pthread_self(), sizeof one, &one)) error = e;
  }
  pinned_ = error == 0;
  if (!pinned_) why_not_ = std::string("pthread_setaffinity_np: ") + std::strerror(error);
}

PinnedOpenMpTeam::~PinnedOpenMpTeam() {
  if (!attempted_) return;
  // Every thread of the team back to every CPU it had, the calling thread among them. Widening a
  // thread's own mask to CPUs it held before fails only where they were taken from the process
  // meanwhile (a cpuset changed under it), and then the thread keeps its one CPU: nothing to undo.
#pragma omp parallel
  static_cast<void>(pthread_setaffinity_np(pthread_self(), sizeof allowed_, &allowed_));
}

}  // namespace lb
