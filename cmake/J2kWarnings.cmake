# Warnings for our own targets, and a Sanitize build type (address + undefined behaviour).
function(j2k_set_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow>)
endfunction()

set(CMAKE_CXX_FLAGS_SANITIZE "-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
    CACHE STRING "Flags for the Sanitize build type")
set(CMAKE_EXE_LINKER_FLAGS_SANITIZE "-fsanitize=address,undefined"
    CACHE STRING "Linker flags for the Sanitize build type")
