# Dependencies come from the system (Debian/Ubuntu packages, see scripts/install-deps.sh);
# FetchContent is only a fallback for machines that lack them and can reach GitHub, and for
# Google Benchmark in Release (below), from Debian's source tarball.
include(FetchContent)

find_package(CUDAToolkit 12.0 REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)

macro(lb_fallback name)
  message(STATUS "layerbench: ${name} not found on the system; fetching it (needs network)")
endmacro()

find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  lb_fallback(nlohmann_json)
  FetchContent_Declare(nlohmann_json URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz)
  FetchContent_MakeAvailable(nlohmann_json)
endif()

find_package(CLI11 2.1 QUIET)
if(NOT CLI11_FOUND)
  lb_fallback(CLI11)
  FetchContent_Declare(cli11 GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git GIT_TAG v2.4.2 GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(cli11)
endif()

# --- Google Benchmark --------------------------------------------------------------------------
# Debian's libbenchmark is built without NDEBUG: before every run it prints "***WARNING*** Library
# was built as DEBUG. Timings may be affected." and it says "library_build_type": "debug". No GPU
# figure depends on that (docs/methodology.md), but a release build of layerbench should not print
# it. So on a Release, RelWithDebInfo or MinSizeRel build, when the system's library says it is a
# debug build, Google Benchmark is built here from source, in the project's build type: Debian's
# own upstream tarball of the same version (1.7.1), pinned by its SHA-256 (the one Debian's .dsc
# lists). The tarball is taken from LAYERBENCH_DEPS_DIR (scripts/fetch-deps.sh puts it there; carry
# it to a machine without network), else downloaded once into the build folder. Without either,
# the system's library is used and CMake says so: the configure never fails for this.
option(LAYERBENCH_RELEASE_BENCHMARK
       "On a release build, build Google Benchmark from source when the system's library is a debug build" ON)
set(LAYERBENCH_DEPS_DIR "${CMAKE_SOURCE_DIR}/.deps" CACHE PATH
    "Folder of dependency tarballs for machines without network (scripts/fetch-deps.sh fills it)")
set(LAYERBENCH_BENCHMARK_TARBALL_URL
    "http://deb.debian.org/debian/pool/main/b/benchmark/benchmark_1.7.1.orig.tar.gz" CACHE STRING
    "Where to download Google Benchmark's source when it is not in LAYERBENCH_DEPS_DIR")
set(lb_benchmark_tarball_name benchmark_1.7.1.orig.tar.gz)
set(lb_benchmark_tarball_sha256 6430e4092653380d9dc4ccb45a1e2dc9259d581f4866dc0759713126056bc1d7)

# What the system's Google Benchmark says of its own build: debug, release, or unknown (not found,
# or the probe did not build). A separate small project, so that its find_package(benchmark) leaves
# no imported benchmark::benchmark here to clash with the one the source build defines. Cached.
function(lb_system_benchmark_build_type out)
  if(DEFINED CACHE{LAYERBENCH_SYSTEM_BENCHMARK_BUILD_TYPE})
    set(${out} "${LAYERBENCH_SYSTEM_BENCHMARK_BUILD_TYPE}" PARENT_SCOPE)
    return()
  endif()
  set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/lb_benchmark_probe)
  file(REMOVE_RECURSE ${probe})
  file(WRITE ${probe}/src/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.16)
project(lb_benchmark_probe LANGUAGES CXX)
find_package(benchmark 1.7 REQUIRED)
add_executable(lb_benchmark_probe probe.cpp)
target_link_libraries(lb_benchmark_probe PRIVATE benchmark::benchmark)
set_target_properties(lb_benchmark_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
]=])
  # The same question harness/reporter.cpp asks for the results' library_build_type.
  file(WRITE ${probe}/src/probe.cpp [=[
#include <benchmark/benchmark.h>
#include <iostream>
#include <sstream>
int main() {
  std::ostringstream text;
  benchmark::JSONReporter json;
  json.SetOutputStream(&text);
  json.SetErrorStream(&text);
  json.ReportContext(benchmark::BenchmarkReporter::Context());
  std::cout << text.str();
}
]=])
  set(flags -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
  foreach(var CMAKE_PREFIX_PATH benchmark_DIR)
    if(DEFINED ${var})
      list(APPEND flags "-D${var}=${${var}}")
    endif()
  endforeach()
  try_compile(built ${probe}/build ${probe}/src lb_benchmark_probe CMAKE_FLAGS ${flags} OUTPUT_VARIABLE log)
  set(type unknown)
  if(built)
    execute_process(COMMAND ${probe}/build/lb_benchmark_probe OUTPUT_VARIABLE said ERROR_QUIET
                    RESULT_VARIABLE rc TIMEOUT 60)
    if(rc EQUAL 0 AND said MATCHES "\"library_build_type\": \"([a-z]+)\"")
      set(type ${CMAKE_MATCH_1})
    endif()
  endif()
  set(LAYERBENCH_SYSTEM_BENCHMARK_BUILD_TYPE ${type} CACHE INTERNAL
      "What the system's Google Benchmark says of its build (debug, release, unknown)")
  set(${out} ${type} PARENT_SCOPE)
endfunction()

# The path of the pinned tarball with the right hash, or "" when there is none and it cannot be
# downloaded. A failed download is remembered for that URL (LAYERBENCH_BENCHMARK_DOWNLOAD_FAILED),
# so a machine without network does not wait for it at every configure.
function(lb_benchmark_tarball out)
  set(${out} "" PARENT_SCOPE)
  set(downloaded ${CMAKE_BINARY_DIR}/_deps/downloads/${lb_benchmark_tarball_name})
  foreach(candidate ${LAYERBENCH_DEPS_DIR}/${lb_benchmark_tarball_name} ${downloaded})
    if(EXISTS ${candidate})
      file(SHA256 ${candidate} hash)
      if(hash STREQUAL lb_benchmark_tarball_sha256)
        set(${out} ${candidate} PARENT_SCOPE)
        return()
      endif()
      message(STATUS "layerbench: ignoring ${candidate}: its SHA-256 is not the pinned ${lb_benchmark_tarball_sha256}")
    endif()
  endforeach()
  if("${LAYERBENCH_BENCHMARK_DOWNLOAD_FAILED}" STREQUAL "${LAYERBENCH_BENCHMARK_TARBALL_URL}")
    message(STATUS "layerbench: not downloading ${LAYERBENCH_BENCHMARK_TARBALL_URL} again: it failed in this "
                   "build folder (cmake -U LAYERBENCH_BENCHMARK_DOWNLOAD_FAILED tries again)")
    return()
  endif()
  message(STATUS "layerbench: downloading ${LAYERBENCH_BENCHMARK_TARBALL_URL}")
  file(DOWNLOAD ${LAYERBENCH_BENCHMARK_TARBALL_URL} ${downloaded}.part
       STATUS status TIMEOUT 120 INACTIVITY_TIMEOUT 20)
  list(GET status 0 code)
  set(hash "")
  if(code EQUAL 0)
    file(SHA256 ${downloaded}.part hash)
  endif()
  if(code EQUAL 0 AND hash STREQUAL lb_benchmark_tarball_sha256)
    file(RENAME ${downloaded}.part ${downloaded})
    set(${out} ${downloaded} PARENT_SCOPE)
    return()
  endif()
  file(REMOVE ${downloaded}.part)
  if(code EQUAL 0)
    message(STATUS "layerbench: the download's SHA-256 is ${hash}, not the pinned ${lb_benchmark_tarball_sha256}")
  else()
    list(GET status 1 why)
    message(STATUS "layerbench: the download failed: ${why}")
  endif()
  set(LAYERBENCH_BENCHMARK_DOWNLOAD_FAILED ${LAYERBENCH_BENCHMARK_TARBALL_URL} CACHE INTERNAL
      "The Google Benchmark URL whose download failed in this build folder (delete to try again)")
endfunction()

# Google Benchmark 1.7.1 from the tarball, built in this project's build type, quietly: no tests,
# no install rules, no -Werror, no libpfm. It defines benchmark::benchmark (an ALIAS).
macro(lb_build_benchmark tarball)
  message(STATUS "layerbench: Google Benchmark 1.7.1 built from source (${tarball}), ${CMAKE_BUILD_TYPE}")
  set(BENCHMARK_ENABLE_TESTING OFF)
  set(BENCHMARK_ENABLE_GTEST_TESTS OFF)
  set(BENCHMARK_ENABLE_INSTALL OFF)
  set(BENCHMARK_INSTALL_DOCS OFF)
  set(BENCHMARK_ENABLE_WERROR OFF)
  set(BENCHMARK_ENABLE_LIBPFM OFF)
  set(BENCHMARK_ENABLE_DOXYGEN OFF)
  set(BENCHMARK_ENABLE_ASSEMBLY_TESTS OFF)
  set(BENCHMARK_DOWNLOAD_DEPENDENCIES OFF)
  FetchContent_Declare(benchmark URL ${tarball} URL_HASH SHA256=${lb_benchmark_tarball_sha256}
                       DOWNLOAD_EXTRACT_TIMESTAMP FALSE)
  # Its CMakeLists asks git for a version (git describe, git update-index --refresh): stop git at
  # the fetched folder, so it never reaches (and refreshes the index of) a repository around the
  # build folder. Its own STATUS lines (flag checks) are hidden unless --log-level asks for them.
  set(lb_saved_ceiling "$ENV{GIT_CEILING_DIRECTORIES}")
  set(ENV{GIT_CEILING_DIRECTORIES} "${FETCHCONTENT_BASE_DIR}")
  if(NOT DEFINED CMAKE_MESSAGE_LOG_LEVEL)
    set(CMAKE_MESSAGE_LOG_LEVEL NOTICE)
    set(lb_unset_log_level ON)
  endif()
  FetchContent_MakeAvailable(benchmark)
  if(lb_unset_log_level)
    unset(CMAKE_MESSAGE_LOG_LEVEL)
    unset(lb_unset_log_level)
  endif()
  set(ENV{GIT_CEILING_DIRECTORIES} "${lb_saved_ceiling}")
endmacro()

set(lb_release_build OFF)
if(CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
  set(lb_release_build ON)
endif()
set(lb_benchmark_from_source OFF)
if(LAYERBENCH_RELEASE_BENCHMARK AND lb_release_build)
  lb_system_benchmark_build_type(lb_system_benchmark)
  if(lb_system_benchmark STREQUAL "debug")
    lb_benchmark_tarball(lb_tarball)
    if(lb_tarball)
      lb_build_benchmark(${lb_tarball})
      set(lb_benchmark_from_source ON)
    else()
      message(STATUS "layerbench: the system's Google Benchmark is a debug build, and its source "
                     "(${lb_benchmark_tarball_name}) is neither in ${LAYERBENCH_DEPS_DIR} nor downloadable: "
                     "using the system's library, so every run prints Google Benchmark's \"Library was built "
                     "as DEBUG\" warning and the results say library_build_type \"debug\" (no GPU figure "
                     "depends on it; scripts/fetch-deps.sh, then carrying .deps/, avoids it)")
    endif()
  endif()
endif()
if(NOT lb_benchmark_from_source)
  find_package(benchmark 1.7 QUIET)
  if(NOT benchmark_FOUND)
    lb_fallback(benchmark)
    lb_benchmark_tarball(lb_tarball)
    if(NOT lb_tarball)
      message(FATAL_ERROR "layerbench: Google Benchmark: no system library (apt install libbenchmark-dev) and "
                          "no ${lb_benchmark_tarball_name} in ${LAYERBENCH_DEPS_DIR} nor downloadable")
    endif()
    lb_build_benchmark(${lb_tarball})
  endif()
endif()

if(LAYERBENCH_BUILD_TESTS)
  find_package(GTest 1.10 QUIET)
  if(NOT GTest_FOUND)
    lb_fallback(GTest)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    FetchContent_Declare(googletest URL https://github.com/google/googletest/archive/refs/tags/v1.15.2.tar.gz)
    FetchContent_MakeAvailable(googletest)
  endif()
endif()

# A real BLAS makes the CPU matmul baseline fair. Only OpenBLAS is accepted: the reference BLAS
# would make the GPU look better than it is.
set(LAYERBENCH_CBLAS_FOUND OFF)
if(LAYERBENCH_USE_CBLAS)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS QUIET)
  unset(BLA_VENDOR)
  find_path(LAYERBENCH_CBLAS_INCLUDE_DIR cblas.h
    PATH_SUFFIXES openblas openblas-pthread openblas-openmp x86_64-linux-gnu/openblas-pthread
                  x86_64-linux-gnu/openblas-openmp)
  if(BLAS_FOUND AND LAYERBENCH_CBLAS_INCLUDE_DIR)
    set(LAYERBENCH_CBLAS_FOUND ON)
    set(LAYERBENCH_CBLAS_NAME "OpenBLAS")
    set(LAYERBENCH_CBLAS_LIBRARIES ${BLAS_LIBRARIES})
    message(STATUS "layerbench: cpu matmul uses OpenBLAS (${BLAS_LIBRARIES})")
  else()
    message(STATUS "layerbench: OpenBLAS not found; cpu matmul uses a cache-blocked loop nest")
  endif()
endif()
