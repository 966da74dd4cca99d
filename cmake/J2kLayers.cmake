# SPDX-License-Identifier: BSD-2-Clause
# One object library per layer (tiling/, transform/, pipeline/, api/ ...), combined into the
# j2kfront library by the top CMakeLists. Every layer compiles with the same flags.
#
#   j2k_add_layer(<name> SEES <path>...)   then target_sources(<name> PRIVATE ...) in the
#                                           layer's folder.
#
# A layer sees only the folders SEES names (its own and those below it, ARCHITECTURE), not the
# source root: its include path is a view in the build tree, layer-views/<name>/, of symbolic
# links to those folders, so that an #include running back up a layer does not compile.
# "dir" is the whole folder; "dir/*" only the headers directly in it (a folder's interface
# without its backends' subfolders). tools/check-tree.py checks the finer layers inside a
# target (codec/'s); tests/layer_views.cmake shows that a view refuses what it does not hold.

set_property(GLOBAL PROPERTY J2K_LAYERS "")

function(_j2k_view_link view path)
  get_filename_component(parent "${view}/${path}" DIRECTORY)
  file(MAKE_DIRECTORY "${parent}")
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${path}" "${view}/${path}" SYMBOLIC)
endfunction()

function(j2k_add_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SEES")
  if(NOT ARG_SEES)
    message(FATAL_ERROR "j2k_add_layer(${name}): SEES names the folders the layer may include")
  endif()
  set(view "${PROJECT_BINARY_DIR}/layer-views/${name}")
  file(REMOVE_RECURSE "${view}")
  file(MAKE_DIRECTORY "${view}")
  foreach(item IN LISTS ARG_SEES)
    if(item MATCHES "^(.*)/\\*$")
      # CONFIGURE_DEPENDS: a header added to the folder later re-runs CMake, which links it.
      set(dir "${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1}")
      file(GLOB files LIST_DIRECTORIES false CONFIGURE_DEPENDS RELATIVE "${PROJECT_SOURCE_DIR}"
           "${dir}/*.h" "${dir}/*.hpp" "${dir}/*.cuh")
      foreach(f IN LISTS files)
        _j2k_view_link("${view}" "${f}")
      endforeach()
    elseif(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/${item}")
      _j2k_view_link("${view}" "${item}")
    else()
      message(FATAL_ERROR "j2k_add_layer(${name}): ${item} is not a folder of the source tree")
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY J2K_LAYER_VIEW_${name} "${view}")

  add_library(${name} OBJECT)
  # PIC: the objects also go into a shared j2kfront, or a static one linked into a shared library.
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PRIVATE
    "${view}" ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
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
