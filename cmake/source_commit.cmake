# Writes OUT (a header) with the commit the build's sources are at, rewriting it only when that
# changed, so that a build after a commit records the new one without recompiling everything.
# The commit: $LAYERBENCH_SOURCE_COMMIT where set (a copy of the tree without .git, such as the one
# a lent GPU machine receives), else `git rev-parse HEAD` in SOURCE, with "-dirty" when tracked
# files differ from it; "unknown" when neither answers.
set(commit "$ENV{LAYERBENCH_SOURCE_COMMIT}")
if(commit STREQUAL "")
  execute_process(COMMAND git -C "${SOURCE}" rev-parse HEAD OUTPUT_VARIABLE commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
  if(failed)
    set(commit "unknown")
  else()
    execute_process(COMMAND git -C "${SOURCE}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes ERROR_QUIET)
    if(NOT changes STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "#pragma once\n#define LB_SOURCE_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
