// A user's workload folder (docs/your-own-workload.md) as a Workload the harness runs like a
// built-in one. Its buffers have element types (float32, float64, int32, int64), extents that are
// formulas, and there may be several outputs; the harness's HostProblem holds float32 buffers and
// one output, so a folder workload's problem carries bytes in them, one representation chosen here:
//   HostProblem::inputs[i]  the bytes of the folder's i-th input buffer (in workload.json's order),
//                           in a HostBuffer of whole floats (the last one padded);
//   HostProblem::output     every checked buffer's bytes (an output, or an in/out buffer: drawn,
//                           updated in place, checked), one after another, each at an offset that
//                           is a multiple of 8 bytes (FolderLayout), padding between them. Their
//                           starting contents: poison or zero for an output, the drawn values for
//                           an in/out buffer (what upload copies to the device).
// The harness and the variants move these bytes and never read them; only the check (verify,
// through reference.py) reads their types. The drawing, the formulas and the check are
// workload_folder.py's (the one reader of a folder), reached through the embedded interpreter by
// the subclass that variants/python/workload_folder.cpp makes; the layers that run a folder's kernel
// text (Layer::folder_variant) read the spec below.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/gpu.h"
#include "workloads/workload.h"

namespace lb {

enum class ElementType { kFloat32, kFloat64, kInt32, kInt64 };
std::size_t element_bytes(ElementType type);
ElementType element_type(const std::string& name);  // "float32", ...; std::invalid_argument otherwise

struct FolderBuffer {
  std::string name;
  ElementType type = ElementType::kFloat32;
  bool output = false;  // checked: an output or an in/out buffer (its bytes in HostProblem::output)
};

// One parameter of the folder's kernel, in order: a buffer (by position in FolderSpec::buffers), a
// typed scalar (its value's bytes, as the kernel reads them), or a dimension of the size (long long).
struct FolderArgument {
  enum class Kind { kBuffer, kScalar, kSize };
  std::string name;
  Kind kind = Kind::kBuffer;
  int buffer = -1;                    // kBuffer
  std::array<unsigned char, 8> value{};  // kScalar: its bytes (4 or 8 of them)
  std::size_t value_bytes = 0;
  Dim dim = Dim::kN;                  // kSize
};

struct FolderLaunch {
  std::array<unsigned, 3> block{1, 1, 1};
  bool grid_stride = false;  // as many blocks as fill the device (the kernel loops); else grid(shape)
  unsigned shared_bytes = 0;
};

// One kernel of the folder's sequence: launched in order, all of them one case.
struct FolderKernel {
  std::string name;                       // the extern "C" __global__ function
  std::vector<FolderArgument> arguments;  // its parameters, in order
  FolderLaunch launch;
};

// What a layer needs to run the folder's kernel text.
struct FolderSpec {
  std::string dir;           // the folder, as given
  std::string kernel_file;   // its kernels.cu: the name NVRTC's log gives the text
  std::string kernel_text;
  std::vector<FolderBuffer> buffers;  // in workload.json's order
  std::vector<FolderKernel> kernels;  // the sequence (workload.json's kernel, or its kernels), at least one
};

// Where each buffer's bytes sit at one size: inputs[i] of HostProblem::inputs, outputs packed into
// HostProblem::output (see above).
struct FolderLayout {
  struct Place {
    std::int64_t bytes = 0;
    bool output = false;
    std::size_t index = 0;      // an input: which HostProblem::inputs; an output: its position among outputs
    std::int64_t offset = 0;    // an output: its first byte in HostProblem::output
  };
  std::vector<Place> buffers;   // one per FolderSpec::buffers
  std::int64_t output_bytes = 0;
  // Buffer i's host floats: an input's HostProblem::inputs entry, an output's slice of
  // HostProblem::output (what upload copies to the device); of `out` (what download fills).
  std::span<const float> host(const HostProblem& problem, std::size_t i) const;
  std::span<float> output(std::span<float> out, std::size_t i) const;
};
std::int64_t floats_for(std::int64_t bytes);  // whole floats that hold `bytes`

// A grid-stride kernel's blocks: as many as the device holds threads for at once (every SM full),
// the same on every layer (lb_folder.py says it in Python); the kernel loops over the rest.
unsigned grid_stride_blocks(const std::array<unsigned, 3>& block, int sm_count, int threads_per_sm);

// One kernel's parameter values at one size, in the spec's order, for a launch that takes one
// pointer per parameter (cuLaunchKernel, cudaLaunchKernel): each buffer's device address (given,
// one per FolderSpec::buffers), each scalar's typed bytes, each dimension of the size as long long.
// What args() points into lives here: keep this alive, and unmoved, while it is launched with.
class FolderArguments {
 public:
  FolderArguments(const FolderKernel& kernel, const Shape& s, std::vector<std::uint64_t> addresses);
  FolderArguments(const FolderArguments&) = delete;
  FolderArguments& operator=(const FolderArguments&) = delete;
  void** args() { return pointers_.data(); }
  // The same values as 8-byte slots, each value at its slot's start: for a launcher that keeps its
  // own slots (the lab's student kernel, through the driver layer's ArgumentSlots).
  std::vector<std::uint64_t> slots() const;

 private:
  std::vector<std::uint64_t> addresses_;
  std::vector<std::array<unsigned char, 8>> values_;  // scalars' bytes and sizes, one slot each
  std::vector<void*> pointers_;
};

class FolderWorkload : public Workload {
 public:
  FolderWorkload(WorkloadDescriptor descriptor, FolderSpec spec)
      : Workload(std::move(descriptor)), spec_(std::move(spec)) {}
  const FolderSpec& spec() const { return spec_; }
  // Each buffer's extents at `s`, outermost first (workload.json's formulas).
  virtual std::vector<std::vector<std::int64_t>> buffer_shapes(const Shape& s) const = 0;
  // Blocks along x, y, z of kernel `kernel` of the sequence at `s` (its grid formulas; list and run
  // checked them against the device's limits before any case); not asked of a grid-stride kernel.
  virtual std::array<unsigned, 3> grid(const Shape& s, std::size_t kernel) const = 0;
  FolderLayout layout(const Shape& s) const;
  // Everything workload.json says, evaluated at `s` without drawing anything: each buffer's extents
  // (at least 1), each range draw's bounds (within its type), each kernel's grid against
  // `grid_limits` (blocks along x, y, z: the device's, or CUDA's documented ones), the bytes and
  // flops formulas. UsageError (one line naming the field and the size) otherwise.
  virtual void check_size(const Shape& s, const std::array<long long, 3>& grid_limits) const = 0;
  // Each kernel's launch (its block and dynamic shared memory) against what the kernel needs, read
  // from an NVRTC compile for `limits.arch` (its __launch_bounds__, registers and static shared
  // memory), and against `limits` (workload_launch.py). UsageError (one line naming the launch
  // field, the kernel, the figure and the limit, and whose limits they are) otherwise.
  virtual void check_launches(const BlockLimits& limits) const = 0;
  // Draws the problem at `s` (inputs.py, if any, called) and runs the folder's reference and
  // tolerance rule on it once, before a run measures anything: UsageError (one line naming the
  // file) when one raises or returns the wrong shape.
  virtual void check_reference(const Shape& s, std::uint64_t seed) const = 0;

  std::int64_t output_elements(const Shape& s) const override { return floats_for(layout(s).output_bytes); }
  std::vector<std::int64_t> input_elements(const Shape& s) const override;
  double host_bytes(const Shape& s) const override;
  double device_bytes(const Shape& s) const override;  // every buffer, exactly its bytes

 private:
  FolderSpec spec_;
};

}  // namespace lb
