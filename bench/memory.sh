#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Peak host memory of `j2kfront transform` on one large 8-bit gray image, transformed whole
# and, within --max-memory, a row of tiles at a time; and whether both wrote the same files.
#
#   bench/memory.sh [SIZE] [TILE] [BUDGET]      (defaults: 16384 1024 1G)
#
# Writes a SIZE x SIZE image of random samples as a binary PGM and, where libtiff's raw2tiff
# is installed (Debian: libtiff-tools), as a Deflate TIFF of 64-row strips; then, for each,
# runs the 5/3 on the CPU with TILE x TILE tiles twice: without a budget (the whole image in
# memory) and with --max-memory BUDGET. Peak memory is GNU time's maximum resident set size
# (Debian: time). Needs SIZE^2 bytes for each input and 8 x SIZE^2 bytes of outputs in $TMPDIR.
set -euo pipefail
size=${1:-16384}
tile=${2:-1024}
budget=${3:-1G}
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${J2KFRONT:-$root/build/tools/j2kfront}
[ -x "$cli" ] || { echo "memory.sh: $cli not built (run tools/bootstrap.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "memory.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/j2kfront-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT

samples=$((size * size))
head -c "$samples" /dev/urandom > "$work/raw"
inputs=()
{ printf 'P5\n%d %d\n255\n' "$size" "$size"; cat "$work/raw"; } > "$work/image.pgm"
inputs+=("$work/image.pgm")
if command -v raw2tiff > /dev/null; then
  raw2tiff -w "$size" -l "$size" -b 1 -d byte -p minisblack -c zip -r 64 "$work/raw" "$work/image.tif"
  inputs+=("$work/image.tif")
fi
rm "$work/raw"

echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB of memory"
echo "image ${size}x${size} 8-bit gray ($samples samples), 5/3, tiles ${tile}x${tile}, CPU backend"
printf '%-6s %-30s %10s %14s %9s %s\n' input run "peak MiB" "bytes/sample" "wall s" "same files"
for input in "${inputs[@]}"; do
  kind=${input##*.}
  for run in whole rows; do
    args=(transform "$input" "$work/$run" --backend cpu --tile-size "$tile,$tile")
    label="whole image"
    if [ "$run" = rows ]; then
      args+=(--max-memory "$budget")
      label="rows of tiles (--max-memory $budget)"
    fi
    /usr/bin/time -f '%M %e' -o "$work/time" "$cli" "${args[@]}" > "$work/log" 2>&1 ||
      { cat "$work/log" >&2; exit 1; }
    read -r kb seconds < "$work/time"
    same=""
    if [ "$run" = rows ]; then
      grep -q "rows of tiles" "$work/log" || { echo "memory.sh: the budget did not make it go by rows" >&2; exit 1; }
      same=$(diff -rq "$work/whole" "$work/rows" > /dev/null && echo yes || echo NO)
      rm -rf "$work/whole" "$work/rows"
    fi
    printf '%-6s %-30s %10d %14.2f %9s %s\n' "$kind" "$label" $((kb / 1024)) \
      "$(awk -v kb="$kb" -v n="$samples" 'BEGIN { print kb * 1024 / n }')" "$seconds" "$same"
  done
done
