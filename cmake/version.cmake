# layerbench's one version rule, for the binary (`layerbench --version`, each results file's
# context.layerbench.version: source_commit.cmake includes this at build time) and for the Python
# package (`pip install`: python/build_support/layerbench_version.py runs this with -P;
# layerbench.__version__). Given SOURCE (the source tree), it sets:
#   lb_commit   the commit: $LAYERBENCH_SOURCE_COMMIT where set (a copy of the tree without .git,
#               such as the one a lent GPU machine receives), else `git rev-parse HEAD` with
#               "-dirty" when tracked files differ from it; "unknown" when neither answers
#   lb_version  a release tag (v1.2.0 or 1.2.0) on a clean HEAD: that tag's version; else the last
#               such tag below HEAD, or CMakeLists.txt's project(VERSION) before the first tag, with
#               the commit as a PEP 440 local label: 0.1.0+g1a2b3c4d5e6f (".dirty" after it);
#               0.1.0+unknown where the commit is unknown
#   lb_version_note  "" or, where the commit is unknown, why ("no .git in <SOURCE> and
#               LAYERBENCH_SOURCE_COMMIT unset"), which --version prints
# Run as a script (cmake -DSOURCE=DIR -P cmake/version.cmake) it prints lb_version alone.
if(NOT DEFINED SOURCE)
  get_filename_component(SOURCE "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
# (indented: CMakeLists.txt calls project() in its top scope's block)
file(STRINGS "${SOURCE}/CMakeLists.txt" lb_project_line REGEX "^ *project\\(layerbench VERSION [0-9.]+")
string(REGEX REPLACE "^ *project\\(layerbench VERSION ([0-9.]+).*$" "\\1" lb_version_base "${lb_project_line}")

set(lb_version_note "")
set(lb_tag "")
set(lb_exact_tag "")
set(lb_commit "$ENV{LAYERBENCH_SOURCE_COMMIT}")
set(lb_git_at "${SOURCE}")
if(lb_commit STREQUAL "")
  # The work tree's own repository only: GIT_CEILING_DIRECTORIES keeps git from answering for a
  # repository around a copy of the tree (a copy inside another checkout's folder).
  get_filename_component(lb_above "${SOURCE}" DIRECTORY)
  set(lb_saved_ceiling "$ENV{GIT_CEILING_DIRECTORIES}")
  set(ENV{GIT_CEILING_DIRECTORIES} "${lb_above}")
  execute_process(COMMAND git -C "${SOURCE}" rev-parse HEAD OUTPUT_VARIABLE lb_commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE lb_failed ERROR_QUIET)
  if(lb_failed)
    set(lb_commit "unknown")
    set(lb_version_note "no .git in ${SOURCE} and LAYERBENCH_SOURCE_COMMIT unset")
  else()
    execute_process(COMMAND git -C "${SOURCE}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE lb_changes ERROR_QUIET)
    execute_process(COMMAND git -C "${SOURCE}" describe --tags --abbrev=0 --match "v[0-9]*" --match "[0-9]*" HEAD
                    OUTPUT_VARIABLE lb_tag OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE lb_no_tag ERROR_QUIET)
    execute_process(COMMAND git -C "${SOURCE}" describe --tags --exact-match --match "v[0-9]*" --match "[0-9]*" HEAD
                    OUTPUT_VARIABLE lb_exact_tag OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE lb_not_exact ERROR_QUIET)
    if(lb_no_tag)
      set(lb_tag "")
    endif()
    if(lb_not_exact)
      set(lb_exact_tag "")
    endif()
    if(NOT lb_changes STREQUAL "")
      string(APPEND lb_commit "-dirty")
      set(lb_exact_tag "")
    endif()
  endif()
  set(ENV{GIT_CEILING_DIRECTORIES} "${lb_saved_ceiling}")
endif()

string(REGEX REPLACE "^v" "" lb_tag "${lb_tag}")
string(REGEX REPLACE "^v" "" lb_exact_tag "${lb_exact_tag}")
if(NOT lb_exact_tag STREQUAL "")
  set(lb_version "${lb_exact_tag}")
else()
  if(NOT lb_tag STREQUAL "")
    set(lb_version_base "${lb_tag}")
  endif()
  if(lb_commit STREQUAL "unknown")
    set(lb_version "${lb_version_base}+unknown")
  else()
    string(SUBSTRING "${lb_commit}" 0 12 lb_short)
    set(lb_version "${lb_version_base}+g${lb_short}")
    if(lb_commit MATCHES "-dirty$")
      string(APPEND lb_version ".dirty")
    endif()
  endif()
endif()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${lb_version}")
endif()
