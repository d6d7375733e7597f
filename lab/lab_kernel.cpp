#include "lab/lab_kernel.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lb::lab {
namespace {

// What the guard zone after the output holds; compared bit for bit.
constexpr std::uint32_t kGuardBits = 0x7F8ABCDEu;  // a NaN no arithmetic produces

HostBuffer guard_pattern() {
  HostBuffer guard(static_cast<std::size_t>(StudentKernel::kGuardFloats));
  for (float& g : guard) std::memcpy(&g, &kGuardBits, sizeof g);
  return guard;
}

// The cubin's symbol table holds an extern "C" kernel's name as a whole string.
bool defines_symbol(const std::string& cubin, const std::string& name) {
  return cubin.find(std::string(1, '\0') + name + std::string(1, '\0')) != std::string::npos;
}

}  // namespace

driver::CompiledKernel compile_student_kernel(const LabSpec& spec, const std::filesystem::path& file, int sm,
                                              const driver::KernelCache& cache, const StudentBuild& build) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError("cannot read " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  driver::CompiledKernel compiled;
  try {
    std::vector<std::string> options;
    if (build.line_info) options.push_back("--generate-line-info");
    if (build.exact_buffers) options.push_back("-G");  // loads stay where the source makes them
    compiled = driver::compile_cubin({file.string(), text.str(), {}, sm, options}, cache);
  } catch (const driver::NvrtcCompileError& e) {
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

StudentModule::StudentModule(const std::string& cubin) {
  LB_CU_CHECK(driver::cu().cuModuleLoadData(&module_, cubin.data()));
}
StudentModule::~StudentModule() {
  if (module_) driver::cu().cuModuleUnload(module_);
}
CUfunction StudentModule::function(const std::string& name) const {
  CUfunction f = nullptr;
  LB_CU_CHECK(driver::cu().cuModuleGetFunction(&f, module_, name.c_str()));
  return f;
}

HostBuffer starting_output(const LabSpec& spec, const HostProblem& problem) {
  return spec.output_starts_zero ? HostBuffer(problem.output.size(), 0.0f) : problem.output;
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

StudentKernel::StudentKernel(const LabSpec& spec, CUfunction kernel, int sm_count, bool exact_buffers)
    : spec_(spec), kernel_(kernel), sm_count_(sm_count), exact_buffers_(exact_buffers) {}

void StudentKernel::allocate(const Shape& shape, const Setup&) {
  shape_ = shape;
  inputs_.clear();
  input_at_.clear();
  for (std::int64_t count : spec_.workload->input_elements(shape)) {
    inputs_.emplace_back(static_cast<std::size_t>(count));
    input_at_.push_back(inputs_.back().get());
  }
  output_count_ = spec_.workload->output_elements(shape);
  output_ = driver::DeviceMemory(static_cast<std::size_t>(output_count_ + guard_floats()));
}

void StudentKernel::upload(const HostProblem& p, cudaStream_t stream) {
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    inputs_[i].upload(p.inputs[i], stream);
    input_at_[i] = inputs_[i].get();
  }
  alpha_ = p.alpha;
  if (spec_.output_starts_zero) output_.upload(starting_output(spec_, p), stream);
  else output_.upload(p.output, stream);  // NaN poison, or saxpy's y: uploaded without a copy
  if (guard_floats() == 0) return;
  const HostBuffer guard = guard_pattern();
  LB_CU_CHECK(driver::cu().cuMemcpyHtoDAsync(output_.get() + output_count_ * sizeof(float), guard.data(),
                                             guard.size() * sizeof(float), stream));
  LB_CU_CHECK(driver::cu().cuStreamSynchronize(stream));
}

std::int64_t StudentKernel::first_write_past_end(cudaStream_t stream) const {
  if (guard_floats() == 0) return -1;
  HostBuffer guard(static_cast<std::size_t>(kGuardFloats));
  LB_CU_CHECK(driver::cu().cuMemcpyDtoHAsync(guard.data(), output_.get() + output_count_ * sizeof(float),
                                             guard.size() * sizeof(float), stream));
  LB_CU_CHECK(driver::cu().cuStreamSynchronize(stream));
  for (std::int64_t i = 0; i < kGuardFloats; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &guard[i], sizeof bits);
    if (bits != kGuardBits) return i;
  }
  return -1;
}

void StudentKernel::upload_pools(const HostProblem& pool, cudaStream_t stream) {
  input_pools_.clear();
  for (const HostBuffer& input : pool.inputs) {
    input_pools_.emplace_back(input.size());
    input_pools_.back().upload(input, stream);
  }
  output_pool_ = driver::DeviceMemory(pool.output.size());
  output_pool_.upload(pool.output, stream);
  alpha_ = pool.alpha;  // the pool's problem, with its own scalar
}

void StudentKernel::use_windows(const SampleWindows& w, cudaStream_t stream) {
  for (std::size_t i = 0; i < input_at_.size(); ++i)
    input_at_[i] = input_pools_.at(i).get() + w.input_offsets.at(i) * sizeof(float);
  LB_CU_CHECK(driver::cu().cuMemcpyDtoDAsync(output_.get(), output_pool_.get() + w.output_offset * sizeof(float),
                                             output_count_ * sizeof(float), stream));
}

void StudentKernel::run(cudaStream_t stream) {
  // One 8-byte slot per parameter, the value at its start: the driver copies as many bytes as the
  // kernel's parameter has (8 for pointers and long long, 4 for float and int).
  std::vector<std::uint64_t> slots(spec_.arguments.size(), 0);
  std::vector<void*> args;
  const std::string& w = spec_.workload->name();
  for (std::size_t i = 0; i < spec_.arguments.size(); ++i) {
    const std::string& name = spec_.arguments[i];
    void* slot = &slots[i];
    auto put = [slot](const auto value) { std::memcpy(slot, &value, sizeof value); };
    if (name == "a" || name == "x" || name == "A") put(input_at_[0]);
    else if (name == "b" || name == "B") put(input_at_[1]);
    else if (name == "c" || name == "y" || name == "out" || name == "C") put(output_.get());
    else if (name == "n" && w != "matmul") put(static_cast<long long>(shape_.n));
    else if (name == "alpha") put(alpha_);
    else if (name == "M") put(static_cast<int>(shape_.m));
    else if (name == "N") put(static_cast<int>(shape_.n));
    else if (name == "K") put(static_cast<int>(shape_.k));
    else throw std::logic_error("lab argument '" + name + "' has no binding for " + w);
    args.push_back(slot);
  }
  if (spec_.output_starts_zero)
    LB_CU_CHECK(driver::cu().cuMemsetD32Async(output_.get(), 0, static_cast<std::size_t>(output_count_), stream));
  const Grid grid = grid_for(spec_.launch, shape_, sm_count_);
  LB_CU_CHECK(driver::cu().cuLaunchKernel(kernel_, grid.x, grid.y, 1, spec_.launch.block_x, spec_.launch.block_y, 1,
                                          0, stream, args.data(), nullptr));
}

void StudentKernel::download(std::span<float> out, cudaStream_t stream) { output_.download(out, stream); }

}  // namespace lb::lab
