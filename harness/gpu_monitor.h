// What the harness does to the GPU around samples, outside the timed region: flush the L2 cache
// (cold mode) and read the SM clock (throttle detection).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace lb {

// Bytes the cold-mode flush reads: twice the L2, so that no line of the previous sample survives
// whatever the replacement policy, and at least 1 MiB.
std::size_t l2_flush_bytes(std::size_t l2_bytes);

// Reads a buffer of l2_flush_bytes() on the legacy default stream, leaving the L2 full of clean
// lines that belong to nobody: the next sample starts cold and owes no write-backs. (A memset, as
// nvbench uses, would leave dirty lines that the measured kernel pays to write back.)
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush();
  std::size_t bytes() const { return bytes_; }

 private:
  float* buffer_ = nullptr;
  float* sink_ = nullptr;
  std::size_t bytes_ = 0;
  int blocks_ = 0;
};

// The SM clock through NVML, loaded at run time (libnvidia-ml ships with the driver, so it is
// absent where CUDA is). Unavailable readers say why.
class SmClock {
 public:
  // For the CUDA device with this PCI bus id ("0000:1B:00.0").
  static std::unique_ptr<SmClock> open(const std::string& pci_bus_id, std::string* why_not);
  virtual ~SmClock() = default;
  virtual double current_mhz() = 0;  // < 0 when a read fails
  virtual double default_mhz() = 0;  // the default applications clock, else the maximum
};

}  // namespace lb
