// What the `layerbench lab` tests share: the source tree's paths, where each lab's solution and
// planted submissions are (the one place that knows that layout; the parameterized GPU tests of
// test_lab.cpp take their labs and files from here), small file helpers, and a fixture that runs
// the layerbench executable (LB_EXE) in a fresh temporary folder and collects its exit status,
// stdout and stderr.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lab/runners/runner.h"
#include "lab/spec/lab_spec.h"
#include "variants/python/python_layer.h"
#include "variants/python/workload_folder.h"  // workload_folders_unavailable_reason

namespace lb::lab::testing {

namespace fs = std::filesystem;

inline const fs::path kRoot = LB_SOURCE_ROOT;
inline const fs::path kLabs = kRoot / "labs";

// --- the labs' files: every test finds a lab's solution and planted submissions through these ---
// A lab is one folder, labs/NN-name/: lab.json, README.md and the starter file, beside its
// solution/, its wrong/ submissions (each with its expected verdict in its first lines) and the
// grades a real GPU gave in expected/.

// A lab's reference solution: the student's file, solved.
inline fs::path solution_file(const std::string& lab, const std::string& student_file) {
  return kLabs / lab / "solution" / student_file;
}
inline fs::path solution_file(const LabSpec& spec) { return solution_file(spec.name, spec.student_file); }
// A lab's planted wrong (or deliberately slow) submissions, each saying in its first lines what it
// must get (test_lab.cpp, "What a planted file must get").
inline fs::path wrong_dir(const std::string& lab) { return kLabs / lab / "wrong"; }
inline fs::path planted_file(const std::string& lab, const std::string& name) { return wrong_dir(lab) / name; }
inline std::vector<fs::path> planted_files(const std::string& lab) {
  std::vector<fs::path> files;
  if (fs::exists(wrong_dir(lab)))
    for (const auto& entry : fs::directory_iterator(wrong_dir(lab))) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}
// Why `lab` (its folder name) cannot be read by this build: it is on a workload folder, which
// needs the embedded interpreter (`lab list` leaves it out, saying so). Empty when it can.
inline std::string lab_unreadable_here(const std::string& lab) {
  const std::string why = workload_folders_unavailable_reason();
  if (why.empty()) return "";
  std::ifstream in(kLabs / lab / "lab.json");
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return json.find("\"workload_dir\"") == std::string::npos ? "" : lab + "'s workload folder " + why;
}

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

// The labs this build can check: all of them, less those the child runs through the embedded
// interpreter (Numba, PyCUDA, cuda.core) in a build without it (-DLAYERBENCH_PYTHON_LAYERS=OFF),
// which refuses those, saying so (tests/test_lab_python.cpp).
inline std::vector<LabSpec> checkable_labs() {
  if (!fs::exists(kLabs)) return {};
  std::vector<LabSpec> labs = all_labs(kLabs);
  if (!python_layers_built_without().empty())
    std::erase_if(labs, [](const LabSpec& spec) { return spec.runner->embedded_python(); });
  return labs;
}
inline std::vector<std::string> checkable_lab_names() {
  std::vector<std::string> names;
  for (const LabSpec& spec : checkable_labs()) names.push_back(spec.name);
  return names;
}
// Every planted submission of a checkable lab, as (lab, file).
struct PlantedSubmission {
  std::string lab;
  fs::path file;
};
inline void PrintTo(const PlantedSubmission& p, std::ostream* os) { *os << p.lab << "/" << p.file.filename().string(); }
inline std::vector<PlantedSubmission> planted_submissions() {
  std::vector<PlantedSubmission> all;
  for (const LabSpec& spec : checkable_labs())
    for (const fs::path& file : planted_files(spec.name)) all.push_back({spec.name, file});
  return all;
}
// A name gtest takes for a parameter (letters, digits, _): "08-transfer" -> "08_transfer".
inline std::string test_param_name(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
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

// A stand-in for `lab run-child` (LAYERBENCH_LAB_RUNNER, or CheckOptions::runner): a shell script
// that writes on its events channel (fd 3) `check` for --mode check (and profile), `environment`
// for --mode environment and `timed` for --mode time, each JSON lines, one event a line.
inline std::string stand_in_child(const std::string& check, const std::string& environment = "",
                                  const std::string& timed = "") {
  return "#!/bin/sh\nexec 1>&3\ncase \"$*\" in\n  *'--mode environment'*) cat <<'EOF'\n" + environment +
         "EOF\n;;\n  *'--mode time'*) cat <<'EOF'\n" + timed + "EOF\n;;\n  *) cat <<'EOF'\n" + check +
         "EOF\n;;\nesac\n";
}
// Every check size of lab 1 passed, one line each.
inline std::string lab1_every_size_passed() {
  std::string lines;
  for (const char* size : {"1", "127", "255", "256", "257", "1000003", "2^24"})
    lines += std::string("{\"size\": \"") + size + "\", \"passed\": true}\n";
  return lines;
}
// An environment line as the environment child writes it: a GPU with the H100's DRAM peak and L2
// (a correct lab 1 may show up to 3585.8 GB/s at 2^26, cold) and the copy ceiling `copy_gbps`.
inline std::string test_environment_line(double copy_gbps = 3000.0) {
  return "{\"event\": \"environment\", \"gpu\": \"Test GPU\", \"ceilings\": {\"copy_gbps\": " +
         std::to_string(copy_gbps) +
         "}, \"peaks\": {\"dram_gbps\": 3352.32, \"l2_bytes\": 52428800, \"compute_capability\": \"9.0\"}, "
         "\"cache_mode\": \"cold\"}\n";
}

class LabCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    // A parameterized test's names hold '/' (EachLab/...): one folder, not a tree left behind.
    dir_ = fs::temp_directory_path() / ("layerbench_lab_" + std::to_string(getpid()) + "_" +
                                        test_param_name(test->test_suite_name()) + "_" + test_param_name(test->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  struct Outcome {
    int code = -1;
    std::string out, err;
  };
  // `layerbench ARGS` in dir_, with `env` (e.g. "NAME=value") before it.
  // Not as root, `lab grade` refuses the grader's own user unless told it may (student_sandbox.h):
  // these tests grade what they grade either way, and LabGradeIsolation tests the refusal itself.
  Outcome run(const std::string& args, const std::string& env = "") const {
    const bool weak = geteuid() != 0 && args.rfind("lab ", 0) == 0 && (args + " ").find(" grade ") != std::string::npos;
    return run_command(env + " " + LB_EXE + " " + args + (weak ? " --accept-weak-isolation" : ""));
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
