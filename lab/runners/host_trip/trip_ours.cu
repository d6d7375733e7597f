#include "lab/runners/host_trip/trip_ours.h"

#include <algorithm>
#include <array>

namespace lb::lab {
namespace {

constexpr int kStreams = 4;
constexpr long long kChunk = 1LL << 21;  // floats: 8 MiB a buffer, 32 chunks at 2^26
constexpr int kBlock = 256;

// c = a + b over one chunk, 4 floats a thread where the chunk's start is 16-byte aligned (every
// chunk but a tail after an odd offset is: the buffers are cudaMalloc'd and chunks are 2^21 long).
__global__ void add_chunk(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                          long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long quads = n / 4;
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  auto* c4 = reinterpret_cast<float4*>(c);
  for (long long q = first; q < quads; q += stride) {
    const float4 x = a4[q], y = b4[q];
    c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (long long i = quads * 4 + first; i < n; i += stride) c[i] = a[i] + b[i];
}

class OurTrip final : public Trip {
 public:
  ~OurTrip() override { teardown(); }
  void* host_alloc(std::size_t bytes) override {
    void* p = nullptr;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
  }
  void host_free(void* p) override { cudaFreeHost(p); }

  cudaError_t setup(long long n) override {
    teardown();
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
    for (float** d : {&a_, &b_, &c_})
      if (const cudaError_t e = cudaMalloc(d, bytes); e != cudaSuccess) return e;
    for (cudaStream_t& s : streams_)
      if (const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess) return e;
    return cudaSuccess;
  }

  cudaError_t trip(const float* a, const float* b, float* c, long long n) override {
    const long long chunk = our_chunk_elements(n);
    for (long long start = 0, k = 0; start < n; start += chunk, ++k) {
      const long long count = std::min(chunk, n - start);
      const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(float);
      const cudaStream_t s = streams_[k % kStreams];
      cudaMemcpyAsync(a_ + start, a + start, bytes, cudaMemcpyHostToDevice, s);
      cudaMemcpyAsync(b_ + start, b + start, bytes, cudaMemcpyHostToDevice, s);
      const long long blocks = std::min<long long>((count / 4 + kBlock - 1) / kBlock + 1, 1024);
      add_chunk<<<static_cast<unsigned>(blocks), kBlock, 0, s>>>(a_ + start, b_ + start, c_ + start, count);
      cudaMemcpyAsync(c + start, c_ + start, bytes, cudaMemcpyDeviceToHost, s);
    }
    for (cudaStream_t s : streams_)
      if (const cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return e;
    return cudaGetLastError();
  }

  cudaError_t teardown() override {
    for (float** d : {&a_, &b_, &c_}) {
      if (*d) cudaFree(*d);
      *d = nullptr;
    }
    for (cudaStream_t& s : streams_) {
      if (s) cudaStreamDestroy(s);
      s = nullptr;
    }
    return cudaGetLastError();
  }

 private:
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  std::array<cudaStream_t, kStreams> streams_{};
};

}  // namespace

long long our_chunk_elements(long long n) { return std::min(n, kChunk); }

std::unique_ptr<Trip> make_our_trip() { return std::make_unique<OurTrip>(); }

}  // namespace lb::lab
