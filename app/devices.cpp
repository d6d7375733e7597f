#include "app/devices.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "common/data_root.h"
#include "common/python_interpreter.h"
#include "common/usage_error.h"

namespace lb {
namespace {

// The devices' processes, for the SIGTERM handler: a SIGTERM to this process goes on to each of
// them, which ends its current sample and writes the results so far, as a run does. Ctrl-C needs
// no forwarding: the terminal sends SIGINT to the whole process group, so this process ignores it
// (a second SIGINT to a device's process would make it exit at once) and waits for them.
constexpr int kMaxDevices = 256;
pid_t g_devices[kMaxDevices];
volatile std::sig_atomic_t g_started = 0;

extern "C" void forward_sigterm(int) {
  for (int i = 0; i < g_started; ++i) kill(g_devices[i], SIGTERM);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

// Starts `words` (the first is the program) with `visible` as CUDA_VISIBLE_DEVICES when not empty.
pid_t start(const std::vector<std::string>& words, const std::string& visible) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    std::signal(SIGINT, SIG_DFL);  // an ignored signal stays ignored across exec; the run sets its own
    std::signal(SIGTERM, SIG_DFL);
    if (!visible.empty()) setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& w : words) argv.push_back(const_cast<char*>(w.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "layerbench: error: cannot start '%s': %s\n", words[0].c_str(), std::strerror(errno));
    _exit(2);
  }
  return pid;
}

// The exit status of `pid` as a shell reports it: its code, or 128 + the signal that ended it.
int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 2;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 2;
}

// The worse of two exit statuses: an interruption, then bad input, then a failed case.
int worse(int a, int b) {
  auto rank = [](int s) { return s == 0 ? 0 : s == 1 ? 1 : s == 2 ? 2 : 3; };
  return rank(b) > rank(a) ? b : a;
}

// "results/latest.json", 2 -> "results/latest.device2.json".
std::string device_out(const std::string& out, int index) {
  std::filesystem::path p(out);
  const std::string stem = p.extension() == ".json" ? p.stem().string() : p.filename().string();
  return (p.parent_path() / (stem + ".device" + std::to_string(index) + ".json")).string();
}

}  // namespace

std::vector<int> parse_devices(const std::string& text, int count, const std::string& why_none) {
  std::vector<int> devices;
  if (text != "all") {
    for (const std::string& part : split(text, ',')) {
      int index = -1;
      const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), index);
      if (part.empty() || error != std::errc() || end != part.data() + part.size() || index < 0)
        throw UsageError("--devices: '" + one_line(part) + "' is not a device index (all, or indices such as 0,2)");
      if (std::find(devices.begin(), devices.end(), index) != devices.end())
        throw UsageError("--devices: device " + part + " is named twice");
      devices.push_back(index);
    }
    if (devices.empty()) throw UsageError("--devices: no device named (all, or indices such as 0,2)");
  }
  if (count == 0) throw UsageError("--devices " + one_line(text) + ": " + why_none);
  if (text == "all")
    for (int i = 0; i < count; ++i) devices.push_back(i);
  for (const int index : devices)
    if (index >= count)
      throw UsageError("--devices: no device " + std::to_string(index) + " (this process sees " +
                       std::to_string(count) +
                       (count == 1 ? " device: 0)" : " devices: 0 to " + std::to_string(count - 1) + ")"));
  return devices;
}

std::string visible_device_for(int index, const char* parent_visible) {
  if (!parent_visible || !*parent_visible) return std::to_string(index);
  const std::vector<std::string> listed = split(parent_visible, ',');
  return index < static_cast<int>(listed.size()) ? listed[index] : std::to_string(index);
}

std::vector<std::string> child_arguments(int argc, char** argv, const std::string& out) {
  std::vector<std::string> words{"/proc/self/exe"};
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w == "--concurrent") continue;
    if (w == "--devices" || w == "-o" || w == "--out") {
      ++i;  // and its value
      continue;
    }
    if (w.rfind("--devices=", 0) == 0 || w.rfind("--out=", 0) == 0) continue;
    if (w.size() > 2 && w.rfind("-o", 0) == 0) continue;  // -oFILE
    words.push_back(w);
  }
  words.push_back("--out");
  words.push_back(out);
  return words;
}

int run_on_devices(const std::vector<int>& devices, bool concurrent, const std::string& out, int argc, char** argv) {
  if (concurrent && devices.size() > 1)
    std::fprintf(stderr,
                 "layerbench: --concurrent: the %zu runs share the host's power budget, PCIe links and CPU cores; "
                 "their figures can be lower than one GPU at a time (docs/fleet.md)\n",
                 devices.size());
  if (devices.size() > static_cast<std::size_t>(kMaxDevices))
    throw UsageError("--devices: " + std::to_string(devices.size()) + " devices; at most " +
                     std::to_string(kMaxDevices) + " at once");
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, forward_sigterm);
  const char* parent_visible = std::getenv("CUDA_VISIBLE_DEVICES");
  std::vector<std::string> files;
  std::vector<std::pair<pid_t, int>> running;  // pid, device
  int status = 0;
  for (const int d : devices) {
    const std::string file = device_out(out, d), visible = visible_device_for(d, parent_visible);
    files.push_back(file);
    std::printf("devices: device %d (CUDA_VISIBLE_DEVICES=%s): the plan, results to %s\n", d, visible.c_str(),
                file.c_str());
    const pid_t pid = start(child_arguments(argc, argv, file), visible);
    g_devices[g_started] = pid;
    g_started = g_started + 1;
    if (concurrent) {
      running.emplace_back(pid, d);
    } else {
      status = worse(status, wait_for(pid));
      if (status >= 128) break;  // interrupted: the devices after it do not start
    }
  }
  for (const auto& [pid, d] : running) status = worse(status, wait_for(pid));
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);

  std::vector<std::string> existing;
  for (const std::string& f : files)
    if (std::filesystem::exists(f)) existing.push_back(f);
  if (existing.empty()) {
    std::fprintf(stderr, "layerbench: error: no device wrote results; nothing to merge into %s\n", out.c_str());
    return worse(status, 2);
  }
  std::vector<std::string> merge = reports_command("merge");
  merge.insert(merge.end(), existing.begin(), existing.end());
  merge.insert(merge.end(), {"--out", out, "--side-by-side"});
  return worse(status, wait_for(start(merge, "")));
}

}  // namespace lb
