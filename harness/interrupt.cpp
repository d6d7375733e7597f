#include "harness/interrupt.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace lb {
namespace {

// A signal handler can only reach state with static storage: the signal that asked for the stop
// (0 while none has), read by the sampling loop between samples.
volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_old_int, g_old_term;

void write_stderr(const char* text) {
  // write(2) is async-signal-safe; stdio is not.
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, text, std::strlen(text));
}

void on_signal(int signal) {
  if (g_signal != 0) {
    write_stderr("\nlayerbench: interrupted again: exiting now, without writing results\n");
    _exit(130);
  }
  g_signal = signal;
  write_stderr("\nlayerbench: interrupted: stopping after the current sample and writing the results "
               "(Ctrl-C again exits at once)\n");
}

}  // namespace

InterruptHandler::InterruptHandler() {
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: a read or wait that the signal interrupts carries on, and the run stops at the
  // next point that checks interrupt_requested().
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_old_int);
  sigaction(SIGTERM, &action, &g_old_term);
}

InterruptHandler::~InterruptHandler() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool interrupt_requested() { return g_signal != 0; }

const char* interrupt_signal_name() {
  switch (g_signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "";
  }
}

}  // namespace lb
