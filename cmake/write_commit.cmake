# Writes OUT (a header defining ROOFLENS_COMMIT) from `git describe` of SRC, only when it changes, so a new commit
# recompiles one file. Run at every build: cmake -DSRC=... -DOUT=... -P write_commit.cmake
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=10
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown (not a git checkout)")
endif()
set(text "#pragma once\n#define ROOFLENS_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
