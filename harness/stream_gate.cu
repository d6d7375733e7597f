#include "harness/stream_gate.h"

#include <atomic>

#include "common/cuda_check.h"

namespace lb {
namespace {

// One thread polls the host's flag. %globaltimer (ns) bounds the wait, so a run() that
// synchronizes inside the gate ends in an error instead of a hang.
__global__ void wait_for_host(volatile int* flags, unsigned long long timeout_ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (flags[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
  }
}

}  // namespace

StreamGate::StreamGate(double timeout_s) : timeout_ns_(static_cast<unsigned long long>(timeout_s * 1e9)) {
  void* flags = nullptr;
  // Mapped: with unified addressing the device reads this host pointer directly.
  LB_CUDA_CHECK(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(flags);
  flags_[0] = 0;
  flags_[1] = 0;
}

StreamGate::~StreamGate() { cudaFreeHost(const_cast<int*>(flags_)); }

void StreamGate::hold(cudaStream_t stream) {
  flags_[0] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  wait_for_host<<<1, 1, 0, stream>>>(flags_, timeout_ns_);
  LB_CHECK_LAUNCH();
}

void StreamGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_[0] = 1;
}

bool StreamGate::timed_out() {
  const bool late = flags_[1] != 0;
  flags_[1] = 0;
  return late;
}

}  // namespace lb
