// The mutation-kill suite, device side: known-wrong versions of every workload's kernel text
// (tests/mutations/<text>.json, applied to workloads/<text>/kernels.cu by tests/mutations/mutation-kill.py)
// compiled at run time through the driver layer (`run --kernel-text`), each of which must fail
// `layerbench run --check` at every size it runs at, by its verification. The script runs them and
// judges each case; this test holds it to the suite's promises:
//  - every mutation still applies (its `find` occurs once in the current text) and every mutated
//    text compiles with NVRTC, so a kill is never a compile error (CPU);
//  - the suites cover every kernel text the driver layer compiles, at exactly the default and edge
//    sizes of the workloads that run it, as the registry has them now (CPU);
//  - every mutation is killed at every size (but where tests/mutations marks it a known survivor,
//    with why), and the unmutated text passes through the same path (GPU; skipped without one,
//    saying why).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "common/gpu.h"
#include "lab_test_support.h"
#include "tests/sanitized_build.h"
#include "variants/driver/kernel_sources.h"
#include "variants/nvrtc/nvrtc_compiler.h"
#include "variants/variant.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;
using lb::lab::testing::kRoot;
using lb::lab::testing::slurp;
const fs::path kScript = kRoot / "tests" / "mutations" / "mutation-kill.py";
// layerbench runs at once in one kernel text's kill test on the GPU; tests/test_properties.cmake
// reserves as many of ctest's processors for it (PROCESSORS), so that -j by cores still holds.
constexpr int kJobs = 4;

class MutationKill : public lb::lab::testing::LabCliTest {
 protected:
  // tests/mutations/mutation-kill.py ARGS, with the build's layerbench.
  Outcome script(const std::string& args) const {
    return run_command(std::string(LB_PYTHON) + " " + kScript.string() + " --exe " + LB_EXE + " " + args);
  }

  // The mutated texts and their manifest (--write-texts): no GPU needed.
  nlohmann::json manifest(const std::string& only = "") const {
    const Outcome o = script(only + "--write-texts " + (dir_ / "texts").string());
    EXPECT_EQ(o.code, 0) << "tests/mutations/mutation-kill.py --write-texts failed (a mutation that no longer applies is "
                            "named here):\n"
                         << o.out << o.err;
    if (o.code != 0) return nlohmann::json::array();
    return nlohmann::json::parse(slurp(dir_ / "texts" / "manifest.json"));
  }
};

std::vector<std::pair<std::string, std::string>> shipped_headers() {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& s : lb::driver::embedded_sources())
    if (std::string(s.path).ends_with(".h")) headers.emplace_back(s.path, s.text);
  return headers;
}

TEST_F(MutationKill, SuitesCoverEveryKernelTextAtEveryDefaultAndEdgeSize) {
  const nlohmann::json suites = manifest();
  ASSERT_FALSE(suites.empty());
  const lb::Layer* driver = lb::find_layer("driver");
  ASSERT_NE(driver, nullptr);
  std::set<std::string> covered;
  for (const auto& suite : suites) {
    const std::string text = suite["kernel_text"].get<std::string>();
    SCOPED_TRACE("tests/mutations/" + text + ".json");
    covered.insert(text);
    EXPECT_GE(suite["mutations"].size(), 3u);
    std::set<std::string> expected;
    for (const auto& entry : suite["workloads"]) {
      const std::string w = entry.get<std::string>();
      const lb::Workload* workload = lb::find_workload(w);
      ASSERT_NE(workload, nullptr) << "no workload " << w;
      EXPECT_NE(lb::find_variant("driver", w), nullptr) << "the driver layer does not run " << w;
      for (const lb::Shape& s : workload->default_sizes()) expected.insert(workload->size_label(s));
      for (const lb::Shape& s : workload->edge_sizes()) expected.insert(workload->size_label(s));
    }
    std::set<std::string> listed;
    for (const auto& s : suite["sizes"]) listed.insert(s.get<std::string>());
    EXPECT_EQ(listed, expected) << "its \"sizes\" must be every default and edge size of its workloads, as the "
                                   "registry has them now";
  }
  for (const std::string& text : driver->kernel_texts)
    EXPECT_TRUE(covered.contains(text)) << "no tests/mutations/" << text << ".json for workloads/" << text
                                        << "/kernels.cu";
}

// One test per kernel text (tests/mutations/<text>.json), so that ctest runs them side by side: on
// the CPU, that text's control and every mutation of it compile with NVRTC; on the GPU, each is
// killed at every size, as the whole suite did at once.
std::vector<std::string> mutation_files() {
  std::vector<std::string> texts;
  for (const auto& entry : fs::directory_iterator(kRoot / "tests" / "mutations"))
    if (entry.path().extension() == ".json") texts.push_back(entry.path().stem().string());
  std::sort(texts.begin(), texts.end());
  return texts;
}

class MutationKillOf : public MutationKill, public ::testing::WithParamInterface<std::string> {
 protected:
  // This kernel text's suite from the manifest (--only: only its texts are written).
  nlohmann::json suite() const {
    nlohmann::json found;
    for (const auto& s : manifest("--only " + GetParam() + " "))
      if (s["kernel_text"] == GetParam()) found = s;
    EXPECT_FALSE(found.is_null()) << "no suite for " << GetParam() << " in the manifest";
    return found;
  }
};

TEST_P(MutationKillOf, EveryMutationAppliesAndCompilesWithNvrtc) {
  const nlohmann::json suite = this->suite();
  ASSERT_FALSE(suite.is_null());
  std::vector<std::pair<std::string, std::string>> texts = {{"(control)", suite["control"].get<std::string>()}};
  for (const auto& m : suite["mutations"]) texts.emplace_back(m["name"].get<std::string>(), m["file"].get<std::string>());
  // Under the sanitizer, the control and one mutation: each text takes the same path through our
  // compile (the time is NVRTC's, which is not instrumented); the plain build compiles them all.
  texts.resize(lb::test::repetitions(texts.size(), 2));
  int compiled = 0;
  for (const auto& [name, file] : texts) {
    SCOPED_TRACE(GetParam() + "/" + name);
    try {
      const auto k = lb::nvrtc::compile_cubin({file, slurp(file), shipped_headers(), 90}, {"", false});
      EXPECT_GT(k.cubin.size(), 0u);
      ++compiled;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "mutation " << GetParam() << "/" << name
                    << " does not compile, so a run would fail without its verification judging it:\n"
                    << e.what();
    }
  }
  std::printf("%d texts compiled for sm_90 (the mutations of %s and its control)\n", compiled, GetParam().c_str());
}

INSTANTIATE_TEST_SUITE_P(EachKernelText, MutationKillOf, ::testing::ValuesIn(mutation_files()),
                         [](const auto& info) { return info.param; });

class MutationKillOnTheGpu : public MutationKillOf {};

TEST_P(MutationKillOnTheGpu, EveryMutationIsKilledAtEverySize) {
  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const std::string text = GetParam();
  const nlohmann::json suite = this->suite();
  ASSERT_FALSE(suite.is_null());
  const std::size_t mutations = suite["mutations"].size();

  const fs::path kills = dir_ / "kills.json";
  const Outcome o = script("--only " + text + " --jobs " + std::to_string(kJobs) + " --json " + kills.string());
  std::printf("%s", o.out.c_str());  // the kill table
  ASSERT_TRUE(fs::exists(kills)) << "exit " << o.code << "\n" << o.out << o.err;
  const nlohmann::json result = nlohmann::json::parse(slurp(kills));

  for (const auto& c : result["controls"]) {
    const std::string text = c["kernel_text"].get<std::string>();
    EXPECT_EQ(c["exit"], 0) << "control " << text << " (the unmutated text through --kernel-text)";
    for (const auto& p : c["problems"]) ADD_FAILURE() << "control " << text << ": " << p.get<std::string>();
    for (const auto& k : c["cases"])
      EXPECT_EQ(k["status"], "ok") << "control " << text << ": " << k["workload"].get<std::string>() << " at "
                                   << k["size"].get<std::string>() << ": " << k["message"].get<std::string>();
  }
  EXPECT_EQ(result["controls"].size(), 1u);
  EXPECT_EQ(result["mutations"].size(), mutations);
  for (const auto& m : result["mutations"]) {
    const std::string name = m["kernel_text"].get<std::string>() + "/" + m["name"].get<std::string>();
    EXPECT_EQ(m["exit"], 1) << "mutation " << name << ": layerbench should exit 1 (a case failed)";
    for (const auto& p : m["problems"]) ADD_FAILURE() << "mutation " << name << ": " << p.get<std::string>();
    // A size the mutation marks as a known survivor (a loss under the check's documented bound) must
    // survive there: killed, the mark is stale and the script fails (a problem above).
    const nlohmann::json known = m.value("known_survivors", nlohmann::json::object());
    for (const auto& k : m["cases"]) {
      const std::string size = k["size"].get<std::string>();
      if (known.contains(size) && k["verdict"] == "survived") continue;
      EXPECT_EQ(k["verdict"], "killed")
          << "mutation " << name << " (" << m["class"].get<std::string>() << ") at size " << size << " on "
          << k["workload"].get<std::string>() << ": " << k["status"].get<std::string>() << " "
          << k["message"].get<std::string>();
    }
  }
  EXPECT_EQ(o.code, 0) << o.err;
}

INSTANTIATE_TEST_SUITE_P(EachKernelText, MutationKillOnTheGpu, ::testing::ValuesIn(mutation_files()),
                         [](const auto& info) { return info.param; });

}  // namespace
