// The driver API + NVRTC layer: what the runtime API does for you, done by hand. The kernel text is
// the runtime layer's, compiled at run time for this device; the context, the module, the kernel
// lookup by name and the packing of arguments are explicit. Every call that takes a stream gets
// the harness's (a CUstream and a cudaStream_t are the same handle).
#pragma once
#include <cuda.h>

#include <map>
#include <memory>
#include <span>
#include <string>

#include "variants/driver/driver_api.h"
#include "variants/driver/kernel_program.h"  // DeviceMemory, and the interface the labs use
#include "variants/gpu_launch.h"
#include "variants/ladder_launch.h"
#include "variants/variant.h"
#include "workloads/folder/folder_workload.h"
#include <nlohmann/json.hpp>

namespace lb::driver {

// What the layer keeps for one run: device 0's primary context, retained (the context the runtime
// API and the harness use too), and the modules NVRTC built, one per workload, loaded on first use.
class Session final : public LayerSession {
 public:
  Session(const LayerConfig& config, CostLog& costs);
  ~Session() override;
  // The function `name` of workloads/<workload>/kernels.cu (or of the text that `run --kernel-text
  // <workload>=FILE` put in its place: LayerConfig::kernel_texts): compiled by NVRTC for this
  // device's architecture (or read from the kernel cache) and loaded as a module on the first
  // request; the compile and the load are reported to `costs` then.
  CUfunction kernel(const std::string& workload, const char* name, CostLog& costs);
  // The kernel of a ladder rung: its own file (workloads/<workload>/ladder/NN_name.cu, embedded),
  // compiled and loaded the same way, as a module of its own, on the first request.
  CUfunction rung_kernel(const Rung& rung, CostLog& costs);
  // The kernel of a workload folder (`run --workload-dir`): its kernels.cu, compiled under the
  // file's own path (NVRTC's log names it), loaded as a module of its own on the first request.
  CUfunction folder_kernel(const std::string& workload, const FolderSpec& spec, const std::string& name, CostLog& costs);
  int sm_count() const { return context_.sm_count(); }
  int threads_per_sm() const { return context_.threads_per_sm(); }
  int sm() const { return context_.sm(); }  // compute capability as 90 for 9.0: what NVRTC targets
  nlohmann::json describe() const override;

 private:
  struct Module;
  // The module of embedded file `path`, compiled and loaded on first use; `label` names it in the
  // costs and in describe()'s "kernels".
  CUmodule module(const std::string& path, const std::string& label, CostLog& costs);
  // The module of `text` (named `source` in NVRTC's log), kept under `key`, compiled and loaded on
  // first use; `replaced`: a --kernel-text in place of a built-in text.
  CUmodule module_of(const std::string& key, const std::string& label, const std::string& source,
                     const std::string& text, bool replaced, CostLog& costs);
  PrimaryContext context_;  // first: retained before, released after, the modules
  LayerConfig config_;
  std::map<std::string, std::unique_ptr<Module>> modules_;  // by source file
  nlohmann::json kernels_ = nlohmann::json::object();        // what each compile and load did
};

// The kernel, through the session the harness opened for this layer.
inline CUfunction load_kernel(const Setup& setup, const std::string& workload, const char* name) {
  return setup.session_as<Session>().kernel(workload, name, *setup.costs);
}

// cuLaunchKernel on `stream`. `args` holds one pointer per kernel parameter, in order: the driver
// copies the values they point to.
void launch(CUfunction kernel, unsigned grid_x, unsigned grid_y, unsigned block, void** args, CUstream stream);
// ...with matmul's 3-D grid: its tiles, and the splits of K along z.
void launch(CUfunction kernel, const MatmulGrid& grid, unsigned block, void** args, CUstream stream);

// A ladder rung's launch: a 2-D grid (3-D for a matmul rung that splits K along z), a 2-D block
// and dynamic shared memory; over 48 KiB of it needs the kernel's limit raised once before
// (allow_rung_smem: cuFuncSetAttribute).
struct RungLaunch {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;  // z: a matmul rung's splits of K
  unsigned block_x = 1, block_y = 1, smem_bytes = 0;
};
void allow_rung_smem(CUfunction kernel, unsigned smem_bytes);

// The layer's variant of a workload folder (workload_folder.cpp): Layer::folder_variant.
std::unique_ptr<Variant> folder_variant(const FolderWorkload& workload);
void launch(CUfunction kernel, const RungLaunch& shape, void** args, CUstream stream);

// The rung's kernel (Setup::rung), compiled from the rung's file, its shared-memory limit raised.
inline CUfunction load_rung_kernel(const Setup& setup) {
  const CUfunction kernel = setup.session_as<Session>().rung_kernel(*setup.rung, *setup.costs);
  allow_rung_smem(kernel, setup.rung->smem_bytes());
  return kernel;
}

}  // namespace lb::driver
