#include "variants/driver/driver_layer.h"

#include <chrono>

#include "common/elapsed.h"
#include "common/gpu.h"
#include "variants/driver/kernel_sources.h"
#include "variants/driver/nvrtc_compiler.h"

namespace lb::driver {
namespace {

KernelCache cache_of(const LayerConfig& config) {
  return {config.kernel_cache_dir.empty() ? KernelCache::default_dir() : config.kernel_cache_dir,
          config.kernel_cache_enabled};
}

std::string unavailable_reason() {
  if (std::string why = gpu_unavailable_reason(); !why.empty()) return why;  // the same line as the others
  return api_unavailable_reason();
}

}  // namespace

struct Session::Module {
  CUmodule handle = nullptr;
  ~Module() {
    if (handle) cu().cuModuleUnload(handle);
  }
};

Session::Session(const LayerConfig& config, CostLog& costs) : config_(config) {
  LB_CU_CHECK(cu().cuDeviceGet(&device_, 0));
  const auto t0 = std::chrono::steady_clock::now();
  CUcontext context = nullptr;
  LB_CU_CHECK(cu().cuDevicePrimaryCtxRetain(&context, device_));
  LB_CU_CHECK(cu().cuCtxSetCurrent(context));
  retain_ms_ = ms_since(t0);
  costs.add("primary context retain (the context already existed)", retain_ms_);
  int major = 0, minor = 0;
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_));
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_));
  LB_CU_CHECK(cu().cuDeviceGetAttribute(&sm_count_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_));
  sm_ = major * 10 + minor;
}

Session::~Session() {
  modules_.clear();  // unload before the context is released
  cu().cuDevicePrimaryCtxRelease(device_);
}

CUmodule Session::module(const std::string& path, const std::string& label, CostLog& costs) {
  auto& entry = modules_[path];
  if (!entry) {
    // --kernel-text: the text read from the user's file instead of the embedded one, compiled under
    // the file's name (NVRTC's log names it). The cache key hashes the text, so neither text is
    // ever served the other's CUBIN.
    const LayerConfig::KernelText* replaced = nullptr;
    for (const auto& [name, given] : config_.kernel_texts)
      if (path == "workloads/" + name + "/kernels.cu") replaced = &given;
    const std::string source = replaced ? replaced->file : path;
    CompileRequest request{source, replaced ? replaced->text : std::string(embedded_source(path).text), {}, sm_};
    for (const EmbeddedSource& s : embedded_sources())  // every shared header, under its include name
      if (std::string(s.path).ends_with(".h")) request.headers.emplace_back(s.path, s.text);
    const CompiledKernel compiled = compile_cubin(request, cache_of(config_));

    auto loaded = std::make_unique<Module>();
    const auto t0 = std::chrono::steady_clock::now();
    LB_CU_CHECK(cu().cuModuleLoadData(&loaded->handle, compiled.cubin.data()));
    const double load_ms = ms_since(t0);
    entry = std::move(loaded);
    costs.add("NVRTC " + label + (compiled.from_cache ? " (cache hit)" : " (compiled)"), compiled.compile_ms);
    costs.add("cuModuleLoadData " + label, load_ms);
    kernels_[label] = {{"source", source},
                       {"replaced_kernel_text", replaced != nullptr},
                       {"nvrtc_compile_ms", compiled.compile_ms},
                       {"from_cache", compiled.from_cache},
                       {"cache_file", compiled.cache_file},
                       {"cubin_bytes", compiled.cubin.size()},
                       {"module_load_ms", load_ms},
                       {"nvrtc_log", compiled.log}};
  }
  return entry->handle;
}

CUfunction Session::kernel(const std::string& workload, const char* name, CostLog& costs) {
  CUfunction function = nullptr;
  LB_CU_CHECK(cu().cuModuleGetFunction(&function, module("workloads/" + workload + "/kernels.cu", workload, costs), name));
  return function;
}

CUfunction Session::rung_kernel(const Rung& rung, CostLog& costs) {
  CUfunction function = nullptr;
  LB_CU_CHECK(cu().cuModuleGetFunction(&function, module(rung.file, rung.id(), costs), rung.kernel.c_str()));
  return function;
}

nlohmann::json Session::describe() const {
  nlohmann::json j = {{"kernel_cache", config_.kernel_cache_enabled ? cache_of(config_).dir : "off"},
                      {"compile_options", nvrtc_options(sm_)},
                      {"context_retain_ms", retain_ms_},
                      {"kernels", kernels_}};
  if (!config_.kernel_texts.empty()) {  // --kernel-text, whether or not a case compiled it
    nlohmann::json replaced = nlohmann::json::object();
    for (const auto& [name, given] : config_.kernel_texts) replaced[name] = given.file;
    j["replaced_kernel_texts"] = replaced;
  }
  return j;
}

DeviceMemory::DeviceMemory(std::size_t floats) : bytes_(floats * sizeof(float)) {
  if (bytes_ > 0) LB_CU_CHECK(cu().cuMemAlloc(&ptr_, bytes_));
}
DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = 0;
  other.bytes_ = 0;
}
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  std::swap(ptr_, other.ptr_);
  std::swap(bytes_, other.bytes_);
  return *this;
}
DeviceMemory::~DeviceMemory() {
  if (ptr_) cu().cuMemFree(ptr_);
}
void DeviceMemory::upload(std::span<const float> host, CUstream stream) {
  LB_CU_CHECK(cu().cuMemcpyHtoDAsync(ptr_, host.data(), host.size_bytes(), stream));
  LB_CU_CHECK(cu().cuStreamSynchronize(stream));
}
void DeviceMemory::download(std::span<float> host, CUstream stream) const {
  LB_CU_CHECK(cu().cuMemcpyDtoHAsync(host.data(), ptr_, host.size_bytes(), stream));
  LB_CU_CHECK(cu().cuStreamSynchronize(stream));
}

void launch(CUfunction kernel, unsigned grid_x, unsigned grid_y, unsigned block, void** args, CUstream stream) {
  LB_CU_CHECK(cu().cuLaunchKernel(kernel, grid_x, grid_y, 1, block, 1, 1, /*shared bytes*/ 0, stream, args,
                                  /*extra*/ nullptr));
}

void allow_rung_smem(CUfunction kernel, unsigned smem_bytes) {
  if (smem_bytes > kDefaultDynamicSmemLimit)
    LB_CU_CHECK(cu().cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(smem_bytes)));
}

void launch(CUfunction kernel, const RungLaunch& l, void** args, CUstream stream) {
  LB_CU_CHECK(cu().cuLaunchKernel(kernel, l.grid_x, l.grid_y, 1, l.block_x, l.block_y, 1, l.smem_bytes, stream, args,
                                  /*extra*/ nullptr));
}

LB_REGISTER_LAYER(Layer{
    .name = "driver",
    .summary = "CUDA driver API + NVRTC: the runtime layer's kernel text compiled at run time",
    .on_gpu = true,
    .rank = 20,
    .unavailable_reason = unavailable_reason,
    .describe = [] { return nlohmann::json{{"nvrtc_version", nvrtc_version()}}; },
    .open_session = [](const LayerConfig& config, CostLog& costs) -> std::unique_ptr<LayerSession> {
      return std::make_unique<Session>(config, costs);
    },
    .runs_rungs = true,
    .kernel_texts = [] {
      std::vector<std::string> names;  // "workloads/<name>/kernels.cu" -> name
      for (const EmbeddedSource& s : embedded_sources()) {
        const std::string path = s.path;
        if (path.starts_with("workloads/") && path.ends_with("/kernels.cu") && path.find('/', 10) == path.size() - 11)
          names.push_back(path.substr(10, path.size() - 21));
      }
      return names;
    }(),
});

}  // namespace lb::driver
