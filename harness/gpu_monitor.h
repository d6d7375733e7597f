// What the harness does to the GPU around samples, outside the timed region: hold the stream
// while a sample is enqueued, flush the L2 cache (cold mode) and read the SM clock (throttling).
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

// Holds the legacy default stream behind a kernel that spins until the host releases it
// (nvbench's "blocking kernel"). The harness holds it, enqueues the flush, the start event, the
// layer's run() and the stop event, then releases it: the GPU then runs them back to back, so
// whatever the host does between those calls (a preemption, a page fault, a slow launch) cannot
// open a gap inside the timed region. Only for run()s that enqueue and return: one that waits
// for the device would wait for itself, until the kernel gives up after `timeout_s`. Nor for a
// first run(): lazy module loading waits for the device too, so the harness holds the stream only
// after the warm-up run.
class StreamGate {
 public:
  explicit StreamGate(double timeout_s = 5.0);
  ~StreamGate();
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  void hold();     // enqueue the spinning kernel
  void release();  // let it finish; the work queued behind it follows at once
  // After the work behind a release() has finished: whether the kernel stopped waiting on its
  // own, i.e. the host did not release it in time. Resets the flag.
  bool timed_out();

 private:
  volatile int* flags_ = nullptr;  // pinned, mapped host memory: [0] released, [1] timed out
  unsigned long long timeout_ns_ = 0;
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
