# Writes OUT (a header) with the build's version and the commit its sources are at
# (cmake/version.cmake's rule), rewriting it only when they changed, so that a build after a commit
# records the new ones without recompiling everything.
include(${CMAKE_CURRENT_LIST_DIR}/version.cmake)
set(text "#pragma once\n#define LB_SOURCE_COMMIT \"${lb_commit}\"\n#define LB_PACKAGE_VERSION \"${lb_version}\"\n#define LB_VERSION_NOTE \"${lb_version_note}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
