# Dependencies come from the system: Debian/Ubuntu packages, which scripts/install-deps.sh installs
# with apt. Nothing is downloaded here. On a machine without a package registry (the lent GPU
# machines), what the system lacks comes from the files scripts/fetch-deps.sh put into
# LAYERBENCH_DEPS_DIR (.deps/) through the distribution's own client, carried there beside the
# checkout: Debian packages of nlohmann-json3-dev and libcli11-dev (headers) and of googletest
# (GoogleTest's source), unpacked into the build folder, and Google Benchmark's source tarball.
include(FetchContent)

find_package(CUDAToolkit 12.0 REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
# The labs' keyed hash (HMAC-SHA256, lab/child/grade_keys.h): the distribution's OpenSSL 3
# (Debian 12: libssl-dev 3.0), which scripts/install-deps.sh installs where it is missing.
find_package(OpenSSL 3.0 REQUIRED COMPONENTS Crypto)

set(LAYERBENCH_DEPS_DIR "${CMAKE_SOURCE_DIR}/.deps" CACHE PATH
    "Folder of dependency files for machines without a package registry (scripts/fetch-deps.sh fills it)")
set(lb_deps_root ${CMAKE_BINARY_DIR}/_deps/root)

# Unpacks the newest ${package}_*.deb of LAYERBENCH_DEPS_DIR into ${lb_deps_root} (once) and puts
# ${lb_deps_root}/usr on CMAKE_PREFIX_PATH; out is the .deb's path, or "" when there is none.
function(lb_unpack_deb package out)
  set(${out} "" PARENT_SCOPE)
  file(GLOB debs ${LAYERBENCH_DEPS_DIR}/${package}_*.deb)
  if(NOT debs)
    return()
  endif()
  list(SORT debs COMPARE NATURAL)
  list(GET debs -1 deb)
  get_filename_component(name ${deb} NAME)
  set(stamp ${lb_deps_root}/.unpacked-${name})
  if(NOT EXISTS ${stamp})
    file(MAKE_DIRECTORY ${lb_deps_root})
    # A .deb is an ar archive holding data.tar.*: CMake's own tar reads both (no dpkg needed).
    set(tmp ${CMAKE_BINARY_DIR}/_deps/unpack-${package})
    file(REMOVE_RECURSE ${tmp})
    file(MAKE_DIRECTORY ${tmp})
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar xf ${deb} WORKING_DIRECTORY ${tmp} RESULT_VARIABLE rc)
    file(GLOB data ${tmp}/data.tar.*)
    if(rc EQUAL 0 AND data)
      execute_process(COMMAND ${CMAKE_COMMAND} -E tar xf ${data} WORKING_DIRECTORY ${lb_deps_root} RESULT_VARIABLE rc)
    endif()
    file(REMOVE_RECURSE ${tmp})
    if(NOT rc EQUAL 0 OR NOT data)
      message(STATUS "layerbench: could not unpack ${deb}")
      return()
    endif()
    file(TOUCH ${stamp})
  endif()
  set(prefixes ${CMAKE_PREFIX_PATH})
  if(NOT "${lb_deps_root}/usr" IN_LIST prefixes)
    set(CMAKE_PREFIX_PATH ${lb_deps_root}/usr ${CMAKE_PREFIX_PATH} PARENT_SCOPE)
  endif()
  message(STATUS "layerbench: ${package} from ${deb}")
  set(${out} ${deb} PARENT_SCOPE)
endfunction()

macro(lb_missing name package)
  message(FATAL_ERROR "layerbench: ${name} not found: install Debian's ${package} (scripts/install-deps.sh does), "
                      "or, on a machine without a package registry, carry ${LAYERBENCH_DEPS_DIR} with a "
                      "${package}_*.deb in it (scripts/fetch-deps.sh, where apt works, puts it there)")
endmacro()

find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  lb_unpack_deb(nlohmann-json3-dev lb_deb)
  find_package(nlohmann_json 3.10 QUIET)
  if(NOT nlohmann_json_FOUND)
    lb_missing(nlohmann_json nlohmann-json3-dev)
  endif()
endif()

find_package(CLI11 2.1 QUIET)
if(NOT CLI11_FOUND)
  lb_unpack_deb(libcli11-dev lb_deb)
  find_package(CLI11 2.1 QUIET)
  if(NOT CLI11_FOUND)
    lb_missing(CLI11 libcli11-dev)
  endif()
endif()

# --- Google Benchmark --------------------------------------------------------------------------
# Debian's libbenchmark is built without NDEBUG: before every run it prints "***WARNING*** Library
# was built as DEBUG. Timings may be affected." and it says "library_build_type": "debug". No GPU
# figure depends on that (docs/methodology.md), but a release build of layerbench should not print
# it. So on a Release, RelWithDebInfo or MinSizeRel build, when the system's library says it is a
# debug build, Google Benchmark is built here from source, in the project's build type: Debian's
# own upstream tarball of the same version (1.7.1), pinned by its SHA-256 (the one Debian's .dsc
# lists), taken from LAYERBENCH_DEPS_DIR, where scripts/fetch-deps.sh puts it with `apt-get source`
# (carry it to a machine without a registry). The same tarball is the whole library where the
# system has none (the lent GPU machines). Without it, the system's library is used and CMake says
# so: the configure never fails for this unless there is no Google Benchmark at all.
option(LAYERBENCH_RELEASE_BENCHMARK
       "On a release build, build Google Benchmark from source when the system's library is a debug build" ON)
# Gone with the download of earlier versions (a build folder they configured still has them).
unset(LAYERBENCH_BENCHMARK_TARBALL_URL CACHE)
unset(LAYERBENCH_BENCHMARK_DOWNLOAD_FAILED CACHE)
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
  # What the library's own JSON reporter says of its build.
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

# The path of the pinned tarball in LAYERBENCH_DEPS_DIR with the right hash, or "".
function(lb_benchmark_tarball out)
  set(${out} "" PARENT_SCOPE)
  set(candidate ${LAYERBENCH_DEPS_DIR}/${lb_benchmark_tarball_name})
  if(EXISTS ${candidate})
    file(SHA256 ${candidate} hash)
    if(hash STREQUAL lb_benchmark_tarball_sha256)
      set(${out} ${candidate} PARENT_SCOPE)
    else()
      message(STATUS "layerbench: ignoring ${candidate}: its SHA-256 is not the pinned ${lb_benchmark_tarball_sha256}")
    endif()
  endif()
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
                     "(${lb_benchmark_tarball_name}) is not in ${LAYERBENCH_DEPS_DIR}: "
                     "using the system's library, so every run prints Google Benchmark's \"Library was built "
                     "as DEBUG\" warning (no figure depends on it: the harness times the cases itself; "
                     "scripts/fetch-deps.sh, and carrying .deps/ where there is no registry, avoids it)")
    endif()
  endif()
endif()
if(NOT lb_benchmark_from_source)
  find_package(benchmark 1.7 QUIET)
  if(NOT benchmark_FOUND)
    lb_benchmark_tarball(lb_tarball)
    if(NOT lb_tarball)
      message(FATAL_ERROR "layerbench: Google Benchmark: no system library (apt-get install libbenchmark-dev; "
                          "scripts/install-deps.sh does) and no ${lb_benchmark_tarball_name} in "
                          "${LAYERBENCH_DEPS_DIR} (scripts/fetch-deps.sh, where apt works, puts it there)")
    endif()
    lb_build_benchmark(${lb_tarball})
  endif()
endif()

# --- GoogleTest (the tests only) --------------------------------------------------------------
# The system's (libgtest-dev); else GoogleTest's source, built here: Debian's googletest package,
# installed (/usr/src/googletest) or carried in LAYERBENCH_DEPS_DIR.
if(LAYERBENCH_BUILD_TESTS)
  find_package(GTest 1.10 QUIET)
  if(NOT GTest_FOUND)
    set(lb_gtest_source /usr/src/googletest)
    if(NOT EXISTS ${lb_gtest_source}/CMakeLists.txt)
      lb_unpack_deb(googletest lb_deb)
      set(lb_gtest_source ${lb_deps_root}/usr/src/googletest)
    endif()
    if(NOT EXISTS ${lb_gtest_source}/CMakeLists.txt)
      lb_missing(GoogleTest "libgtest-dev (or googletest)")
    endif()
    message(STATUS "layerbench: GoogleTest built from source (${lb_gtest_source})")
    set(BUILD_GMOCK OFF)
    set(INSTALL_GTEST OFF)
    add_subdirectory(${lb_gtest_source} ${CMAKE_BINARY_DIR}/_deps/googletest EXCLUDE_FROM_ALL)
  endif()
endif()

# --- the cpu layer's BLAS ---------------------------------------------------------------------
# A tuned BLAS makes the CPU matmul baseline fair: OpenBLAS (Debian's libopenblas-dev, which
# scripts/install-deps.sh installs when missing). Another optimised CBLAS can be asked for with
# -DLAYERBENCH_BLAS_VENDOR=<a FindBLAS vendor> (FLAME for BLIS, Intel10_64lp for MKL, ...). The
# reference BLAS (libblas-dev, which has a cblas.h too) is never taken: it would flatter the GPU.
# What the build linked goes into generated/lb_cpu_blas.h; the cpu layer reports it in `list` and
# in the results (context.layers.cpu.blas), with the library cblas_sgemm came from at run time.
set(LAYERBENCH_BLAS_VENDOR "OpenBLAS" CACHE STRING
    "The CBLAS for the cpu layer's matmul: a FindBLAS vendor (OpenBLAS, FLAME, Intel10_64lp, ...); not Generic")
set(LAYERBENCH_CBLAS_FOUND OFF)
set(LB_CBLAS 0)
set(LB_CBLAS_OPENBLAS 0)
set(LB_CBLAS_NAME "none")
set(LB_CBLAS_LIBRARY "")
set(lb_blas_why "")
set(lb_blas_hint "")
if(NOT LAYERBENCH_USE_CBLAS)
  set(lb_blas_why "LAYERBENCH_USE_CBLAS is OFF")
elseif(LAYERBENCH_BLAS_VENDOR MATCHES "^(|Generic|All)$")
  set(lb_blas_why "LAYERBENCH_BLAS_VENDOR '${LAYERBENCH_BLAS_VENDOR}' could pick the reference BLAS; name a tuned one")
else()
  set(BLA_VENDOR ${LAYERBENCH_BLAS_VENDOR})
  find_package(BLAS QUIET)
  unset(BLA_VENDOR)
  if(LAYERBENCH_BLAS_VENDOR STREQUAL "OpenBLAS")
    set(lb_blas_hint "apt-get install libopenblas-dev, or scripts/install-deps.sh")
    # OpenBLAS's own folders first (Debian's and Ubuntu's openblas-pthread, ...):
    # /usr/include/<arch>/cblas.h is an alternatives link that may be the reference BLAS's.
    set(lb_arch_include include/${CMAKE_LIBRARY_ARCHITECTURE})
    find_path(LAYERBENCH_OPENBLAS_INCLUDE_DIR cblas.h
      PATHS ${CMAKE_PREFIX_PATH} /usr /usr/local /opt/OpenBLAS
      PATH_SUFFIXES ${lb_arch_include}/openblas-pthread ${lb_arch_include}/openblas-openmp
                    ${lb_arch_include}/openblas-serial include/openblas-pthread include/openblas-openmp
                    include/openblas include
      NO_DEFAULT_PATH)
    find_path(LAYERBENCH_OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas)
    set(lb_blas_include ${LAYERBENCH_OPENBLAS_INCLUDE_DIR})
    set(lb_blas_probe "extern \"C\" char* openblas_get_config(void);")
    set(lb_blas_call "openblas_get_config();")
  else()
    find_path(LAYERBENCH_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES blis mkl)
    set(lb_blas_include ${LAYERBENCH_CBLAS_INCLUDE_DIR})
    set(lb_blas_probe "")
    set(lb_blas_call "")
  endif()
  if(NOT BLAS_FOUND)
    set(lb_blas_why "${LAYERBENCH_BLAS_VENDOR} not found at build time")
  elseif(NOT lb_blas_include)
    set(lb_blas_why "${LAYERBENCH_BLAS_VENDOR}'s cblas.h not found at build time")
  else()
    # That the library links and has cblas_sgemm (and, for OpenBLAS, is OpenBLAS).
    include(CheckCXXSourceCompiles)
    string(MD5 lb_blas_key "${BLAS_LIBRARIES};${lb_blas_include}")
    set(CMAKE_REQUIRED_INCLUDES ${lb_blas_include})
    set(CMAKE_REQUIRED_LIBRARIES ${BLAS_LIBRARIES})
    set(CMAKE_REQUIRED_QUIET ON)
    check_cxx_source_compiles("#include <cblas.h>
${lb_blas_probe}
int main() { float a = 1, b = 1, c = 0;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
  ${lb_blas_call} return 0; }" LB_CBLAS_LINKS_${lb_blas_key})
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_LIBRARIES)
    unset(CMAKE_REQUIRED_QUIET)
    if(LB_CBLAS_LINKS_${lb_blas_key})
      set(LAYERBENCH_CBLAS_FOUND ON)
      set(LAYERBENCH_CBLAS_INCLUDE_DIR_USED ${lb_blas_include})
      set(LAYERBENCH_CBLAS_LIBRARIES ${BLAS_LIBRARIES})
      set(LB_CBLAS 1)
      set(LB_CBLAS_NAME ${LAYERBENCH_BLAS_VENDOR})
      list(JOIN BLAS_LIBRARIES " " LB_CBLAS_LIBRARY)
      if(LAYERBENCH_BLAS_VENDOR STREQUAL "OpenBLAS")
        set(LB_CBLAS_OPENBLAS 1)
      endif()
    else()
      set(lb_blas_why "${BLAS_LIBRARIES} was found, but a cblas_sgemm call did not build against it")
    endif()
  endif()
endif()
if(LAYERBENCH_CBLAS_FOUND)
  message(STATUS "layerbench: cpu matmul: ${LB_CBLAS_NAME} cblas_sgemm (${LB_CBLAS_LIBRARY})")
else()
  if(lb_blas_hint)
    string(APPEND lb_blas_why "; ${lb_blas_hint}")
  endif()
  message(STATUS "layerbench: cpu matmul: no BLAS linked (${lb_blas_why}): a cache-blocked loop nest instead")
endif()
set(LB_CBLAS_WHY_NONE "${lb_blas_why}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/lb_cpu_blas.h.in ${CMAKE_BINARY_DIR}/generated/lb_cpu_blas.h @ONLY)
