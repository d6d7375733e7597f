// The grade of a lab submission, in one place: the typed Grade record and every rule that sets it
// (the check's points per size, the performance tiers, the plausibility refusal, the zeroing of
// what a protocol error makes untrustworthy). grade_reports() reads the check's and the timing
// child's reports; the rest are pure functions, tested on synthetic timings without a GPU
// (tests/test_lab.cpp). How a grade is written out (console, JSON, CSV, markdown, the grading
// systems' files) is lab/grading/grade_writer.h's: no writer computes a point.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/device_peaks.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

struct ChildReport;  // lab/child/child_process.h

// One timed kernel at one size, as the harness measured it.
struct Timing {
  double median_ms = 0, noise = 0, gbps = 0, gflops = 0;
  std::size_t samples = 0;
};

// One benchmark size: the student's kernel and ours (the lab's baseline layer's; `runtime` is the
// name it had when the runtime layer was the only baseline, kept in the grade's JSON), or why not.
struct BenchmarkResult {
  std::string size;
  std::optional<Timing> student, runtime;
  std::string error;  // the student's kernel was wrong or failed at this size
  // The highest rate a correct kernel can show at this size on this GPU (harness/device_peaks.h),
  // or why there is none; unchecked unless the caller set it.
  RateLimit limit = RateLimit::unchecked(Figure::kBandwidth, "the GPU's peaks are not known");
  // The student's timed samples (lab/child/fresh_inputs.h): how many were verified (every one), what
  // one reset of its inputs and output took, and one sample's verification (both outside the timed region).
  std::size_t samples_verified = 0;
  double input_reset_ms = 0;
  double sample_verify_ms = 0;
  // Lab 8: one timed trip's hand-over of a and b (after its start mark, in both trips' clocks), 0 elsewhere.
  double handover_ms = 0;
  double speed() const { return student && runtime ? runtime->median_ms / student->median_ms : 0.0; }
};

// The GPU's ceiling for the lab's figure, measured in the same run.
struct Ceiling {
  std::string what;   // "copy bandwidth", "cuBLAS SGEMM"
  std::string unit;   // "GB/s", "GFLOP/s"
  double value = 0;   // 0 when not measured
};

// One check size's outcome (size_results fills it from the check's report), for the grading
// systems that list each size as a test (lab/grading/autograder_results.h).
struct SizeResult {
  std::string size;      // as lab.json writes it: "2^24"
  std::string label;     // as the check's lines name it: "n = 16777216 (2^24)"
  bool passed = false;
  std::string feedback;  // why not; empty when it passed
};

// kRefused: every check size passed, but the kernel's rate at a benchmark size was above what the
// GPU allows (BenchmarkResult::limit): it skipped work, so its performance part earns nothing.
enum class GradeOutcome { kGraded, kCheckFailed, kDidNotCompile, kCouldNotRun, kRefused };
// "graded", "check failed", "did not compile", "could not run", "refused"
const char* to_string(GradeOutcome outcome);

struct Grade {
  std::string file;
  GradeOutcome outcome = GradeOutcome::kCouldNotRun;
  std::size_t sizes_passed = 0, sizes_total = 0;
  double check_points = 0;
  std::optional<double> speed;             // geometric mean over benchmark sizes of ours / yours (time)
  std::optional<double> ceiling_fraction;  // geometric mean of your rate / the ceiling
  const Tier* tier = nullptr;              // the tier reached; nullptr below every tier
  double performance_points = 0;
  // kRefused: kSkippedWork and the figures, "faster than the hardware allows: the kernel skipped
  // work (at 67108864: 4970.0 GB/s > 3585.8 GB/s, the DRAM peak for a 805306368-byte working set)".
  std::string refusal;
  std::vector<BenchmarkResult> benchmarks;
  std::vector<std::string> feedback;       // what the student reads, one line each
  std::vector<SizeResult> sizes;           // every check size, in lab.json's order (empty: not known)
  std::string compiler_message;            // kDidNotCompile: the whole message (feedback keeps 3 lines)
  // How long the grade took, by the parent's clock: the check's child, and the timing's children
  // (the environment's and the timing child; 0 when the check failed).
  double check_wall_s = 0, timing_wall_s = 0;
  // How the student's code was held while it was graded (lab/child/student_sandbox.h's
  // description); empty where none was chosen.
  std::string isolation;
  double points() const { return check_points + performance_points; }
};

double geometric_mean(const std::vector<double>& values);  // 0 for none or any value <= 0

// The check's points: its share for the sizes that passed, to one decimal. Only where which sizes
// passed is not known (a count alone); a grade whose sizes are known takes the shares below.
double check_points(const LabSpec& spec, std::size_t passed, std::size_t total);

// Each check size's share of the check's points, in lab.json's order, in hundredths: the points
// split as evenly as hundredths allow, the larger shares first (lab 1: 60 over 7 sizes, 858 and
// six 857). Fixed whatever passes, so a grading system's per-test maximum never changes.
std::vector<long long> check_shares(const LabSpec& spec);

// The check's points of a grade whose sizes are known: the shares of the sizes that passed, so
// that the points are exactly what the autograder files' tests add up to.
double check_points(const LabSpec& spec, const std::vector<SizeResult>& sizes);

// The first (best) tier `speed` reaches, or nullptr.
const Tier* tier_for(const LabSpec& spec, double speed);

// The grade of a submission whose check ran, from every check size's outcome (in lab.json's
// order): the check's points are the shares of the sizes that passed (check_shares); performance
// points only when every size passed and every benchmark size was timed, from the geometric mean
// of the speeds; feedback says where the kernel stands and what the next tier needs. A student's
// rate above its size's `limit` at any benchmark size refuses the performance part (kRefused: 0
// points, the check's points kept).
Grade grade_submission(const LabSpec& spec, std::string file, std::vector<SizeResult> sizes,
                       std::vector<BenchmarkResult> benchmarks, const Ceiling& ceiling);
// The same where only how many sizes passed is known (synthetic grades): the check's points are
// check_points(spec, passed, total), and the grade lists no sizes.
Grade grade_submission(const LabSpec& spec, std::string file, std::size_t passed, std::size_t total,
                       std::vector<BenchmarkResult> benchmarks, const Ceiling& ceiling);

// Every check size's outcome from the check's report: the first size the check never reached fails
// with what stopped it, the ones after it "not run".
std::vector<SizeResult> size_results(const LabSpec& spec, const ChildReport& check);

// The grade of one submission from its check's report and its timing child's (`timed`: no child
// ran when the check failed). A file that did not compile earns nothing; a check whose lines could
// not be read (a protocol error) earns nothing, none of its sizes trusted; a timing child with a
// protocol error times no size. The timing figures are read against the lab's runner's ceiling and
// rate limits (lab/runners/runner.h), and its feedback lines are added once, here.
Grade grade_reports(const LabSpec& spec, const std::string& file, const ChildReport& check, const ChildReport& timed);

}  // namespace lb::lab
