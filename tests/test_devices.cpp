// `run --devices`: which devices a text names, the CUDA_VISIBLE_DEVICES each child gets, the
// arguments it is started with (CPU), and on a GPU machine every device's run merged into --out.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/devices.h"
#include "common/gpu.h"
#include "common/usage_error.h"

namespace lb {
namespace {

std::string error_of(const std::string& text, int count, const std::string& why = "no CUDA device") {
  try {
    parse_devices(text, count, why);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Devices, AllIsEveryVisibleDeviceAndAListIsThoseInItsOrder) {
  EXPECT_EQ(parse_devices("all", 3, ""), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_devices("2,0", 3, ""), (std::vector<int>{2, 0}));
  EXPECT_EQ(parse_devices("0", 1, ""), (std::vector<int>{0}));
}

TEST(Devices, ABadListIsAOneLineErrorNamingTheBadPart) {
  EXPECT_NE(error_of("0,x", 2).find("'x' is not a device index"), std::string::npos);
  EXPECT_NE(error_of("-1", 2).find("'-1'"), std::string::npos);
  EXPECT_NE(error_of("1,1", 2).find("device 1 is named twice"), std::string::npos);
  EXPECT_NE(error_of("0,5", 2).find("no device 5 (this process sees 2 devices: 0 to 1)"), std::string::npos);
  EXPECT_NE(error_of("", 2).find("no device named"), std::string::npos);
  EXPECT_NE(error_of("all", 0, "no CUDA driver").find("--devices all: no CUDA driver"), std::string::npos);
  EXPECT_NE(error_of("x", 0).find("'x' is not a device index"), std::string::npos);  // the text first
}

TEST(Devices, AChildSeesItsDeviceAloneWithinWhatThisProcessWasGiven) {
  EXPECT_EQ(visible_device_for(1, nullptr), "1");
  EXPECT_EQ(visible_device_for(1, ""), "1");
  EXPECT_EQ(visible_device_for(1, "3,5"), "5");  // a Slurm task given GPUs 3 and 5: its device 1 is 5
  EXPECT_EQ(visible_device_for(0, "GPU-aa,GPU-bb"), "GPU-aa");
}

TEST(Devices, AChildGetsTheRunsArgumentsWithoutDevicesAndWithItsOwnOut) {
  std::vector<std::string> words{"layerbench", "run",    "--devices", "all", "-l",        "cpu",
                                 "--concurrent", "-o",   "x.json",    "-s",  "--devices=0", "-oy.json",
                                 "--out=z.json", "1000"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  EXPECT_EQ(child_arguments(static_cast<int>(argv.size()), argv.data(), "x.device0.json"),
            (std::vector<std::string>{"/proc/self/exe", "run", "-l", "cpu", "-s", "1000", "--out", "x.device0.json"}));
}

TEST(Devices, EveryDevicesRunIsMergedIntoOut) {
  std::string why;
  const int count = visible_device_count(&why);
  if (count == 0) GTEST_SKIP() << why;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("layerbench_devices_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string command = std::string(LB_EXE) + " run --devices all -l runtime -w vector_add -s 1000 -o " +
                              (dir / "all.json").string() + " >" + (dir / "log.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << std::ifstream(dir / "log.txt").rdbuf();
  const nlohmann::json merged = nlohmann::json::parse(std::ifstream(dir / "all.json"));
  ASSERT_EQ(merged.at("context").at("merged").at("runs").size(), static_cast<std::size_t>(count));
  for (const auto& run : merged.at("context").at("merged").at("runs"))
    EXPECT_EQ(run.at("context").at("device").at("uuid").get<std::string>().rfind("GPU-", 0), 0u);
  EXPECT_EQ(merged.at("benchmarks").size(), static_cast<std::size_t>(count));
  for (int d = 0; d < count; ++d) EXPECT_TRUE(fs::exists(dir / ("all.device" + std::to_string(d) + ".json")));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lb
