# SPDX-License-Identifier: BSD-2-Clause
# Warnings for our own targets, and a Sanitize build type (address + undefined behaviour).
function(j2k_set_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow>)
  # Under the Sanitize build type clang leaves the loops that `#pragma omp simd` asks to
  # vectorise scalar (-O1, instrumented) and warns at each; Release vectorises them.
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANG_AND_ID:CXX,Clang>,$<CONFIG:Sanitize>>:-Wno-pass-failed>)
endfunction()

# Sanitize: address + undefined behaviour, any report fatal (a test that trips one fails).
# Set when empty: CMake creates the cache entries of a build type named on the command line
# empty before this file runs.
set(_j2k_sanitize "-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
foreach(_lang C CXX)
  if(NOT CMAKE_${_lang}_FLAGS_SANITIZE)
    set(CMAKE_${_lang}_FLAGS_SANITIZE "${_j2k_sanitize}" CACHE STRING "Flags for the Sanitize build type" FORCE)
  endif()
endforeach()
foreach(_kind EXE SHARED MODULE)
  if(NOT CMAKE_${_kind}_LINKER_FLAGS_SANITIZE)
    set(CMAKE_${_kind}_LINKER_FLAGS_SANITIZE "-fsanitize=address,undefined" CACHE STRING
        "Linker flags for the Sanitize build type" FORCE)
  endif()
endforeach()

# Fuzzing: every object coverage-instrumented for libFuzzer; only the fuzz targets link its
# main (-fsanitize=fuzzer, tests/fuzz).
if(J2K_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "J2K_BUILD_FUZZERS needs clang (CC=clang CXX=clang++): libFuzzer is part of it")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()
