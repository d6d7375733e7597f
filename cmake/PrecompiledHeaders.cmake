# Precompiled headers: the large third-party headers that most of a group's C++ files include, parsed
# once for the group instead of once per file. After the preprocessor nlohmann/json.hpp is ~130k
# lines (about 1.7 s of g++ per file that includes it). One header is compiled per group, by its
# first target; the others reuse it (REUSE_FROM), so they must be compiled with the same flags and
# macros (g++ takes one where a file has more macros than its owner, not fewer): the host libraries
# are (CMakeLists.txt), the -O3 -march=native layer files (lb_variants, lb_thrust_omp) are not and
# keep none. The test executables that link the harness share one of their own, at their -O1, with
# GoogleTest's header too (tests/CMakeLists.txt). Only g++'s files: nvcc's are not precompiled. Every file still includes what it uses itself;
# -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON (CMake's own switch) builds without them, which shows a file
# that forgot to. ccache caches such files with sloppiness pch_defines,time_macros (scripts/build.sh
# sets it).

set(LB_PCH_STANDARD <algorithm> <chrono> <cstdio> <cstring> <filesystem> <fstream> <functional> <map>
                    <memory> <optional> <sstream> <string> <vector>)

# lb_precompile_headers(TARGETS TARGET... HEADERS HEADER...): the first TARGET compiles the headers,
# the others reuse its precompiled header.
function(lb_precompile_headers)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "TARGETS;HEADERS")
  list(POP_FRONT arg_TARGETS owner)
  set(headers "")
  foreach(header IN LISTS arg_HEADERS)
    list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
  endforeach()
  target_precompile_headers(${owner} PRIVATE ${headers})
  foreach(target IN LISTS arg_TARGETS)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  endforeach()
endfunction()
