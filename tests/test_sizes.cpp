#include <gtest/gtest.h>

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

TEST(OneLine, ControlCharactersBecomeHexEscapes) {
  EXPECT_EQ(one_line("plain text"), "plain text");
  EXPECT_EQ(one_line(std::string("a\nb\tc\x7f") + '\0'), "a\\x0ab\\x09c\\x7f\\x00");
}

}  // namespace
}  // namespace lb
