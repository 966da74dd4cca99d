#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The test suite: installs what is missing, then builds (Release, into build/) and runs every
# test through CTest: GPU tests skip with a reason on machines without a GPU; OpenCL tests run
# on PoCL.
#   tools/run-tests.sh --sanitize   the same tests built with clang under AddressSanitizer and
#     UndefinedBehaviorSanitizer (into build-sanitize/, without CUDA or the Python module; any
#     report fails its test) with the libFuzzer targets, and runs them all: the tests, then each
#     fuzz target for a bounded time (J2K_FUZZ_SECONDS, 60 by default) on its seed corpus in
#     tests/fuzz/. CI (.ci/run) runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
took() { echo "run-tests: $1 after $((SECONDS - start)) s"; }
case "${1:-}" in
  "") sanitize=0 ;;
  --sanitize) sanitize=1 ;;
  *) echo "usage: tools/run-tests.sh [--sanitize]" >&2; exit 2 ;;
esac
tools/install-deps.sh
took "packages ready"
if [[ $sanitize == 0 ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
  cmake --build build
  took "Release build done"
  (cd build && ctest --output-on-failure -j2 --timeout 1200)
  tools/skipped-tests.sh build
  took "Release tests done"
  exit 0
fi

CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
  -DJ2K_WITH_CUDA=OFF -DJ2K_WITH_PYTHON=OFF -DJ2K_BUILD_FUZZERS=ON -DJ2K_FUZZ_SECONDS="${J2K_FUZZ_SECONDS:-60}"
cmake --build build-sanitize
took "sanitizer build done"
# The sanitizer runtime of Debian 12's clang 14 can take a dynamic TLS block (of a library
# loaded at run time, such as PoCL) for an old glibc's, by where it sits in its page, and
# LeakSanitizer's tracer then crashes at exit ("Tracer caught signal 11") after a test passed:
# about 1 run in 25 of DecoderApi.OneDecoderManyImagesOnEveryBackend under load, none in 40
# with the runtime's __tls_get_addr interceptor off (reported fixed after LLVM 16).
export ASAN_OPTIONS="intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="intercept_tls_get_addr=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# UBSan reports are fatal in this build (-fno-sanitize-recover=all, cmake/J2kWarnings.cmake);
# halt_on_error says so again for any check built recoverable, and the stack shows where.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
(cd build-sanitize && ctest --output-on-failure -j2 --timeout 1200)
tools/skipped-tests.sh build-sanitize
took "sanitizer tests done"
