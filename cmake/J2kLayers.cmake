# SPDX-License-Identifier: BSD-2-Clause
# One object library per layer (tiling/, transform/, pipeline/, api/), combined into the
# j2kfront library by the top CMakeLists. Every layer compiles with the same flags.
#
#   j2k_add_layer(<name>)   then target_sources(<name> PRIVATE ...) in the layer's folder.

set_property(GLOBAL PROPERTY J2K_LAYERS "")

function(j2k_add_layer name)
  add_library(${name} OBJECT)
  # PIC: the objects also go into a shared j2kfront, or a static one linked into a shared library.
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PRIVATE
    ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  # -ffp-contract=off: the 9/7 and the ICT must round every product and sum separately to
  # match OpenJPEG. -fopenmp-simd: `#pragma omp simd` marks the CPU lifting loops as free of
  # loop-carried dependences (no OpenMP runtime: threads are common/parallel/worker_pool). -fmad=false: no FMA
  # contraction in the CUDA kernels either.
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -fopenmp-simd>
    $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>)
  j2k_set_warnings(${name})
  set_property(GLOBAL APPEND PROPERTY J2K_LAYERS ${name})
endfunction()
