// A workload is defined once, apart from any layer: its sizes, the bytes and flops it costs,
// seeded inputs, a double-precision CPU reference and the check of a layer's result.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lb {

// Vector workloads use n only. matmul: C (m×n) = A (m×k) · B (k×n), all row-major.
struct Shape {
  std::int64_t m = 1;
  std::int64_t n = 1;
  std::int64_t k = 1;
  friend bool operator==(const Shape&, const Shape&) = default;
};

// Host memory for inputs and outputs. Unlike std::vector<float>(n), which zero-fills serially,
// resizing leaves new floats uninitialised, so the first touch of a big buffer (at 2^28 elements,
// a gigabyte of page faults) happens in the parallel loop that fills it, on all cores.
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) ::new (static_cast<void*>(p)) U;
    else ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using HostBuffer = std::vector<float, UninitialisedAllocator<float>>;

// Host data for one case. `output` is what the output buffer holds before a run: NaN poison for
// outputs that are only written, or y for saxpy, which updates y in place.
struct HostProblem {
  Shape shape;
  std::uint64_t seed = 0;          // what the inputs were drawn from
  float alpha = 0.0f;              // saxpy's scalar
  std::vector<HostBuffer> inputs;  // read-only operands, in the order the workload documents
  HostBuffer output;
};

struct Verdict {
  bool passed = false;
  double max_rel_error = 0.0;  // largest |got - ref| / scale over the checked elements (inf for NaN)
  double tolerance = 0.0;
  std::string detail;          // one line naming the worst element; empty when passed
};

// A workload's double-precision reference, element by element, and what its check allows: output
// element i passes when |got_i - expected[i]| <= tolerance * scale[i] (NaN never passes). The same
// numbers verify() checks against; feedback on a wrong result (layerbench lab) reads them directly.
struct Reference {
  std::vector<double> expected;  // one per output element
  std::vector<double> scale;     // a bound on the size of the terms that made each element
  double tolerance = 0.0;
};

// What a workload's cases are read by: bandwidth (GB/s), compute (GFLOP/s), or the time of one
// kernel launch (launch-overhead workloads). Recorded in the results, so readers need not guess.
enum class Figure { kBandwidth, kCompute, kLaunchTime };
const char* to_string(Figure figure);  // "gbps", "gflops", "us_per_launch" (the JSON field names)

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual bool takes_matrix_sizes() const { return false; }  // MxNxK instead of one n
  virtual Figure figure() const = 0;
  virtual std::vector<Shape> default_sizes() const = 0;
  virtual double bytes_moved(const Shape& s) const = 0;  // fewest bytes through device memory
  virtual double flops(const Shape& s) const = 0;
  virtual std::int64_t output_elements(const Shape& s) const = 0;
  // Elements of each input buffer, in HostProblem::inputs order (what a layer allocates).
  virtual std::vector<std::int64_t> input_elements(const Shape& s) const = 0;
  // Host memory one case needs (inputs, poisoned output, downloaded result), to refuse sizes early.
  virtual double host_bytes(const Shape& s) const = 0;
  // Kernel launches one run makes, for launch-overhead workloads (0 elsewhere), which turn a
  // run's time into microseconds per launch.
  virtual std::int64_t launches(const Shape&) const { return 0; }
  // Sizes the layer tests use, apart from benchmark sizes: odd tails, one element, one block +- 1.
  virtual std::vector<Shape> edge_sizes() const;
  virtual HostProblem make_problem(const Shape& s, std::uint64_t seed) const = 0;
  virtual Verdict verify(const HostProblem& problem, std::span<const float> result) const = 0;
  // Every output element's reference (all of them, in double: at large matmul sizes that is the
  // full product, which verify() samples instead). Workloads whose output has no element-wise
  // reference (the launch workloads) throw std::logic_error.
  virtual Reference reference(const HostProblem& problem) const;

  std::string size_label(const Shape& s) const;  // "268435456" or "4096x4096x4096"
};

// Registration: each workload's file registers one instance; `rank` orders listings.
bool register_workload(std::unique_ptr<Workload> workload, int rank);
std::vector<const Workload*> all_workloads();
const Workload* find_workload(const std::string& name);  // nullptr when unknown

}  // namespace lb

#define LB_CONCAT_INNER(a, b) a##b
#define LB_CONCAT(a, b) LB_CONCAT_INNER(a, b)
#define LB_REGISTER_WORKLOAD(Type, rank) \
  static const bool LB_CONCAT(lb_workload_registered_, __LINE__) = \
      ::lb::register_workload(std::make_unique<Type>(), rank)
