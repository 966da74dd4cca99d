# SPDX-License-Identifier: BSD-2-Clause
# Installation: the library; the public headers only (j2kfront.h, j2kfront.hpp and the generated
# config.h; the layers' headers are internal); a CMake package (find_package(j2kfront CONFIG),
# target j2kfront::j2kfront) and a pkg-config file, both relocatable.
include(CMakePackageConfigHelpers)

set(J2K_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/j2kfront)
install(TARGETS j2kfront EXPORT j2kfrontTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/j2kfront/j2kfront.h
              ${PROJECT_SOURCE_DIR}/include/j2kfront/j2kfront.hpp
              ${PROJECT_BINARY_DIR}/include/j2kfront/config.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/j2kfront)
install(EXPORT j2kfrontTargets NAMESPACE j2kfront:: DESTINATION ${J2K_INSTALL_CMAKEDIR})

# A static j2kfront brings its dependencies to the final link: the package finds them
# (find_dependency) and the .pc lists them in Libs.private. A shared one hides them.
get_target_property(_j2k_type j2kfront TYPE)
if(_j2k_type STREQUAL "STATIC_LIBRARY")
  set(J2K_PACKAGE_STATIC 1)
else()
  set(J2K_PACKAGE_STATIC 0)
endif()

if(J2K_HAVE_LCMS2)
  set(J2K_PACKAGE_LCMS2 1)
else()
  set(J2K_PACKAGE_LCMS2 0)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/j2kfrontConfig.cmake.in
  ${PROJECT_BINARY_DIR}/j2kfrontConfig.cmake INSTALL_DESTINATION ${J2K_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/j2kfrontConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/j2kfrontConfig.cmake
              ${PROJECT_BINARY_DIR}/j2kfrontConfigVersion.cmake
        DESTINATION ${J2K_INSTALL_CMAKEDIR})

# pkg-config: -L for libraries outside the linker's own directories, then -l per library.
set(_j2k_pc_private "")
function(_j2k_pc_lib dir name)
  if(dir AND NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    string(APPEND _j2k_pc_private " -L${dir}")
  endif()
  string(APPEND _j2k_pc_private " -l${name}")
  set(_j2k_pc_private "${_j2k_pc_private}" PARENT_SCOPE)
endfunction()
if(J2K_HAVE_CUDA)  # the static runtime and what it needs
  _j2k_pc_lib("${CUDAToolkit_LIBRARY_DIR}" cudart_static)
  _j2k_pc_lib("" rt)
endif()
if(J2K_HAVE_CUDA OR J2K_HAVE_OPENCL)  # dlopen: the CUDA driver, the OpenCL ICD loader
  _j2k_pc_lib("" dl)
endif()
if(J2K_HAVE_LCMS2)
  _j2k_pc_lib("" lcms2)
endif()
string(APPEND _j2k_pc_private " -lpthread -lstdc++ -lm")
string(STRIP "${_j2k_pc_private}" J2K_PC_LIBS_PRIVATE)
# Relative to the .pc file, so that the installed tree can move.
file(RELATIVE_PATH J2K_PC_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" J2K_PC_PREFIX "${J2K_PC_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/j2kfront.pc.in ${PROJECT_BINARY_DIR}/j2kfront.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/j2kfront.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The licence and the third-party notices, as distributions expect them.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
