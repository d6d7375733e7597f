// Progress on stderr. On a terminal: one live line, redrawn in place, with the case that runs, how
// many remain and the elapsed time. Anywhere else (logs, CI, pipes): plain lines, one per case,
// with no control characters.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

namespace lb {

class Progress {
 public:
  Progress(std::FILE* out, bool live);
  static bool is_terminal(std::FILE* out);

  void begin_case(std::size_t index, std::size_t total, const std::string& name);
  void tick();   // live only: refresh the elapsed time, at most a few times a second
  void clear();  // live only: erase the line before something else prints

 private:
  void draw();
  std::FILE* out_;
  bool live_;
  bool shown_ = false;
  std::size_t index_ = 0, total_ = 0;
  std::string name_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), drawn_;
};

}  // namespace lb
