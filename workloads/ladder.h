// Optimisation ladders: a workload's kernel written step by step, each step (a rung) one kernel
// file, workloads/<workload>/ladder/NN_name.cu, that registers itself here. The runtime layer
// compiles every rung file with nvcc (the function pointer below); the driver layer compiles the
// same text with NVRTC (the file, embedded, and the kernel's name). The launch shape is the rung's
// own, declared by the file's registration line, host-side only:
//
//   #ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
//   LB_MATMUL_RUNG(3, "smem_tiling", "Shared-memory tiling", matmul_03_smem_tiling,
//                  {.block_x = 32, .block_y = 32, .tile_m = 32, .tile_n = 32});
//   #endif
//
// docs/ladders.md says what each rung changes; `layerbench ladder matmul|reduce` runs them.
#pragma once
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "workloads/workload.h"  // LB_CONCAT

namespace lb {

// A matmul rung: C = A*B (row-major, A MxK, B KxN), kernel(A, B, C, M, N, K). Grid:
// (ceil(N / tile_n), ceil(M / tile_m), splits) blocks of (block_x, block_y) threads, smem_bytes of
// dynamic shared memory (over 48 KiB allowed: the launcher raises the kernel's limit). splits is 1
// unless split_k is set: then the kernel splits K over gridDim.z blocks per tile of C, and
// variants/ladder_launch.h's matmul_rung_splits chooses how many from the numbers below, which the
// rung's registration takes from its kernel's own constants (one definition for both sides): K's
// slices of slice_k, at most max_splits, and tiles x splits at most split_parts, the partial tiles
// the kernel's workspace holds.
struct MatmulLaunch {
  unsigned block_x = 1, block_y = 1;
  unsigned tile_m = 1, tile_n = 1;
  unsigned smem_bytes = 0;
  bool split_k = false;
  unsigned slice_k = 1, max_splits = 1, split_parts = 0;
};

// A reduce rung: kernel(x, n, partials) writes the sum of block b's share of x[0, n) to
// partials[b]. The launcher calls it on x, then on its partials, and so on, until one block is
// left, whose partial is the sum. Grid: ceil(n / (block * items_per_thread)) blocks, at most
// max_blocks_per_sm x SM count when max_blocks_per_sm > 0 (a grid-stride kernel); smem_bytes of
// dynamic shared memory.
struct ReduceLaunch {
  unsigned block = 256;
  unsigned items_per_thread = 1;
  unsigned max_blocks_per_sm = 0;
  unsigned smem_bytes = 0;
};

// How a rung is launched: one kind per ladder, each the launch shape its launchers read.
using RungLaunchKind = std::variant<MatmulLaunch, ReduceLaunch>;

struct Rung {
  std::string workload;   // the workload's name, from its registration macro
  int number = 0;         // its place on the ladder: 1 is the first rung
  std::string name;       // "smem_tiling"
  std::string title;      // "Shared-memory tiling"
  std::string file;       // relative to the source tree: "workloads/matmul/ladder/03_smem_tiling.cu"
  std::string kernel;     // the extern "C" kernel's name: "matmul_03_smem_tiling"
  const void* runtime_kernel = nullptr;  // the nvcc-compiled kernel, for cudaLaunchKernel
  RungLaunchKind launch;  // the kind its registration macro gave (LB_MATMUL_RUNG: MatmulLaunch)
  std::string id() const;  // "matmul/03_smem_tiling"
  unsigned smem_bytes() const;  // the dynamic shared memory its launch asks for
  // The launch shape of kind L; std::logic_error when the rung is of another kind (a launcher
  // handed another ladder's rung).
  template <class L>
  const L& launch_as() const {
    if (const L* l = std::get_if<L>(&launch)) return *l;
    throw std::logic_error("rung " + id() + " has another launch kind");
  }
};

bool register_rung(Rung rung);  // false (and the rung is refused) on a duplicate number or name
// The workload's rungs, lowest number first; every rung when `workload` is empty.
std::vector<const Rung*> ladder_rungs(const std::string& workload = "");
// "matmul/03_smem_tiling", "matmul/smem_tiling" or "matmul/3"; nullptr when there is none.
const Rung* find_rung(const std::string& id);

// The file's path relative to the source tree, from __FILE__.
std::string source_relative(const char* file);

// The launchers pass each workload's arguments as these types: a rung whose kernel takes others
// does not compile, rather than run on misread arguments.
using MatmulRungKernel = void (*)(const float*, const float*, float*, int, int, int);
using ReduceRungKernel = void (*)(const float*, long long, float*);

}  // namespace lb

#define LB_LADDER_RUNG_(workload_name, launch_type, rung_number, rung_name, rung_title, kernel_fn, ...)               \
  static const bool LB_CONCAT(lb_rung_registered_, __LINE__) = ::lb::register_rung(::lb::Rung{               \
      .workload = workload_name,                                                                            \
      .number = rung_number,                                                                                \
      .name = rung_name,                                                                                    \
      .title = rung_title,                                                                                  \
      .file = ::lb::source_relative(__FILE__),                                                              \
      .kernel = #kernel_fn,                                                                                 \
      .runtime_kernel = reinterpret_cast<const void*>(&kernel_fn),                                          \
      .launch = launch_type __VA_ARGS__})
#define LB_MATMUL_RUNG(rung_number, rung_name, rung_title, kernel_fn, ...)                               \
  static_assert(std::is_same_v<decltype(&kernel_fn), ::lb::MatmulRungKernel>,                           \
                #kernel_fn " must take (const float* A, const float* B, float* C, int M, int N, int K)"); \
  LB_LADDER_RUNG_("matmul", ::lb::MatmulLaunch, rung_number, rung_name, rung_title, kernel_fn, __VA_ARGS__)
#define LB_REDUCE_RUNG(rung_number, rung_name, rung_title, kernel_fn, ...)                   \
  static_assert(std::is_same_v<decltype(&kernel_fn), ::lb::ReduceRungKernel>,               \
                #kernel_fn " must take (const float* x, long long n, float* partials)");     \
  LB_LADDER_RUNG_("reduce", ::lb::ReduceLaunch, rung_number, rung_name, rung_title, kernel_fn, __VA_ARGS__)
