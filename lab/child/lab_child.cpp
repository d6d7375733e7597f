// The child of `lab check|grade|profile` (`layerbench lab run-child`): the only process that
// touches the GPU, and the only one that runs the student's code, as the lab's runner says.
#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "lab/child/child_process.h"
#include "lab/child/key_holder.h"
#include "lab/runners/runner.h"
#include "variants/driver/kernel_program.h"

namespace lb::lab {

int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request, std::FILE* out) {
  if (const std::string why = driver::unavailable_reason(); !why.empty()) {
    write_child_event(out, NoGpu{why});
    return kExitCannotRun;
  }
  return spec.runner->run_child(spec, file, request, out);
}

GradeKeys read_grade_keys(std::FILE* in) {
  std::string text;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, in)) > 0;) {
    text.append(buffer, got);
    if (text.size() > 65536) throw UsageError("lab run-child: more than 64 KiB on standard input: not the grade's keys");
  }
  try {
    return GradeKeys::from_text(text);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("lab run-child: ") + e.what() + " (its parent writes them on its standard input)");
  }
}

int run_child_with_channel(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                           int events_fd) {
  // The keys of its mode are in this process's memory now: nothing it starts (a compiler, the
  // numba runner's compile process, lab 8's trip process) may read it (key_holder.h).
  make_key_holder_undumpable();
  // Close-on-exec: a program the child starts (nvcc for the host trip, a profiler's helper) does
  // not get the channel.
  if (events_fd <= STDERR_FILENO || fcntl(events_fd, F_SETFD, FD_CLOEXEC) != 0)
    throw UsageError("lab run-child: --events-fd " + std::to_string(events_fd) +
                     " is not an open file descriptor above 2 (" + std::strerror(errno) + ")");
  std::FILE* events = fdopen(events_fd, "w");
  if (!events) throw UsageError(std::string("lab run-child: fdopen(--events-fd) failed: ") + std::strerror(errno));
  const int status = run_child(spec, file, request, events);
  std::fclose(events);
  return status;
}

}  // namespace lb::lab
