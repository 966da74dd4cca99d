#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tier-1 block coding and decoding, two revisions in one process (bench/tier1_ab.cpp says how):
#   bench/tier1_ab.sh BASE [OTHER]
# BASE, OTHER: git revisions; OTHER left out: the working tree, uncommitted changes included.
# Builds tier1_ab in $J2K_BUILD_DIR (default build/; or J2K_TIER1_AB names one built already),
# compiles each revision's host Tier-1 sources (codec/tier1/ less its GPU folders; headers from
# codec/params/, common/, tiling/ and include/) into a shared object with $CXX
# (default c++) and the library's Release flags, and runs tier1_ab A=BASE B=OTHER with
# J2K_TIER1_ROUNDS rounds (default 15; each set's fastest round counts). B/A below 1: OTHER
# codes or decodes the blocks faster. J2K_TIER1_BOTH=1 runs it again with the two objects
# swapped: one object can run a few percent faster than the other by where its code lands
# alone (the unchanged encoder has read 0.97 and 1.02 in the two orders), so a change that
# matters shows in both orders (B/A below 1 first, above 1 swapped). J2K_TIER1_BENCH_SIZE=N: the
# blocks of the decompress benchmark's images at N x N instead of the samples' (tier1_ab.cpp).
# J2K_TIER1_CODER=ht: the HT block coders instead of EBCOT's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: bench/tier1_ab.sh BASE [OTHER]   (git revisions; OTHER left out: the working tree)}
other=${2:-}
build=${J2K_BUILD_DIR:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ab=${J2K_TIER1_AB:-}
if [[ -z $ab ]]; then
  cmake --build "$build" --target tier1_ab >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
  ab=$build/bench/tier1_ab
fi
# variant REV DIR: the revision's sources (REV empty: the working tree's) into DIR, its block
# coders into DIR/t1.so.
variant() {
  local rev=$1 dir=$2
  mkdir -p "$dir"
  if [[ -n $rev ]]; then
    git -C "$root" archive "$rev" codec/tier1 codec/params common tiling include | tar -x -C "$dir"
  else
    tar -c -C "$root" codec/tier1 codec/params common tiling include | tar -x -C "$dir"
  fi
  "${CXX:-c++}" -std=c++17 -O3 -DNDEBUG -fPIC -ffp-contract=off -fopenmp-simd -shared -fvisibility=hidden \
    -I"$dir" -I"$dir/include" -I"$build/include" "$root/bench/tier1_variant.cpp" \
    $(find "$dir/codec/tier1" -maxdepth 2 -name '*.cpp' -not -path '*/cuda/*' -not -path '*/opencl/*' -not -path '*/gpu/*') \
    -Wl,--no-undefined -o "$dir/t1.so"
}
variant "$base" "$tmp/a"
variant "$other" "$tmp/b"
echo "A: $(git -C "$root" rev-parse --short "$base")  B: ${other:-the working tree}"
"$ab" "$tmp/a/t1.so" "$tmp/b/t1.so" --samples "$root/tests/data" ${J2K_TIER1_BENCH_SIZE:+--bench-images "$J2K_TIER1_BENCH_SIZE"} --coder "${J2K_TIER1_CODER:-ebcot}" --rounds "${J2K_TIER1_ROUNDS:-15}"
if [[ ${J2K_TIER1_BOTH:-0} == 1 ]]; then
  echo "swapped: A: ${other:-the working tree}  B: $(git -C "$root" rev-parse --short "$base")"
  "$ab" "$tmp/b/t1.so" "$tmp/a/t1.so" --samples "$root/tests/data" ${J2K_TIER1_BENCH_SIZE:+--bench-images "$J2K_TIER1_BENCH_SIZE"} --coder "${J2K_TIER1_CODER:-ebcot}" --rounds "${J2K_TIER1_ROUNDS:-15}"
fi
