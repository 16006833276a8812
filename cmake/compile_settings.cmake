# The language level, build type and warning set of every target: read by the top-level
# CMakeLists.txt and by cuda/CMakeLists.txt when cuda/ is built on its own (a bare GPU box).
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

# RelWithDebInfo carries line tables (-g1: file:line in backtraces, profiles and sanitizer
# reports) rather than full debug info: a 2-core build takes about a third less time
# (docs/benchmarks.md, "Build time"). -DQF_FULL_DEBUG_INFO=ON keeps -g for a debugger's locals.
option(QF_FULL_DEBUG_INFO "RelWithDebInfo with full debug info (-g) instead of line tables" OFF)
if(NOT QF_FULL_DEBUG_INFO)
  string(REGEX REPLACE "(^| )-g( |$)" "\\1-g1\\2" CMAKE_CXX_FLAGS_RELWITHDEBINFO
                       "${CMAKE_CXX_FLAGS_RELWITHDEBINFO}")
endif()

# qf_warnings: the host warnings (errors with QF_WERROR) for C++ sources; CUDA sources set
# their own.
if(NOT TARGET qf_warnings)
  add_library(qf_warnings INTERFACE)
  target_compile_options(qf_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${QF_WERROR}>>:-Werror>)
endif()
