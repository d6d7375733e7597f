#include "harness/progress.h"

#include <unistd.h>

namespace lb {

Progress::Progress(std::FILE* out, bool live) : out_(out), live_(live) {}

bool Progress::is_terminal(std::FILE* out) { return isatty(fileno(out)) == 1; }

void Progress::begin_case(std::size_t index, std::size_t total, const std::string& name) {
  index_ = index;
  total_ = total;
  name_ = name;
  if (live_) {
    draw();
    return;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(out_, "[%zu/%zu, %.0f s] %s\n", index + 1, total, elapsed, name.c_str());
  std::fflush(out_);
}

void Progress::tick() {
  if (live_ && std::chrono::steady_clock::now() - drawn_ > std::chrono::milliseconds(250)) draw();
}

void Progress::clear() {
  if (live_ && shown_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
    shown_ = false;
  }
}

void Progress::draw() {
  drawn_ = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(drawn_ - start_).count();
  std::fprintf(out_, "\r\033[K[%zu/%zu] %s  (%zu left after this, %.0f s)", index_ + 1, total_, name_.c_str(),
               total_ - index_ - 1, elapsed);
  std::fflush(out_);
  shown_ = true;
}

}  // namespace lb
