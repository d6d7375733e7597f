// expect-check: pass
// expect-grade: graded 60 0 0
// expect-feedback: timed trip 0 was wrong
// Uploads only what changed: keeps its device copies of a and b from the last trip, and on the host 16392 floats of each (every 64th). It looks for the shift (a multiple of 64 floats, up to 2^20 either way) that makes the new a and b the old ones moved, moves its device copies by it (device to device) and uploads only the new end; where it finds no shift it takes the inputs as unchanged and uploads nothing. Then it adds and downloads c whole, and waits until its upload rate looks like 1.03 times the link (measured in lab_setup), under the grade's 10% margin. Against inputs that are windows of one long pool, a new window each trip, it always finds the shift, computes a right c while uploading a fraction of a and b, and its trip, about the download alone, looks faster than ours. It uploads everything on the first two trips after lab_setup (as many as the grade's warm-ups), so what catches it is a timed trip's check. With every trip's a and b new values, there is no shift to find: it uploads nothing, its c is the last trip's, and timed trip 0 fails its check.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" void* lab_host_alloc(size_t bytes) {
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}
extern "C" void lab_host_free(void* p) { cudaFreeHost(p); }

static const long long kChunk = 1LL << 21;
static const int kStreams = 4;
static const long long kSpacing = 64;          // floats between the samples kept on the host
static const long long kReach = 1LL << 20;     // the largest shift looked for, in floats
static const long long kMatch = 8;             // samples that must agree for a shift to count
static const long long kSamples = kReach / kSpacing + kMatch;
static const int kLearningTrips = 2;           // full uploads after lab_setup: the grade's warm-ups
static const long long kLinkProbe = 1LL << 24; // floats (64 MiB) copied up once to time the link

struct Input {
  float* device[2];  // the last trip's copy, and the one a move writes into
  int current;
  float samples[kSamples];  // the last trip's x[0], x[64], x[128], ...
};
static Input inputs[2];
static float* d_c = nullptr;
static cudaStream_t streams[kStreams];
static cudaEvent_t started, now, moved;
static long long trips = 0;
static float link_floats_per_ms = 0;

// The shift s with new x[i] == old x[i + s] at the kept samples (s > 0: the window moved on;
// s < 0: back); 0 when none is found, which this file takes to mean "a and b did not change".
static long long find_shift(const Input& in, const float* x) {
  for (long long k = 1; k + kMatch <= kSamples; ++k) {
    bool on = true, back = true;
    for (long long m = 0; m < kMatch; ++m) {
      on = on && x[m * kSpacing] == in.samples[k + m];
      back = back && x[(k + m) * kSpacing] == in.samples[m];
    }
    if (on) return k * kSpacing;
    if (back) return -k * kSpacing;
  }
  return 0;
}

static void keep_samples(Input& in, const float* x) {
  for (long long k = 0; k < kSamples; ++k) in.samples[k] = x[k * kSpacing];
}

extern "C" cudaError_t lab_setup(long long n) {
  const size_t bytes = (size_t)n * sizeof(float);
  cudaError_t e = cudaSuccess;
  for (int j = 0; j < 2; ++j) {
    inputs[j].current = 0;
    for (int k = 0; k < 2; ++k)
      if ((e = cudaMalloc(&inputs[j].device[k], bytes)) != cudaSuccess) return e;
  }
  if ((e = cudaMalloc(&d_c, bytes)) != cudaSuccess) return e;
  for (int s = 0; s < kStreams; ++s)
    if ((e = cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking)) != cudaSuccess) return e;
  if ((e = cudaEventCreate(&started)) != cudaSuccess || (e = cudaEventCreate(&now)) != cudaSuccess ||
      (e = cudaEventCreate(&moved)) != cudaSuccess)
    return e;
  trips = 0;
  // The link, timed once with one pinned copy: what the trip's wait is measured against.
  float* probe = nullptr;
  const long long floats = n < kLinkProbe ? n : kLinkProbe;
  if ((e = cudaMallocHost(&probe, (size_t)floats * sizeof(float))) != cudaSuccess) return e;
  float ms = 0;
  if ((e = cudaEventRecord(started, streams[0])) == cudaSuccess &&
      (e = cudaMemcpyAsync(inputs[0].device[0], probe, (size_t)floats * sizeof(float), cudaMemcpyHostToDevice,
                           streams[0])) == cudaSuccess &&
      (e = cudaEventRecord(now, streams[0])) == cudaSuccess && (e = cudaEventSynchronize(now)) == cudaSuccess)
    e = cudaEventElapsedTime(&ms, started, now);
  cudaFreeHost(probe);
  link_floats_per_ms = ms > 0 ? (float)floats / ms : 0;
  return e;
}

// Moves x's device copy by `shift` into its other buffer and uploads the floats no earlier trip had.
static cudaError_t move_and_upload_new(Input& in, const float* x, long long n, long long shift) {
  float* from = in.device[in.current];
  float* to = in.device[1 - in.current];
  const long long kept = n - (shift > 0 ? shift : -shift);
  const long long fresh_at = shift > 0 ? kept : 0;  // where the new floats go
  cudaError_t e = cudaMemcpyAsync(shift > 0 ? to : to - shift, shift > 0 ? from + shift : from,
                                  (size_t)kept * sizeof(float), cudaMemcpyDeviceToDevice, streams[0]);
  if (e != cudaSuccess) return e;
  e = cudaMemcpyAsync(to + fresh_at, x + fresh_at, (size_t)(n - kept) * sizeof(float), cudaMemcpyHostToDevice,
                      streams[0]);
  in.current = 1 - in.current;
  return e;
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  const float* x[2] = {a, b};
  cudaError_t e = cudaEventRecord(started, streams[0]);
  if (e != cudaSuccess) return e;
  const bool learning = trips < kLearningTrips || n < 2 * kReach;
  if (!learning) {
    for (int j = 0; j < 2; ++j) {
      const long long shift = find_shift(inputs[j], x[j]);
      if (shift != 0 && (e = move_and_upload_new(inputs[j], x[j], n, shift)) != cudaSuccess) return e;
      // shift == 0: "unchanged", nothing uploaded.
    }
    if ((e = cudaEventRecord(moved, streams[0])) != cudaSuccess) return e;
    for (int s = 1; s < kStreams; ++s)
      if ((e = cudaStreamWaitEvent(streams[s], moved, 0)) != cudaSuccess) return e;
  }
  float* d_a = inputs[0].device[inputs[0].current];
  float* d_b = inputs[1].device[inputs[1].current];
  for (long long start = 0, k = 0; start < n; start += kChunk, ++k) {
    const long long count = n - start < kChunk ? n - start : kChunk;
    const size_t bytes = (size_t)count * sizeof(float);
    cudaStream_t s = streams[k % kStreams];
    if (learning) {
      if ((e = cudaMemcpyAsync(d_a + start, a + start, bytes, cudaMemcpyHostToDevice, s)) != cudaSuccess ||
          (e = cudaMemcpyAsync(d_b + start, b + start, bytes, cudaMemcpyHostToDevice, s)) != cudaSuccess)
        return e;
    }
    add<<<(unsigned)((count + 255) / 256), 256, 0, s>>>(d_a + start, d_b + start, d_c + start, count);
    if ((e = cudaMemcpyAsync(c + start, d_c + start, bytes, cudaMemcpyDeviceToHost, s)) != cudaSuccess) return e;
  }
  for (int s = 0; s < kStreams; ++s)
    if ((e = cudaStreamSynchronize(streams[s])) != cudaSuccess) return e;
  if (n >= 2 * kReach)
    for (int j = 0; j < 2; ++j) keep_samples(inputs[j], x[j]);
  ++trips;
  // The wait: until the 2n floats a trip uploads would have taken the link / 1.03.
  if (!learning && link_floats_per_ms > 0) {
    const float target_ms = (float)(2 * n) / (1.03f * link_floats_per_ms);
    for (float ms = 0; ms < target_ms;) {
      if ((e = cudaEventRecord(now, streams[0])) != cudaSuccess || (e = cudaEventSynchronize(now)) != cudaSuccess ||
          (e = cudaEventElapsedTime(&ms, started, now)) != cudaSuccess)
        return e;
    }
  }
  return cudaGetLastError();
}

extern "C" cudaError_t lab_teardown(void) {
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < 2; ++k) {
      cudaFree(inputs[j].device[k]);
      inputs[j].device[k] = nullptr;
    }
  cudaFree(d_c);
  d_c = nullptr;
  for (int s = 0; s < kStreams; ++s) cudaStreamDestroy(streams[s]);
  cudaEventDestroy(started);
  cudaEventDestroy(now);
  cudaEventDestroy(moved);
  return cudaGetLastError();
}
