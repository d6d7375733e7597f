// A workload is defined once, apart from any layer: its sizes, the bytes and flops it costs,
// seeded inputs, a double-precision CPU reference and the check of a layer's result.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "workloads/random_draw.h"

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

// One dimension of a size: what buffers' extents and kernel arguments are made of.
enum class Dim { kM, kN, kK };
const char* to_string(Dim dim);  // "m", "n", "k"
std::int64_t extent(const Shape& s, Dim dim);

// How a workload's size is written: one count n ("2^20"), a matrix ("MxN", one number a square:
// M rows, N columns), or a product's three dimensions ("MxNxK", one number a cube).
enum class SizeForm { kCount, kMatrix, kProduct };
const char* to_string(SizeForm form);  // "n", "MxN", "MxNxK"
int dimension_count(SizeForm form);    // 1, 2, 3

// A buffer of fp32 elements: its name as the workload's kernels call it, and its extents, outermost
// first (row-major); none: one element.
struct BufferSpec {
  std::string name;
  std::vector<Dim> extents;
  std::int64_t elements(const Shape& s) const;
};

// A parameter of the workload's natural kernel (the one a lab's student writes, and Python layers
// bind by name): a buffer, the scalar, or a dimension of the size.
enum class ArgKind { kInput, kOutput, kScalar, kSize };
struct KernelArg {
  std::string name;   // "a", "alpha", "n", "M"
  ArgKind kind = ArgKind::kInput;
  int input = 0;      // kInput: which of WorkloadDescriptor::inputs
  Dim dim = Dim::kN;  // kSize: which dimension
  std::string type;   // its C type, which a launcher passes it as: "const float*", "float*", "float", "long long", "int"
};

// How a workload's problem is drawn from a seed, stated once: the host draws it so (make_problem,
// through recipe_problem in problem.h) and the lab's timed samples draw it so on the device
// (recipe_on_device, fill_random.h), from the same random_draw.h arithmetic. Each buffer's values
// are random_draw::element(stream_key(seed, stream), i, draw).
struct BufferDraw {
  std::uint64_t stream = 0;  // which of the problem's random streams
  Draw draw = Draw::kUnit;
};
struct ScalarDraw {
  std::uint64_t stream = 0;  // random_scalar's stream
  float lo = 0.0f, hi = 0.0f;  // [lo, hi)
};
struct InputRecipe {
  std::vector<BufferDraw> inputs;    // one per input, in HostProblem::inputs order
  std::optional<BufferDraw> output;  // the output's starting contents: none, NaN poison; else drawn (saxpy's y)
  std::optional<ScalarDraw> scalar;  // the scalar (saxpy's alpha); none: 0
};

// What a workload is, as data: everything that the harness, the labs, the Python layers and the
// reports know about it, so that none of them compares its name. Exported into the results'
// context (record.cpp), from where the reports read it.
struct WorkloadDescriptor {
  std::string name;
  std::string summary;
  Figure figure = Figure::kBandwidth;
  SizeForm size_form = SizeForm::kCount;
  std::vector<BufferSpec> inputs;  // in HostProblem::inputs order
  BufferSpec output;               // the buffer the check reads
  InputRecipe recipe;              // how the inputs, the output's start and the scalar are drawn
  std::vector<KernelArg> kernel_args;  // the natural kernel's parameters, in order
  std::string ladder_default_size;     // what `ladder <name>` runs without -s; empty: no ladder default
  struct Vendor {
    std::string library;  // "cuBLAS"; empty: no vendor routine
    std::string routine;  // "cublasSgemm"
  } vendor;
  // A workload read from a folder (`run --workload-dir`, workloads/folder/folder_workload.h): where
  // from, the sha256 of its files, and its workload.json as written. Empty dir: a built-in workload.
  struct Folder {
    std::string dir;
    std::string content_hash;
    std::string workload_json;
  } folder;
};

class Workload {
 public:
  explicit Workload(WorkloadDescriptor descriptor) : descriptor_(std::move(descriptor)) {}
  virtual ~Workload() = default;
  const WorkloadDescriptor& descriptor() const { return descriptor_; }
  const std::string& name() const { return descriptor_.name; }
  const std::string& summary() const { return descriptor_.summary; }
  Figure figure() const { return descriptor_.figure; }
  SizeForm size_form() const { return descriptor_.size_form; }
  // Elements of the output buffer, and of each input buffer in HostProblem::inputs order (a folder
  // workload's: the floats that carry its typed buffers' bytes, workloads/folder/folder_workload.h).
  virtual std::int64_t output_elements(const Shape& s) const { return descriptor_.output.elements(s); }
  virtual std::vector<std::int64_t> input_elements(const Shape& s) const;

  // The default suite's sizes: small (launch-bound), middle and large (bandwidth- or compute-bound),
  // with every layer in about a minute on one H100 (docs/methodology.md#the-default-suite). Larger
  // ones (2^28, 16384^2) are a --sizes away.
  virtual std::vector<Shape> default_sizes() const = 0;
  // The fewest bytes a correct run reads from device memory and writes to it, and their sum, what a
  // GB/s figure divides. The plausibility bound counts them apart (harness/device_peaks.h: after
  // the cold flush every byte read comes from DRAM; only written bytes can stay in the L2).
  virtual double bytes_read(const Shape& s) const = 0;
  virtual double bytes_written(const Shape& s) const = 0;
  double bytes_moved(const Shape& s) const { return bytes_read(s) + bytes_written(s); }
  virtual double flops(const Shape& s) const = 0;
  // Host memory one case needs (inputs, poisoned output, downloaded result), to refuse sizes early.
  virtual double host_bytes(const Shape& s) const = 0;
  // Device memory one case's buffers need, to skip a size that cannot fit before anything is drawn
  // (SuitePlan); 0: not known ahead (the allocation's out-of-memory error then skips the case).
  virtual double device_bytes(const Shape&) const { return 0; }
  // Kernel launches one run makes, for launch-overhead workloads (0 elsewhere), which turn a
  // run's time into microseconds per launch.
  virtual std::int64_t launches(const Shape&) const { return 0; }
  // Sizes the layer tests use, apart from benchmark sizes: odd tails, one element, one block +- 1.
  virtual std::vector<Shape> edge_sizes() const;
  // The problem at `s` drawn from `seed`: by default the descriptor's recipe, realised on the host
  // (recipe_problem, problem.h). A workload overrides it only to refuse a size or to adjust what
  // the recipe drew (reduce: a sum of exactly 0).
  virtual HostProblem make_problem(const Shape& s, std::uint64_t seed) const;
  virtual Verdict verify(const HostProblem& problem, std::span<const float> result) const = 0;
  // Every output element's reference (all of them, in double: at large matmul sizes that is the
  // full product, which verify() samples instead). Workloads whose output has no element-wise
  // reference (the launch workloads) throw std::logic_error.
  virtual Reference reference(const HostProblem& problem) const;

  std::string size_label(const Shape& s) const;  // "268435456", "4096x2048" or "4096x4096x4096"

 private:
  WorkloadDescriptor descriptor_;
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
