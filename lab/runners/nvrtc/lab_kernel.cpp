#include "lab/runners/nvrtc/lab_kernel.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lab/runners/nvrtc/kernel_text_rules.h"

namespace lb::lab {
namespace {

// What the guard zone after the output holds; compared bit for bit.
constexpr std::uint32_t kGuardBits = 0x7F8ABCDEu;  // a NaN no arithmetic produces

// A buffer as the Numba array its kernel takes: its extents at `shape`, outermost first, and a
// buffer of one element (reduce's out, no extents) a 1-D array of one (rules.py's ARGUMENT_TYPES:
// every buffer is at least float32[::1]).
std::size_t numba_dimensions(const BufferSpec& buffer) { return std::max<std::size_t>(1, buffer.extents.size()); }
std::vector<std::int64_t> numba_shape(const BufferSpec& buffer, const Shape& shape) {
  std::vector<std::int64_t> extents;
  for (const Dim dim : buffer.extents) extents.push_back(extent(shape, dim));
  if (extents.empty()) extents.push_back(1);
  return extents;
}

const BufferSpec& buffer_of(const LabSpec& spec, const KernelArg& arg) {
  const WorkloadDescriptor& d = spec.workload->descriptor();
  return arg.kind == ArgKind::kOutput ? d.output : d.inputs.at(static_cast<std::size_t>(arg.input));
}

// A Numba array argument, flattened as KernelAbi::kNumba says: C-contiguous float32.
void push_numba_array(driver::ArgumentSlots& args, driver::DevicePtr data, const std::vector<std::int64_t>& extents) {
  std::int64_t items = 1;
  for (const std::int64_t e : extents) items *= e;
  args.push(static_cast<void*>(nullptr));  // meminfo
  args.push(static_cast<void*>(nullptr));  // parent
  args.push(static_cast<long long>(items));
  args.push(static_cast<long long>(sizeof(float)));  // itemsize
  args.push(data);
  for (const std::int64_t e : extents) args.push(static_cast<long long>(e));
  long long stride = sizeof(float);
  std::vector<long long> strides(extents.size());
  for (std::size_t i = extents.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= extents[i];
  }
  for (const long long s : strides) args.push(s);
}

// The cubin's symbol table holds an extern "C" kernel's name as a whole string.
bool defines_symbol(const std::string& cubin, const std::string& name) {
  return cubin.find(std::string(1, '\0') + name + std::string(1, '\0')) != std::string::npos;
}

}  // namespace

HostBuffer guard_pattern() {
  HostBuffer guard(static_cast<std::size_t>(StudentKernel::kGuardFloats));
  for (float& g : guard) std::memcpy(&g, &kGuardBits, sizeof g);
  return guard;
}

std::int64_t first_changed_guard(std::span<const float> guard) {
  for (std::size_t i = 0; i < guard.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &guard[i], sizeof bits);
    if (bits != kGuardBits) return static_cast<std::int64_t>(i);
  }
  return -1;
}

driver::CompiledProgram compile_student_kernel(const LabSpec& spec, const std::filesystem::path& file, int sm,
                                               bool use_cache, const StudentBuild& build) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError("cannot read " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  // The rules first, on the very text the compile process gets: nothing that reads another file
  // reaches the compiler.
  if (const std::vector<RuleViolation> broken = kernel_text_rule_violations(text.str()); !broken.empty())
    throw StudentCompileError(kernel_text_rules_message(file, broken));
  driver::CompiledProgram compiled;
  try {
    std::vector<std::string> options;
    if (build.line_info) options.push_back("--generate-line-info");
    if (build.exact_buffers) options.push_back("-G");  // loads stay where the source makes them
    KernelCompileLimits limits;
    limits.program = build.compile_helper;
    compiled = compile_in_limited_process(file.string(), text.str(), sm, options, use_cache, limits);
  } catch (const driver::CompileFailed& e) {
    throw StudentCompileError(e.log());
  }
  if (!defines_symbol(compiled.cubin, spec.kernel)) {
    if (compiled.cubin.find(spec.kernel) != std::string::npos)
      throw StudentCompileError(file.string() + ": the kernel " + spec.kernel +
                                " is not extern \"C\": declare it extern \"C\" __global__ so the check finds it by name");
    throw StudentCompileError(file.string() + ": no kernel named " + spec.kernel + " (expected extern \"C\" __global__ " +
                              spec.signature + ")");
  }
  return compiled;
}

Grid grid_for(const LaunchShape& launch, const Shape& shape, int sm_count) {
  auto blocks = [](std::int64_t items, unsigned per_block) {
    return static_cast<unsigned>(std::max<std::int64_t>(1, (items + per_block - 1) / per_block));
  };
  switch (launch.grid) {
    case GridRule::kCoverN: return {blocks(shape.n, launch.block_x), 1};
    case GridRule::kGridStride:
      return {std::min(blocks(shape.n, launch.block_x), static_cast<unsigned>(4 * std::max(1, sm_count))), 1};
    case GridRule::kCoverMN: return {blocks(shape.n, launch.block_x), blocks(shape.m, launch.block_y)};
  }
  return {};
}

std::vector<std::string> argument_c_types(const LabSpec& spec) {
  std::vector<std::string> types;
  if (spec.folder)
    for (const KernelArg& a : spec.folder->descriptor().kernel_args) types.push_back(a.type);
  else
    for (const BoundArgument& bound : spec.bound_arguments) types.push_back(bound.arg.type);
  return types;
}

std::vector<int> parameter_bits(const LabSpec& spec, KernelAbi abi) {
  std::vector<int> bits;
  if (abi == KernelAbi::kTriton) {
    // A pointer, a double and a long long are 8 bytes; a float and an int 4 (workload.json's types).
    for (const std::string& type : argument_c_types(spec))
      bits.push_back(type.ends_with("*") || type == "double" || type == "long long" ? 64 : 32);
    bits.insert(bits.end(), kTritonTrailingPointers, 64);
    return bits;
  }
  for (const BoundArgument& bound : spec.bound_arguments) {
    const KernelArg& arg = bound.arg;
    const bool buffer = arg.kind == ArgKind::kInput || arg.kind == ArgKind::kOutput;
    if (abi == KernelAbi::kNumba) {
      if (buffer) bits.insert(bits.end(), 5 + 2 * numba_dimensions(buffer_of(spec, arg)), 64);
      else bits.push_back(arg.kind == ArgKind::kScalar ? 32 : 64);
      continue;
    }
    bits.push_back(bound.as == PassedAs::kFloat || bound.as == PassedAs::kInt ? 32 : 64);
  }
  return bits;
}

StudentKernel::StudentKernel(const LabSpec& spec, driver::Kernel kernel, const TargetDevice& device, bool exact_buffers,
                             KernelAbi abi, unsigned shared_bytes)
    : spec_(spec),
      kernel_(kernel),
      sm_count_(device.sm_count),
      exact_buffers_(exact_buffers),
      abi_(abi),
      shared_bytes_(shared_bytes) {}

void StudentKernel::allocate(const Shape& shape, const Setup&) {
  driver::allow_shared_bytes(kernel_, shared_bytes_);  // above 48 KiB the limit is raised first
  shape_ = shape;
  inputs_.clear();
  for (std::int64_t count : spec_.workload->input_elements(shape)) inputs_.emplace_back(static_cast<std::size_t>(count));
  output_count_ = spec_.workload->output_elements(shape);
  output_ = driver::DeviceMemory(static_cast<std::size_t>(output_count_ + guard_floats()));
}

void StudentKernel::upload(const HostProblem& p, cudaStream_t stream) {
  for (std::size_t i = 0; i < inputs_.size(); ++i) inputs_[i].upload(p.inputs[i], stream);
  alpha_ = p.alpha;
  if (spec_.output_starts_zero) output_.upload(starting_output(spec_, p), stream);
  else output_.upload(p.output, stream);  // NaN poison, or saxpy's y: uploaded without a copy
  if (guard_floats() == 0) return;
  output_.upload_at(static_cast<std::size_t>(output_count_), guard_pattern(), stream);
}

std::int64_t StudentKernel::first_write_past_end(cudaStream_t stream) const {
  if (guard_floats() == 0) return -1;
  HostBuffer guard(static_cast<std::size_t>(kGuardFloats));
  output_.download_at(static_cast<std::size_t>(output_count_), guard, stream);
  return first_changed_guard(guard);
}

DeviceBuffers StudentKernel::device_buffers() {
  DeviceBuffers buffers;
  for (const driver::DeviceMemory& input : inputs_) buffers.inputs.push_back(reinterpret_cast<float*>(input.get()));
  buffers.output = reinterpret_cast<float*>(output_.get());
  return buffers;
}

void StudentKernel::run(cudaStream_t stream) {
  // Each parameter as the workload's descriptor says (lab_spec.h's BoundArgument), pushed as its
  // exact C type: the driver copies as many bytes as the kernel's parameter has.
  driver::ArgumentSlots args;
  const auto push_value = [&args](PassedAs as, auto value) {
    switch (as) {
      case PassedAs::kFloat: return args.push(static_cast<float>(value));
      case PassedAs::kInt: return args.push(static_cast<int>(value));
      case PassedAs::kLongLong: return args.push(static_cast<long long>(value));
      case PassedAs::kPointer: break;  // parse_lab_spec binds only buffers as pointers
    }
    throw std::logic_error("a scalar or a size bound as a pointer");
  };
  for (const BoundArgument& bound : spec_.bound_arguments) {
    const KernelArg& arg = bound.arg;
    if (abi_ == KernelAbi::kNumba) {
      switch (arg.kind) {
        case ArgKind::kInput:
          push_numba_array(args, inputs_.at(static_cast<std::size_t>(arg.input)).get(),
                           numba_shape(buffer_of(spec_, arg), shape_));
          break;
        case ArgKind::kOutput: push_numba_array(args, output_.get(), numba_shape(buffer_of(spec_, arg), shape_)); break;
        case ArgKind::kScalar: args.push(alpha_); break;
        case ArgKind::kSize: args.push(static_cast<long long>(extent(shape_, arg.dim))); break;
      }
      continue;
    }
    switch (arg.kind) {
      case ArgKind::kInput: args.push(inputs_.at(static_cast<std::size_t>(arg.input)).get()); break;
      case ArgKind::kOutput: args.push(output_.get()); break;
      case ArgKind::kScalar: push_value(bound.as, alpha_); break;
      case ArgKind::kSize: push_value(bound.as, extent(shape_, arg.dim)); break;
    }
  }
  if (abi_ == KernelAbi::kTriton)
    for (int i = 0; i < kTritonTrailingPointers; ++i) args.push(static_cast<void*>(nullptr));
  if (spec_.output_starts_zero) output_.zero(static_cast<std::size_t>(output_count_), stream);
  const Grid grid = grid_for(spec_.launch, shape_, sm_count_);
  driver::launch_kernel(kernel_, {.grid_x = grid.x, .grid_y = grid.y, .block_x = spec_.launch.block_x,
                                  .block_y = spec_.launch.block_y, .shared_bytes = shared_bytes_},
                        args, stream);
}

void StudentKernel::download(std::span<float> out, cudaStream_t stream) { output_.download(out, stream); }

}  // namespace lb::lab
