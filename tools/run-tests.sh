#!/usr/bin/env bash
# The whole test suite: installs what is missing, then
#  1. builds (Release, into build/) and runs every test through CTest: GPU tests skip with a
#     reason on machines without a GPU; OpenCL tests run on PoCL;
#  2. builds the same tests with clang under AddressSanitizer and UndefinedBehaviorSanitizer
#     (into build-sanitize/, without CUDA or the Python module; any report fails its test)
#     with the libFuzzer targets, and runs them all: the tests, then each fuzz target for a
#     bounded time (J2K_FUZZ_SECONDS, 60 by default) on its seed corpus in tests/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
(cd build && ctest --output-on-failure -j2 --timeout 1200)
tools/skipped-tests.sh build

CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
  -DJ2K_WITH_CUDA=OFF -DJ2K_WITH_PYTHON=OFF -DJ2K_BUILD_FUZZERS=ON -DJ2K_FUZZ_SECONDS="${J2K_FUZZ_SECONDS:-60}"
cmake --build build-sanitize
(cd build-sanitize && ctest --output-on-failure -j2 --timeout 1200)
tools/skipped-tests.sh build-sanitize
