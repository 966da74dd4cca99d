# SPDX-License-Identifier: BSD-2-Clause
# The build's layer views refuse an include that runs back up (cmake/J2kLayers.cmake): a file
# compiled as the tiling layer is would not find codec/encoder.hpp, while its own and lower
# layers' headers are found; the codec's CUDA batch would not find the OpenCL one's.
#
#   cmake -DCXX=<compiler> -DVIEWS=<build>/layer-views -DSOURCE=<root> -DWORK=<dir> -P layer_views.cmake
foreach(v CXX VIEWS SOURCE WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "layer_views.cmake: -D${v}= is required")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")

# expect(<layer> <header> <found: TRUE|FALSE>)
function(expect layer header found)
  set(tu "${WORK}/${layer}.cpp")
  file(WRITE "${tu}" "#include \"${header}\"\n")
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I "${VIEWS}/${layer}" -I "${SOURCE}/include"
                          -I "${VIEWS}/../include" "${tu}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(found AND NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${layer} view should hold ${header}:\n${err}")
  endif()
  if(NOT found)
    if(rc EQUAL 0)
      message(FATAL_ERROR "the ${layer} view lets ${header} through: an include back up would compile")
    endif()
    # The header itself missing, not one it includes (a view holding it would fail there too).
    string(REPLACE "." "\\." header_re "${header}")
    # GCC: "x.cpp:1:10: fatal error: h: No such file"; clang: "... fatal error: 'h' file not found".
    if(NOT err MATCHES "${layer}\\.cpp:1:[0-9]+: fatal error: '?${header_re}'?(: No such file| file not found)")
      message(FATAL_ERROR "${header} failed in the ${layer} view for another reason than its absence:\n${err}")
    endif()
  endif()
  message(STATUS "${layer}: ${header} ${found}")
endfunction()

expect(j2kfront_tiling "tiling/geometry.hpp" TRUE)
expect(j2kfront_tiling "common/error.hpp" TRUE)
expect(j2kfront_tiling "codec/encoder.hpp" FALSE)
expect(j2kfront_tiling "transform/backend.hpp" FALSE)
expect(j2kfront_pipeline "transform/backend.hpp" TRUE)
expect(j2kfront_pipeline "codec/params/coding_params.hpp" FALSE)
expect(j2kfront_codec "codec/encoder.hpp" TRUE)
expect(j2kfront_codec "api/settings.hpp" FALSE)
if(EXISTS "${VIEWS}/j2kfront_codec_cuda")
  expect(j2kfront_codec_cuda "codec/tier1/block_coder.hpp" TRUE)
  expect(j2kfront_codec_cuda "codec/tier1/gpu/opencl/block_decoder.hpp" FALSE)
  expect(j2kfront_codec_cuda "codec/rate/layers.hpp" FALSE)
endif()
