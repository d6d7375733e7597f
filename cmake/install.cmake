# `cmake --install build --prefix P`: P/bin/layerbench and the files it reads at run time, under
# P/share/layerbench in the source tree's layout (labs/, lab/*.py, variants/<layer>/*.py,
# workloads/ kernel texts, python/ (the layerbench package, its results schema included)), and the Python extension modules the build
# made under P/lib/layerbench/python. common/data_root.cpp finds them from the executable's folder;
# in the build tree it reads the source tree instead. `pip install` (pyproject.toml) installs the
# component "layerbench" (all but the Python package, which the wheel holds itself) with the prefix
# <site-packages>/layerbench/_prefix. Included once, from CMakeLists.txt, after every target is defined.
include(GNUInstallDirs)

set(LB_INSTALL_DATA_DIR ${CMAKE_INSTALL_DATADIR}/layerbench)
set(LB_INSTALL_NATIVE_DIR ${CMAKE_INSTALL_LIBDIR}/layerbench/python)
# The folder that holds the layerbench package, relative to the prefix: beside the data by default;
# pyproject.toml sets "../.." (the prefix is <site-packages>/layerbench/_prefix, the package comes
# from the wheel itself, and this component is not installed there).
set(LAYERBENCH_INSTALL_PYTHON_DIR ${LB_INSTALL_DATA_DIR}/python CACHE STRING
    "Where `cmake --install` puts the layerbench Python package, relative to the prefix")

# Where data_root() and native_module_dir() look (common/data_root.h): the build tree, and the
# installed folders relative to the installed executable's, so that a prefix can be moved.
file(RELATIVE_PATH lb_data_from_bin /${CMAKE_INSTALL_BINDIR} /${LB_INSTALL_DATA_DIR})
file(RELATIVE_PATH lb_native_from_bin /${CMAKE_INSTALL_BINDIR} /${LB_INSTALL_NATIVE_DIR})
# (up to the prefix, then down: the folder may lie above the prefix, "../..")
file(RELATIVE_PATH lb_prefix_from_bin /${CMAKE_INSTALL_BINDIR} /)
cmake_path(APPEND lb_prefix_from_bin ${LAYERBENCH_INSTALL_PYTHON_DIR} OUTPUT_VARIABLE lb_python_from_bin)
target_sources(lb_common PRIVATE ${CMAKE_SOURCE_DIR}/common/data_root.cpp)
set_source_files_properties(${CMAKE_SOURCE_DIR}/common/data_root.cpp PROPERTIES COMPILE_DEFINITIONS
  "LB_BUILD_ROOT=\"${CMAKE_BINARY_DIR}\";LB_INSTALL_DATA_FROM_BIN=\"${lb_data_from_bin}\";LB_INSTALL_NATIVE_FROM_BIN=\"${lb_native_from_bin}\";LB_INSTALL_PYTHON_FROM_BIN=\"${lb_python_from_bin}\"")

# The installed executable and modules keep the run-time search path of the libraries they link
# from outside the build tree (the CUDA toolkit's, the embedded Python's libpython).
install(TARGETS layerbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT layerbench)
set_target_properties(layerbench PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
foreach(module lb_cython lb_native_extension)
  if(TARGET ${module})
    install(TARGETS ${module} LIBRARY DESTINATION ${LB_INSTALL_NATIVE_DIR} COMPONENT layerbench)
    set_target_properties(${module} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
endforeach()

set(lb_not_shipped PATTERN __pycache__ EXCLUDE PATTERN tests EXCLUDE)
install(DIRECTORY labs/ DESTINATION ${LB_INSTALL_DATA_DIR}/labs COMPONENT layerbench ${lb_not_shipped})
install(DIRECTORY lab/ DESTINATION ${LB_INSTALL_DATA_DIR}/lab COMPONENT layerbench FILES_MATCHING PATTERN "*.py" PATTERN "*.schema.json"
        ${lb_not_shipped})
install(DIRECTORY variants/ DESTINATION ${LB_INSTALL_DATA_DIR}/variants COMPONENT layerbench FILES_MATCHING PATTERN "*.py" ${lb_not_shipped})
# The kernel texts the Python layers compile, the project headers they include, and the workload
# folders' reader (workloads/folder).
install(DIRECTORY workloads/ DESTINATION ${LB_INSTALL_DATA_DIR}/workloads COMPONENT layerbench FILES_MATCHING PATTERN "*.cu" PATTERN "*.h"
        PATTERN "*.py" PATTERN "*.json" ${lb_not_shipped})
# The layerbench package: the reports tool (`layerbench report|compare|csv|merge|db`), the labs'
# Python, the results schema.
install(DIRECTORY python/ DESTINATION ${LAYERBENCH_INSTALL_PYTHON_DIR} COMPONENT layerbench_python
        FILES_MATCHING PATTERN "*.py" PATTERN "*.json" PATTERN "*.txt" PATTERN "*.md" PATTERN "*.css" PATTERN "*.js"
        ${lb_not_shipped})
# The example workload folders (examples/workloads: workload.json, kernels.cu, reference.py), for
# `run --workload-dir` on an installed layerbench.
install(DIRECTORY examples/ DESTINATION ${LB_INSTALL_DATA_DIR}/examples COMPONENT layerbench ${lb_not_shipped})
