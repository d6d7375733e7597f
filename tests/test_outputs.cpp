// Outputs never destroy what their path points at (harness/record.h, write_output): a symlink is
// followed and its target replaced, a device or FIFO is written straight through (a private node
// made with mknod in a temporary folder, never /dev itself), "-" is standard output, and a full
// device fails with one line, exit 2 and the results kept elsewhere. Through the writer itself and
// through `layerbench run` (the CPU layer: no GPU needed).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/record.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using lb::lab::testing::has;
using lb::lab::testing::slurp;

class Outputs : public lb::lab::testing::LabCliTest {
 protected:
  // A character device like /dev/null (1, 3) or /dev/full (1, 7), here; false where mknod is not
  // allowed (not root).
  bool make_device(const fs::path& p, unsigned minor) {
    return ::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  }
  static bool is_char_device(const fs::path& p) { return fs::is_character_file(fs::symlink_status(p)); }
  std::string run_args(const std::string& out) const {
    return "run -l cpu -w vector_add -s 1000 --max-time 0.05 --min-time 0.01 -o " + out;
  }
};

TEST_F(Outputs, ASymlinkIsFollowedAndStaysALink) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_symlink(dir_ / "elsewhere" / "results.json", dir_ / "link.json");
  lb::write_output((dir_ / "link.json").string(), "first\n");
  lb::write_output((dir_ / "link.json").string(), "second\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(slurp(dir_ / "elsewhere" / "results.json"), "second\n");
  for (const auto& entry : fs::directory_iterator(dir_ / "elsewhere"))
    EXPECT_EQ(entry.path().filename(), "results.json") << "a temporary file was left: " << entry.path();
}

TEST_F(Outputs, AFifoIsWrittenStraightThrough) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  lb::write_output(fifo.string(), "through the pipe\n");
  reader.join();
  EXPECT_EQ(got, "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
}

TEST_F(Outputs, ADeviceIsWrittenStraightThroughAndAFullOneFails) {
  const fs::path null = dir_ / "null", full = dir_ / "full";
  if (!make_device(null, 3) || !make_device(full, 7)) GTEST_SKIP() << "mknod is not allowed here: " << std::strerror(errno);
  EXPECT_NO_THROW(lb::write_output(null.string(), "gone\n"));
  EXPECT_TRUE(is_char_device(null));
  try {
    lb::write_output(full.string(), "too much\n");
    ADD_FAILURE() << "writing a full device succeeded";
  } catch (const lb::OutputError& e) {
    EXPECT_TRUE(has(e.what(), full.string())) << e.what();
  }
  EXPECT_TRUE(is_char_device(full));
}

TEST_F(Outputs, RunWritesADeviceAndKeepsItOrFailsWithOneLineAndKeepsTheResults) {
  const fs::path null = dir_ / "null", full = dir_ / "full";
  if (!make_device(null, 3) || !make_device(full, 7)) GTEST_SKIP() << "mknod is not allowed here: " << std::strerror(errno);
  const Outcome to_null = run(run_args(null.string()));
  EXPECT_EQ(to_null.code, 0) << to_null.out << to_null.err;
  EXPECT_TRUE(is_char_device(null));

  const Outcome to_full = run(run_args(full.string()));
  EXPECT_EQ(to_full.code, 2) << to_full.out << to_full.err;
  EXPECT_TRUE(is_char_device(full));
  // One line says what failed and where the results are instead.
  const std::size_t line = to_full.err.find("layerbench: error: cannot write '" + full.string() + "': ");
  ASSERT_NE(line, std::string::npos) << to_full.err;
  const std::string error = to_full.err.substr(line, to_full.err.find('\n', line) - line);
  const std::size_t at = error.find("; the results are kept in ");
  ASSERT_NE(at, std::string::npos) << error;
  const std::string kept = error.substr(at + std::string("; the results are kept in ").size());
  EXPECT_TRUE(nlohmann::json::accept(slurp(kept))) << kept;
  fs::remove(kept);
}

TEST_F(Outputs, RunToStandardOutputPrintsTheJsonAloneAndTheRestToStandardError) {
  const Outcome o = run(run_args("-"));
  EXPECT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(nlohmann::json::accept(o.out)) << o.out.substr(0, 400);
  EXPECT_EQ(nlohmann::json::parse(o.out)["benchmarks"].size(), 1u);
  EXPECT_TRUE(has(o.err, "vector_add/cpu/1000")) << o.err;  // the table and the summary
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

TEST_F(Outputs, RunFollowsASymlinkedResultsFile) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_symlink(dir_ / "elsewhere" / "results.json", dir_ / "latest.json");
  const Outcome o = run(run_args((dir_ / "latest.json").string()));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "latest.json"));
  EXPECT_TRUE(nlohmann::json::accept(slurp(dir_ / "elsewhere" / "results.json")));
}

}  // namespace
