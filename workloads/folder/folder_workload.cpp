#include "workloads/folder/folder_workload.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace lb {

std::size_t element_bytes(ElementType type) {
  return type == ElementType::kFloat64 || type == ElementType::kInt64 ? 8 : 4;
}

ElementType element_type(const std::string& name) {
  if (name == "float32") return ElementType::kFloat32;
  if (name == "float64") return ElementType::kFloat64;
  if (name == "int32") return ElementType::kInt32;
  if (name == "int64") return ElementType::kInt64;
  throw std::invalid_argument("no element type '" + name + "' (float32, float64, int32, int64)");
}

std::int64_t floats_for(std::int64_t bytes) { return (bytes + 3) / 4; }

unsigned grid_stride_blocks(const std::array<unsigned, 3>& block, int sm_count, int threads_per_sm) {
  const unsigned threads = block[0] * block[1] * block[2];
  return static_cast<unsigned>(sm_count) * std::max(1u, static_cast<unsigned>(threads_per_sm) / threads);
}

std::span<const float> FolderLayout::host(const HostProblem& problem, std::size_t i) const {
  const Place& p = buffers.at(i);
  if (!p.output) return problem.inputs.at(p.index);
  return std::span<const float>(problem.output).subspan(static_cast<std::size_t>(p.offset / 4),
                                                        static_cast<std::size_t>(floats_for(p.bytes)));
}

std::span<float> FolderLayout::output(std::span<float> out, std::size_t i) const {
  const Place& p = buffers.at(i);
  return out.subspan(static_cast<std::size_t>(p.offset / 4), static_cast<std::size_t>(floats_for(p.bytes)));
}

FolderArguments::FolderArguments(const FolderKernel& kernel, const Shape& s, std::vector<std::uint64_t> addresses)
    : addresses_(std::move(addresses)) {
  values_.reserve(kernel.arguments.size());  // pointers_ points into it: no reallocation after
  for (const FolderArgument& a : kernel.arguments) {
    switch (a.kind) {
      case FolderArgument::Kind::kBuffer: pointers_.push_back(&addresses_.at(static_cast<std::size_t>(a.buffer))); break;
      case FolderArgument::Kind::kScalar: pointers_.push_back(values_.emplace_back(a.value).data()); break;
      case FolderArgument::Kind::kSize: {
        const long long size = extent(s, a.dim);
        std::memcpy(values_.emplace_back().data(), &size, sizeof size);
        pointers_.push_back(values_.back().data());
        break;
      }
    }
  }
}

std::vector<std::uint64_t> FolderArguments::slots() const {
  std::vector<std::uint64_t> slots(pointers_.size());
  for (std::size_t i = 0; i < pointers_.size(); ++i) std::memcpy(&slots[i], pointers_[i], sizeof slots[i]);  // 8 bytes behind each
  return slots;
}

FolderLayout FolderWorkload::layout(const Shape& s) const {
  const std::vector<std::vector<std::int64_t>> shapes = buffer_shapes(s);
  FolderLayout l;
  std::size_t inputs = 0, outputs = 0;
  for (std::size_t i = 0; i < spec_.buffers.size(); ++i) {
    const FolderBuffer& b = spec_.buffers[i];
    FolderLayout::Place p;
    p.bytes = static_cast<std::int64_t>(element_bytes(b.type));
    for (const std::int64_t extent : shapes.at(i)) p.bytes *= extent;
    p.output = b.output;
    if (b.output) {
      p.index = outputs++;
      p.offset = l.output_bytes;
      l.output_bytes += (p.bytes + 7) / 8 * 8;  // the next output starts 8-byte aligned
    } else {
      p.index = inputs++;
    }
    l.buffers.push_back(p);
  }
  return l;
}

std::vector<std::int64_t> FolderWorkload::input_elements(const Shape& s) const {
  std::vector<std::int64_t> counts;
  for (const FolderLayout::Place& p : layout(s).buffers)
    if (!p.output) counts.push_back(floats_for(p.bytes));
  return counts;
}

double FolderWorkload::device_bytes(const Shape& s) const {
  double bytes = 0;
  for (const FolderLayout::Place& p : layout(s).buffers) bytes += static_cast<double>(p.bytes);
  return bytes;
}

// Inputs, the outputs' starting contents and the downloaded result, and the check's float64 copies
// of each buffer (reference.py works in float64 and int64).
double FolderWorkload::host_bytes(const Shape& s) const {
  const FolderLayout l = layout(s);
  double bytes = 2.0 * static_cast<double>(l.output_bytes);
  for (std::size_t i = 0; i < l.buffers.size(); ++i) {
    const double b = static_cast<double>(l.buffers[i].bytes);
    bytes += l.buffers[i].output ? 0 : b;
    bytes += b * 8.0 / static_cast<double>(element_bytes(spec_.buffers[i].type));
  }
  return bytes;
}

}  // namespace lb
