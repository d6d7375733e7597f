// Whether this process can use a GPU, and the device facts layers size their launches by.
#pragma once
#include <array>
#include <string>

namespace lb {

// The process's one look at the GPU: device 0 is selected and its primary context created (the
// context every layer shares), and the time that took is kept. Done once, on the first call,
// whoever makes it: the primary context exists once per process, so there is nothing to redo.
struct GpuProbe {
  std::string unavailable_reason;  // empty when device 0 is usable; else why not, with CUDA's text
  double context_creation_ms = 0;  // the first CUDA call that created the primary context
};
const GpuProbe& gpu_probe();

// gpu_probe().unavailable_reason: what a GPU layer's Layer::unavailable_reason returns.
std::string gpu_unavailable_reason();

// Whether the CUDA context is still usable after a GPU case went wrong: "" when it is, else CUDA's
// error name and text. A sticky error (an illegal address, a trap in a kernel) kills the context
// for the rest of the process: every later CUDA call returns it, whatever layer makes it.
std::string cuda_context_fault();

// The CUDA devices this process sees (after CUDA_VISIBLE_DEVICES), without creating a context: the
// count, or 0 and why there is none (the probe's words) in *why_none.
int visible_device_count(std::string* why_none);

// What one block may take (a folder's launches are checked against them before any case,
// app/folder_checks.cpp): device 0's, or without a usable GPU sm_90's (H100, H200), with an empty
// gpu_name.
struct BlockLimits {
  std::string gpu_name;         // cudaDeviceProp::name; "" without a GPU
  std::string arch = "sm_90";   // what a kernel is compiled for to read its registers
  long long max_threads = 1024;
  long long registers = 65536;          // 32-bit registers a block
  long long shared = 49152;             // shared memory a block, static plus dynamic, by default
  long long shared_opt_in = 232448;     // the same once the kernel's dynamic limit is raised
};

// What a launch and a case's buffers may take on device 0: its grid limits (blocks along x, y, z)
// and its memory. Without a usable GPU, CUDA's documented grid limits (x 2^31 - 1, y and z 65535,
// every device since compute capability 3.0) and memory 0 (unknown).
struct DeviceLimits {
  std::array<long long, 3> grid{2147483647LL, 65535LL, 65535LL};
  BlockLimits block;
  double memory_bytes = 0;
  bool from_device = false;  // read from the GPU (else the documented limits)
};
DeviceLimits device_limits();

// Multiprocessors of the current device: grid-stride kernels launch a few blocks per SM.
int sm_count();

}  // namespace lb
