# Run at build time (cmake -P): writes OUT, a C++ header naming the source tree's git commit and
# whether tracked files differ from it, rewritten only when one of them changes (so a build
# recompiles one file, and only then). Outside a git checkout (a source package): "unknown".
#   cmake -DSRC=<source dir> -DOUT=<header> -P git_info.cmake
set(sha "unknown")
set(dirty 0)
find_program(QF_GIT git)
if(QF_GIT)
  execute_process(COMMAND ${QF_GIT} -C ${SRC} rev-parse HEAD OUTPUT_VARIABLE out
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out)
    set(sha "${out}")
    execute_process(COMMAND ${QF_GIT} -C ${SRC} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE status RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND status)
      set(dirty 1)
    endif()
  endif()
endif()
set(text "// Written by cmake/git_info.cmake at build time: do not edit.\n#pragma once\n#define QF_GIT_SHA \"${sha}\"\n#define QF_GIT_DIRTY ${dirty}\n")
file(WRITE "${OUT}.tmp" "${text}")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
file(REMOVE "${OUT}.tmp")
