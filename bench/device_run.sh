#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# One call on the GPU machine (the `device` tool): build, GPU tests, sanitizers, benchmarks.
#   bash bench/device_run.sh [all|test|sanitize|bench|pipeline|compress|decompress|ht|compress-ht|decompress-ht|compress-dir|frames-folder|decompress-dir|decompress-tiled|decompress-cpus|frames|compress-one|peers|compress-peers|decompress-peers|cuda|profile]
# all = test + sanitize + bench (bench includes pipeline, compress, decompress and ht). cuda = only the CUDA
# backend's tests, sanitizers and bench. compress = `bench --compress` against opj_compress and
# grk_compress (carried in .deps/codecs) on 16 threads, front stage on the CPU and on CUDA;
# decompress = `bench --decompress` against opj_decompress and grk_decompress, 16 threads;
# compress-ht / decompress-ht = `bench --compress --ht` / `--decompress --ht` against OpenJPH's
# ojph_compress / ojph_expand (one thread; carried in .deps/codecs) at J2K_COMPRESS_SIZE (4096),
# ours on 16 threads, on one CPU (6) and on two (5,6); ht = both. J2K_HT_RUNS picks some of
# those runs ("16threads 1cpu 2cpus"), since all six at 4096 may not fit one 10-minute call.
# compress-dir = the same over folders of J2K_COMPRESS_FILES (8) copies at J2K_COMPRESS_SIZE (2048);
# decompress-dir = `bench --decompress --directory` over J2K_DECOMPRESS_FILES (8) copies, 16 threads.
# decompress-tiled = `bench --decompress --tile-size` J2K_DECOMPRESS_TILE (1024), 16 threads and 1.
# decompress-cpus = `bench --decompress` on one CPU of its own (CPU 6, 7 rounds), then two (5,6).
# frames = `bench --compress --frames J2K_FRAMES (16) --in-flight J2K_IN_FLIGHT (3)` on 16 threads:
# CPU, CUDA and OpenCL on a GPU, one frame after another and frames in flight, in one process.
# frames-folder = `bench --compress --frames J2K_FRAMES (16) --folder` on 16 threads: the same
# frames as PPM files, folder to folder, one `compress -i DIR -o DIR` process a row (CPU, CUDA
# over every GPU, one GPU, one frame at a time, OpenCL on a GPU), J2K_COMPRESS_REPEATS (3) rounds.
# compress-one = bench/compress_one.sh: one image a process, the CPU backend against CUDA, at
# J2K_ONE_SIZES ("512 4096 8192"), 16 threads, 5 rounds.
# peers = compress-peers and decompress-peers: `bench --compress` / `--decompress` against
# OpenJPEG and Grok on the 4096^2 RGB image alone (--made rgb), every tool at each of
# J2K_PEERS_THREADS (1,2,4,8,16) threads, time and peak memory, J2K_COMPRESS_REPEATS (2) rounds;
# CSVs compress-peers-MACHINE.csv and decompress-peers-MACHINE.csv, and where matplotlib is
# there bench/plot.py's compress-vs-peers.png and decompress-vs-peers.png of them in $OUT/plots.
# Each takes minutes at 4096 (the one-thread rows most): run them as two calls where one would
# pass 10 minutes.
# profile = Nsight Compute on the CUDA bench at 8192^2: per-kernel summary of every launch of one
# timed row, and the SASS source view (instructions executed per line) of the kernels that match
# J2K_NCU_KERNELS (space-separated regexes, default: the fused 5/3 and 9/7 forward kernels).
# J2K_CUDA_FLAGS adds to CMAKE_CUDA_FLAGS (e.g. "-lineinfo"; the experimental fused kernels need
# no rebuild: they are run-time options, each with its own rows in the CUDA bench and its own
# sweeps in cuda_test). J2K_NINJA_TARGETS builds only those targets (e.g. "j2kfront_cli").
# Needs .deps/ carried: a prefix with Debian's header-only CLI11 and nlohmann-json, a GoogleTest
# build and the OpenCL ICD loader and headers (the device has no internet and none of these).
# bench/README.md says how to make it. J2K_CMAKE_ARGS adds configure arguments; the backends are
# reset to AUTO first, since a warm machine keeps build-device's cache between calls.
# J2K_SANITIZER_TOOLS picks compute-sanitizer's tools for `sanitize` (default "memcheck racecheck").
# Logs go to $OUT; the benchmarks' rows also as CSV to $OUT/results/<backend>-<machine>.csv, named
# as in bench/results/ (J2K_MACHINE, default the GPU's model: h100 for an NVIDIA H100).
set -uo pipefail
what=${1:-all}
out=${OUT:-/tmp/j2k-out}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
# The CSV files' machine name: the first word of the GPU's name with letters then digits.
machine=${J2K_MACHINE:-$(head -1 "$out/gpu.txt" | cut -d, -f1 | grep -oE '\b[A-Z]+[0-9]+[A-Za-z]*\b' | head -1 | tr '[:upper:]' '[:lower:]')}
machine=${machine:-gpu}
mkdir -p "$out/results"
# The Python module for the machine's own python3 (its numpy, pytest and pip's pybind11), so
# that Python.cuda and Python.opencl run the module's tests on the GPU.
python_args=()
if py=$(command -v python3) && pybind=$("$py" -m pybind11 --cmakedir 2>/dev/null); then
  python_args=(-DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$pybind")
fi
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$root/.deps/root/usr;/usr/local/cuda" "${python_args[@]}" \
  -DJ2K_WITH_CUDA=AUTO -DJ2K_WITH_OPENCL=AUTO -DCMAKE_CUDA_FLAGS="--ptxas-options=-v ${J2K_CUDA_FLAGS:-}" ${J2K_CMAKE_ARGS:-} \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep 'j2kfront:' "$out/configure.log"
ninja -C build-device ${J2K_NINJA_TARGETS:-} >"$out/build.log" 2>&1 || { grep -E 'error|Error' -A3 "$out/build.log" | head -60; exit 1; }
# CUDA: ptxas report of the DWT kernels, and the 9/7 must hold no FFMA (OpenJPEG's bits).
grep -A4 -E "Compiling entry function '.*cudadwt" "$out/build.log" | grep -E 'entry|registers|spill' >"$out/ptxas-cuda.txt"
echo "CUDA kernels: $(grep -c 'Used' "$out/ptxas-cuda.txt") compiled, max registers" \
  "$(grep -o 'Used [0-9]* registers' "$out/ptxas-cuda.txt" | awk '{print $2}' | sort -n | tail -1)," \
  "spill lines with non-zero bytes: $(grep -cE '[1-9][0-9]* bytes spill' "$out/ptxas-cuda.txt")"
cuobj=$(find build-device -name 'dwt_cuda.cu.o' | head -1)
if [[ -n $cuobj ]] && command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$cuobj" >"$out/dwt_cuda.sass" 2>&1
  echo "CUDA SASS: FFMA count $(grep -c FFMA "$out/dwt_cuda.sass") (must be 0)," \
    "LDG $(grep -c LDG "$out/dwt_cuda.sass"), STG $(grep -c STG "$out/dwt_cuda.sass")"
fi
cli=./build-device/tools/j2kfront
status=0
# NVIDIA's OpenCL: the ICD loader sees NVIDIA's driver (and only it) when told so.
export OCL_ICD_VENDORS=libnvidia-opencl.so.1
# The OpenCL ICD loader is opened at run time (not linked): the one in .deps/, where the
# machine has none of its own.
export LD_LIBRARY_PATH="$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [[ $what == all || $what == test ]]; then
  # Eight test processes share 16 cores (the CPU workers sleep while they wait).
  # The outside codecs carried in .deps/codecs on PATH, so that the tests comparing with
  # opj_decompress (the GPU back stages' among them) run here too.
  (cd build-device && PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
     ctest --output-on-failure -j8 --timeout 600) >"$out/ctest.log" 2>&1 || status=1
  grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)|Skipped' "$out/ctest.log" | head -20
  grep -hE '^\[backend\]' build-device/Testing/Temporary/LastTest.log | sort -u | head -20
  # The sample images through the CLI: every GPU backend's files equal the CPU's, byte for byte.
  cli_cases=0 cli_diff=0
  images=(tests/data/*.ppm tests/data/*.pgm)
  # TIFF only where libtiff was found (the GPU machine has none).
  grep -q 'TIFF=ON' "$out/configure.log" && images+=(tests/data/*.tif)
  for img in "${images[@]}"; do
    # The last case: the GPU runs go a row of tiles at a time (--max-memory), the CPU's whole.
    for args in "" "--wavelet 9/7" "--tile-size 200,136 --tile-origin 3,1 --image-origin 7,5 --levels 7" \
                "--wavelet 9/7 --levels 12 --image-origin 1,1" "--tile-size 200,64 --tile-origin 3,1 --image-origin 7,5 --levels 4 ROWS"; do
      gpu_args=${args/ROWS/--max-memory 1M}
      args=${args/ROWS/}
      rm -rf /tmp/cli-cpu; $cli transform "$img" /tmp/cli-cpu --backend cpu $args >/dev/null || { status=1; continue; }
      for b in cuda opencl; do
        rm -rf /tmp/cli-$b; $cli transform "$img" /tmp/cli-$b --backend $b $gpu_args >"$out/cli-$b.txt" 2>&1 || { status=1; cat "$out/cli-$b.txt"; continue; }
        [[ $gpu_args == "$args" ]] || grep -q "rows of tiles" "$out/cli-$b.txt" || { status=1; echo "NOT BY ROWS $b $img"; }
        for f in /tmp/cli-cpu/*.npy; do
          cli_cases=$((cli_cases + 1))
          cmp -s "$f" "/tmp/cli-$b/$(basename "$f")" || { cli_diff=$((cli_diff + 1)); echo "DIFF $b $img $args $(basename "$f")"; }
        done
      done
    done
  done
  echo "CLI on sample images: $cli_cases GPU coefficient files compared with the CPU's, $cli_diff differ"
  ((cli_diff == 0)) || status=1
fi
# compute-sanitizer TOOL NAME BINARY ARGS...: a report fails the run (--error-exitcode).
sanitized() {
  local tool=$1 name=$2
  shift 2
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" --gtest_brief=1 >"$out/sanitizer-$tool-$name.log" 2>&1
  local rc=$?
  echo "compute-sanitizer $tool $name: exit $rc ($(tail -1 "$out/sanitizer-$tool-$name.log"))"
  ((rc == 0)) || status=1
}
if [[ $what == all || $what == sanitize || $what == cuda ]]; then
  # J2K_SANITIZER_TOOLS="memcheck" (or "racecheck") runs one tool: both take about 10 minutes.
  for tool in ${J2K_SANITIZER_TOOLS:-memcheck racecheck}; do
    # The kernel-variant sweeps (Kernels/*) repeat the default path's launches with other kernel
    # choices; under the sanitizer they would take most of a call's 10 minutes.
    sanitized $tool cuda_test ./build-device/tests/cuda_test --gtest_filter='-Kernels/*'
    sanitized $tool backend_test ./build-device/tests/backend_test --gtest_filter='*LargeTiles/cuda:*StrideLargerThanWidth*/cuda'
    # The free-memory tests make cudaMalloc fail on purpose, which memcheck reports as API errors.
    sanitized $tool plan_cuda_test ./build-device/tests/plan_cuda_test --gtest_filter='-*FreeDeviceMemory*'
    sanitized $tool plan_test ./build-device/tests/plan_test --gtest_filter='*/cuda'
    sanitized $tool frames_test ./build-device/tests/frames_test --gtest_filter='*/cuda'
    # The decoder's back stage: inverse DWT, to_samples, uploads and downloads, two slots.
    sanitized $tool back_stage_test ./build-device/tests/back_stage_test --gtest_filter='*/cuda'
    # Tier-1 on the GPU: the batch's kernel (Part 1 and HT blocks, each HT block's scratch),
    # its own planes and their copies, the blocks of several tiles in one launch.
    sanitized $tool gpu_block_batch_test ./build-device/tests/gpu_block_batch_test --gtest_filter='*/cuda'
    # HT cleanup coding on the GPU: coefficients read in place, each block's slot of the output
    # arena and of the scratch.
    sanitized $tool ht_gpu_encoder_test ./build-device/tests/ht_gpu_encoder_test --gtest_filter='HtGpuEncoder.*'
    # EBCOT block coding on the GPU: one thread a block in its slot, the packing, the blocks
    # out of room coded on the CPU.
    sanitized $tool ebcot_gpu_encoder_test ./build-device/tests/ebcot_gpu_encoder_test --gtest_filter='EbcotGpuEncoder.*'
    # The whole encoder with Tier-1 on the GPU, and frames in flight through several encoders.
    # (EBCOT's: a case of tiles by rows with a rate target; its full sweep takes too long
    # under the sanitizer.)
    sanitized $tool ebcot_gpu_compress_test ./build-device/tests/ebcot_gpu_compress_test --gtest_filter='EbcotGpuCompress.ByRowsOfTiles'
    sanitized $tool ht_gpu_compress_test ./build-device/tests/ht_gpu_compress_test --gtest_filter='GpuCompress*'
    sanitized $tool encoder_frames_test ./build-device/tests/encoder_frames_test --gtest_filter='EncoderFramesCuda.*'
    # The decoder's gathered launches, HT streams' blocks included (HtStreamsDecodeAsTheCpu).
    sanitized $tool decoder_test ./build-device/tests/decoder_test --gtest_filter='DecoderGpu.*'
  done
fi
if [[ $what == cuda ]]; then
  ./build-device/tests/cuda_test 2>&1 | tee "$out/cuda_test.log" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' | head -10
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  ./build-device/tests/backend_test --gtest_filter='*/cuda' 2>&1 | tee "$out/backend_test-cuda.log" | grep -E '^\[backend\]|^\[  (PASSED|FAILED|SKIPPED) |first:' | head -20
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
if [[ $what == all || $what == bench || $what == cuda ]]; then
  $cli bench --backend cuda --sizes ${J2K_BENCH_SIZES:-4096,8192,16384} --csv "$out/results/cuda-$machine.csv" 2>&1 |
    tee "$out/bench-cuda.txt"
fi
if [[ $what == all || $what == bench || $what == pipeline ]]; then
  $cli bench --pipeline --backend cuda --timeline "$out/timeline.svg" --csv "$out/results/pipeline-$machine.csv" 2>&1 |
    tee "$out/bench-pipeline.txt"
fi
if [[ $what == all || $what == bench ]]; then
  $cli bench --backend opencl --sizes 4096,8192 --csv "$out/results/opencl-$machine.csv" 2>&1 |
    tee "$out/bench-opencl.txt"
fi
if [[ $what == all || $what == bench || $what == compress ]]; then
  # `j2kfront compress` against opj_compress and grk_compress on all 16 cores, the front stage on
  # the CPU and on CUDA. The GPU machine has neither codec: Debian 12's binaries and the
  # libraries they need that Ubuntu lacks are carried in .deps/codecs (bench/README.md).
  for b in cpu cuda; do
    PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
      $cli bench --compress --backend $b --threads 16 --size ${J2K_COMPRESS_SIZE:-4096} --repeats ${J2K_COMPRESS_REPEATS:-3} \
      --csv "$out/results/compress-$b-$machine.csv" 2>&1 | tee "$out/bench-compress-$b.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
fi
if [[ $what == all || $what == bench || $what == decompress ]]; then
  # `j2kfront decompress` against opj_decompress and grk_decompress on all 16 cores, on
  # opj_compress's streams (the codecs carried in .deps/codecs, as above).
  PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
    $cli bench --decompress --threads 16 --size ${J2K_COMPRESS_SIZE:-4096} --repeats ${J2K_COMPRESS_REPEATS:-3} \
    --csv "$out/results/decompress-$machine.csv" 2>&1 | tee "$out/bench-decompress.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
# HTJ2K against OpenJPH (one thread, it has no thread option), our EBCOT compress on the same
# threads, and for decoding opj_decompress and grk_decompress on ojph_compress's streams: ours
# on 16 threads, then every tool on one CPU of its own (6), then on two (5,6).
for bench_ht in compress decompress; do
  [[ $what == all || $what == bench || $what == ht || $what == "$bench_ht-ht" ]] || continue
  for run in "16threads:--threads 16" "1cpu:--cpus 6" "2cpus:--cpus 5,6"; do
    [[ -z ${J2K_HT_RUNS:-} || " $J2K_HT_RUNS " == *" ${run%%:*} "* ]] || continue
    PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
      $cli bench --$bench_ht --ht ${run#*:} --size ${J2K_COMPRESS_SIZE:-4096} --repeats ${J2K_COMPRESS_REPEATS:-3} \
      --csv "$out/results/$bench_ht-ht-${run%%:*}-$machine.csv" 2>&1 | tee -a "$out/bench-$bench_ht-ht.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
done
if [[ $what == decompress-dir ]]; then
  # The same decoders over a folder of J2K_DECOMPRESS_FILES (8) copies of each stream, one
  # process per folder: the CPU, CUDA (Tier-1 on the GPU) and OpenCL against opj_decompress.
  PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
    $cli bench --decompress --directory ${J2K_DECOMPRESS_FILES:-8} --threads 16 --size ${J2K_COMPRESS_SIZE:-4096} \
    --repeats ${J2K_COMPRESS_REPEATS:-2} --csv "$out/results/decompress-dir-$machine.csv" 2>&1 | tee "$out/bench-decompress-dir.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
if [[ $what == decompress-tiled ]]; then
  # The same on streams in tiles of J2K_DECOMPRESS_TILE (1024), 16 threads, then one thread on
  # CPU 6 (the GPU's Tier-1 takes the blocks of many tiles in one launch).
  for run in "16threads:--threads 16" "1cpu:--cpus 6"; do
    PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
      $cli bench --decompress --tile-size ${J2K_DECOMPRESS_TILE:-1024} ${run#*:} --size ${J2K_COMPRESS_SIZE:-4096} \
      --repeats ${J2K_COMPRESS_REPEATS:-3} --csv "$out/results/decompress-tiled-${run%%:*}-$machine.csv" 2>&1 |
      tee -a "$out/bench-decompress-tiled.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
fi
if [[ $what == decompress-cpus ]]; then
  # Every tool on one CPU of its own, then on two: the rows where the 2x target is closest
  # without a GPU (bench/RESULTS.md). A freshly started machine gives slower times than one
  # that has run for a while: say which in RESULTS.
  for run in "1cpu:6:7" "2cpus:5,6:3"; do
    IFS=: read -r name cpus rounds <<<"$run"
    PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
      $cli bench --decompress --cpus "$cpus" --size ${J2K_COMPRESS_SIZE:-4096} --repeats "${J2K_COMPRESS_REPEATS:-$rounds}" \
      --csv "$out/results/decompress-$name-$machine.csv" 2>&1 | tee -a "$out/bench-decompress-cpus.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
fi
if [[ $what == compress-dir ]]; then
  # The same encoders over a folder of N copies of each image, one process per folder (a batch
  # job: CUDA's start-up is paid once), front stage on the CPU and on CUDA.
  for b in cpu cuda; do
    PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
      $cli bench --compress --directory ${J2K_COMPRESS_FILES:-8} --backend $b --threads 16 \
      --size ${J2K_COMPRESS_SIZE:-2048} --repeats ${J2K_COMPRESS_REPEATS:-3} \
      --csv "$out/results/compress-dir-$b-$machine.csv" 2>&1 | tee "$out/bench-compress-dir-$b.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
fi
if [[ $what == frames ]]; then
  # Frames of 4096x2160 RGB (8 and 12 bits) compressed in one process, host memory to host
  # memory, by the CPU (16 threads) and CUDA: HT, and EBCOT unless J2K_FRAMES_HT_ONLY=1.
  ht_only=()
  [[ ${J2K_FRAMES_HT_ONLY:-0} == 1 ]] && ht_only=(--ht)
  # Each in-flight row's last frames drawn per encoder into $out/timelines.
  mkdir -p "$out/timelines"
  $cli bench --compress --frames ${J2K_FRAMES:-16} "${ht_only[@]}" --in-flight ${J2K_IN_FLIGHT:-3} --threads 16 \
    --timeline "$out/timelines" --csv "$out/results/compress-frames-$machine.csv" 2>&1 | tee "$out/bench-frames.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
if [[ $what == frames-folder ]]; then
  ht_only=()
  [[ ${J2K_FRAMES_HT_ONLY:-0} == 1 ]] && ht_only=(--ht)
  $cli bench --compress --frames ${J2K_FRAMES:-16} --folder "${ht_only[@]}" --threads 16 --repeats ${J2K_COMPRESS_REPEATS:-3} \
    --csv "$out/results/compress-frames-folder-$machine.csv" 2>&1 | tee "$out/bench-frames-folder.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
if [[ $what == compress-one ]]; then
  J2KFRONT=$cli THREADS=16 bash bench/compress_one.sh "${J2K_ONE_SIZES:-512 4096 8192}" 5 2>&1 | tee "$out/bench-compress-one.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
# Time and peak memory by threads against OpenJPEG and Grok (the codecs carried in .deps/codecs).
peers=0
for bench_peers in compress decompress; do
  [[ $what == peers || $what == "$bench_peers-peers" ]] || continue
  peers=1
  PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib:$LD_LIBRARY_PATH" \
    $cli bench --$bench_peers --made rgb --threads ${J2K_PEERS_THREADS:-1,2,4,8,16} --size ${J2K_COMPRESS_SIZE:-4096} \
    --repeats ${J2K_COMPRESS_REPEATS:-2} --csv "$out/results/$bench_peers-peers-$machine.csv" 2>&1 |
    tee "$out/bench-$bench_peers-peers.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
done
if ((peers)); then
  plotter=""
  for p in /usr/bin/python3 python3; do
    [[ -z $plotter ]] && "$p" -c 'import matplotlib' 2>/dev/null && plotter=$p
  done
  if [[ -n $plotter ]]; then
    "$plotter" bench/plot.py "$out/results" "$out/plots" || status=1
  else
    echo "no matplotlib here: plot with python3 bench/plot.py on the CSVs in $out/results"
  fi
fi
if [[ $what == profile ]]; then
  # Needs -lineinfo in the CUDA flags for the CUDA-line column (J2K_CMAKE_ARGS).
  levels=${J2K_NCU_LEVELS:-5}
  i=0
  for k in ${J2K_NCU_KERNELS:-'forward_fused12ILi0Ei' 'forward_fused12ILi1Ef'}; do
    i=$((i + 1))
    ncu --kernel-name-base mangled --kernel-name "regex:$k" --launch-skip 2 --launch-count 1 --set full --import-source yes \
      -o "$out/prof$i" $cli bench --backend cuda --sizes 8192 --levels "$levels" --repeats 1 >"$out/ncu$i.log" 2>&1
    ncu -i "$out/prof$i.ncu-rep" --page source --csv --print-source sass >"$out/source$i.csv" 2>&1
    ncu -i "$out/prof$i.ncu-rep" --page details >"$out/details$i.txt" 2>&1
    echo "profile $k: $(grep -cv '^$' "$out/source$i.csv") source rows; $(grep -E 'Duration|Executed Instructions  |DRAM Throughput|Registers Per' "$out/details$i.txt" | tr -s ' ' | head -5 | tr '\n' ';')"
  done
  # Every kernel of the timed rows, one line each (name, duration): where the time of a row goes.
  nsys --version >/dev/null 2>&1 && nsys profile -o "$out/timeline" --force-overwrite true \
    $cli bench --backend cuda --sizes 8192 --levels "$levels" --repeats 3 >/dev/null 2>&1 &&
    nsys stats --report cuda_gpu_kern_sum --format csv "$out/timeline.nsys-rep" >"$out/kernels.csv" 2>&1
fi
echo "device_run: status $status"
exit $status
