// What the `layerbench lab` tests share: the source tree's paths, small file helpers, and a fixture
// that runs the layerbench executable (LB_EXE) in a fresh temporary folder and collects its exit
// status, stdout and stderr.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lb::lab::testing {

namespace fs = std::filesystem;

inline const fs::path kRoot = LB_SOURCE_ROOT;
inline const fs::path kLabs = kRoot / "labs";

// A lab is one folder, labs/NN-name/: lab.json, README.md and the starter file, beside its
// solution/, its wrong/ submissions (each with its expected verdict in its first lines) and the
// grades a real GPU gave in expected/.
inline fs::path solution_file(const std::string& lab, const std::string& student_file) {
  return kLabs / lab / "solution" / student_file;
}
inline fs::path wrong_dir(const std::string& lab) { return kLabs / lab / "wrong"; }
// Every lab's expected grade files (labs/*/expected/<gpu>.<what>.json), in path order.
inline std::vector<fs::path> expected_grade_files() {
  std::vector<fs::path> files;
  for (const auto& lab : fs::directory_iterator(kLabs))
    if (fs::is_directory(lab.path() / "expected"))
      for (const auto& e : fs::directory_iterator(lab.path() / "expected"))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
inline void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class LabCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("layerbench_lab_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() +
                                        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  struct Outcome {
    int code = -1;
    std::string out, err;
  };
  // `layerbench ARGS` in dir_, with `env` (e.g. "NAME=value") before it.
  Outcome run(const std::string& args, const std::string& env = "") const {
    return run_command(env + " " + LB_EXE + " " + args);
  }
  // A shell command in dir_, its stdout and stderr collected.
  Outcome run_command(const std::string& command) const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const int status =
        std::system(("cd " + dir_.string() + " && " + command + " >" + out.string() + " 2>" + err.string()).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  fs::path dir_;
};

}  // namespace lb::lab::testing
