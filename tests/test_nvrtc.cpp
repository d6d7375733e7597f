// NVRTC and the compiled-kernel cache, on the CPU (NVRTC needs no GPU): every shipped kernel
// compiles cleanly, errors carry NVRTC's log, and the cache hits, misses and heals as it should.
#include <gtest/gtest.h>
#include <nvrtc.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "variants/driver/kernel_sources.h"
#include "variants/nvrtc/nvrtc_compiler.h"

namespace lb::driver {
using namespace lb::nvrtc;  // what this file tests; the embedded texts are the driver layer's
namespace {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> shipped_headers() {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& s : embedded_sources())
    if (std::string(s.path).ends_with(".h")) headers.emplace_back(s.path, s.text);
  return headers;
}

int oldest_supported_sm() {
  int count = 0;
  EXPECT_EQ(nvrtcGetNumSupportedArchs(&count), NVRTC_SUCCESS);
  std::vector<int> archs(count);
  EXPECT_EQ(nvrtcGetSupportedArchs(archs.data()), NVRTC_SUCCESS);
  return archs.empty() ? 90 : archs.front();
}

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("layerbench_cache_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  KernelCache cache() const { return {dir_.string(), true}; }
  static CompileRequest saxpy(int sm = 90) {
    return {"workloads/saxpy/kernels.cu", embedded_source("workloads/saxpy/kernels.cu").text, shipped_headers(), sm};
  }
  fs::path dir_;
};

TEST(Nvrtc, EveryShippedKernelCompilesCleanlyForSm90AndTheOldestArch) {
  const int oldest = oldest_supported_sm();
  int kernels = 0;
  for (const auto& source : embedded_sources()) {
    if (!std::string(source.path).ends_with(".cu")) continue;
    // Ladder rungs are embedded too; tests/test_ladder.cpp compiles them (sm_90: the Hopper rungs
    // use cp.async, which the oldest architecture lacks).
    if (std::string(source.path).find("/ladder/") != std::string::npos) continue;
    ++kernels;
    for (int sm : {90, oldest}) {
      SCOPED_TRACE(std::string(source.path) + " sm_" + std::to_string(sm));
      const CompiledKernel k = compile_cubin({source.path, source.text, shipped_headers(), sm}, {"", false});
      EXPECT_GT(k.cubin.size(), 0u);
      EXPECT_FALSE(k.from_cache);
      EXPECT_EQ(k.log.find("warning"), std::string::npos) << k.log;
    }
  }
  EXPECT_EQ(kernels, 6);  // vector_add, saxpy, reduce, matmul, transpose, launch
}

TEST(Nvrtc, CompileErrorNamesTheFileAndCarriesTheLog) {
  const std::string broken = "extern \"C\" __global__ void k(float* x) {\n  x[0] = not_declared;\n}\n";
  try {
    compile_cubin({"tests/broken_kernel.cu", broken, {}, 90}, {"", false});
    FAIL() << "a broken kernel compiled";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tests/broken_kernel.cu(2): error"), std::string::npos) << what;
    EXPECT_NE(what.find("not_declared"), std::string::npos) << what;
  }
}

TEST_F(KernelCacheTest, SecondCompileHitsTheCache) {
  const CompiledKernel first = compile_cubin(saxpy(), cache());
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(fs::exists(first.cache_file)) << first.cache_file;
  const CompiledKernel second = compile_cubin(saxpy(), cache());
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.cache_file, first.cache_file);
}

TEST_F(KernelCacheTest, KeyCoversSourceAndArchitecture) {
  const CompiledKernel base = compile_cubin(saxpy(), cache());
  CompileRequest edited = saxpy();
  edited.source_text += "\n// a comment changes the text\n";
  const CompiledKernel other_text = compile_cubin(edited, cache());
  EXPECT_FALSE(other_text.from_cache);
  EXPECT_NE(other_text.cache_file, base.cache_file);
  const CompiledKernel other_arch = compile_cubin(saxpy(80), cache());
  EXPECT_FALSE(other_arch.from_cache);
  EXPECT_NE(other_arch.cache_file, base.cache_file);
}

TEST_F(KernelCacheTest, TruncatedEntryIsRebuilt) {
  const CompiledKernel first = compile_cubin(saxpy(), cache());
  fs::resize_file(first.cache_file, fs::file_size(first.cache_file) / 2);
  const CompiledKernel again = compile_cubin(saxpy(), cache());
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.cubin, first.cubin);
  EXPECT_TRUE(compile_cubin(saxpy(), cache()).from_cache);  // rewritten whole
}

TEST_F(KernelCacheTest, CorruptEntryIsRebuilt) {
  const CompiledKernel first = compile_cubin(saxpy(), cache());
  {
    std::fstream f(first.cache_file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-8, std::ios::end);
    f.write("garbage!", 8);  // same size, wrong bytes: caught by the payload hash
  }
  const CompiledKernel again = compile_cubin(saxpy(), cache());
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.cubin, first.cubin);
  std::ofstream(first.cache_file, std::ios::trunc) << "not a cache entry";
  EXPECT_FALSE(compile_cubin(saxpy(), cache()).from_cache);
}

TEST_F(KernelCacheTest, UnreadableEntryIsIgnored) {
  const CompiledKernel first = compile_cubin(saxpy(), cache());
  fs::remove(first.cache_file);
  fs::create_directories(first.cache_file);  // a directory where the file should be
  const CompiledKernel again = compile_cubin(saxpy(), cache());
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.cubin, first.cubin);
}

TEST_F(KernelCacheTest, DisabledCacheNeitherReadsNorWrites) {
  const CompiledKernel k = compile_cubin(saxpy(), {dir_.string(), false});
  EXPECT_FALSE(k.from_cache);
  EXPECT_TRUE(k.cache_file.empty());
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(KernelCacheLocation, EnvironmentVariableSetsIt) {
  setenv("LAYERBENCH_KERNEL_CACHE", "/tmp/somewhere", 1);
  EXPECT_EQ(KernelCache::default_dir(), "/tmp/somewhere");
  unsetenv("LAYERBENCH_KERNEL_CACHE");
  EXPECT_NE(KernelCache::default_dir().find("layerbench"), std::string::npos);
}

}  // namespace
}  // namespace lb::driver
