#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A/B on the GPU machine (the `device` tool, .deps/ carried): the checkout's git HEAD against its
# working tree, `bench --compress` and `--decompress` (J2K_AB_JOBS, default both), 16 threads,
# 4096^2, two rounds: base then new in the first, new then base in the second, so that neither
# build is always the one measured second. CSVs to $OUT.
set -e
root=$PWD
jobs=${J2K_AB_JOBS:-compress decompress}
export PATH=$root/.deps/codecs/bin:$PATH LD_LIBRARY_PATH=$root/.deps/codecs/lib
rm -rf /tmp/base && mkdir -p /tmp/base && git archive HEAD | tar -x -C /tmp/base
echo "base: $(git log --oneline -1)"
cfg() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$root/.deps/root/usr;/usr/local/cuda" -DJ2K_WITH_PYTHON=OFF -DJ2K_BUILD_TESTS=OFF >/dev/null && ninja -C $2 j2kfront_cli >/dev/null; }
cfg /tmp/base /tmp/base-build & cfg $root /tmp/new-build & wait
for r in 1 2; do
  order="base new"; [[ $r == 2 ]] && order="new base"
  for v in $order; do
    bin=/tmp/$v-build/tools/j2kfront
    echo "== $v round $r"
    for j in $jobs; do
      $bin bench --$j --threads 16 --size 4096 --repeats 3 --csv $OUT/$j-$v-$r.csv | grep -E "  (j2kfront|opj_compress|opj_decompress)"
    done
  done
done
