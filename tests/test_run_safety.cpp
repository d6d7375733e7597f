// What a run survives and what it never loses, through the real executables: `run --check` (one
// verified run per case, no timing machinery), a kernel that kills the CUDA context (that case
// fails, later GPU cases are skipped, CPU cases run, the JSON is written, exit 1), Ctrl-C and
// SIGTERM (the finished cases and the interrupted one are written, exit 130; a second Ctrl-C exits
// at once), and results files that are only ever written whole.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/gpu.h"
#include "harness/record.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// layerbench started in the background, its stdout and stderr going to files, so that a test can
// signal it while it runs.
class Child {
 public:
  Child(const std::string& exe, const std::vector<std::string>& args, const fs::path& dir)
      : out_(dir / "stdout.txt"), err_(dir / "stderr.txt") {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> words{exe};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, exe.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Child() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0; }
  void signal(int sig) const { kill(pid_, sig); }

  // Waits until stderr holds `text`; false if the child exits first or `seconds` pass.
  bool wait_for_stderr(const std::string& text, double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
      if (stderr_text().find(text) != std::string::npos) return true;
      if (poll_exit()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // The exit status (128 + signal when killed by one); -1 if it has not exited within `seconds`.
  int wait_exit(double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (!poll_exit() && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return exited_ ? code_ : -1;
  }
  std::string stdout_text() const { return slurp(out_); }
  std::string stderr_text() const { return slurp(err_); }

 private:
  bool poll_exit() {
    if (exited_) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    exited_ = true;
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }
  fs::path out_, err_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
};

// "vector_add/cpu/1000": a timed case is a manual-time benchmark, "vector_add/cpu/1000/manual_time".
std::string case_name(const nlohmann::json& b) {
  const std::string name = b.at("name");
  return name.substr(0, name.find("/manual_time"));
}

bool have_gpu() { return lb::gpu_unavailable_reason().empty(); }

class RunSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("layerbench_safety_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = dir_ / "results.json";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs to the end (at most 10 minutes).
  int run(const std::string& exe, const std::vector<std::string>& args) {
    Child child(exe, args, dir_);
    EXPECT_TRUE(child.started());
    const int code = child.wait_exit(600);
    out_text_ = child.stdout_text();
    err_text_ = child.stderr_text();
    return code;
  }
  nlohmann::json results() const { return nlohmann::json::parse(slurp(out_)); }
  // The benchmarks entry of the case named `name` ("vector_add/cpu/1000"); null when absent.
  nlohmann::json entry(const nlohmann::json& j, const std::string& name) const {
    for (const auto& b : j.at("benchmarks"))
      if (case_name(b) == name) return b;
    return nullptr;
  }
  std::vector<std::string> no_temp_files() const {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) left.push_back(e.path().string());
    return left;
  }

  fs::path dir_, out_;
  std::string out_text_, err_text_;
};

// --- check mode ---------------------------------------------------------------------------------

TEST_F(RunSafety, CheckRunsEachCaseOnceVerifiedAndUntimed) {
  const int code = run(LB_EXE, {"run", "--check", "-l", "cpu", "-w", "vector_add,reduce", "-s", "1,1000",
                                "-o", out_.string()});
  ASSERT_EQ(code, 0) << err_text_ << out_text_;
  EXPECT_NE(out_text_.find("checked once each, not timed (--check)"), std::string::npos) << out_text_;
  const auto j = results();
  EXPECT_EQ(j.at("context").at("measurement").at("mode"), "check");
  EXPECT_TRUE(j.at("context").at("ceilings").empty());
  ASSERT_EQ(j.at("benchmarks").size(), 4u);  // 2 workloads x 2 sizes, one layer
  EXPECT_EQ(case_name(j.at("benchmarks")[0]), "vector_add/cpu/1");
  for (const auto& b : j.at("benchmarks")) {
    EXPECT_EQ(b.at("status"), "ok") << b.dump();
    EXPECT_TRUE(b.at("verified").get<bool>()) << b.dump();
    EXPECT_EQ(b.at("iterations"), 0) << b.dump();  // not timed
    EXPECT_FALSE(b.contains("median_ms")) << b.dump();
    EXPECT_TRUE(b.contains("max_rel_error") && b.contains("end_to_end_ms")) << b.dump();
    EXPECT_FALSE(b.contains("error_occurred")) << b.dump();
  }
}

TEST_F(RunSafety, CheckReportsAWrongResultAndExits1) {
  const int code = run(LB_FAULTY_EXE, {"run", "--check", "-l", "faulty,cpu", "-w", "reduce", "-s", "1000", "-o",
                                       out_.string()});
  EXPECT_EQ(code, 1) << err_text_;
  const auto j = results();
  EXPECT_EQ(entry(j, "reduce/faulty/1000").at("status"), "failed");
  EXPECT_EQ(entry(j, "reduce/cpu/1000").at("status"), "ok");
}

TEST_F(RunSafety, CheckRefusesGoogleBenchmarkFlags) {
  const int code = run(LB_EXE, {"run", "--check", "-l", "cpu", "--benchmark_filter=x", "-o", out_.string()});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err_text_.find("'--benchmark_filter=x' does not apply to --check"), std::string::npos) << err_text_;
  EXPECT_EQ(std::count(err_text_.begin(), err_text_.end(), '\n'), 1) << err_text_;
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(RunSafety, CheckOnTheGpuHasNoTimingMachinery) {
  if (!have_gpu()) GTEST_SKIP() << "needs a CUDA device: " << lb::gpu_unavailable_reason();
  const int code = run(LB_EXE, {"run", "--check", "-l", "runtime,driver,vendor", "-w", "vector_add,saxpy,reduce",
                                "-s", "1,1000003", "-o", out_.string()});
  ASSERT_EQ(code, 0) << err_text_ << out_text_;
  EXPECT_EQ(err_text_.find("measuring the ceilings"), std::string::npos) << err_text_;
  const auto j = results();
  EXPECT_TRUE(j.at("context").at("device").is_object());
  EXPECT_TRUE(j.at("context").at("ceilings").empty());
  EXPECT_EQ(j.at("benchmarks").size(), 18u);
  for (const auto& b : j.at("benchmarks")) {
    EXPECT_EQ(b.at("status"), "ok") << b.dump();
    EXPECT_FALSE(b.contains("stream_held")) << b.dump();
  }
}

// The command, which ran for more than 200 s (racecheck over the ceilings' cuBLAS SGEMM): a
// run under compute-sanitizer is a check, and ends in seconds.
TEST_F(RunSafety, UnderComputeSanitizerARunIsACheck) {
  if (!have_gpu()) GTEST_SKIP() << "needs a CUDA device: " << lb::gpu_unavailable_reason();
  std::string sanitizer = "/usr/local/cuda/bin/compute-sanitizer";
  if (!fs::exists(sanitizer)) GTEST_SKIP() << "needs compute-sanitizer at " << sanitizer;
  Child child(sanitizer, {"--tool", "racecheck", LB_EXE, "run", "-l", "runtime", "-w", "reduce", "-s", "1000003",
                          "--min-samples", "1", "--max-time", "0.001", "-o", out_.string()},
              dir_);
  const int code = child.wait_exit(120);
  ASSERT_EQ(code, 0) << child.stderr_text() << child.stdout_text();
  EXPECT_NE(child.stderr_text().find("under compute-sanitizer: each case is checked once"), std::string::npos);
  const std::string both = child.stdout_text() + child.stderr_text();
  EXPECT_NE(both.find("RACECHECK SUMMARY: 0 hazards"), std::string::npos) << both;
  const auto j = results();
  EXPECT_EQ(j.at("context").at("measurement").at("mode"), "check");
  ASSERT_EQ(j.at("benchmarks").size(), 1u);
  EXPECT_EQ(j.at("benchmarks")[0].at("status"), "ok");
}

// --- a kernel that kills the context ------------------------------------------------------------

TEST_F(RunSafety, AFaultingKernelFailsItsCaseAndSkipsTheLaterGpuCases) {
  if (!have_gpu()) GTEST_SKIP() << "needs a CUDA device: " << lb::gpu_unavailable_reason();
  // faulty-gpu has only vector_add: saxpy runs on runtime and cpu.
  const int code = run(LB_FAULTY_EXE, {"run", "-l", "cpu,faulty-gpu,runtime", "-w", "vector_add,saxpy", "-s", "1000",
                                       "--min-samples", "3", "--max-time", "0.05", "-o", out_.string()});
  EXPECT_EQ(code, 1) << err_text_ << out_text_;
  EXPECT_EQ(err_text_.find("terminate called"), std::string::npos) << err_text_;
  const auto j = results();
  EXPECT_EQ(j.at("benchmarks").size(), 5u);
  EXPECT_EQ(entry(j, "vector_add/cpu/1000").at("status"), "ok");
  EXPECT_EQ(entry(j, "saxpy/cpu/1000").at("status"), "ok");
  const auto fault = entry(j, "vector_add/faulty-gpu/1000");
  EXPECT_EQ(fault.at("status"), "failed");
  EXPECT_NE(fault.at("message").get<std::string>().find("cudaErrorIllegalAddress"), std::string::npos) << fault.dump();
  for (const char* name : {"vector_add/runtime/1000", "saxpy/runtime/1000"}) {
    const auto b = entry(j, name);
    EXPECT_EQ(b.at("status"), "skipped") << name;
    EXPECT_NE(b.at("message").get<std::string>().find("the CUDA context died in vector_add/faulty-gpu/1000"),
              std::string::npos)
        << b.dump();
  }
  EXPECT_NE(out_text_.find("results written to"), std::string::npos) << out_text_;
}

TEST_F(RunSafety, AFaultingKernelInACheckIsHandledTheSameWay) {
  if (!have_gpu()) GTEST_SKIP() << "needs a CUDA device: " << lb::gpu_unavailable_reason();
  const int code = run(LB_FAULTY_EXE, {"run", "--check", "-l", "faulty-gpu,runtime,cpu", "-w", "vector_add,saxpy",
                                       "-s", "1000", "-o", out_.string()});
  EXPECT_EQ(code, 1) << err_text_ << out_text_;
  const auto j = results();
  ASSERT_EQ(j.at("benchmarks").size(), 5u);
  EXPECT_EQ(entry(j, "vector_add/faulty-gpu/1000").at("status"), "failed");
  EXPECT_EQ(entry(j, "vector_add/runtime/1000").at("status"), "skipped");
  EXPECT_EQ(entry(j, "saxpy/runtime/1000").at("status"), "skipped");
  EXPECT_EQ(entry(j, "vector_add/cpu/1000").at("status"), "ok");
  EXPECT_EQ(entry(j, "saxpy/cpu/1000").at("status"), "ok");
}

// --- interrupts -----------------------------------------------------------------------------------

// Three CPU cases that each sample for up to 2 s (a noise target no CPU reaches): the signal comes
// while the second samples. The first is written as it finished, the second as interrupted with
// its samples, the third not at all; exit 130.
void interrupt_during_second_case(int sig, const fs::path& dir, const fs::path& out,
                                  const char* signal_name) {
  Child child(LB_EXE, {"run", "-l", "cpu", "-w", "vector_add", "-s", "1000,2000,3000", "--noise", "0.0001",
                       "--to-cap", "--max-time", "2", "-o", out.string()},
              dir);
  ASSERT_TRUE(child.started());
  ASSERT_TRUE(child.wait_for_stderr("vector_add/cpu/2000", 60)) << child.stderr_text();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  child.signal(sig);
  const auto signalled = Clock::now();
  ASSERT_EQ(child.wait_exit(30), 130) << child.stderr_text();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - signalled).count(), 1.5);  // not the 2 s cap
  EXPECT_NE(child.stderr_text().find("interrupted: stopping after the current sample"), std::string::npos);
  EXPECT_NE(child.stdout_text().find("interrupted: 2 of 3 cases started"), std::string::npos) << child.stdout_text();

  const auto j = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(j.at("context").at("layerbench").at("interrupted").at("signal"), signal_name);
  const auto& benchmarks = j.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 2u) << j.dump();
  EXPECT_EQ(case_name(benchmarks[0]), "vector_add/cpu/1000");
  EXPECT_EQ(benchmarks[0].at("status"), "ok");
  EXPECT_EQ(benchmarks[0].at("stop_reason"), "time cap");
  EXPECT_EQ(case_name(benchmarks[1]), "vector_add/cpu/2000");
  EXPECT_EQ(benchmarks[1].at("status"), "interrupted");
  EXPECT_EQ(benchmarks[1].at("stop_reason"), "interrupted");
  EXPECT_GT(benchmarks[1].at("samples").get<int>(), 0);
  EXPECT_TRUE(benchmarks[1].at("error_occurred").get<bool>());  // Google Benchmark's tools leave it out
  EXPECT_NE(benchmarks[1].at("message").get<std::string>().find(std::string("interrupted (") + signal_name + ")"),
            std::string::npos);
}

TEST_F(RunSafety, CtrlCWritesTheFinishedCasesAndTheInterruptedOneThenExits130) {
  interrupt_during_second_case(SIGINT, dir_, out_, "SIGINT");
  EXPECT_TRUE(no_temp_files().empty());
}

TEST_F(RunSafety, SigtermIsHandledLikeCtrlC) { interrupt_during_second_case(SIGTERM, dir_, out_, "SIGTERM"); }

TEST_F(RunSafety, CtrlCWaitsForTheSampleUnderWayAndASecondExitsAtOnce) {
  // faulty's saxpy takes 2 s a run. One Ctrl-C: the run ends when the run under way does.
  {
    Child child(LB_FAULTY_EXE, {"run", "-l", "faulty", "-w", "saxpy", "-s", "1000", "--min-samples", "1000",
                                "--max-time", "60", "-o", out_.string()},
                dir_);
    ASSERT_TRUE(child.wait_for_stderr("saxpy/faulty/1000", 60)) << child.stderr_text();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    child.signal(SIGINT);
    EXPECT_EQ(child.wait_exit(30), 130) << child.stderr_text();
    const auto j = nlohmann::json::parse(slurp(out_));
    ASSERT_EQ(j.at("benchmarks").size(), 1u);
    EXPECT_EQ(j.at("benchmarks")[0].at("status"), "interrupted");
  }
  // Two: the second exits at once, mid-run, and writes nothing (the file from before stays whole).
  const std::string before = slurp(out_);
  Child child(LB_FAULTY_EXE, {"run", "-l", "faulty", "-w", "saxpy", "-s", "1000", "--min-samples", "1000",
                              "--max-time", "60", "-o", out_.string()},
              dir_);
  ASSERT_TRUE(child.wait_for_stderr("saxpy/faulty/1000", 60)) << child.stderr_text();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  child.signal(SIGINT);
  ASSERT_TRUE(child.wait_for_stderr("interrupted: stopping", 5));
  child.signal(SIGINT);
  const auto second = Clock::now();
  EXPECT_EQ(child.wait_exit(30), 130);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - second).count(), 1.0);  // a run takes 2 s
  EXPECT_NE(child.stderr_text().find("interrupted again: exiting now"), std::string::npos) << child.stderr_text();
  EXPECT_EQ(slurp(out_), before);
}

TEST_F(RunSafety, InterruptingAGpuRunWritesItsResults) {
  if (!have_gpu()) GTEST_SKIP() << "needs a CUDA device: " << lb::gpu_unavailable_reason();
  Child child(LB_EXE, {"run", "-l", "runtime", "-w", "vector_add", "-s", "2^20,2^21", "--noise", "0.0001", "--to-cap",
                       "--max-time", "30", "-o", out_.string()},
              dir_);
  ASSERT_TRUE(child.wait_for_stderr("vector_add/runtime/", 120)) << child.stderr_text();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  child.signal(SIGINT);
  ASSERT_EQ(child.wait_exit(30), 130) << child.stderr_text();
  const auto j = nlohmann::json::parse(slurp(out_));
  ASSERT_EQ(j.at("benchmarks").size(), 1u);
  EXPECT_EQ(j.at("benchmarks")[0].at("status"), "interrupted");
  EXPECT_GT(j.at("benchmarks")[0].at("samples").get<int>(), 0);
}

// --- results files are written whole ------------------------------------------------------------

TEST_F(RunSafety, AKilledRunLeavesThePreviousResultsUntouched) {
  ASSERT_EQ(run(LB_EXE, {"run", "-l", "cpu", "-w", "vector_add", "-s", "1000", "--max-time", "0.05", "-o",
                         out_.string()}),
            0);
  const std::string before = slurp(out_);
  Child child(LB_EXE, {"run", "-l", "cpu", "-w", "vector_add", "-s", "1000", "--noise", "0.0001", "--to-cap",
                       "--max-time", "30", "-o", out_.string()},
              dir_);
  ASSERT_TRUE(child.wait_for_stderr("vector_add/cpu/1000", 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  child.signal(SIGKILL);
  EXPECT_EQ(child.wait_exit(30), 128 + SIGKILL);
  EXPECT_EQ(slurp(out_), before);
  EXPECT_TRUE(nlohmann::json::accept(before));
}

TEST_F(RunSafety, AnAtomicWriteReplacesTheFileWholeOrNotAtAll) {
  lb::write_output(out_.string(), "first\n");
  EXPECT_EQ(slurp(out_), "first\n");
  lb::write_output(out_.string(), "second\n");
  EXPECT_EQ(slurp(out_), "second\n");
  EXPECT_TRUE(no_temp_files().empty());
  // A target that cannot be replaced (a non-empty directory): an error naming it, the temp file removed.
  const fs::path blocked = dir_ / "blocked";
  fs::create_directories(blocked / "inside");
  try {
    lb::write_output(blocked.string(), "text");
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(blocked.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(blocked / "inside"));
  EXPECT_TRUE(no_temp_files().empty());
  EXPECT_EQ(slurp(out_), "second\n");
}

}  // namespace
