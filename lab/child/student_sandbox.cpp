#include "lab/child/student_sandbox.h"

#include <unistd.h>

#include "lab/child/key_holder.h"

namespace lb::lab {
namespace {

StudentIsolation& current() {
  static StudentIsolation isolation;
  return isolation;
}

}  // namespace

const StudentIsolation& student_isolation() { return current(); }
void set_student_isolation(StudentIsolation isolation) { current() = std::move(isolation); }

bool enter_student_sandbox(const StudentIsolation&, const SandboxRules&) noexcept {
  if (setpgid(0, 0) != 0) return false;
  return give_up_every_capability();
}

void hand_to_student(const std::filesystem::path&, const StudentIsolation&) {}

void end_student_processes(const StudentIsolation&, const std::vector<pid_t>&) {}

}  // namespace lb::lab
