#include "variants/driver/driver_layer.h"

#include <chrono>

#include "common/elapsed.h"
#include "common/gpu.h"
#include "variants/driver/kernel_sources.h"
#include "variants/nvrtc/nvrtc_compiler.h"
#include <nlohmann/json.hpp>

namespace lb::driver {
namespace {

nvrtc::KernelCache cache_of(const LayerConfig& config) {
  return nvrtc::KernelCache::of(config.kernel_cache_dir, config.kernel_cache_enabled);
}

}  // namespace

struct Session::Module {
  CUmodule handle = nullptr;
  ~Module() {
    if (handle) cu().cuModuleUnload(handle);
  }
};

Session::Session(const LayerConfig& config, CostLog& costs) : config_(config) {
  costs.add("primary context retain (the context already existed)", context_.retain_ms());
}

Session::~Session() {
  modules_.clear();  // unload before the context is released (context_, destroyed after this body)
}

CUmodule Session::module(const std::string& path, const std::string& label, CostLog& costs) {
  // --kernel-text: the text read from the user's file instead of the embedded one, compiled under
  // the file's name (NVRTC's log names it). The cache key hashes the text, so neither text is
  // ever served the other's CUBIN.
  const LayerConfig::KernelText* replaced = nullptr;
  for (const auto& [name, given] : config_.kernel_texts)
    if (path == "workloads/" + name + "/kernels.cu") replaced = &given;
  if (replaced) return module_of(path, label, replaced->file, replaced->text, true, costs);
  return module_of(path, label, path, std::string(embedded_source(path).text), false, costs);
}

CUmodule Session::module_of(const std::string& key, const std::string& label, const std::string& source,
                            const std::string& text, bool replaced, CostLog& costs) {
  auto& entry = modules_[key];
  if (!entry) {
    nvrtc::CompileRequest request{source, text, {}, context_.sm()};
    for (const EmbeddedSource& s : embedded_sources())  // every shared header, under its include name
      if (std::string(s.path).ends_with(".h")) request.headers.emplace_back(s.path, s.text);
    const nvrtc::CompiledKernel compiled = nvrtc::compile_cubin(request, cache_of(config_));

    auto loaded = std::make_unique<Module>();
    const auto t0 = std::chrono::steady_clock::now();
    LB_CU_CHECK(cu().cuModuleLoadData(&loaded->handle, compiled.cubin.data()));
    const double load_ms = ms_since(t0);
    entry = std::move(loaded);
    costs.add("NVRTC " + label + (compiled.from_cache ? " (cache hit)" : " (compiled)"), compiled.compile_ms);
    costs.add("cuModuleLoadData " + label, load_ms);
    kernels_[label] = {{"source", source},
                       {"replaced_kernel_text", replaced},
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

CUfunction Session::folder_kernel(const std::string& workload, const FolderSpec& spec, const std::string& name, CostLog& costs) {
  CUfunction function = nullptr;
  const CUmodule m = module_of("folder:" + spec.kernel_file, workload, spec.kernel_file, spec.kernel_text, false, costs);
  LB_CU_CHECK(cu().cuModuleGetFunction(&function, m, name.c_str()));
  return function;
}

CUfunction Session::rung_kernel(const Rung& rung, CostLog& costs) {
  CUfunction function = nullptr;
  LB_CU_CHECK(cu().cuModuleGetFunction(&function, module(rung.file, rung.id(), costs), rung.kernel.c_str()));
  return function;
}

nlohmann::json Session::describe() const {
  nlohmann::json j = {{"kernel_cache", config_.kernel_cache_enabled ? cache_of(config_).dir : "off"},
                      {"compile_options", nvrtc::nvrtc_options(context_.sm())},
                      {"context_retain_ms", context_.retain_ms()},
                      {"kernels", kernels_}};
  if (!config_.kernel_texts.empty()) {  // --kernel-text, whether or not a case compiled it
    nlohmann::json replaced = nlohmann::json::object();
    for (const auto& [name, given] : config_.kernel_texts) replaced[name] = given.file;
    j["replaced_kernel_texts"] = replaced;
  }
  return j;
}

void launch(CUfunction kernel, unsigned grid_x, unsigned grid_y, unsigned block, void** args, CUstream stream) {
  launch(kernel, MatmulGrid{grid_x, grid_y, 1}, block, args, stream);
}

void launch(CUfunction kernel, const MatmulGrid& grid, unsigned block, void** args, CUstream stream) {
  LB_CU_CHECK(cu().cuLaunchKernel(kernel, grid.x, grid.y, grid.z, block, 1, 1, /*shared bytes*/ 0, stream, args,
                                  /*extra*/ nullptr));
}

void allow_rung_smem(CUfunction kernel, unsigned smem_bytes) {
  if (smem_bytes > kDefaultDynamicSmemLimit)
    LB_CU_CHECK(cu().cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(smem_bytes)));
}

// kernel_program.h's, for the labs: here beside the rungs' own, so that it is the same call.
void allow_shared_bytes(const Kernel& kernel, unsigned bytes) { allow_rung_smem(kernel.function_, bytes); }

void launch(CUfunction kernel, const RungLaunch& l, void** args, CUstream stream) {
  LB_CU_CHECK(cu().cuLaunchKernel(kernel, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, 1, l.smem_bytes, stream,
                                  args, /*extra*/ nullptr));
}

LB_REGISTER_LAYER(Layer{
    .name = "driver",
    .summary = "CUDA driver API + NVRTC: the runtime layer's kernel text compiled at run time",
    .on_gpu = true,
    .rank = 20,
    .unavailable_reason = unavailable_reason,
    .describe = [] { return nlohmann::json{{"nvrtc_version", nvrtc::nvrtc_version()}}; },
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
    .folder_variant = folder_variant,
});

}  // namespace lb::driver
