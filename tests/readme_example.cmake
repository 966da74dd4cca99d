# SPDX-License-Identifier: BSD-2-Clause
# The README's embedding example must be examples/embed.cpp, which the install test builds.
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
string(FIND "${readme}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not show examples/embed.cpp as it is; copy the file into its C++ block")
endif()
