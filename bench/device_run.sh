#!/usr/bin/env bash
# One call on the GPU machine (the `device` tool): build, run the GPU tests, run the
# benchmarks. Usage there:  bash bench/device_run.sh [what]   with what = all|test|bench|sanitize
# Needs .deps/ carried (header-only CLI11/nlohmann and a GoogleTest build: the device has
# no internet and no such packages; see bench/README.md). Logs go to $OUT when it is set.
set -uo pipefail
what=${1:-all}
out=${OUT:-/tmp/j2k-out}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$root/.deps/root/usr" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep 'j2kfront:' "$out/configure.log"
ninja -C build-device >"$out/build.log" 2>&1 || { grep -E 'error|Error' -A3 "$out/build.log" | head -60; exit 1; }
grep -E 'registers|spill|stack frame' "$out/build.log" | sort -u | head -40 > "$out/ptxas.txt"
status=0
if [[ $what == all || $what == test ]]; then
  # NVIDIA's OpenCL as well as PoCL: the ICD loader sees NVIDIA's driver only when told.
  export OCL_ICD_VENDORS=libnvidia-opencl.so.1
  (cd build-device && ctest --output-on-failure -j4 -LE conformance 2>&1) | tee "$out/ctest.log" | grep -E 'tests passed|tests failed|Failed|\[backend\]' | head -40
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  ./build-device/tests/backend_test 2>&1 | grep -E '^\[backend\]|SKIPPED|FAILED' | head -40
fi
if [[ $what == all || $what == sanitize ]]; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 ./build-device/tests/backend_test \
      --gtest_filter='*/cuda' --gtest_brief=1 >"$out/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$out/sanitizer-$tool.log") clean summaries)"
  done
fi
if [[ $what == all || $what == bench ]]; then
  ./build-device/tools/j2kfront bench --backend cuda --sizes 4096,8192,16384 2>&1 | tee "$out/bench-cuda.txt"
  OCL_ICD_VENDORS=libnvidia-opencl.so.1 ./build-device/tools/j2kfront bench --backend opencl --sizes 4096,8192 2>&1 | tee "$out/bench-opencl.txt"
fi
exit $status
