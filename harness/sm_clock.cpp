#include "harness/sm_clock.h"

#include "harness/nvml.h"

namespace lb {
namespace {

class NvmlSmClock final : public SmClock {
 public:
  explicit NvmlSmClock(std::unique_ptr<nvml::DeviceHandle> nvml) : nvml_(std::move(nvml)) {}
  double current_mhz() override {
    unsigned mhz = 0;
    return nvml_->clock_info(nvml_->device, nvml::kClockSm, &mhz) == nvml::kSuccess ? double(mhz) : -1.0;
  }
  double default_mhz() override {
    unsigned mhz = 0;
    if (nvml_->default_applications_clock &&
        nvml_->default_applications_clock(nvml_->device, nvml::kClockSm, &mhz) == nvml::kSuccess && mhz > 0)
      return mhz;
    if (nvml_->max_clock_info && nvml_->max_clock_info(nvml_->device, nvml::kClockSm, &mhz) == nvml::kSuccess)
      return mhz;
    return -1.0;
  }

 private:
  std::unique_ptr<nvml::DeviceHandle> nvml_;
};

}  // namespace

std::unique_ptr<SmClock> SmClock::open(const std::string& pci_bus_id, std::string* why_not) {
  auto nvml = nvml::open_device(pci_bus_id, why_not);
  if (!nvml) return nullptr;
  if (!nvml->clock_info) {
    *why_not = "NVML lacks nvmlDeviceGetClockInfo";
    return nullptr;
  }
  auto clock = std::make_unique<NvmlSmClock>(std::move(nvml));
  if (clock->current_mhz() < 0 || clock->default_mhz() <= 0) {
    *why_not = "NVML does not report the SM clock of " + pci_bus_id;
    return nullptr;
  }
  return clock;
}

}  // namespace lb
