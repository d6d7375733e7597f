#include <gtest/gtest.h>

#include <algorithm>

#include "harness/plan.h"
#include "harness/sizes.h"

namespace lb {
namespace {

TEST(ParseCount, PlainAndPowers) {
  EXPECT_EQ(parse_count("1"), 1);
  EXPECT_EQ(parse_count("1000003"), 1000003);
  EXPECT_EQ(parse_count("2^20"), 1 << 20);
  EXPECT_EQ(parse_count("2^0"), 1);
  EXPECT_EQ(parse_count("10^3"), 1000);
}

TEST(ParseCount, RejectsBadValuesNamingThem) {
  for (const char* bad : {"0", "-5", "abc", "", "2^", "^3", "1.5", "2^99", "99999999999999999999", "0^4", "12k"}) {
    try {
      parse_count(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(ParseShape, VectorsMatricesAndCubes) {
  const Workload& add = *find_workload("vector_add");
  const Workload& mm = *find_workload("matmul");
  EXPECT_EQ(parse_shape("2^10", add), (Shape{1, 1024, 1}));
  EXPECT_EQ(parse_shape("17x33x65", mm), (Shape{17, 33, 65}));
  EXPECT_EQ(parse_shape("64", mm), (Shape{64, 64, 64}));
  EXPECT_EQ(parse_shape("2^4x1x3", mm), (Shape{16, 1, 3}));
  EXPECT_THROW(parse_shape("4x4x4", add), UsageError);
  EXPECT_THROW(parse_shape("4x4", mm), UsageError);
  EXPECT_THROW(parse_shape("4x4x4x4", mm), UsageError);
  EXPECT_THROW(parse_shape("4x0x4", mm), UsageError);
  EXPECT_THROW(parse_shape("x4x4", mm), UsageError);
}

// A bad part of MxNxK is reported with the whole size, in one line; a dimension above 2^31 - 1 (the
// layers take an int) is bad input; a power with a huge exponent does not hang; 19 digits read back.
TEST(ParseShape, BadDimensionNamesTheWholeSize) {
  const Workload& mm = *find_workload("matmul");
  for (const char* bad : {"64x0x64", "64xabcx64", "x64x64", "64x64x", "64x-1x1", "64x2^99x1", "2^31x1x1", "3000000000"}) {
    try {
      (void)parse_shape(bad, mm);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parse_count("1^999999999999999999"), 1);
  EXPECT_EQ(parse_count("4611686018427387904"), 1LL << 62);
  try {
    (void)parse_count("1\n2");
    ADD_FAILURE() << "a line break was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1\\x0a2"), std::string::npos) << e.what();
  }
}

// How --size values go to workloads (plan.h): each workload takes the sizes of its kind; a size
// too large for this machine is a case skipped with its reason, not bad input.
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<Shape> shapes_of(const std::vector<PlannedSize>& sizes) {
  std::vector<Shape> shapes;
  for (const auto& s : sizes) shapes.push_back(s.shape);
  return shapes;
}

TEST(PlanSizes, OneNumberWithoutWorkloadsIsEveryWorkloadsSizeAndACubeTooLargeIsSkipped) {
  const Workload& add = *find_workload("vector_add");
  const Workload& mm = *find_workload("matmul");
  // `run --check -s 1,1000003`: vector_add at both; matmul 1^3 runs, 1000003^3 (12 TB) does not fit.
  const auto vec = sizes_for(add, {"1", "1000003"}, false, false, 64 * kGiB);
  EXPECT_EQ(shapes_of(vec), (std::vector<Shape>{{1, 1, 1}, {1, 1000003, 1}}));
  EXPECT_TRUE(vec[0].does_not_fit.empty() && vec[1].does_not_fit.empty());
  const auto cubes = sizes_for(mm, {"1", "1000003"}, false, false, 64 * kGiB);
  ASSERT_EQ(cubes.size(), 2u);
  EXPECT_EQ(cubes[0], (PlannedSize{{1, 1, 1}, ""}));
  EXPECT_EQ(cubes[1].shape, (Shape{1000003, 1000003, 1000003}));
  EXPECT_EQ(cubes[1].does_not_fit.rfind("does not fit in host memory: needs ", 0), 0u) << cubes[1].does_not_fit;
  EXPECT_NE(cubes[1].does_not_fit.find("this machine has 64.0 GiB"), std::string::npos) << cubes[1].does_not_fit;
  EXPECT_NE(cubes[1].does_not_fit.find("one number is a cube"), std::string::npos) << cubes[1].does_not_fit;
  // A cube whose side the layers cannot take (an int) is skipped too, named or not.
  for (const bool named : {false, true}) {
    const auto big = sizes_for(mm, {"3000000000"}, named, false, 64 * kGiB);
    ASSERT_EQ(big.size(), 1u);
    EXPECT_NE(big[0].does_not_fit.find("above 2^31 - 1"), std::string::npos) << big[0].does_not_fit;
  }
  // Named or not, a vector too large for the host is skipped, not refused.
  const auto huge = sizes_for(add, {"2^40"}, true, false, 64 * kGiB);
  ASSERT_EQ(huge.size(), 1u);
  EXPECT_NE(huge[0].does_not_fit.find("needs 16.0 TiB"), std::string::npos) << huge[0].does_not_fit;
}

TEST(PlanSizes, WithAnMxNxKSizeEachWorkloadTakesItsOwnKind) {
  const Workload& reduce = *find_workload("reduce");
  const Workload& mm = *find_workload("matmul");
  // `run --rung matmul/03_smem_tiling,reduce/all -s 2^20,1024x1024x1024`: reduce at 2^20, matmul at 1024^3.
  const std::vector<std::string> both{"2^20", "1024x1024x1024"};
  EXPECT_EQ(shapes_of(sizes_for(reduce, both, false, true, 64 * kGiB)), (std::vector<Shape>{{1, 1 << 20, 1}}));
  EXPECT_EQ(shapes_of(sizes_for(mm, both, false, true, 64 * kGiB)), (std::vector<Shape>{{1024, 1024, 1024}}));
  // Only MxNxK: a vector workload gets nothing (plan_suite then leaves it out, and says so).
  EXPECT_TRUE(sizes_for(reduce, {"17x33x65"}, false, true, 64 * kGiB).empty());
  // -w named matmul: every size is its size (`run -w matmul -l runtime -s 2^12,17x33x65`).
  EXPECT_EQ(shapes_of(sizes_for(mm, {"2^12", "17x33x65"}, true, true, 64 * kGiB)),
            (std::vector<Shape>{{4096, 4096, 4096}, {17, 33, 65}}));
}

TEST(PlanSizes, BadInputIsStillBadInput) {
  const Workload& add = *find_workload("vector_add");
  const Workload& mm = *find_workload("matmul");
  for (const bool named : {false, true})
    for (const char* bad : {"0", "-5", "abc", "2^64", "1e9", "4x0x4", "2^31x1x1", "1x0", "1x2x3x4"}) {
      EXPECT_THROW(sizes_for(add, {"1000", bad}, named, false, 64 * kGiB), UsageError) << bad;
      EXPECT_THROW(sizes_for(mm, {"1000", bad}, named, false, 64 * kGiB), UsageError) << bad;
    }
  // An MxN size is transpose's: left out for the others unless they are named, then not theirs.
  EXPECT_TRUE(sizes_for(add, {"1x2"}, false, false, 64 * kGiB).empty());
  EXPECT_THROW(sizes_for(add, {"1x2"}, true, false, 64 * kGiB), UsageError);
  EXPECT_THROW(sizes_for(mm, {"1x2"}, true, false, 64 * kGiB), UsageError);
  EXPECT_THROW(sizes_for(add, {"64x64x64"}, true, true, 64 * kGiB), UsageError);  // named: not its kind
}

TEST(PlanSizes, DefaultsThatDoNotFitAreSkippedCases) {
  const Workload& add = *find_workload("vector_add");
  const auto sizes = sizes_for(add, {}, false, false, 64.0 * 1024 * 1024);  // a 64 MiB machine
  ASSERT_EQ(sizes.size(), add.default_sizes().size());
  EXPECT_TRUE(sizes.front().does_not_fit.empty());  // 2^20: 12 MiB
  EXPECT_FALSE(sizes.back().does_not_fit.empty());  // 2^28: 3 GiB
}

// A launch-overhead workload's size is a count of launches: without -w it keeps its default.
TEST(PlanSizes, LaunchWorkloadsKeepTheirCountUnlessNamed) {
  const Workload& launch = *find_workload("launch_async");
  EXPECT_EQ(shapes_of(sizes_for(launch, {"2^20"}, false, false, 64 * kGiB)), launch.default_sizes());
  EXPECT_EQ(shapes_of(sizes_for(launch, {"2^20"}, true, false, 64 * kGiB)), (std::vector<Shape>{{1, 1 << 20, 1}}));
  EXPECT_THROW(sizes_for(launch, {"1000", "0"}, false, false, 64 * kGiB), UsageError);
  EXPECT_THROW(sizes_for(launch, {"4x0x4"}, false, true, 64 * kGiB), UsageError);
}

TEST(PlanSizes, PlanLeavesOutWorkloadsWithNoSizeOfTheirKind) {
  const SuitePlan plan = plan_suite({.sizes = {"17x33x65"}});
  EXPECT_NE(std::find(plan.no_size.begin(), plan.no_size.end(), "vector_add"), plan.no_size.end());
  EXPECT_EQ(std::find(plan.no_size.begin(), plan.no_size.end(), "matmul"), plan.no_size.end());
  EXPECT_THROW(plan_suite({.workloads = {"vector_add"}, .sizes = {"17x33x65"}}), UsageError);
  EXPECT_THROW(plan_suite({.workloads = {"vector_add", "reduce"}, .sizes = {"2^20", "0"}}), UsageError);
}

TEST(OneLine, ControlCharactersBecomeHexEscapes) {
  EXPECT_EQ(one_line("plain text"), "plain text");
  EXPECT_EQ(one_line(std::string("a\nb\tc\x7f") + '\0'), "a\\x0ab\\x09c\\x7f\\x00");
}

}  // namespace
}  // namespace lb
