// Optimisation ladders (workloads/ladder.h, docs/ladders.md). CPU: the registry (numbers 1..N
// without gaps, one file each named after its rung, every file registered, find_rung's forms,
// duplicates refused), the launch arithmetic shared by the layers, the plan's rung cases, every
// rung file compiled by NVRTC alone, the command line's bad input. GPU (skipped without one):
// every rung through the runtime and the driver layer against the reference on the edge sizes,
// through the harness's own verified run (a rung that splits K also where it splits, and to the
// same bits twice), and `layerbench ladder` end to end.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "common/gpu.h"
#include "app/ladder_table.h"
#include "harness/plan.h"
#include "harness/sizes.h"
#include "tests/layer_rig.h"
#include "tests/sanitized_build.h"
#include "variants/driver/kernel_sources.h"
#include "variants/nvrtc/nvrtc_compiler.h"
#include "variants/gpu_launch.h"
#include "variants/ladder_launch.h"
#include "workloads/ladder.h"

namespace lb {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = LB_SOURCE_ROOT;
const std::vector<std::string> kLadders = {"matmul", "reduce"};

std::string two_digits(int n) { return (n < 10 ? "0" : "") + std::to_string(n); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// --- the registry ------------------------------------------------------------------------------

TEST(LadderRegistry, EachLadderIsNumberedFromOneWithoutGaps) {
  for (const std::string& w : kLadders) {
    const std::vector<const Rung*> rungs = ladder_rungs(w);
    ASSERT_FALSE(rungs.empty()) << "no " << w << " rungs registered";
    for (std::size_t i = 0; i < rungs.size(); ++i) {
      EXPECT_EQ(rungs[i]->number, static_cast<int>(i) + 1) << rungs[i]->id();
      EXPECT_EQ(rungs[i]->workload, w);
    }
  }
  std::size_t total = 0;
  for (const std::string& w : kLadders) total += ladder_rungs(w).size();
  EXPECT_EQ(total, ladder_rungs().size()) << "a rung of a workload with no ladder";
}

TEST(LadderRegistry, EachRungIsOneFileNamedAfterIt) {
  std::set<std::string> files, kernels;
  const std::regex name_rule("[a-z0-9]+(_[a-z0-9]+)*");
  for (const Rung* r : ladder_rungs()) {
    SCOPED_TRACE(r->id());
    const std::string nn_name = two_digits(r->number) + "_" + r->name;
    EXPECT_TRUE(std::regex_match(r->name, name_rule)) << r->name;
    EXPECT_EQ(r->id(), r->workload + "/" + nn_name);
    EXPECT_EQ(r->file, "workloads/" + r->workload + "/ladder/" + nn_name + ".cu");
    EXPECT_EQ(r->kernel, r->workload + "_" + nn_name);
    EXPECT_FALSE(r->title.empty());
    EXPECT_NE(r->runtime_kernel, nullptr);
    EXPECT_TRUE(files.insert(r->file).second) << "two rungs in " << r->file;
    EXPECT_TRUE(kernels.insert(r->kernel).second);
    ASSERT_TRUE(fs::exists(kRoot / r->file));
    const std::string text = slurp(kRoot / r->file);
    EXPECT_NE(text.find("extern \"C\" __global__"), std::string::npos);
    EXPECT_NE(text.find(r->kernel + "("), std::string::npos);
    const std::string macro = r->workload == "matmul" ? "LB_MATMUL_RUNG(" : "LB_REDUCE_RUNG(";
    EXPECT_EQ(text.find(macro), text.rfind(macro)) << "one registration line per file";
    EXPECT_NE(text.find(macro + std::to_string(r->number) + ", \"" + r->name + "\""), std::string::npos);
    EXPECT_NE(text.find("#ifndef __CUDACC_RTC__"), std::string::npos) << "the registration is for the host only";
  }
}

TEST(LadderRegistry, EveryRungFileIsRegistered) {
  std::set<std::string> registered;
  for (const Rung* r : ladder_rungs()) registered.insert(r->file);
  for (const auto& workload_dir : fs::directory_iterator(kRoot / "workloads")) {
    const fs::path ladder = workload_dir.path() / "ladder";
    if (!fs::is_directory(ladder)) continue;
    for (const auto& entry : fs::directory_iterator(ladder)) {
      if (entry.path().extension() != ".cu") continue;
      const std::string rel = fs::relative(entry.path(), kRoot).string();
      EXPECT_TRUE(registered.count(rel)) << rel << " registers no rung (or is not built: re-run CMake)";
    }
  }
}

TEST(LadderRegistry, FindRungTakesEveryForm) {
  for (const Rung* r : ladder_rungs()) {
    EXPECT_EQ(find_rung(r->id()), r);
    EXPECT_EQ(find_rung(r->workload + "/" + r->name), r);
    EXPECT_EQ(find_rung(r->workload + "/" + std::to_string(r->number)), r);
    EXPECT_EQ(find_rung(r->workload + "/" + two_digits(r->number)), r);
  }
  EXPECT_EQ(find_rung("matmul/99_nope"), nullptr);
  EXPECT_EQ(find_rung("matmul/0"), nullptr);
  EXPECT_EQ(find_rung("nope/1"), nullptr);
  EXPECT_EQ(find_rung("matmul"), nullptr);
  EXPECT_EQ(find_rung(""), nullptr);
}

TEST(LadderRegistry, DuplicateNumberOrNameIsRefused) {
  const std::size_t before = ladder_rungs().size();
  for (const std::string& w : kLadders) {
    const auto rungs = ladder_rungs(w);
    ASSERT_FALSE(rungs.empty());
    Rung same_number = *rungs.front();
    same_number.name = "another_name";
    EXPECT_FALSE(register_rung(same_number));
    Rung same_name = *rungs.front();
    same_name.number = 99;
    EXPECT_FALSE(register_rung(same_name));
  }
  EXPECT_EQ(ladder_rungs().size(), before);
}

// --- launch arithmetic shared by the layers ----------------------------------------------------

TEST(LadderLaunch, MatmulGridCoversC) {
  const RungGrid grid =
      matmul_rung_grid({.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 64}, 1000, 999, 1001, 132);
  EXPECT_EQ(grid.x, 16u);  // ceil(999 / 64) columns
  EXPECT_EQ(grid.y, 8u);   // ceil(1000 / 128) rows
  EXPECT_EQ(grid.z, 1u);   // no split_k: K is not split
  const RungGrid one = matmul_rung_grid({.tile_m = 32, .tile_n = 32}, 1, 1, 1, 132);
  EXPECT_EQ(one.x, 1u);
  EXPECT_EQ(one.y, 1u);
  EXPECT_EQ(one.z, 1u);
}

// The matmul rungs that split K (MatmulLaunch::split_k: rung 10), with the constants their kernel
// registered.
std::vector<const Rung*> split_k_rungs() {
  std::vector<const Rung*> rungs;
  for (const Rung* r : ladder_rungs("matmul"))
    if (r->launch_as<MatmulLaunch>().split_k) rungs.push_back(r);
  return rungs;
}

// Only a rung that splits K gets a grid z other than 1, whatever the size.
TEST(LadderLaunch, OnlySplitKRungsSplitK) {
  for (const Rung* r : ladder_rungs("matmul")) {
    const MatmulLaunch& l = r->launch_as<MatmulLaunch>();
    if (l.split_k) continue;
    for (const auto& [m, n, k] : std::vector<std::array<long long, 3>>{{1, 1, 1}, {512, 512, 512}, {1024, 1024, 1024}})
      EXPECT_EQ(matmul_rung_grid(l, m, n, k, 132).z, 1u) << r->id() << " at " << m << "x" << n << "x" << k;
  }
  EXPECT_FALSE(split_k_rungs().empty()) << "no matmul rung splits K (rung 10)";
}

// matmul_rung_splits on rung 10's shape (128x256 tiles, K slices of 32), with the numbers its
// kernel registered: the most splits that fit one wave (tiles x S <= SMs), capped by K's slices,
// max_splits and the workspace.
TEST(LadderLaunch, MatmulRungSplitsFillTheSmsOnce) {
  const MatmulLaunch l{.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 256, .split_k = true,
                       .slice_k = 32, .max_splits = 16, .split_parts = 160};
  const auto splits = [&](long long m, long long n, long long k, int sms = 132) {
    return matmul_rung_splits(l, m, n, k, sms);
  };
  EXPECT_EQ(splits(1024, 1024, 1024), 4u);  // 32 tiles: 4 x 32 = 128 blocks, one wave of 8 slices each
  EXPECT_EQ(splits(512, 512, 512), 16u);    // 8 tiles: 16 x 8 = 128 blocks, one slice each
  EXPECT_EQ(splits(4096, 4096, 4096), 1u);  // 512 tiles: the SMs are busy already
  EXPECT_EQ(splits(2048, 2048, 2048), 1u);  // 128 tiles: S = 2 would be two waves of half of K
  EXPECT_EQ(splits(4096, 4096, 1024), 1u);
  EXPECT_EQ(splits(128, 4096, 4096), 8u);   // 16 tiles: 8 x 16 = 128 blocks
  // K of fewer slices than the SMs would want: one split per slice at most.
  EXPECT_EQ(splits(1, 1, 1), 1u);           // one slice: nothing to split
  EXPECT_EQ(splits(1, 1, 32), 1u);
  EXPECT_EQ(splits(1, 1, 33), 2u);          // two slices
  EXPECT_EQ(splits(512, 512, 64), 2u);      // 8 tiles would take 16, K has 2 slices
  EXPECT_EQ(splits(17, 33, 65), 2u);        // 3 slices: the power of two under 3
  EXPECT_EQ(splits(128, 1, 300), 8u);       // 10 slices: 8 splits of 2 (the last 3 have none)
  EXPECT_EQ(splits(1000, 999, 1001), 4u);   // 32 tiles, as 1024^3
  EXPECT_EQ(splits(384, 768, 1024), 8u);    // 9 tiles: 72 blocks (16 splits: 144, past one wave)
  // The workspace: tiles x S never past split_parts, however many SMs there are.
  EXPECT_EQ(splits(1024, 1024, 1024, 1000), 4u);  // 32 x 8 = 256 > 160 parts
  EXPECT_EQ(splits(2048, 2048, 2048, 1000), 1u);  // 128 x 2 = 256 > 160
  EXPECT_EQ(splits(512, 512, 1 << 20, 1000), 16u);  // 8 x 16 = 128: max_splits
  // No SM count, or a rung that does not split K: 1.
  EXPECT_EQ(splits(512, 512, 512, 0), 1u);
  MatmulLaunch plain = l;
  plain.split_k = false;
  EXPECT_EQ(matmul_rung_splits(plain, 512, 512, 512, 132), 1u);
  // One wave, with a workspace that is no limit: never a second wave (2048^3: 128 tiles, S = 2
  // would be 256 blocks; 1024^3: S = 8 would be 2 waves of 4 slices, no better than 1 of 8).
  MatmulLaunch roomy = l;
  roomy.split_parts = 1u << 20;
  EXPECT_EQ(matmul_rung_splits(roomy, 2048, 2048, 2048, 132), 1u);
  EXPECT_EQ(matmul_rung_splits(roomy, 1024, 1024, 1024, 132), 4u);
  EXPECT_EQ(matmul_rung_splits(roomy, 128, 256 * 9, 4096, 132), 8u);  // 9 tiles: 72 blocks (16: 144)
  EXPECT_EQ(matmul_rung_splits(roomy, 128, 256 * 17, 4096, 16), 1u);  // more tiles than SMs
  EXPECT_EQ(matmul_rung_splits(roomy, 128, 256 * 15, 4096, 16), 1u);  // more than half a wave
  EXPECT_EQ(matmul_rung_splits(roomy, 128, 256 * 4, 4096, 16), 4u);   // 4 tiles: 16 blocks
  EXPECT_EQ(matmul_rung_splits(roomy, 0, 0, 4096, 132), 1u);          // no tile at all
  // The grid carries it along z.
  const RungGrid grid = matmul_rung_grid(l, 1024, 1024, 1024, 132);
  EXPECT_EQ(grid.x, 4u);
  EXPECT_EQ(grid.y, 8u);
  EXPECT_EQ(grid.z, 4u);

  // Every split-K rung as registered, over sizes and SM counts: a power of two within every cap,
  // 1 where C alone fills the SMs.
  for (const Rung* r : split_k_rungs()) {
    const MatmulLaunch& rl = r->launch_as<MatmulLaunch>();
    EXPECT_GT(rl.slice_k, 0u) << r->id();
    EXPECT_GE(rl.max_splits, 2u) << r->id();
    EXPECT_GE(rl.split_parts, 2u) << r->id();
    for (const int sms : {16, 108, 132, 148, 1000})
      for (const auto& [m, n, k] : std::vector<std::array<long long, 3>>{
               {1, 1, 1}, {17, 33, 65}, {128, 1, 300}, {512, 512, 512}, {1024, 1024, 1024}, {1000, 999, 1001},
               {2048, 2048, 2048}, {4096, 4096, 4096}, {128, 4096, 4096}, {1, 1, 1 << 20}}) {
        SCOPED_TRACE(r->id() + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                     " on " + std::to_string(sms) + " SMs");
        const RungGrid g = matmul_rung_grid(rl, m, n, k, sms);
        const long long tiles = 1LL * g.x * g.y, slices = std::max(1LL, (k + rl.slice_k - 1) / rl.slice_k);
        EXPECT_GE(g.z, 1u);
        EXPECT_EQ(g.z & (g.z - 1), 0u);
        EXPECT_LE(g.z, rl.max_splits);
        EXPECT_LE(g.z, slices);
        if (g.z > 1) EXPECT_LE(tiles * g.z, std::min<long long>(rl.split_parts, sms));  // one wave
        if (2 * tiles > sms) EXPECT_EQ(g.z, 1u);
      }
  }
}

// The default kernel's grid: tiles of C, and K split only for a C of fewer tiles than one wave
// (two blocks per SM), never past 16 splits or the 16-deep slices K has.
TEST(DefaultKernelLaunch, MatmulGridSplitsKOnlyForASmallC) {
  for (const auto& [m, n, k] : std::vector<std::array<long long, 3>>{
           {1, 1, 1}, {17, 33, 65}, {128, 1, 300}, {512, 512, 512}, {1024, 1024, 1024}, {1000, 999, 1001},
           {2048, 2048, 2048}, {4096, 4096, 4096}, {128, 4096, 4096}, {256, 256, 4096}, {1, 1, 1 << 20}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const MatmulGrid g = matmul_grid(m, n, k, 132);
    EXPECT_EQ(g.x, unsigned((n + 127) / 128));
    EXPECT_EQ(g.y, unsigned((m + 127) / 128));
    EXPECT_GE(g.z, 1u);
    EXPECT_LE(g.z, 16u);
    EXPECT_LE(g.z, unsigned(std::max(1LL, (k + 15) / 16)));  // every split has a slice of K
    EXPECT_EQ(g.z & (g.z - 1), 0u);                            // a power of two: the kernel's slices
    if (1LL * g.x * g.y >= 2 * 132) EXPECT_EQ(g.z, 1u);       // a wave of tiles or more
    for (const int sms : {132, 16}) {  // the splits of a tile wait for each other: all fit at once
      const MatmulGrid on = matmul_grid(m, n, k, sms);
      if (on.z > 1) EXPECT_LE(on.x * on.y * on.z, matmul_split_blocks_max(sms)) << sms << " SMs";
    }
  }
  EXPECT_GT(matmul_grid(512, 512, 512, 132).z, 1u);  // 16 tiles for 132 SMs
  EXPECT_GT(matmul_grid(128, 4096, 4096, 132).z, 1u);
  EXPECT_EQ(matmul_grid(1024, 1024, 1024, 132).z, 4u);  // 64 tiles: 4 splits fill two blocks an SM
  EXPECT_EQ(matmul_grid(2048, 2048, 2048, 132).z, 1u);  // 256 tiles: the SMs are busy without splits
  EXPECT_EQ(matmul_grid(1, 1, 16, 132).z, 1u);          // one slice of K: nothing to split
  EXPECT_EQ(matmul_grid(512, 512, 512, 0).z, 1u);       // no SM count: no split
}

TEST(LadderLaunch, ReducePassesShrinkToOneBlockIntoTheOutput) {
  const ReduceLaunch plain{.block = 256, .items_per_thread = 1};
  const ReducePlan single = reduce_rung_plan(plain, 1, 132);
  ASSERT_EQ(single.passes.size(), 1u);
  EXPECT_EQ(single.passes[0].in, -1);
  EXPECT_EQ(single.passes[0].out, -1);

  const ReducePlan three = reduce_rung_plan(plain, 1000003, 132);
  ASSERT_EQ(three.passes.size(), 3u);  // 1000003 -> 3907 -> 16 -> 1
  EXPECT_EQ(three.passes[0].n, 1000003);
  EXPECT_EQ(three.passes[0].blocks, 3907u);
  EXPECT_EQ(three.passes[1].n, 3907);
  EXPECT_EQ(three.passes[1].blocks, 16u);
  EXPECT_EQ(three.passes[2].blocks, 1u);
  // x -> scratch 0 -> scratch 1 -> the output: a pass never reads what it writes.
  EXPECT_EQ(three.passes[0].in, -1);
  EXPECT_EQ(three.passes[0].out, 0);
  EXPECT_EQ(three.passes[1].in, 0);
  EXPECT_EQ(three.passes[1].out, 1);
  EXPECT_EQ(three.passes[2].in, 1);
  EXPECT_EQ(three.passes[2].out, -1);
  EXPECT_EQ(three.scratch_floats[0], 3907u);
  EXPECT_EQ(three.scratch_floats[1], 16u);

  // A grid-stride rung: at most max_blocks_per_sm x SMs blocks.
  const ReducePlan strided =
      reduce_rung_plan({.block = 256, .items_per_thread = 4, .max_blocks_per_sm = 4}, 1LL << 28, 132);
  EXPECT_EQ(strided.passes[0].blocks, 528u);
  EXPECT_EQ(strided.passes.back().blocks, 1u);

  EXPECT_THROW(reduce_rung_plan({.block = 1, .items_per_thread = 1}, 2, 132), std::logic_error);
}

// --- the plan ----------------------------------------------------------------------------------

TEST(LadderPlan, RungSpecsAndUnknownRungs) {
  EXPECT_EQ(rungs_named("matmul/all"), ladder_rungs("matmul"));
  EXPECT_EQ(rungs_named("all"), ladder_rungs());
  ASSERT_FALSE(ladder_rungs("reduce").empty());
  EXPECT_EQ(rungs_named("reduce/1"), std::vector<const Rung*>{ladder_rungs("reduce").front()});
  for (const char* bad : {"matmul/99_nope", "nope/all", "matmul", "reduce/"}) {
    try {
      rungs_named(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(LadderPlan, CaseNameCarriesTheRung) {
  const Rung* rung = ladder_rungs("matmul").at(0);
  const Case c{find_workload("matmul"), find_layer("runtime"), {17, 33, 65}, rung};
  EXPECT_EQ(c.name(), "matmul/runtime:" + two_digits(rung->number) + "_" + rung->name + "/17x33x65");
  const Case plain{find_workload("matmul"), find_layer("runtime"), {17, 33, 65}};
  EXPECT_EQ(plain.name(), "matmul/runtime/17x33x65");
}

TEST(LadderPlan, RungCasesOnLayersThatRunThem) {
  const bool gpu = gpu_unavailable_reason().empty();
  // No -w: only the rungs, on runtime when no -l names a layer.
  SuitePlan plan = plan_suite({.sizes = {"1000"}, .rungs = {"reduce/all"}});
  EXPECT_EQ(plan.cases.size(), gpu ? ladder_rungs("reduce").size() : 0u);
  for (const Case& c : plan.cases) {
    EXPECT_NE(c.rung, nullptr);
    EXPECT_EQ(c.layer->name, "runtime");
  }
  EXPECT_TRUE(plan.no_rungs.empty());
  // -l cpu,runtime,driver -w reduce: the layers' own reduce too; cpu runs no rung and is named.
  plan = plan_suite({.workloads = {"reduce"}, .layers = {"cpu", "runtime", "driver"}, .sizes = {"1000"},
                     .rungs = {"reduce/1"}});
  EXPECT_EQ(plan.no_rungs, std::vector<std::string>{"cpu"});
  std::set<std::string> names;
  for (const Case& c : plan.cases) names.insert(c.name());
  EXPECT_TRUE(names.count("reduce/cpu/1000"));
  const std::string nn = "01_" + ladder_rungs("reduce").front()->name;
  EXPECT_EQ(names.count("reduce/runtime:" + nn + "/1000"), gpu ? 1u : 0u);
  const bool driver_here = find_layer("driver")->unavailable_reason().empty();
  EXPECT_EQ(names.count("reduce/driver:" + nn + "/1000"), driver_here ? 1u : 0u);
  // Only layers that run no rung: a usage error naming them.
  EXPECT_THROW(plan_suite({.layers = {"cpu"}, .sizes = {"1000"}, .rungs = {"reduce/all"}}), UsageError);
  EXPECT_THROW(plan_suite({.sizes = {"1000"}, .rungs = {"reduce/99"}}), UsageError);
  EXPECT_TRUE(find_layer("runtime")->runs_rungs);
  EXPECT_TRUE(find_layer("driver")->runs_rungs);
  EXPECT_FALSE(find_layer("cpu")->runs_rungs);
}

// --- the ladder's table, from synthetic results ----------------------------------------------------

CaseResult timed(const Case& c, double median_ms) {
  CaseResult r;
  r.spec = c;
  r.status = CaseStatus::kOk;
  r.stats.count = 10;
  r.stats.median_ms = median_ms;
  r.gbps = c.workload->bytes_moved(c.shape) / (median_ms * 1e-3) / 1e9;
  r.gflops = c.workload->flops(c.shape) / (median_ms * 1e-3) / 1e9;
  return r;
}

TEST(LadderTable, RungsThenTheVendorLineWithFractionsAndSpeedups) {
  const auto rungs = ladder_rungs("reduce");
  ASSERT_GE(rungs.size(), 2u);
  const Workload* w = find_workload("reduce");
  const Layer* runtime = find_layer("runtime");
  const Shape n{1, 1 << 20, 1};  // 4 MiB read
  std::vector<CaseResult> results = {timed({w, runtime, n, rungs[0]}, 0.4), timed({w, runtime, n, rungs[1]}, 0.2)};
  Ceilings context;
  context.copy = CopyCeiling{.gbps = 4.0 * (1 << 20) / 0.05e-3 / 1e9};
  std::string text = ladder_table(results, context);
  EXPECT_NE(text.find("reduce ladder at 1048576 through runtime"), std::string::npos) << text;
  EXPECT_NE(text.find("01_" + rungs[0]->name), std::string::npos) << text;
  EXPECT_NE(text.find("2.00x"), std::string::npos) << text;   // rung 2 is twice as fast as rung 1
  EXPECT_NE(text.find("25.0%"), std::string::npos) << text;   // rung 2 at 0.2 ms, copy at 0.05 ms
  EXPECT_EQ(text.find("%CUB"), std::string::npos) << text;    // no vendor line: the copy ceiling only

  if (const Layer* vendor = find_layer("vendor"); vendor && find_variant("vendor", "reduce")) {
    results.push_back(timed({w, vendor, n}, 0.1));
    text = ladder_table(results, context);
    EXPECT_NE(text.find("%CUB"), std::string::npos) << text;
    EXPECT_NE(text.find("CUB (vendor layer)"), std::string::npos) << text;
    EXPECT_NE(text.find("50.0%"), std::string::npos) << text;  // rung 2 at 0.2 ms, CUB at 0.1 ms
  }
  results[0].status = CaseStatus::kFailed;
  results[0].message = "verification failed: wrong sum";
  text = ladder_table(results, context);
  EXPECT_NE(text.find("failed: verification failed: wrong sum"), std::string::npos) << text;
}

// --- every rung's text through NVRTC alone (no GPU needed) -------------------------------------

TEST(LadderCompile, EveryRungCompilesWithNvrtcAlone) {
  const nvrtc::KernelCache no_cache{"", false};
  std::vector<std::pair<std::string, std::string>> headers;
  for (const driver::EmbeddedSource& s : driver::embedded_sources())
    if (std::string(s.path).ends_with(".h")) headers.emplace_back(s.path, s.text);
  // Under the sanitizer every rung's text is checked, but two compiled: each takes the same path
  // through our compile (the time is NVRTC's, which is not instrumented); the plain build compiles all.
  const std::vector<const Rung*> rungs = ladder_rungs();
  const std::size_t compiles = test::repetitions(rungs.size(), 2);
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const Rung* r = rungs[i];
    SCOPED_TRACE(r->id());
    const driver::EmbeddedSource* embedded = nullptr;
    ASSERT_NO_THROW(embedded = &driver::embedded_source(r->file)) << "not embedded: re-run CMake";
    EXPECT_EQ(std::string(embedded->text), slurp(kRoot / r->file)) << "the embedded text is stale: rebuild";
    if (i >= compiles) continue;
    nvrtc::CompiledKernel compiled;
    try {
      compiled = nvrtc::compile_cubin({r->file, embedded->text, headers, 90}, no_cache);
    } catch (const nvrtc::NvrtcCompileError& e) {
      ADD_FAILURE() << e.what() << "\n" << e.log();
      continue;
    }
    EXPECT_FALSE(compiled.cubin.empty());
    EXPECT_NE(compiled.cubin.find(r->kernel), std::string::npos) << "no kernel named " << r->kernel;
  }
}

// --- the command line --------------------------------------------------------------------------

struct Outcome {
  int code = -1;
  std::string out, err;
};

class LadderCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("layerbench_ladder_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Outcome run(const std::string& args) const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const int status = std::system((std::string(LB_EXE) + " " + args + " >" + out.string() + " 2>" + err.string()).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  // One line on stderr naming the value, exit code 2, no results file.
  void expect_usage_error(const std::string& args, const std::string& names) const {
    const fs::path out = dir_ / "out.json";
    const Outcome o = run(args + " -o " + out.string());
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    EXPECT_NE(o.err.find(names), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
  fs::path dir_;
};

TEST_F(LadderCli, BadRungOrLadderIsOneLineAndExitTwo) {
  expect_usage_error("run --rung matmul/99_nope -s 64", "'matmul/99_nope'");
  expect_usage_error("run --rung nope/all -s 64", "'nope/all'");
  expect_usage_error("run --rung reduce/all -l cpu -s 64", "cpu");
  expect_usage_error("ladder nope", "'nope'");
  expect_usage_error("ladder matmul --size 12xab", "12xab");
  expect_usage_error("ladder reduce --layer cpu", "'cpu'");
  expect_usage_error("ladder reduce --layer gpu9", "'gpu9'");
}

TEST_F(LadderCli, ListAndHelpShowTheLadders) {
  const Outcome list = run("list");
  EXPECT_EQ(list.code, 0);
  for (const Rung* r : ladder_rungs()) {
    EXPECT_NE(list.out.find(r->id()), std::string::npos) << r->id();
    EXPECT_NE(list.out.find(r->title), std::string::npos) << r->title;
  }
  EXPECT_NE(run("run --help").out.find("--rung"), std::string::npos);
  const Outcome help = run("ladder --help");
  EXPECT_EQ(help.code, 0);
  for (const char* flag : {"--size", "--layer", "--out", "--seed"}) EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
}

// Without a GPU: the plan's line on stderr, an empty results file, exit 0 (as `run` does). With
// one: every rung ran, verified, with its rung object in the JSON and its line in the table.
TEST_F(LadderCli, LadderRunsEveryRungAndRecordsIt) {
  const fs::path out = dir_ / "ladder.json";
  const Outcome o = run("ladder reduce --size 100003 --min-time 0.01 --max-time 0.2 --seed 3 -o " + out.string());
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(fs::exists(out));
  const nlohmann::json results = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(results["context"]["ladder"]["workload"], "reduce");
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    EXPECT_NE(o.err.find(why), std::string::npos) << o.err;
    EXPECT_TRUE(results["benchmarks"].empty());
    return;
  }
  std::set<std::string> ids;
  for (const auto& b : results["benchmarks"]) {
    EXPECT_EQ(b["status"], "ok") << b.dump();
    if (b.contains("rung")) {
      ids.insert(b["rung"]["id"].get<std::string>());
      EXPECT_EQ(b["layer"], "runtime");
      EXPECT_NE(b["name"].get<std::string>().find("reduce/runtime:"), std::string::npos);
    } else {
      EXPECT_EQ(b["layer"], "vendor");  // the top line
    }
  }
  EXPECT_EQ(ids.size(), ladder_rungs("reduce").size());
  for (const Rung* r : ladder_rungs("reduce")) {
    EXPECT_TRUE(ids.count(r->id())) << r->id();
    EXPECT_NE(o.out.find(two_digits(r->number) + "_" + r->name), std::string::npos) << o.out;
  }
  EXPECT_NE(o.out.find("speed-up"), std::string::npos) << o.out;
}

// --- every rung against the reference, through runtime and driver (GPU) ------------------------

struct RungParam {
  std::string rung, layer;
  friend void PrintTo(const RungParam& p, std::ostream* os) { *os << p.layer << ":" << p.rung; }
};

std::vector<RungParam> rung_params(const std::string& workload = "") {
  std::vector<RungParam> params;
  for (const Rung* r : ladder_rungs(workload))
    for (const char* layer : {"runtime", "driver"}) params.push_back({r->id(), layer});
  return params;
}

std::string rung_param_name(const ::testing::TestParamInfo<RungParam>& info) {
  std::string name = info.param.layer + "_" + info.param.rung;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::vector<Shape> rung_edge_sizes(const std::string& workload) {
  if (workload == "matmul") return {{1, 1, 1}, {17, 33, 65}, {128, 1, 300}, {1000, 999, 1001}};
  return {{1, 1, 1}, {1, 127, 1}, {1, 128, 1}, {1, 129, 1}, {1, 1000003, 1}};
}

class RungTest : public ::testing::TestWithParam<RungParam> {
 protected:
  void SetUp() override {
    rung_ = find_rung(GetParam().rung);
    ASSERT_NE(rung_, nullptr);
    layer_ = find_layer(GetParam().layer);
    ASSERT_NE(layer_, nullptr);
    workload_ = find_workload(rung_->workload);
    if (const std::string why = layer_->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    rig_.emplace(*layer_);
  }
  Verdict check(const HostProblem& p) {
    auto v = rig_->make(*workload_, p.shape, rung_);
    const Verdict first = rig_->check(*v, *workload_, p);
    if (!first.passed) return first;
    return rig_->check(*v, *workload_, p);  // again on the same buffers, as the timed samples do
  }
  const Rung* rung_ = nullptr;
  const Layer* layer_ = nullptr;
  const Workload* workload_ = nullptr;
  std::optional<LayerRig> rig_;
};

TEST_P(RungTest, MatchesReferenceOnEdgeSizes) {
  for (const Shape& shape : rung_edge_sizes(rung_->workload)) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(workload_->size_label(shape) + " seed " + std::to_string(seed));
    const Verdict verdict = check(workload_->make_problem(shape, seed));
    EXPECT_TRUE(verdict.passed) << verdict.detail;
  }
}

// A large value first, in the middle or last must reach the sum: a rung that drops its tail (or
// its head) fails even where a long sum's tolerance is wide.
class ReduceRungTest : public RungTest {};
TEST_P(ReduceRungTest, CountsEveryElement) {
  for (std::int64_t n : {129LL, 1000003LL})
    for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " needle at " + std::to_string(at));
      HostProblem p = workload_->make_problem({1, n, 1}, std::random_device{}());
      p.inputs[0][at] = 1e4f;
      const Verdict verdict = check(p);
      EXPECT_TRUE(verdict.passed) << verdict.detail;
    }
}

// A rung that splits K: right where it does split (on this GPU's SM count), on the 16-byte and the
// 4-byte path, with splits that have no slice of K; the same bits on a second launch (the parts
// are added in a fixed order, whichever split arrives last), which also finds a ticket counter not
// set back to zero by the launch before.
class SplitKRungTest : public RungTest {};
TEST_P(SplitKRungTest, RightAndTheSameBitsEveryRun) {
  const MatmulLaunch& l = rung_->launch_as<MatmulLaunch>();
  bool split = false;
  // On 132 SMs: S = 16, 8, 4, 8 (3 splits with no slice), 2; the first two on the 16-byte path.
  for (const Shape& shape :
       std::vector<Shape>{{512, 512, 512}, {384, 768, 1024}, {1000, 999, 1001}, {128, 1, 300}, {17, 33, 65}}) {
    const unsigned splits = matmul_rung_splits(l, shape.m, shape.n, shape.k, sm_count());
    split |= splits > 1;
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(workload_->size_label(shape) + " S " + std::to_string(splits) + " seed " + std::to_string(seed));
    const HostProblem p = workload_->make_problem(shape, seed);
    auto v = rig_->make(*workload_, shape, rung_);
    const Verdict first = rig_->check(*v, *workload_, p);
    ASSERT_TRUE(first.passed) << first.detail;
    const std::vector<float> bits(rig_->result().begin(), rig_->result().end());
    const Verdict second = rig_->check(*v, *workload_, p);
    ASSERT_TRUE(second.passed) << second.detail;
    ASSERT_EQ(rig_->result().size(), bits.size());
    EXPECT_EQ(std::memcmp(rig_->result().data(), bits.data(), bits.size() * sizeof(float)), 0)
        << "another sum on the second launch";
  }
  EXPECT_TRUE(split) << "no size split K on " << sm_count() << " SMs";
}

std::vector<RungParam> split_k_rung_params() {
  std::vector<RungParam> params;
  for (const Rung* r : split_k_rungs())
    for (const char* layer : {"runtime", "driver"}) params.push_back({r->id(), layer});
  return params;
}

INSTANTIATE_TEST_SUITE_P(Rungs, RungTest, ::testing::ValuesIn(rung_params()), rung_param_name);
INSTANTIATE_TEST_SUITE_P(Rungs, ReduceRungTest, ::testing::ValuesIn(rung_params("reduce")), rung_param_name);
INSTANTIATE_TEST_SUITE_P(Rungs, SplitKRungTest, ::testing::ValuesIn(split_k_rung_params()), rung_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RungTest);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReduceRungTest);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SplitKRungTest);

}  // namespace
}  // namespace lb
