# Decides whether this configure builds the native harness (CMakeLists.txt: LAYERBENCH_NATIVE).
# Sets LB_NATIVE_LEFT_OUT to "" (build it) or to why not, in one line; then it prints that line and
# installs it as <prefix>/native-left-out.txt (component layerbench: inside the pip package,
# layerbench/_prefix/native-left-out.txt), which python/layerbench/native.py reads to say why a
# command that needs the harness cannot run.
set(LB_NATIVE_LEFT_OUT "")
string(TOUPPER "${LAYERBENCH_NATIVE}" lb_native)
if(lb_native STREQUAL "AUTO")
  # Looked for again on every configure (a NOTFOUND is not kept): the toolkit may have been installed
  # since, and a persistent build folder (pip's build-dir) would otherwise never see it.
  if(NOT CMAKE_CUDA_COMPILER)
    unset(CMAKE_CUDA_COMPILER CACHE)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(LB_NATIVE_LEFT_OUT "no CUDA compiler found (nvcc on PATH, or CUDACXX) when this package was built")
  endif()
elseif(lb_native MATCHES "^(OFF|0|NO|FALSE)$")
  set(LB_NATIVE_LEFT_OUT "built with LAYERBENCH_NATIVE=${LAYERBENCH_NATIVE}")
elseif(NOT lb_native MATCHES "^(ON|1|YES|TRUE)$")
  message(FATAL_ERROR "layerbench: LAYERBENCH_NATIVE=${LAYERBENCH_NATIVE}: ON, OFF or AUTO")
endif()

if(LB_NATIVE_LEFT_OUT)
  set(lb_left_out_line "left out the native harness (run, list, ladder, lab start|check|grade, the Python layers): ${LB_NATIVE_LEFT_OUT}, so only the Python side (load, compare, report, csv, merge, db, lab list) is installed")
  message(STATUS "layerbench: ${lb_left_out_line}")
  file(WRITE ${CMAKE_BINARY_DIR}/native-left-out.txt "${lb_left_out_line}\n")
  install(FILES ${CMAKE_BINARY_DIR}/native-left-out.txt DESTINATION . COMPONENT layerbench)
  # The labs, which the Python side lists (`layerbench lab list`: python/layerbench/lab/listing.py),
  # and the example workload folders two of them are on (their workload.json names the workload),
  # where cmake/install.cmake puts them in a full install: <prefix>/share/layerbench.
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/labs/ DESTINATION share/layerbench/labs COMPONENT layerbench
          PATTERN __pycache__ EXCLUDE PATTERN tests EXCLUDE)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION share/layerbench/examples COMPONENT layerbench
          PATTERN __pycache__ EXCLUDE PATTERN tests EXCLUDE)
endif()
