#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Peak host memory of `j2kfront compress` on one large RGB image, compressed whole and, within
# --max-memory, a row of tiles at a time, beside opj_compress and grk_compress with the same
# tiles; and whether our two files are the same.
#
#   bench/compress_memory.sh [SIZE] [TILE] [BUDGET] [FLAGS...]   (defaults: 8192 1024 800M, lossless)
#
# Makes a SIZE x SIZE 8-bit RGB PPM from tests/data/astronaut.ppm (bench/noisy_upscale.py: each pixel
# repeated SIZE/512 times each way, the low two bits of every sample random: a camera's noise,
# so that it codes about as a photograph does, 2.8:1 lossless); then runs, with TILE x TILE
# tiles on the CPU and THREADS threads (default: every core), `j2kfront compress` without a
# budget (the whole image in memory) and with --max-memory BUDGET, opj_compress and
# grk_compress (Debian: libopenjp2-tools, grokj2k-tools; skipped where missing). FLAGS (e.g.
# -I -r 20) go to all four. Peak memory is GNU time's maximum resident set size (Debian:
# time). Needs 3 x SIZE^2 bytes for the input and about as much for the outputs in $TMPDIR.
set -euo pipefail
size=${1:-8192}
tile=${2:-1024}
budget=${3:-800M}
shift $(($# < 3 ? $# : 3))
flags=("$@")
threads=${THREADS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${J2KFRONT:-$root/build/tools/j2kfront}
[ -x "$cli" ] || { echo "compress_memory.sh: $cli not built (run tools/bootstrap.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "compress_memory.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/j2kfront-compress-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$root/bench/noisy_upscale.py" "$root/tests/data/astronaut.ppm" "$work/image.ppm" "$size"

samples=$((3 * size * size))
echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB of memory, $threads threads"
echo "image ${size}x${size} 8-bit RGB ($samples samples), tiles ${tile}x${tile}, CPU, flags: ${flags[*]:-(lossless 5/3)}"
printf '%-14s %-34s %9s %13s %8s %11s %s\n' tool run "peak MiB" "bytes/sample" "wall s" "file bytes" "same file"
measure() {  # tool, label, output, command...
  local tool=$1 label=$2 out=$3
  shift 3
  /usr/bin/time -f '%M %e' -o "$work/time" "$@" > "$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
  read -r kb seconds < "$work/time"
  same=""
  if [ "$tool" = j2kfront ] && [ "$out" = "$work/rows.j2k" ]; then
    grep -q "rows of tiles" "$work/log" || { echo "compress_memory.sh: the budget did not make it go by rows" >&2; exit 1; }
    same=$(cmp -s "$work/whole.j2k" "$work/rows.j2k" && echo yes || echo NO)
  fi
  printf '%-14s %-34s %9d %13.2f %8s %11d %s\n' "$tool" "$label" $((kb / 1024)) \
    "$(awk -v kb="$kb" -v n="$samples" 'BEGIN { print kb * 1024 / n }')" "$seconds" "$(stat -c %s "$out")" "$same"
}
common=(-i "$work/image.ppm" -t "$tile,$tile")
measure j2kfront "whole image" "$work/whole.j2k" \
  "$cli" compress "${common[@]}" -o "$work/whole.j2k" --backend cpu --threads "$threads" --max-memory 1T "${flags[@]}"
measure j2kfront "rows of tiles (--max-memory $budget)" "$work/rows.j2k" \
  "$cli" compress "${common[@]}" -o "$work/rows.j2k" --backend cpu --threads "$threads" --max-memory "$budget" "${flags[@]}"
rm -f "$work/whole.j2k"
if command -v opj_compress > /dev/null; then
  measure opj_compress "tile by tile" "$work/opj.j2k" opj_compress "${common[@]}" -o "$work/opj.j2k" -threads "$threads" "${flags[@]}"
  rm -f "$work/opj.j2k"
else
  echo "opj_compress: not installed (Debian: libopenjp2-tools)"
fi
if command -v grk_compress > /dev/null; then
  measure grk_compress "tile by tile" "$work/grk.j2k" grk_compress "${common[@]}" -o "$work/grk.j2k" -H "$threads" "${flags[@]}"
else
  echo "grk_compress: not installed (Debian: grokj2k-tools)"
fi
