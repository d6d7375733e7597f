// The SM clock through NVML (nvml.h), read after each GPU sample to discard throttled ones.
#pragma once
#include <memory>
#include <string>

namespace lb {

// NVML is loaded at run time (libnvidia-ml ships with the driver, so it is absent where CUDA is).
// Unavailable readers say why.
class SmClock {
 public:
  // For the CUDA device with this PCI bus id ("0000:1B:00.0").
  static std::unique_ptr<SmClock> open(const std::string& pci_bus_id, std::string* why_not);
  virtual ~SmClock() = default;
  virtual double current_mhz() = 0;  // < 0 when a read fails
  virtual double default_mhz() = 0;  // the default applications clock, else the maximum
};

}  // namespace lb
