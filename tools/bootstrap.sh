#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# First command on a fresh Debian 12 machine: install dependencies, build (Release, into
# build/), run the front stage on a bundled sample image into out/astronaut/, and the codec
# on it: compressed losslessly to out/astronaut.jp2, decoded back to out/astronaut.png.
# Builds the library and the tool only (the tests are tools/run-tests.sh's), and says how long
# each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
tools/install-deps.sh
echo "bootstrap: packages ready after $((SECONDS - start)) s"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target j2kfront_cli
echo "bootstrap: built after $((SECONDS - start)) s"
build/tools/j2kfront transform tests/data/astronaut.tif out/astronaut
echo "coefficients and layout.json are in out/astronaut/"
# --force: a second run replaces the files its first run wrote.
build/tools/j2kfront compress -i tests/data/astronaut.tif -o out/astronaut.jp2 --force
build/tools/j2kfront decompress -i out/astronaut.jp2 -o out/astronaut.png --force
echo "bootstrap: done in $((SECONDS - start)) s"
