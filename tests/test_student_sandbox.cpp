// The student's sandbox (lab/child/student_sandbox.h): what a process that runs student code cannot
// do to the grader (signal, stop or trace its processes, write its files, start processes where
// the rules say none), that nothing it starts outlives end_student_processes, how the isolation is
// chosen and said, and `lab grade` refusing a weak one without --accept-weak-isolation (CPU; a
// user of its own needs root: those cases skip, saying so, where the tests do not run as root).
// On a GPU: lab 5's planted daemon graded, and nothing of it alive after the grade.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/gpu.h"
#include "common/python_interpreter.h"
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/child/student_sandbox.h"
#include "lab/runners/compile_process.h"
#include "lab/runners/numba/numba_kernel.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

const std::string kProbe = SANDBOX_PROBE;

// The isolation this machine allows for the probe, and the same with the grader's own user (the
// filter alone).
StudentIsolation chosen() { return choose_student_isolation(kProbe); }
StudentIsolation filter_only() {
  StudentIsolation isolation = chosen();
  isolation.separate_user = false;
  return isolation;
}

// Runs `argv` as the student's compile process would run, in `isolation`, with `rules`.
CompileProcessOutcome run_as_student(const StudentIsolation& isolation, const std::vector<std::string>& argv,
                                     SandboxRules rules = {}) {
  const StudentIsolation before = student_isolation();
  set_student_isolation(isolation);
  const WorkingFolder folder("sandbox-test");
  const CompileProcessOutcome done = run_compile_process(argv, allowed_environment(), folder, {.wall_s = 20}, rules);
  set_student_isolation(before);
  return done;
}

// A process of the grader's that is not the test's own: a sleeper, killed on destruction.
struct Victim {
  Victim() {
    pid = fork();
    if (pid == 0) {
      for (;;) pause();
    }
  }
  ~Victim() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  char state() const {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const std::size_t paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
  }
  pid_t pid = -1;
};

// A live process of `uid` (real, effective or saved), or 0.
pid_t live_process_of(uid_t uid) {
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    char state = 0;
    for (std::string line; std::getline(status, line);) {
      if (line.starts_with("State:")) state = line.size() > 7 ? line[7] : 0;
      unsigned long r = 0, e = 0, s = 0;
      if (std::sscanf(line.c_str(), "Uid: %lu %lu %lu", &r, &e, &s) == 3) {
        if ((r == uid || e == uid || s == uid) && state != 'Z' && state != 'X') return std::stoi(name);
        break;
      }
    }
  }
  return 0;
}

// --- the filter, with the grader's own user (needs no root) ---------------------------------------

TEST(StudentSandbox, TheFilterRefusesSignalsToOthersTracingAndNewProcesses) {
  const StudentIsolation isolation = filter_only();
  if (!isolation.filtered) GTEST_SKIP() << isolation.description;
  const Victim victim;
  const std::string other = std::to_string(victim.pid);
  // Signal 0 checks only whether a signal may be sent: its parent (this test) is never stopped.
  for (const std::vector<std::string>& argv : {std::vector<std::string>{kProbe, "kill", "parent", "0"},
                                               {kProbe, "kill", other, std::to_string(SIGSTOP)},
                                               {kProbe, "kill", "-1", "0"},
                                               {kProbe, "ptrace", other},
                                               {kProbe, "setpgid", std::to_string(getpgrp())},
                                               {kProbe, "fork"}}) {
    const CompileProcessOutcome done = run_as_student(isolation, argv);
    EXPECT_TRUE(done.exited && done.exit_code == 1) << argv[1] << ": " << done.how_it_ended() << "\n" << done.output;
    EXPECT_TRUE(has(done.output, argv[1] + ": Operation not permitted")) << done.output;
  }
  EXPECT_NE(victim.state(), 't');
  EXPECT_NE(victim.state(), 'T') << "the grader's process was stopped";
  // What it may do: signal its own group, start a process where the rules allow one.
  for (const auto& [argv, rules] : {std::pair{std::vector<std::string>{kProbe, "kill", "0", "0"}, SandboxRules{}},
                                    std::pair{std::vector<std::string>{kProbe, "fork"}, SandboxRules{.new_processes = true}}}) {
    const CompileProcessOutcome done = run_as_student(isolation, argv, rules);
    EXPECT_TRUE(done.exited && done.exit_code == 0) << argv[1] << ": " << done.how_it_ended() << "\n" << done.output;
  }
  // A shell's pipeline forks: refused where the rules allow no process.
  const CompileProcessOutcome shell = run_as_student(isolation, {"/bin/sh", "-c", "echo one | cat"});
  EXPECT_FALSE(has(shell.output, "one")) << "a pipeline forked under rules that allow no process: " << shell.output;
}

// --- a user of its own (root) ---------------------------------------------------------------------

TEST(StudentSandbox, ItsOwnUserCannotSignalNorWriteTheGradersFilesAndHasItsOwnHome) {
  if (geteuid() != 0) GTEST_SKIP() << "a user of its own needs root";
  const StudentIsolation isolation = chosen();
  ASSERT_TRUE(isolation.separate_user) << isolation.description;
  EXPECT_GE(isolation.uid, kStudentIdBase);
  EXPECT_LT(isolation.uid, kStudentIdBase + kStudentIdSpan);
  EXPECT_TRUE(has(isolation.description, "runs as uid " + std::to_string(isolation.uid))) << isolation.description;
  const WorkingFolder graders("sandbox-graders");  // root's, 0700 then 0755, with a root file 0644
  fs::permissions(graders.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
  const fs::path file = graders.path() / "grade.json";
  write(file, "ours\n");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  const Victim victim;
  StudentIsolation unfiltered = isolation;  // the uid alone holds these
  unfiltered.filtered = false;
  for (const StudentIsolation& held : {isolation, unfiltered}) {
    const CompileProcessOutcome done = run_as_student(
        held, {"/bin/sh", "-c",
               "id -u; stat -c 'home %u %a' \"$HOME\"; [ \"$TMPDIR\" = \"$HOME\" ] && echo 'tmp is home'; "
               "echo x > \"$TMPDIR/mine\" && echo 'wrote its own'; echo y >> " + file.string() + " || echo 'no append'; "
               "echo z > " + (graders.path() / "new").string() + " || echo 'no create'; kill -0 " +
               std::to_string(victim.pid) + " || echo 'no signal'; kill -0 $PPID || echo 'no parent'; "
               "grep '^Max processes' /proc/self/limits"},
        {.new_processes = true});  // the shell forks to run id and stat
    const std::string uid = std::to_string(isolation.uid);
    EXPECT_TRUE(has(done.output, uid + "\nhome " + uid + " 700\ntmp is home\nwrote its own\n")) << done.output;
    for (const char* refused : {"no append", "no create", "no signal", "no parent"})
      EXPECT_TRUE(has(done.output, refused)) << refused << "\n" << done.output;
    EXPECT_TRUE(std::regex_search(done.output, std::regex("Max processes +1024 +1024"))) << done.output;  // a fork bomb's bound
  }
  EXPECT_EQ(slurp(file), "ours\n");
  EXPECT_FALSE(fs::exists(graders.path() / "new"));
}

TEST(StudentSandbox, TheGradersUserWhereItsOwnCannotRunTheProgramAndTheDescriptionSaysWhy) {
  const WorkingFolder hidden("sandbox-hidden");  // mode 0700: only its owner gets in
  const fs::path program = hidden.path() / "python3";
  fs::copy_file("/bin/true", program);
  const StudentIsolation isolation = choose_student_isolation(program);
  EXPECT_FALSE(isolation.separate_user) << isolation.description;
  EXPECT_FALSE(isolation_is_full(isolation));
  EXPECT_TRUE(has(isolation.description, "runs as the grader's own user (uid " + std::to_string(geteuid())))
      << isolation.description;
  EXPECT_EQ(isolation.description.find('\n'), std::string::npos);
  if (geteuid() == 0)
    EXPECT_TRUE(has(isolation.description, "cannot execute " + fs::canonical(program).string() + " (Permission denied)"))
        << isolation.description;
  else
    EXPECT_TRUE(has(isolation.description, "not root")) << isolation.description;
  EXPECT_TRUE(has(isolation.description, isolation.filtered ? "under the seccomp filter" : "without the seccomp filter"))
      << isolation.description;
}

TEST(StudentSandbox, TheIsolationWordRoundTrips) {
  const StudentIsolation user{.separate_user = true, .uid = 1500000007, .gid = 1500000008, .filtered = true};
  const StudentIsolation back = parse_isolation_word(isolation_word(user));
  EXPECT_EQ(isolation_word(user), "user:1500000007:1500000008:filtered");
  EXPECT_TRUE(back.separate_user && back.filtered);
  EXPECT_EQ(back.uid, 1500000007u);
  EXPECT_EQ(back.gid, 1500000008u);
  const StudentIsolation grader = parse_isolation_word("grader:unfiltered");
  EXPECT_FALSE(grader.separate_user || grader.filtered);
  for (const char* bad : {"", "grader", "user:0:0:filtered", "user:-5:7:filtered", "user:1:2:maybe", "root:filtered"})
    EXPECT_THROW(parse_isolation_word(bad), std::invalid_argument) << bad;
}

// --- nothing outlives end_student_processes --------------------------------------------------------

// A setsid daemon, double-forked so that its parent is gone, writes `written` 1 s later: ended before.
void expect_daemon_ended(const StudentIsolation& isolation, bool through_compile_process) {
  const WorkingFolder scratch("sandbox-daemon");
  fs::permissions(scratch.path(), fs::perms::all);  // the student's uid may write there: only time stops it
  const fs::path written = scratch.path() / "written";
  if (through_compile_process) {
    const CompileProcessOutcome done =
        run_as_student(isolation, {kProbe, "daemon", written.string(), "1"}, {.new_processes = true});
    EXPECT_TRUE(has(done.output, "daemon: ok")) << done.output;
  } else {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (!enter_student_sandbox(isolation, {.new_processes = true})) _exit(126);
      execl(kProbe.c_str(), kProbe.c_str(), "daemon", written.c_str(), "1", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    if (isolation.separate_user) EXPECT_NE(live_process_of(isolation.uid), 0) << "no daemon to end";
    end_student_processes(isolation);
  }
  if (isolation.separate_user) EXPECT_EQ(live_process_of(isolation.uid), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  EXPECT_FALSE(fs::exists(written)) << "the daemon outlived end_student_processes";
}

TEST(StudentSandbox, ADaemonOfItsOwnUserIsEndedWhereverItWasAdopted) {
  if (geteuid() != 0) GTEST_SKIP() << "a user of its own needs root";
  const StudentIsolation isolation = chosen();
  ASSERT_TRUE(isolation.separate_user) << isolation.description;
  expect_daemon_ended(isolation, false);  // adopted by init (or another subreaper): kill(-1) as its uid
  expect_daemon_ended(isolation, true);
}

TEST(StudentSandbox, ADaemonOfTheGradersUserIsEndedAsAnAdoptedChild) {
  const StudentIsolation isolation = filter_only();
  expect_daemon_ended(isolation, true);  // the compile process's starter: a subreaper for the while
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);  // as the `lab` parent is
  expect_daemon_ended(isolation, false);
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
}

// --- lab 5's planted files, compiled here (CPU: Numba compiles for the compute capability given) --

// The text of a planted file's "# expect: TEXT" line (tests/test_lab.cpp reads them all).
std::string expected_check_line(const fs::path& planted) {
  std::ifstream in(planted);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("# expect: ")) return line.substr(10);
  return "(no expect line in " + planted.string() + ")";
}

TEST(StudentSandbox, LabFivesPlantedSignaturesGetPermissionErrors) {
  const std::string probe = chosen_python() + " -c 'import numba.cuda' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) GTEST_SKIP() << chosen_python() << " cannot import numba.cuda";
  const StudentIsolation isolation = choose_student_isolation(chosen_python());
  // Without the filter, the first would stop this test (its parent) and any `lab grade` here.
  if (!isolation.filtered) GTEST_SKIP() << isolation.description;
  const StudentIsolation before = student_isolation();
  set_student_isolation(isolation);
  const LabSpec spec = find_lab(kLabs, "05-numba-vector-add");
  // Numba's own compile needs no new process: the solution compiles in the same sandbox.
  EXPECT_NO_THROW(compile_numba_kernel(spec, solution_file(spec), 90, {})) << isolation.description;
  for (const char* name : {"signature_stops_grader.py", "signature_leaves_daemon.py"}) {
    const fs::path planted = planted_file(spec.name, name);
    const std::string expected = expected_check_line(planted);
    try {
      compile_numba_kernel(spec, planted, 90, {});
      ADD_FAILURE() << planted << " handed back a kernel";
    } catch (const StudentCompileError& error) {
      EXPECT_TRUE(has(error.what(), expected)) << name << " expects '" << expected << "'\n" << error.what();
    }
  }
  set_student_isolation(before);
}

// --- `lab grade` and the isolation ------------------------------------------------------------------

class LabGradeIsolation : public LabCliTest {
 protected:
  // A stand-in child for lab 1 that any user may run, and a folder any user may write the grade in.
  std::string child() const {
    const fs::path script = dir_ / "child.sh";
    write(script, stand_in_child(lab1_every_size_passed(), test_environment_line(),
                                 "{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.3, \"gbps\": 2684.4, "
                                 "\"samples\": 40}, \"runtime\": {\"median_ms\": 0.27, \"gbps\": 2982.6, \"samples\": 40}}\n"));
    fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(dir_, fs::perms::all);
    return "LAYERBENCH_LAB_RUNNER=" + script.string();
  }
  // `lab grade ARGS` as a user that is not root: nobody (65534) where this is root, else this one.
  Outcome grade_as_non_root(const std::string& args) const {
    if (geteuid() != 0) return run("lab grade " + args, child());
    return run_command(child() + " setpriv --reuid 65534 --regid 65534 --clear-groups " + std::string(LB_EXE) +
                       " lab grade " + args);
  }
  const std::string solution = solution_file("01-vector-add", "vector_add.cu").string();
};

TEST_F(LabGradeIsolation, AWeakIsolationIsRefusedWithoutTheOptionAndStatedWithIt) {
  if (geteuid() == 0 && std::system("setpriv --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no setpriv";
  const Outcome refused = grade_as_non_root("1 " + solution + " --json g.json");
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_TRUE(refused.err.starts_with("layerbench lab: error: the student's code would not be held apart from the "
                                      "grader: the student's code runs as the grader's own user (uid "))
      << refused.err;
  EXPECT_TRUE(has(refused.err, "--accept-weak-isolation")) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "g.json"));

  const Outcome accepted = grade_as_non_root("1 " + solution + " --json g.json --accept-weak-isolation");
  EXPECT_EQ(accepted.code, 0) << accepted.out << accepted.err;
  ASSERT_TRUE(fs::exists(dir_ / "g.json")) << accepted.out << accepted.err;
  const nlohmann::json g = nlohmann::json::parse(slurp(dir_ / "g.json"));
  EXPECT_TRUE(has(g["isolation"].get<std::string>(), "the grader's own user")) << g["isolation"];
  EXPECT_TRUE(has(accepted.out, "  isolation: " + g["isolation"].get<std::string>() + "\n")) << accepted.out;
}

TEST_F(LabGradeIsolation, AsRootTheGradeRunsUnderAUserOfItsOwnAndSaysSo) {
  if (geteuid() != 0) GTEST_SKIP() << "a user of its own needs root";
  const Outcome o = run("lab grade 1 " + solution + " --json g.json", child());
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  ASSERT_TRUE(fs::exists(dir_ / "g.json")) << o.out << o.err;
  const std::string isolation = nlohmann::json::parse(slurp(dir_ / "g.json"))["isolation"];
  EXPECT_TRUE(std::regex_search(isolation, std::regex("runs as uid 15\\d{8}, a user of this grade's own; under the "
                                                      "seccomp filter")))
      << isolation;
  EXPECT_TRUE(has(o.out, "  isolation: " + isolation + "\n")) << o.out;
}

// --- on a GPU: a grade of lab 5's planted daemon leaves nothing alive -------------------------------

TEST_F(LabGradeIsolation, NothingOfTheGradeOutlivesItAndItsJsonAgreesWithItsGradeLine) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const fs::path planted = planted_file("05-numba-vector-add", "signature_leaves_daemon.py");
  // This process adopts whatever the grade left when the grade exits: none must be there.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
  const Outcome o = run("lab grade 5 " + planted.string() + " --json g.json");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the daemon's 2 s, had it lived
  const std::vector<pid_t> left = children_of_this_process();
  for (const pid_t pid : left) kill(pid, SIGKILL);
  for (const pid_t pid : left) waitpid(pid, nullptr, 0);
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
  EXPECT_TRUE(left.empty()) << left.size() << " processes of the grade outlived it, the first " << left.front();
  ASSERT_TRUE(fs::exists(dir_ / "g.json")) << o.out << o.err;
  const nlohmann::json g = nlohmann::json::parse(slurp(dir_ / "g.json"));
  const std::string isolation = g.value("isolation", "");
  std::smatch uid;
  if (std::regex_search(isolation, uid, std::regex("runs as uid (\\d+),")))
    EXPECT_EQ(live_process_of(static_cast<uid_t>(std::stoul(uid[1]))), 0) << isolation;
  else
    ADD_FAILURE() << "not graded under a user of its own: " << isolation;
  std::smatch line;
  ASSERT_TRUE(std::regex_search(o.out, line, std::regex("GRADE [^\\n]*: ([0-9.]+) / (\\d+)"))) << o.out;
  EXPECT_EQ(g["submissions"][0]["points"].get<double>(), std::stod(line[1])) << g.dump(2);
  EXPECT_EQ(g["submissions"][0]["outcome"], "did not compile") << g.dump(2);
}

}  // namespace
