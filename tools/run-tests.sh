#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every test through CTest.
# GPU tests skip with a reason on machines without a GPU; OpenCL tests run on PoCL.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
cd build
ctest --output-on-failure -j2 --timeout 1200
