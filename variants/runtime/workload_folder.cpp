// The runtime layer's variant of a workload folder (`run --workload-dir`): the folder's kernels.cu
// compiled by NVRTC (variants/nvrtc: the compile and the kernel cache the driver layer uses), and
// from there on the runtime API alone: the CUBIN loaded by the runtime itself (cudaLibraryLoadData,
// CUDA 12+: a library in the runtime's own context, no driver API call), the kernel looked up by
// name (cudaLibraryGetKernel), one cudaMalloc'd buffer per workload.json buffer (exactly its bytes),
// and for each kernel of the sequence, in order, cudaLaunchKernel with its cudaKernel_t, its
// arguments bound in workload.json's order (FolderArguments), on the harness's stream. The compile and the load are one-time costs, paid on
// the first case of the folder in a run; the session keeps the library for the others.
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <deque>
#include <string>
#include <tuple>
#include <vector>

#include "common/elapsed.h"
#include "variants/nvrtc/nvrtc_compiler.h"
#include "variants/runtime/runtime_layer.h"
#include "workloads/folder/folder_workload.h"
#include <nlohmann/json.hpp>

namespace lb::runtime {
namespace {

int device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

// What the layer keeps for one run: the kernel cache the command line named, and the libraries
// loaded from the folders' CUBINs, one per kernels.cu, unloaded at the run's end.
class Session final : public LayerSession {
 public:
  explicit Session(const LayerConfig& config)
      : cache_(nvrtc::KernelCache::of(config.kernel_cache_dir, config.kernel_cache_enabled)) {}
  ~Session() override {
    for (const auto& [file, library] : libraries_) cudaLibraryUnload(library);  // a destructor reports nothing
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The folder's kernel: compiled (or read from the cache) and loaded on the first request, the
  // two reported to `costs` then.
  cudaKernel_t folder_kernel(const std::string& workload, const FolderSpec& spec, const std::string& name, CostLog& costs) {
    auto [entry, first] = libraries_.try_emplace(spec.kernel_file, nullptr);
    if (first) {
      try {
        load(workload, spec, entry->second, costs);
      } catch (...) {
        libraries_.erase(entry);  // nothing loaded: the next case tries again, and fails the same way
        throw;
      }
    }
    cudaKernel_t kernel = nullptr;
    LB_CUDA_CHECK(cudaLibraryGetKernel(&kernel, entry->second, name.c_str()));
    return kernel;
  }

  nlohmann::json describe() const override {
    return kernels_.empty() ? nlohmann::json::object() : nlohmann::json{{"kernels", kernels_}};
  }

 private:
  void load(const std::string& workload, const FolderSpec& spec, cudaLibrary_t& library, CostLog& costs) {
    const int sm = 10 * device_attribute(cudaDevAttrComputeCapabilityMajor) +
                   device_attribute(cudaDevAttrComputeCapabilityMinor);
    // The folder's text alone, under its own path (NVRTC's log names it), for this device.
    const nvrtc::CompiledKernel compiled = nvrtc::compile_cubin({spec.kernel_file, spec.kernel_text, {}, sm}, cache_);
    const auto t0 = std::chrono::steady_clock::now();
    LB_CUDA_CHECK(cudaLibraryLoadData(&library, compiled.cubin.data(), /*jit options*/ nullptr, nullptr, 0,
                                      /*library options*/ nullptr, nullptr, 0));
    const double load_ms = ms_since(t0);
    costs.add("NVRTC " + workload + (compiled.from_cache ? " (cache hit)" : " (compiled)"), compiled.compile_ms);
    costs.add("cudaLibraryLoadData " + workload, load_ms);
    kernels_[workload] = {{"source", spec.kernel_file},
                          {"compile_options", nvrtc::nvrtc_options(sm)},
                          {"nvrtc_compile_ms", compiled.compile_ms},
                          {"from_cache", compiled.from_cache},
                          {"cache_file", compiled.cache_file},
                          {"cubin_bytes", compiled.cubin.size()},
                          {"library_load_ms", load_ms},
                          {"nvrtc_log", compiled.log}};
  }

  nvrtc::KernelCache cache_;
  std::map<std::string, cudaLibrary_t> libraries_;  // by kernels.cu path
  nlohmann::json kernels_ = nlohmann::json::object();
};

class FolderVariant final : public Variant {
 public:
  explicit FolderVariant(const FolderWorkload& workload) : workload_(workload) {}

  void allocate(const Shape& shape, const Setup& setup) override {
    const FolderSpec& spec = workload_.spec();
    layout_ = workload_.layout(shape);
    std::vector<std::uint64_t> addresses;
    for (const FolderLayout::Place& p : layout_.buffers) {
      buffers_.emplace_back(static_cast<std::size_t>(floats_for(p.bytes)));
      addresses.push_back(reinterpret_cast<std::uint64_t>(buffers_.back().get()));
    }
    for (std::size_t i = 0; i < spec.kernels.size(); ++i) {
      const FolderKernel& k = spec.kernels[i];
      const cudaKernel_t kernel = setup.session_as<Session>().folder_kernel(workload_.name(), spec, k.name, *setup.costs);
      // A cudaKernel_t stands where the runtime takes a kernel function's address.
      allow_rung_smem(reinterpret_cast<const void*>(kernel), k.launch.shared_bytes);  // over 48 KiB needs the limit raised
      const dim3 grid = k.launch.grid_stride
                            ? dim3(grid_stride_blocks(k.launch.block, sm_count(),
                                                      device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor)))
                            : std::apply([](unsigned x, unsigned y, unsigned z) { return dim3(x, y, z); },
                                         workload_.grid(shape, i));
      launches_.emplace_back(kernel, grid, k, shape, addresses);
    }
  }

  void upload(const HostProblem& problem, cudaStream_t stream) override {
    for (std::size_t i = 0; i < buffers_.size(); ++i) buffers_[i].upload(layout_.host(problem, i), stream);
  }

  void run(cudaStream_t stream) override {
    for (Launch& launch : launches_) {
      const FolderLaunch& l = launch.kernel->launch;
      LB_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(launch.function), launch.grid,
                                     dim3(l.block[0], l.block[1], l.block[2]), launch.args.args(), l.shared_bytes, stream));
    }
  }

  void download(std::span<float> out, cudaStream_t stream) override {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (layout_.buffers[i].output) buffers_[i].download(layout_.output(out, i), stream);
  }

 private:
  // One kernel of the sequence, ready to launch.
  struct Launch {
    Launch(cudaKernel_t f, dim3 g, const FolderKernel& k, const Shape& s, std::vector<std::uint64_t> addresses)
        : function(f), grid(g), kernel(&k), args(k, s, std::move(addresses)) {}
    cudaKernel_t function;
    dim3 grid;
    const FolderKernel* kernel;
    FolderArguments args;  // the parameters' values, which cudaLaunchKernel copies
  };

  const FolderWorkload& workload_;
  FolderLayout layout_;
  std::vector<DeviceBuffer<float>> buffers_;
  std::deque<Launch> launches_;  // in order; a deque: FolderArguments neither copies nor moves
};

}  // namespace

std::unique_ptr<LayerSession> open_session(const LayerConfig& config, CostLog&) {
  return std::make_unique<Session>(config);
}

std::unique_ptr<Variant> folder_variant(const FolderWorkload& workload) {
  return std::make_unique<FolderVariant>(workload);
}

}  // namespace lb::runtime
