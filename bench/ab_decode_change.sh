#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A/B of a change to the decoder on HT streams, for a machine with the tree but no git (the
# `device` tool's copy): the tree before the change is the tree with DIFF taken back out of
# it. Both are built (the CLI alone, CPU only), OpenJPH's streams of two noisy 4096^2 images
# are made (bench/noisy_image.py: RGB 8-bit and 16-bit grey, `ojph_compress` lossless and
# `-qstep 0.007`, 6 resolutions, 64x64 blocks, RPCL), and bench/ab_decode.py runs the two
# builds in turns at each of J2K_AB_RUNS ("1cpu 2cpus 16threads"): one CPU (J2K_AB_CPU, 6),
# two (J2K_AB_CPUS, 5,6), and all threads, that one twice with the builds' order swapped.
# J2K_AB_TILED=1 adds our own HT streams of the RGB image in 1024^2 tiles (lossless and
# `-I --qstep 0.007`, made by the base build), which decode through the whole-tile path.
#   git diff BASE > change.diff   (here, with git; new files added with `git add -N` first)
#   bash bench/ab_decode_change.sh change.diff
# Needs ojph_compress (on PATH, or in .deps/codecs as the device has it) and .deps/root for
# CLI11 and nlohmann-json where the machine lacks them (bench/README.md). Work in $TMPDIR.
set -euo pipefail
diff_file=$(realpath "${1:?usage: ab_decode_change.sh CHANGE.diff}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ab_change_XXXXXX")
export PATH="$root/.deps/codecs/bin:$PATH" LD_LIBRARY_PATH="$root/.deps/codecs/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The tree before: this one without the change (builds and dependencies left out).
mkdir "$work/base"
(cd "$root" && tar --exclude=./.deps --exclude=./.git --exclude='./build*' -cf - .) | tar -C "$work/base" -xf -
(cd "$work/base" && patch -s -p1 -R <"$diff_file")
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$root/.deps/root/usr" -DJ2K_WITH_CUDA=OFF
      -DJ2K_WITH_OPENCL=OFF -DJ2K_WITH_PYTHON=OFF -DJ2K_BUILD_TESTS=OFF)
for side in base new; do
  src=$root
  [[ $side == base ]] && src=$work/base
  cmake -S "$src" -B "$work/build-$side" "${args[@]}" >"$work/configure-$side.log" 2>&1
  ninja -C "$work/build-$side" j2kfront_cli >"$work/build-$side.log" 2>&1 ||
    { tail -20 "$work/build-$side.log"; exit 1; }
done
base=$work/build-base/tools/j2kfront
new=$work/build-new/tools/j2kfront

cd "$work"
python3 "$root/bench/noisy_image.py" rgb.ppm 12
python3 "$root/bench/noisy_image.py" grey.pgm 12 grey16
streams=()
for image in rgb.ppm grey.pgm; do
  name=${image%.*}
  ojph_compress -i "$image" -o "${name}_lossless.j2c" -num_decomps 5 -block_size '{64,64}' -prog_order RPCL -reversible true >/dev/null
  ojph_compress -i "$image" -o "${name}_lossy.j2c" -num_decomps 5 -block_size '{64,64}' -prog_order RPCL -qstep 0.007 >/dev/null
  streams+=("${name}_lossless.j2c" "${name}_lossy.j2c")
done
if [[ ${J2K_AB_TILED:-0} == 1 ]]; then
  "$base" compress -i rgb.ppm -o rgb_tiled_lossless.j2c --ht -t 1024,1024 --quiet
  "$base" compress -i rgb.ppm -o rgb_tiled_lossy.j2c --ht -t 1024,1024 -I --qstep 0.007 --quiet
  streams+=(rgb_tiled_lossless.j2c rgb_tiled_lossy.j2c)
fi

ab=$root/bench/ab_decode.py
for run in ${J2K_AB_RUNS:-1cpu 2cpus 16threads}; do
  case $run in
    1cpu) echo "== one CPU (${J2K_AB_CPU:-6}), new over base"
          taskset -c "${J2K_AB_CPU:-6}" python3 "$ab" "$base" "$new" --rounds 9 "${streams[@]}" ;;
    2cpus) echo "== two CPUs (${J2K_AB_CPUS:-5,6}), new over base"
           taskset -c "${J2K_AB_CPUS:-5,6}" python3 "$ab" "$base" "$new" --rounds 7 --threads 2 "${streams[@]}" ;;
    16threads) echo "== all threads, new over base"
               python3 "$ab" "$base" "$new" --rounds 15 --threads 0 "${streams[@]}"
               echo "== all threads, base over new (the order swapped)"
               python3 "$ab" "$new" "$base" --rounds 15 --threads 0 "${streams[@]}" ;;
    *) echo "unknown run $run (1cpu, 2cpus, 16threads)" >&2; exit 2 ;;
  esac
done
rm -rf "$work"
