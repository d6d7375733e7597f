#include "harness/sm_clock.h"

#include <dlfcn.h>

namespace lb {
namespace {

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
