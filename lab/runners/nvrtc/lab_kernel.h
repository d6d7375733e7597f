// A CUDA C++ lab's kernel: compiled alone with NVRTC (device code only), loaded on the primary
// context and launched, all through the driver layer's public interface
// (variants/driver/kernel_program.h), and wrapped as a StudentVariant so the harness's verified_run
// (and its timing) runs it like any layer's.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "lab/spec/lab_spec.h"
#include "lab/child/student_program.h"
#include "lab/runners/nvrtc/limited_compile.h"
#include "variants/driver/kernel_program.h"

namespace lb::lab {

// The architecture `lab check` compiles for on the host, before any GPU is touched, to report
// compile errors without one (the check then compiles again, or reads the cache, for the GPU).
constexpr int kHostCheckSm = 90;

// Checks `file` against the kernel-text rules (kernel_text_rules.h), then compiles it alone for
// sm_<sm> in a limited compile process (limited_compile.h, its limits, run by build.compile_helper
// or this executable; NVRTC names the program
// by `file` as given, so its messages name the student's path and line), through the driver
// layer's kernel cache unless `use_cache` is false, and checks the cubin defines spec.kernel as
// extern "C". UsageError when the file cannot be read; StudentCompileError when it breaks a rule,
// does not compile, or its compile ran past a limit.
driver::CompiledProgram compile_student_kernel(const LabSpec& spec, const std::filesystem::path& file, int sm,
                                               bool use_cache, const StudentBuild& build = {});

// Blocks for the lab's launch rule: x and y.
struct Grid {
  unsigned x = 1, y = 1;
};
Grid grid_for(const LaunchShape& launch, const Shape& shape, int sm_count);

// How a kernel takes the lab's arguments. kC: as its CUDA C++ signature says (a buffer a pointer,
// the scalar and the sizes by their C types, BoundArgument::as). kNumba: as a Numba kernel compiled
// to PTX takes them (numba.cuda's dispatcher flattens each argument so, and the lab launches the
// PTX without it: lab/runners/numba/): an array as meminfo, parent, nitems, itemsize, data, then
// its shape and its strides in bytes, one 8-byte parameter each (meminfo and parent null: the
// memory is ours; a buffer of one element, reduce's out, a 1-D array of one); the scalar a
// float32; a size an int64. kTriton: as kC (a Triton kernel compiled for the lab's C types:
// lab/runners/triton/), then the two pointers Triton 3.x appends to every kernel's entry (its
// global scratch and its profile scratch), passed null: the compile process refuses a kernel that
// needs either; launched with the dynamic shared memory its compile reported.
enum class KernelAbi { kC, kNumba, kTriton };
constexpr int kTritonTrailingPointers = 2;

// The width in bits of each of the kernel's parameters, in order, as `abi` passes the spec's
// arguments (a lab on a workload folder: its kernel's, as workload.json types them; kNumba takes
// built-in workloads only): what a compiled kernel's parameter list is checked against before it
// is launched.
std::vector<int> parameter_bits(const LabSpec& spec, KernelAbi abi);

// The C type of each of the lab's kernel arguments, in order ("const float*", "long long"): a
// folder's as workload.json types them, a built-in workload's as its descriptor does.
std::vector<std::string> argument_c_types(const LabSpec& spec);

// The student's kernel as a variant: device buffers for the workload's inputs and output, the
// output started as the spec says (poison, y for saxpy, or zeros: then zeroed again before every
// launch, so that each timed run adds into zero as the first did), the kernel's parameters bound
// as the spec's bound_arguments say (the workload's kernel_args: an input's or the output's
// address, the scalar, a dimension of the size), launched with the spec's shape on the harness's
// stream. The output is followed by a guard zone, except with exact buffers (StudentBuild).
// `shared_bytes`: the dynamic shared memory each launch gets (a Triton kernel's; 0 for the others).
class StudentKernel final : public StudentVariant {
 public:
  StudentKernel(const LabSpec& spec, driver::Kernel kernel, const TargetDevice& device, bool exact_buffers,
                KernelAbi abi = KernelAbi::kC, unsigned shared_bytes = 0);
  void allocate(const Shape& shape, const Setup& setup) override;
  void upload(const HostProblem& problem, cudaStream_t stream) override;
  void run(cudaStream_t stream) override;
  void download(std::span<float> out, cudaStream_t stream) override;
  static constexpr std::int64_t kGuardFloats = 1 << 16;  // after the output, uploaded with it
  std::int64_t first_write_past_end(cudaStream_t stream) const override;
  DeviceBuffers device_buffers() override;
  void set_scalar(float alpha) override { alpha_ = alpha; }

 private:
  std::int64_t guard_floats() const { return exact_buffers_ ? 0 : kGuardFloats; }
  std::int64_t output_count_ = 0;
  const LabSpec& spec_;
  driver::Kernel kernel_;
  int sm_count_;
  bool exact_buffers_;
  KernelAbi abi_;
  unsigned shared_bytes_;
  Shape shape_;
  float alpha_ = 0;
  std::vector<driver::DeviceMemory> inputs_;
  driver::DeviceMemory output_;
};

// A compiled submission (a cubin, or PTX: cuModuleLoadData takes either) loaded on the current
// context, its kernel `entry` looked up once, and a variant per size made by `make_variant` from
// that kernel: the nvrtc runner's StudentKernel or FolderStudentKernel, the numba runner's
// StudentKernel with KernelAbi::kNumba, the triton runner's either with KernelAbi::kTriton.
class LoadedProgram final : public StudentProgram {
 public:
  using MakeVariant = std::function<std::unique_ptr<StudentVariant>(driver::Kernel)>;
  LoadedProgram(const driver::CompiledProgram& compiled, const std::string& entry, MakeVariant make_variant)
      : module_(compiled), kernel_(module_.kernel(entry)), make_variant_(std::move(make_variant)) {}
  std::unique_ptr<StudentVariant> make_variant() override { return make_variant_(kernel_); }

 private:
  driver::Module module_;
  driver::Kernel kernel_;
  MakeVariant make_variant_;
};

// What a guard zone holds (StudentKernel::kGuardFloats floats of a NaN no arithmetic produces),
// and the first element of a downloaded one that no longer holds it (-1: none), compared bit for bit.
HostBuffer guard_pattern();
std::int64_t first_changed_guard(std::span<const float> guard);

}  // namespace lb::lab
