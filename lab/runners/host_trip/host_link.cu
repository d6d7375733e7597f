#include "lab/runners/host_trip/host_link.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "common/device_buffer.h"
#include "common/elapsed.h"
#include "common/median.h"
#include "common/stream.h"

namespace lb::lab {
namespace {

constexpr int kWarmups = 2, kReps = 7;

// Page-locked host memory that frees itself.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) { LB_CUDA_CHECK(cudaMallocHost(&ptr_, bytes)); }
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  char* get() const { return static_cast<char*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

double gbps(std::size_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0; }

// The median time of `copy` (which enqueues on `streams`), from an event on the first stream that
// every other waits for, to one on the first after it has waited for every other.
template <class Copy>
double median_ms(const std::vector<cudaStream_t>& streams, Copy copy) {
  Event start, stop;
  std::vector<Event> joined(streams.size());
  std::vector<double> times;
  for (int rep = 0; rep < kWarmups + kReps; ++rep) {
    start.record(streams[0]);
    for (cudaStream_t s : streams) LB_CUDA_CHECK(cudaStreamWaitEvent(s, start.get(), 0));
    copy();
    for (std::size_t i = 0; i < streams.size(); ++i) {
      joined[i].record(streams[i]);
      LB_CUDA_CHECK(cudaStreamWaitEvent(streams[0], joined[i].get(), 0));
    }
    stop.record(streams[0]);
    const double ms = Event::elapsed_ms(start, stop);
    if (rep >= kWarmups) times.push_back(ms);
  }
  return median(times);
}

// A copy from or to pageable memory returns only once the driver has staged (some of) it through
// its own pinned buffer, on the host: timed on the host's clock, copy and wait.
double host_median_ms(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  std::vector<double> times;
  for (int rep = 0; rep < kWarmups + kReps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    LB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    LB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (rep >= kWarmups) times.push_back(ms_since(t0));
  }
  return median(times);
}

}  // namespace

LinkBandwidth measure_link(std::size_t bytes) {
  PinnedBuffer pinned(bytes), pinned_back(bytes);
  DeviceBuffer<char> device(bytes), device_back(bytes);
  const std::unique_ptr<char[]> pageable(new char[bytes]);
  for (std::size_t i = 0; i < bytes; i += 4096) pageable[i] = static_cast<char>(i);  // every page mapped
  for (std::size_t i = 0; i < bytes; i += 4096) pinned.get()[i] = static_cast<char>(i);
  const std::vector<Stream> owned(4);
  std::vector<cudaStream_t> streams;
  for (const Stream& s : owned) streams.push_back(s.get());
  // One copy of `bytes` split over the first `ways` streams, at once: its rate.
  const auto split_gbps = [&](char* dst, const char* src, cudaMemcpyKind kind, std::size_t ways) {
    const std::vector<cudaStream_t> used(streams.begin(), streams.begin() + static_cast<std::ptrdiff_t>(ways));
    return gbps(bytes, median_ms(used, [&] {
      const std::size_t part = bytes / ways;
      for (std::size_t i = 0; i < ways; ++i) {
        const std::size_t offset = i * part, size = i + 1 == ways ? bytes - offset : part;
        LB_CUDA_CHECK(cudaMemcpyAsync(dst + offset, src + offset, size, kind, used[i]));
      }
    }));
  };
  // The best of one, two and four streams: a trip overlaps copies of the same direction too, and a
  // GPU with several copy engines may move more that way.
  const auto best_gbps = [&](char* dst, const char* src, cudaMemcpyKind kind) {
    return std::max({split_gbps(dst, src, kind, 1), split_gbps(dst, src, kind, 2), split_gbps(dst, src, kind, 4)});
  };
  const cudaStream_t s1 = streams[0], s2 = streams[1];
  LinkBandwidth link;
  link.h2d_gbps = best_gbps(device.get(), pinned.get(), cudaMemcpyHostToDevice);
  link.d2h_gbps = best_gbps(pinned.get(), device.get(), cudaMemcpyDeviceToHost);
  link.h2d_pageable_gbps =
      gbps(bytes, host_median_ms(device.get(), pageable.get(), bytes, cudaMemcpyHostToDevice, s1));
  link.d2h_pageable_gbps =
      gbps(bytes, host_median_ms(pageable.get(), device.get(), bytes, cudaMemcpyDeviceToHost, s1));
  // Both directions at once, each timed on its own stream from a common start.
  Event start, up_done, down_done;
  std::vector<double> up_ms, down_ms;
  for (int rep = 0; rep < kWarmups + kReps; ++rep) {
    start.record(s1);
    LB_CUDA_CHECK(cudaStreamWaitEvent(s2, start.get(), 0));
    LB_CUDA_CHECK(cudaMemcpyAsync(device.get(), pinned.get(), bytes, cudaMemcpyHostToDevice, s1));
    LB_CUDA_CHECK(cudaMemcpyAsync(pinned_back.get(), device_back.get(), bytes, cudaMemcpyDeviceToHost, s2));
    up_done.record(s1);
    down_done.record(s2);
    const double up = Event::elapsed_ms(start, up_done), down = Event::elapsed_ms(start, down_done);
    if (rep >= kWarmups) {
      up_ms.push_back(up);
      down_ms.push_back(down);
    }
  }
  link.duplex_h2d_gbps = gbps(bytes, median(std::move(up_ms)));
  link.duplex_d2h_gbps = gbps(bytes, median(std::move(down_ms)));
  return link;
}

}  // namespace lb::lab
