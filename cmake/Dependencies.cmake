# Dependencies come from the system (Debian/Ubuntu packages, see scripts/install-deps.sh);
# FetchContent is only a fallback for machines that lack them and can reach GitHub.
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

find_package(benchmark 1.7 QUIET)
if(NOT benchmark_FOUND)
  lb_fallback(benchmark)
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(benchmark GIT_REPOSITORY https://github.com/google/benchmark.git GIT_TAG v1.9.1 GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(benchmark)
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
