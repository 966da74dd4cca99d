# SPDX-License-Identifier: BSD-2-Clause
# Optional parts of the build. Each J2K_WITH_* is AUTO (use it if found), ON (required) or
# OFF. The results are J2K_HAVE_* variables; the build works with every one of them off.

set(J2K_WITH_CUDA AUTO CACHE STRING "CUDA backend (AUTO|ON|OFF)")
set(J2K_WITH_OPENCL AUTO CACHE STRING "OpenCL backend (AUTO|ON|OFF)")
set(J2K_WITH_TIFF AUTO CACHE STRING "TIFF input through libtiff (AUTO|ON|OFF)")
set(J2K_WITH_PNG AUTO CACHE STRING "PNG input through libpng (AUTO|ON|OFF)")
set(J2K_WITH_LCMS2 AUTO CACHE STRING "ICC profiles and CIELab applied after decoding, through Little CMS (AUTO|ON|OFF)")
set(J2K_WITH_PYTHON AUTO CACHE STRING "the Python module, through pybind11 (AUTO|ON|OFF)")
option(J2K_BUILD_TOOLS "Build the j2kfront command-line tool (needs CLI11 and nlohmann_json)" ON)
option(J2K_STATIC_LIBRARY "Install libj2kfront as a static library (default: shared, exporting the C interface only)" OFF)
option(J2K_BUILD_TESTS "Build the unit, backend and conformance tests" ON)
option(J2K_BUILD_FUZZERS "Build the libFuzzer targets in tests/fuzz (clang; with the Sanitize build type)" OFF)

function(j2k_resolve name found)
  if(J2K_WITH_${name} STREQUAL "ON" AND NOT ${found})
    message(FATAL_ERROR "J2K_WITH_${name}=ON but it was not found")
  endif()
  if(NOT J2K_WITH_${name} STREQUAL "OFF" AND ${found})
    set(J2K_HAVE_${name} ON PARENT_SCOPE)
  else()
    set(J2K_HAVE_${name} OFF PARENT_SCOPE)
  endif()
endfunction()

if(NOT J2K_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Default: machine code for the GPUs of this machine (`native`), found by nvidia-smi; on a
    # machine without one (CI, a laptop), PTX alone for the oldest architecture this nvcc
    # supports, which the driver compiles for whatever GPU the build later meets, at the cost
    # of that compile on first use: one architecture, so the set-up stays within minutes on 2
    # cores. J2K_CUDA_ALL_ARCHITECTURES=ON (packaging) builds machine code for the data-centre
    # and desktop GPUs (Turing to Blackwell) and PTX of the newest: about 30 s of dwt_cuda.cu
    # on 2 cores for each. A GPU machine building for itself may set its own (device_run.sh).
    option(J2K_CUDA_ALL_ARCHITECTURES "CUDA machine code for every common GPU, not only this machine's" OFF)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-arch
                      OUTPUT_VARIABLE _nvcc_archs ERROR_QUIET)
      set(_archs "")
      foreach(_arch 75 80 86 89 90 100 120)
        if(_nvcc_archs MATCHES "(^|\n)compute_${_arch}(\n|$)")
          list(APPEND _archs ${_arch}-real)
          set(_newest ${_arch})
          if(NOT DEFINED _oldest)
            set(_oldest ${_arch})
          endif()
        endif()
      endforeach()
      find_program(J2K_NVIDIA_SMI nvidia-smi)
      set(_gpus "")
      if(J2K_NVIDIA_SMI)
        execute_process(COMMAND ${J2K_NVIDIA_SMI} -L OUTPUT_VARIABLE _gpus ERROR_QUIET RESULT_VARIABLE _smi_rc)
        if(NOT _smi_rc EQUAL 0)
          set(_gpus "")
        endif()
      endif()
      if(J2K_CUDA_ALL_ARCHITECTURES AND _archs)
        list(POP_BACK _archs)
        list(APPEND _archs ${_newest})
        set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "CUDA architectures to compile for")
      elseif(_gpus MATCHES "GPU [0-9]+:")
        set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures to compile for")
      elseif(DEFINED _oldest)
        set(CMAKE_CUDA_ARCHITECTURES ${_oldest}-virtual CACHE STRING "CUDA architectures to compile for")
      endif()  # else CMake's default for this nvcc
      message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES}")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  set(_cuda_found OFF)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    set(_cuda_found ON)
  endif()
endif()
j2k_resolve(CUDA _cuda_found)

if(NOT J2K_WITH_OPENCL STREQUAL "OFF")
  find_package(OpenCL)
endif()
j2k_resolve(OPENCL OpenCL_FOUND)

if(NOT J2K_WITH_TIFF STREQUAL "OFF")
  find_package(TIFF)
endif()
j2k_resolve(TIFF TIFF_FOUND)

if(NOT J2K_WITH_PNG STREQUAL "OFF")
  find_package(PNG)
endif()
j2k_resolve(PNG PNG_FOUND)

# Little CMS 2 (Debian: liblcms2-dev), through pkg-config: it has no CMake package.
if(NOT J2K_WITH_LCMS2 STREQUAL "OFF")
  find_package(PkgConfig)
  if(PkgConfig_FOUND)
    pkg_check_modules(LCMS2 IMPORTED_TARGET lcms2)
  endif()
endif()
j2k_resolve(LCMS2 LCMS2_FOUND)

# The Python module: the interpreter's headers and pybind11 (Debian: python3-dev pybind11-dev).
# Python3 is found first so that pybind11 uses the same interpreter (CMake's FindPython).
# By default Debian's /usr/bin/python3, the one tools/install-deps.sh gives numpy and pytest
# (not a pyenv or conda python3 first on PATH); -DPython3_EXECUTABLE=... picks another.
if(NOT J2K_WITH_PYTHON STREQUAL "OFF")
  if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "the Python of the j2kfront module")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  set(_python_found OFF)
  if(Python3_FOUND AND pybind11_FOUND)
    set(_python_found ON)
  endif()
endif()
j2k_resolve(PYTHON _python_found)

# Tools and tests: CLI11 and nlohmann_json (header-only Debian packages) are required for
# the CLI and the tests that run it; GoogleTest for tests; Google Benchmark is not needed (the
# bench has its own timer).
if(J2K_BUILD_TOOLS)
  find_package(CLI11 CONFIG REQUIRED)
  find_package(nlohmann_json CONFIG REQUIRED)
endif()

# The conformance target links Debian's static OpenJPEG; tests only, never the library.
find_library(J2K_OPENJPEG_STATIC NAMES libopenjp2.a)
if(J2K_OPENJPEG_STATIC)
  set(J2K_HAVE_OPENJPEG ON)
else()
  set(J2K_HAVE_OPENJPEG OFF)
endif()
