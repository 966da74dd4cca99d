#!/usr/bin/env bash
# First command on a fresh Debian 12 machine: install dependencies, build (Release, into
# build/), and run the front stage on a bundled sample image into out/astronaut/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
build/tools/j2kfront transform tests/data/astronaut.tif out/astronaut
echo "coefficients and layout.json are in out/astronaut/"
