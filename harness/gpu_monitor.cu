#include <dlfcn.h>

#include <algorithm>
#include <atomic>

#include "harness/cuda_error.h"
#include "harness/gpu_monitor.h"

namespace lb {
namespace {

// Every thread reads its share, 16 bytes at a time; the store never happens (the data is never
// this value) but the compiler cannot know, so the loads stay.
__global__ void read_all(const float4* __restrict__ data, long long count, float* sink) {
  float sum = 0.0f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    const float4 v = data[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == -1.2345e-30f) *sink = sum;
}

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

// The few NVML declarations this needs (nvml.h is not part of the CUDA toolkit everywhere).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
using InitFn = nvmlReturn_t (*)();
using ByPciFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);

class NvmlSmClock final : public SmClock {
 public:
  NvmlSmClock(nvmlDevice_t device, ClockFn current, ClockFn default_app, ClockFn max)
      : device_(device), current_(current), default_app_(default_app), max_(max) {}
  double current_mhz() override {
    unsigned mhz = 0;
    return current_(device_, kNvmlClockSm, &mhz) == 0 ? double(mhz) : -1.0;
  }
  double default_mhz() override {
    unsigned mhz = 0;
    if (default_app_ && default_app_(device_, kNvmlClockSm, &mhz) == 0 && mhz > 0) return mhz;
    if (max_ && max_(device_, kNvmlClockSm, &mhz) == 0) return mhz;
    return -1.0;
  }

 private:
  nvmlDevice_t device_;
  ClockFn current_, default_app_, max_;
};

}  // namespace

std::size_t l2_flush_bytes(std::size_t l2_bytes) { return std::max<std::size_t>(2 * l2_bytes, std::size_t{1} << 20); }

L2Flusher::L2Flusher(std::size_t l2_bytes) : bytes_(l2_flush_bytes(l2_bytes) / 16 * 16) {
  LB_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  if (const cudaError_t status = cudaMalloc(&sink_, sizeof(float)); status != cudaSuccess) {
    cudaFree(buffer_);
    LB_CUDA_CHECK(status);
  }
  LB_CUDA_CHECK(cudaMemset(buffer_, 0, bytes_));
  int device = 0, sms = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  blocks_ = sms * 4;
}

L2Flusher::~L2Flusher() {
  cudaFree(buffer_);
  cudaFree(sink_);
}

void L2Flusher::flush() {
  read_all<<<blocks_, 256>>>(reinterpret_cast<const float4*>(buffer_), static_cast<long long>(bytes_ / 16), sink_);
  LB_CUDA_CHECK(cudaGetLastError());
}

StreamGate::StreamGate(double timeout_s) : timeout_ns_(static_cast<unsigned long long>(timeout_s * 1e9)) {
  void* flags = nullptr;
  // Mapped: with unified addressing the device reads this host pointer directly.
  LB_CUDA_CHECK(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(flags);
  flags_[0] = 0;
  flags_[1] = 0;
}

StreamGate::~StreamGate() { cudaFreeHost(const_cast<int*>(flags_)); }

void StreamGate::hold() {
  flags_[0] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  wait_for_host<<<1, 1>>>(flags_, timeout_ns_);
  LB_CUDA_CHECK(cudaGetLastError());
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

std::unique_ptr<SmClock> SmClock::open(const std::string& pci_bus_id, std::string* why_not) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    *why_not = "NVML not available: libnvidia-ml.so.1 could not be loaded";
    return nullptr;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(library, "nvmlInit_v2"));
  auto by_pci = reinterpret_cast<ByPciFn>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto current = reinterpret_cast<ClockFn>(dlsym(library, "nvmlDeviceGetClockInfo"));
  auto default_app = reinterpret_cast<ClockFn>(dlsym(library, "nvmlDeviceGetDefaultApplicationsClock"));
  auto max = reinterpret_cast<ClockFn>(dlsym(library, "nvmlDeviceGetMaxClockInfo"));
  nvmlDevice_t device = nullptr;
  if (!init || !by_pci || !current || init() != 0 || by_pci(pci_bus_id.c_str(), &device) != 0) {
    *why_not = "NVML could not open the device " + pci_bus_id;
    return nullptr;
  }
  auto clock = std::make_unique<NvmlSmClock>(device, current, default_app, max);
  if (clock->current_mhz() < 0 || clock->default_mhz() <= 0) {
    *why_not = "NVML does not report the SM clock of " + pci_bus_id;
    return nullptr;
  }
  return clock;
}

}  // namespace lb
