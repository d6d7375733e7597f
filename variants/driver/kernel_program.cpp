#include "variants/driver/kernel_program.h"

#include <cuda.h>

#include <chrono>
#include <type_traits>

#include "common/elapsed.h"
#include "common/gpu.h"
#include "variants/driver/driver_api.h"
#include "variants/driver/kernel_cache.h"
#include "variants/driver/nvrtc_compiler.h"

namespace lb::driver {

// The header spells the driver's types without cuda.h; these are what it relies on.
static_assert(std::is_same_v<DevicePtr, CUdeviceptr>);
static_assert(std::is_same_v<cudaStream_t, CUstream>);
static_assert(std::is_same_v<CUmod_st*, CUmodule>);
static_assert(std::is_same_v<CUfunc_st*, CUfunction>);

std::string unavailable_reason() {
  if (std::string why = gpu_unavailable_reason(); !why.empty()) return why;  // the same line as the other layers'
  return api_unavailable_reason();
}

// --- device memory ------------------------------------------------------------------------------

DeviceMemory::DeviceMemory(std::size_t floats) : bytes_(floats * sizeof(float)) {
  if (bytes_ > 0) LB_CU_CHECK(cu().cuMemAlloc(&ptr_, bytes_));
}
DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  std::swap(ptr_, other.ptr_);
  std::swap(bytes_, other.bytes_);
  return *this;
}
DeviceMemory::~DeviceMemory() {
  if (ptr_) cu().cuMemFree(ptr_);  // a destructor reports nothing: the memory is gone with the context anyway
}
void DeviceMemory::upload_at(std::size_t offset, std::span<const float> host, cudaStream_t stream) {
  LB_CU_CHECK(cu().cuMemcpyHtoDAsync(ptr_ + offset * sizeof(float), host.data(), host.size_bytes(), stream));
  LB_CU_CHECK(cu().cuStreamSynchronize(stream));
}
void DeviceMemory::download_at(std::size_t offset, std::span<float> host, cudaStream_t stream) const {
  LB_CU_CHECK(cu().cuMemcpyDtoHAsync(host.data(), ptr_ + offset * sizeof(float), host.size_bytes(), stream));
  LB_CU_CHECK(cu().cuStreamSynchronize(stream));
}
void DeviceMemory::copy_from(DevicePtr source, std::size_t floats, cudaStream_t stream) {
  LB_CU_CHECK(cu().cuMemcpyDtoDAsync(ptr_, source, floats * sizeof(float), stream));
}
void DeviceMemory::zero(std::size_t floats, cudaStream_t stream) {
  LB_CU_CHECK(cu().cuMemsetD32Async(ptr_, 0, floats, stream));  // 0.0f is all zero bits
}

// --- the primary context ------------------------------------------------------------------------

PrimaryContext::PrimaryContext() {
  CUdevice device = 0;
  LB_CU_CHECK(cu().cuDeviceGet(&device, 0));
  device_ = device;
  const auto t0 = std::chrono::steady_clock::now();
  CUcontext context = nullptr;
  LB_CU_CHECK(cu().cuDevicePrimaryCtxRetain(&context, device));
  if (const CUresult status = cu().cuCtxSetCurrent(context); status != CUDA_SUCCESS) {
    cu().cuDevicePrimaryCtxRelease(device);  // the constructor throws: no destructor will release it
    throw_cu_error(status, "cuCtxSetCurrent(context)", __FILE__, __LINE__);
  }
  retain_ms_ = ms_since(t0);
  int major = 0, minor = 0;
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&sm_count_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&threads_per_sm_, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device));
  sm_ = major * 10 + minor;
}

PrimaryContext::~PrimaryContext() { cu().cuDevicePrimaryCtxRelease(device_); }

// --- compile, load, look up, launch --------------------------------------------------------------

CompiledProgram compile_program(const KernelSource& source) {
  CompiledKernel compiled;
  try {
    compiled = compile_cubin({source.file, source.text, {}, source.sm, source.options},
                             {KernelCache::default_dir(), source.use_cache});
  } catch (const NvrtcCompileError& e) {
    throw CompileFailed(e.what(), e.log());
  }
  return {std::move(compiled.cubin), compiled.from_cache, compiled.compile_ms, std::move(compiled.log)};
}

Module::Module(const CompiledProgram& program) {
  CUmodule module = nullptr;
  LB_CU_CHECK(cu().cuModuleLoadData(&module, program.cubin.data()));
  module_ = module;
}

Module::~Module() {
  if (module_) cu().cuModuleUnload(module_);
}

Kernel Module::kernel(const std::string& name) const {
  CUfunction function = nullptr;
  LB_CU_CHECK(cu().cuModuleGetFunction(&function, module_, name.c_str()));
  return Kernel(function);
}

void launch_kernel(const Kernel& kernel, const LaunchDims& d, const ArgumentSlots& args, cudaStream_t stream) {
  // cuLaunchKernel reads one pointer per parameter; each points at its slot.
  std::vector<void*> pointers;
  pointers.reserve(args.slots_.size());
  for (const std::uint64_t& slot : args.slots_) pointers.push_back(const_cast<std::uint64_t*>(&slot));
  LB_CU_CHECK(cu().cuLaunchKernel(kernel.function_, d.grid_x, d.grid_y, d.grid_z, d.block_x, d.block_y, d.block_z,
                                  d.shared_bytes, stream, pointers.data(), /*extra*/ nullptr));
}

}  // namespace lb::driver
