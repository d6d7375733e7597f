// The driver layer's public interface, for code above variants/ that compiles and launches a kernel
// text of its own (the labs: a student's file). What the layer does for its own kernels, in small
// steps: compile the text with NVRTC through the layer's kernel cache, load it on device 0's
// primary context, look a kernel up by name, move floats to and from device memory, launch.
//
// Nothing here needs the driver API's header: a device address is an integer (as CUdeviceptr is),
// a stream is the runtime's cudaStream_t (the same handle as a CUstream), and a module or a kernel
// is an opaque handle. Errors are exceptions: CudaError (common/cuda_check.h) from a driver call,
// CompileFailed when the text does not compile, std::runtime_error when no driver can be loaded.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

struct CUmod_st;   // CUmodule's
struct CUfunc_st;  // CUfunction's

namespace lb::driver {

// Why the driver layer cannot run here (no usable GPU, no driver library, cuInit failed); empty
// when it can.
std::string unavailable_reason();

// A device address, as cuMemAlloc gives it (CUdeviceptr is this type).
using DevicePtr = unsigned long long;

// Device memory from cuMemAlloc, freed by cuMemFree. Move-only.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t floats);
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory();

  DevicePtr get() const { return ptr_; }
  // cuMemcpy*Async on `stream`, then cuStreamSynchronize: done (and, for download, the work
  // enqueued before it too) when they return. The _at forms start `offset` floats into the buffer.
  void upload(std::span<const float> host, cudaStream_t stream) { upload_at(0, host, stream); }
  void download(std::span<float> host, cudaStream_t stream) const { download_at(0, host, stream); }
  void upload_at(std::size_t offset, std::span<const float> host, cudaStream_t stream);
  void download_at(std::size_t offset, std::span<float> host, cudaStream_t stream) const;
  // Enqueued on `stream`, not waited for: `floats` floats copied from device address `source` to
  // the buffer's start (cuMemcpyDtoDAsync), or the first `floats` set to 0.0f (cuMemsetD32Async).
  void copy_from(DevicePtr source, std::size_t floats, cudaStream_t stream);
  void zero(std::size_t floats, cudaStream_t stream);

 private:
  DevicePtr ptr_ = 0;
  std::size_t bytes_ = 0;
};

// Device 0's primary context (the one the runtime API, and so the harness, works in), retained and
// made current on this thread for as long as this lives; released after. Modules loaded in it must
// be unloaded first (destroy them before it).
class PrimaryContext {
 public:
  PrimaryContext();
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  int sm() const { return sm_; }              // compute capability as 90 for 9.0: what NVRTC targets
  int sm_count() const { return sm_count_; }  // multiprocessors
  int threads_per_sm() const { return threads_per_sm_; }  // the most resident threads on one
  double retain_ms() const { return retain_ms_; }

 private:
  int device_ = 0, sm_ = 0, sm_count_ = 0, threads_per_sm_ = 0;
  double retain_ms_ = 0;
};

// A kernel text to compile.
struct KernelSource {
  std::string file;  // names the program in NVRTC's log: "<file>(<line>): error: ..."
  std::string text;  // compiled alone: no include path, no headers
  std::vector<std::string> options;  // after the layer's own (nvrtc_options), e.g. "--generate-line-info", "-G"
  int sm = 90;                       // target: sm_<sm> machine code
  bool use_cache = true;             // the layer's kernel cache (its default folder); false: always compile
};

// The text did not compile: what() names the file, log() is NVRTC's log alone.
class CompileFailed : public std::runtime_error {
 public:
  CompileFailed(const std::string& message, std::string log) : std::runtime_error(message), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

struct CompiledProgram {
  std::string cubin;        // the machine code (an ELF image)
  bool from_cache = false;
  double compile_ms = 0.0;  // NVRTC's time, or the cache read's on a hit
  std::string log;          // NVRTC's warnings; empty on a cache hit
};

// NVRTC, for sm_<source.sm>, with the options every driver-layer compile gets, or the cached CUBIN.
// Throws CompileFailed when the text does not compile (std::runtime_error for NVRTC's other failures).
CompiledProgram compile_program(const KernelSource& source);

struct LaunchDims;
class ArgumentSlots;

// A kernel of a loaded module; valid while its Module lives.
class Kernel {
 public:
  Kernel() = default;
  explicit operator bool() const { return function_ != nullptr; }

 private:
  friend class Module;
  friend void launch_kernel(const Kernel&, const LaunchDims&, const ArgumentSlots&, cudaStream_t);
  friend void allow_shared_bytes(const Kernel&, unsigned);
  explicit Kernel(CUfunc_st* function) : function_(function) {}
  CUfunc_st* function_ = nullptr;
};

// A CUBIN loaded with cuModuleLoadData on the current context (a PrimaryContext's), unloaded when
// this is destroyed. Move-only.
class Module {
 public:
  explicit Module(const CompiledProgram& program);
  Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}
  Module& operator=(Module&& other) noexcept {
    std::swap(module_, other.module_);
    return *this;
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();
  // cuModuleGetFunction: CudaError (CUDA_ERROR_NOT_FOUND) when the module has no such symbol.
  Kernel kernel(const std::string& name) const;

 private:
  CUmod_st* module_ = nullptr;
};

// A kernel's parameter values, in order: one 8-byte slot each, the value at its start. The driver
// copies as many bytes from a slot as the kernel's parameter has (8 for a pointer or a long long, 4
// for an int or a float), so a value is pushed as the exact C type of its parameter.
class ArgumentSlots {
 public:
  template <class T>
  void push(T value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t), "one slot per parameter");
    std::uint64_t slot = 0;
    std::memcpy(&slot, &value, sizeof value);
    slots_.push_back(slot);
  }
  std::size_t size() const { return slots_.size(); }

 private:
  friend void launch_kernel(const Kernel&, const LaunchDims&, const ArgumentSlots&, cudaStream_t);
  std::vector<std::uint64_t> slots_;
};

// Blocks in the grid and threads in a block, per dimension; dynamic shared memory in bytes.
struct LaunchDims {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1, block_y = 1, block_z = 1;
  unsigned shared_bytes = 0;
};

// Lets `kernel` launch with `bytes` of dynamic shared memory: above the default 48 KiB the limit
// must be raised first (cuFuncSetAttribute); below it, nothing to do.
void allow_shared_bytes(const Kernel& kernel, unsigned bytes);

// cuLaunchKernel on `stream`: enqueued, not waited for.
void launch_kernel(const Kernel& kernel, const LaunchDims& dims, const ArgumentSlots& args, cudaStream_t stream);

}  // namespace lb::driver
