#include "variants/driver/driver_layer.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "harness/device_info.h"
#include "harness/elapsed.h"
#include "variants/driver/kernel_sources.h"
#include "variants/driver/nvrtc_compiler.h"

namespace lb::driver {
namespace {

struct Module {
  CUmodule handle = nullptr;
  ~Module() {
    if (handle) cu().cuModuleUnload(handle);
  }
};

// Device 0's primary context (the one the runtime API uses too), retained for the process.
struct Context {
  CUdevice device = 0;
  CUcontext handle = nullptr;
  int sm = 0, sm_count = 0;
  double retain_ms = 0.0;
  std::map<std::string, std::unique_ptr<Module>> modules;  // by workload
  nlohmann::json kernels = nlohmann::json::object();       // one-time costs, by workload

  Context() {
    LB_CU_CHECK(cu().cuDeviceGet(&device, 0));
    const auto t0 = std::chrono::steady_clock::now();
    LB_CU_CHECK(cu().cuDevicePrimaryCtxRetain(&handle, device));
    LB_CU_CHECK(cu().cuCtxSetCurrent(handle));
    retain_ms = ms_since(t0);
    int major = 0, minor = 0;
    LB_CU_CHECK(cu().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    LB_CU_CHECK(cu().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    LB_CU_CHECK(cu().cuDeviceGetAttribute(&sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    sm = major * 10 + minor;
  }
  ~Context() {
    modules.clear();  // unload before the context goes
    cu().cuDevicePrimaryCtxRelease(device);
  }
};

Context& context() {
  static Context ctx;
  return ctx;
}
bool context_started = false;

KernelCache cache_from_settings() {
  const RuntimeCompileSettings& s = runtime_compile_settings();
  return {s.cache_dir.empty() ? KernelCache::default_dir() : s.cache_dir, s.cache_enabled};
}

// cuEvent pair on the legacy default stream (stream handle 0).
class EventClock final : public SampleClock {
 public:
  EventClock() {
    context();
    LB_CU_CHECK(cu().cuEventCreate(&start_, CU_EVENT_DEFAULT));
    LB_CU_CHECK(cu().cuEventCreate(&stop_, CU_EVENT_DEFAULT));
  }
  ~EventClock() override {
    cu().cuEventDestroy(start_);
    cu().cuEventDestroy(stop_);
  }
  EventClock(const EventClock&) = delete;
  EventClock& operator=(const EventClock&) = delete;
  void start() override { LB_CU_CHECK(cu().cuEventRecord(start_, nullptr)); }
  void stop() override { LB_CU_CHECK(cu().cuEventRecord(stop_, nullptr)); }
  double elapsed_ms() override {
    LB_CU_CHECK(cu().cuEventSynchronize(stop_));
    float ms = 0.0f;
    LB_CU_CHECK(cu().cuEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

std::string unavailable_reason() {
  if (std::string why = gpu_unavailable_reason(); !why.empty()) return why;  // the same line as the others
  return api_unavailable_reason();
}

nlohmann::json describe() {
  const RuntimeCompileSettings& s = runtime_compile_settings();
  nlohmann::json j = {{"nvrtc_version", nvrtc_version()},
                      {"kernel_cache", s.cache_enabled ? cache_from_settings().dir : "off"}};
  if (!context_started) return j;
  const Context& ctx = context();
  j["compile_options"] = nvrtc_options(ctx.sm);
  j["context_retain_ms"] = ctx.retain_ms;
  j["kernels"] = ctx.kernels;
  nlohmann::json costs = nlohmann::json::array();
  costs.push_back({{"what", "primary context retain (the context already existed)"}, {"ms", ctx.retain_ms}});
  for (const auto& [workload, k] : ctx.kernels.items()) {
    costs.push_back({{"what", std::string("NVRTC ") + workload + (k["from_cache"].get<bool>() ? " (cache hit)" : " (compiled)")},
                     {"ms", k["nvrtc_compile_ms"]}});
    costs.push_back({{"what", "cuModuleLoadData " + workload}, {"ms", k["module_load_ms"]}});
  }
  j["one_time_costs"] = costs;
  return j;
}

}  // namespace

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
void DeviceMemory::upload(std::span<const float> host) { LB_CU_CHECK(cu().cuMemcpyHtoD(ptr_, host.data(), host.size_bytes())); }
void DeviceMemory::download(std::span<float> host) const {
  LB_CU_CHECK(cu().cuMemcpyDtoH(host.data(), ptr_, host.size_bytes()));
}

CUfunction load_kernel(const std::string& workload, const char* name) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  Context& ctx = context();
  context_started = true;
  auto& module = ctx.modules[workload];
  if (!module) {
    const std::string path = "workloads/" + workload + "/kernels.cu";
    CompileRequest request{path, embedded_source(path).text, {}, ctx.sm};
    for (const EmbeddedSource& s : embedded_sources())  // every shared header, under its include name
      if (std::string(s.path).ends_with(".h")) request.headers.emplace_back(s.path, s.text);
    const CompiledKernel compiled = compile_cubin(request, cache_from_settings());

    auto loaded = std::make_unique<Module>();
    const auto t0 = std::chrono::steady_clock::now();
    LB_CU_CHECK(cu().cuModuleLoadData(&loaded->handle, compiled.cubin.data()));
    const double load_ms = ms_since(t0);
    module = std::move(loaded);
    ctx.kernels[workload] = {{"source", path},
                             {"nvrtc_compile_ms", compiled.compile_ms},
                             {"from_cache", compiled.from_cache},
                             {"cache_file", compiled.cache_file},
                             {"cubin_bytes", compiled.cubin.size()},
                             {"module_load_ms", load_ms},
                             {"nvrtc_log", compiled.log}};
  }
  CUfunction function = nullptr;
  LB_CU_CHECK(cu().cuModuleGetFunction(&function, module->handle, name));
  return function;
}

int sm_count() { return context().sm_count; }

void launch(CUfunction kernel, unsigned grid_x, unsigned grid_y, unsigned block, void** args) {
  LB_CU_CHECK(cu().cuLaunchKernel(kernel, grid_x, grid_y, 1, block, 1, 1, /*shared bytes*/ 0,
                                  /*stream: legacy default*/ nullptr, args, /*extra*/ nullptr));
}

LB_REGISTER_LAYER(Layer{
    .name = "driver",
    .summary = "CUDA driver API + NVRTC: the runtime layer's kernel text compiled at run time",
    .on_gpu = true,
    .rank = 20,
    .unavailable_reason = unavailable_reason,
    .make_clock = [] { return std::unique_ptr<SampleClock>(new EventClock()); },
    .describe = describe,
});

}  // namespace lb::driver
