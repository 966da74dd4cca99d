# SPDX-License-Identifier: BSD-2-Clause
# The C++ example of the docs is examples/embed.cpp, which the install test builds and runs
# (tests/consumer/run.sh), as it is: the file README (docs/api.md) holds it whole; with
# -DEXCERPT=ON, the first ```cpp block of README (README.md) is a run of its lines, each whole.
#   cmake -DREADME=FILE -DEXAMPLE=examples/embed.cpp [-DEXCERPT=ON] -P readme_example.cmake
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
if(NOT EXCERPT)
  string(FIND "${readme}" "${example}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README} does not show ${EXAMPLE} as it is; copy the file into its ```cpp block")
  endif()
  return()
endif()
string(FIND "${readme}" "\n```cpp\n" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp block")
endif()
math(EXPR begin "${begin} + 8")
string(SUBSTRING "${readme}" ${begin} -1 rest)
string(FIND "${rest}" "\n```\n" end)
if(end EQUAL -1)
  message(FATAL_ERROR "the ```cpp block of ${README} is not closed")
endif()
math(EXPR end "${end} + 1")
string(SUBSTRING "${rest}" 0 ${end} shown)
# From the start of a line of the file to the end of one.
string(FIND "\n${example}" "\n${shown}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the ```cpp block of ${README} is not lines of ${EXAMPLE} as they are; copy them from the file")
endif()
