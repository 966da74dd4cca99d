#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# One image compressed by one `j2kfront compress` process, the CPU backend against CUDA: the
# whole process timed (start-up, reading, coding, writing, exit), as a user running the tool
# on one file sees it, for each size and coder, in alternating rounds; and whether the two
# files are the same.
#
#   bench/compress_one.sh [SIZES] [ROUNDS]     (defaults: "512 4096 8192" 5)
#
# The images: tests/data/astronaut.ppm repeated to SIZE x SIZE (a multiple of 512) with the low
# two bits of every sample random (a camera's noise), made by bench/noisy_upscale.py in $TMPDIR. Each case
# is HT and EBCOT, lossless (the 5/3) and lossy (the 9/7: HT at --qstep 0.007, EBCOT at -r 20),
# on THREADS threads (default: every core). Printed: the median wall time of each backend and
# CPU / CUDA (above 1: CUDA is faster).
set -euo pipefail
sizes=${1:-"512 4096 8192"}
rounds=${2:-5}
threads=${THREADS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${J2KFRONT:-$root/build/tools/j2kfront}
[ -x "$cli" ] || { echo "compress_one.sh: $cli not built (run tools/bootstrap.sh)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/j2kfront-compress-one.XXXXXX")
trap 'rm -rf "$work"' EXIT

make_image() {  # size, output
  python3 "$root/bench/noisy_upscale.py" "$root/tests/data/astronaut.ppm" "$2" "$1"
}

ms_of() {  # command...: its wall time in ms
  local t0 t1
  t0=$(date +%s%N)
  "$@" > "$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F), $(nproc) cores, $threads threads, $rounds rounds"
printf '%-6s %-6s %-9s %9s %9s %10s %s\n' size coder mode "cpu ms" "cuda ms" "cpu/cuda" "same file"
for size in $sizes; do
  make_image "$size" "$work/image.ppm"
  for coder in HT EBCOT; do
    for mode in lossless lossy; do
      flags=(--threads "$threads")
      [ $coder = HT ] && flags+=(--ht)
      if [ $mode = lossy ]; then
        if [ $coder = HT ]; then flags+=(-I --qstep 0.007); else flags+=(-I -r 20); fi
      fi
      cpu="" cuda=""
      for ((r = 0; r < rounds; ++r)); do  # alternating, so that drift falls on both alike
        cpu+=" $(ms_of "$cli" compress -i "$work/image.ppm" -o "$work/cpu.j2k" --force --quiet --backend cpu "${flags[@]}")"
        cuda+=" $(ms_of "$cli" compress -i "$work/image.ppm" -o "$work/cuda.j2k" --force --quiet --backend cuda "${flags[@]}")"
      done
      c=$(echo $cpu | median) g=$(echo $cuda | median)
      same=no
      cmp -s "$work/cpu.j2k" "$work/cuda.j2k" && same=yes
      printf '%-6s %-6s %-9s %9d %9d %10.2f %s\n' "$size" $coder $mode "$c" "$g" "$(awk -v a="$c" -v b="$g" 'BEGIN {print a / b}')" $same
    done
  done
done
echo "cpu/cuda: the CPU backend's median wall time over CUDA's (above 1: CUDA is faster), whole processes, file to file"
