// Ctrl-C and SIGTERM during a run. The first asks the run to stop after the sample that is under
// way: the cases finished so far and the interrupted one (marked so) are written, the summary is
// printed, and layerbench exits 130. The second exits at once (130), writing nothing more.
#pragma once

namespace lb {

// Installs the handlers for SIGINT and SIGTERM while it lives, and puts the old ones back after.
class InterruptHandler {
 public:
  InterruptHandler();
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;
};

// Whether a stop was asked for since the handler was installed.
bool interrupt_requested();
// "SIGINT" or "SIGTERM": the signal that asked for it ("" if none did).
const char* interrupt_signal_name();

}  // namespace lb
