#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/tier1_ab.sh runs: HEAD against the working tree, one round, then swapped
# (J2K_TIER1_BOTH=1): three sets of blocks coded and decoded, each with its times and ratio in
# both orders, the two revisions agreeing on every block (exit 0); without libtiff the 16-bit
# set must say it is skipped. Skipped (77) outside a git checkout or
# without a C++ compiler.
# tier1_ab.sh SOURCE_DIR TIER1_AB BUILD_DIR
set -uo pipefail
src=$1 ab=$2 build=$3
git -C "$src" rev-parse --verify -q HEAD >/dev/null || { echo "SKIP: $src is not a git checkout"; exit 77; }
command -v "${CXX:-c++}" >/dev/null || { echo "SKIP: no C++ compiler (${CXX:-c++})"; exit 77; }
out=$(J2K_TIER1_AB=$ab J2K_BUILD_DIR=$build J2K_TIER1_ROUNDS=1 J2K_TIER1_BOTH=1 bash "$src/bench/tier1_ab.sh" HEAD 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 0 ]] || { echo "FAIL: exit $rc"; exit 1; }
grep -qE "^swapped: A: the working tree  B: [0-9a-f]+$" <<<"$out" || { echo "FAIL: no swapped run"; exit 1; }
for what in encode decode; do
  for set in "8-bit, lossless" "16-bit, lossless" "8-bit, lossy"; do
    # A build without libtiff has no 16-bit sample: that set says it is skipped.
    [[ $set == 16-bit* ]] && grep -qE "^$set +skipped: this build reads no TIFF" <<<"$out" && continue
    rows=$(grep -cE "^$what $set +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +[0-9.]+$" <<<"$out")
    [[ $rows -eq 2 ]] || { echo "FAIL: $rows rows for '$what $set', not one for each order"; exit 1; }
  done
done
