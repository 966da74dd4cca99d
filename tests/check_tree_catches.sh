#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/check-tree.py must fail where its rules are broken: a scratch repository with one file
# that includes a layer above its own, one backend that includes its mirror, and one file
# without a licence line; each must be reported, and a clean tree must pass.
#   check_tree_catches.sh PYTHON CHECK_TREE WORK_DIR
set -euo pipefail
py=$1 check=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
git init -q .
mkdir -p common transform/cpu transform/cuda codec
spdx='// SPDX-License-Identifier: BSD-2-Clause'
printf '%s\n#include "common/b.hpp"\n' "$spdx" >common/a.hpp
printf '%s\n' "$spdx" >common/b.hpp
printf '%s\n#include "common/a.hpp"\n' "$spdx" >codec/encoder.cpp
git add -A
"$py" "$check" . || { echo "FAIL: a clean tree was refused"; exit 1; }
printf '%s\n#include "codec/encoder.hpp"\n' "$spdx" >common/up.hpp
printf '%s\n#include "transform/cpu/dwt.hpp"\n' "$spdx" >transform/cuda/queue.cpp
printf '#include "common/a.hpp"\n' >transform/cpu/dwt.hpp
git add -A
if out=$("$py" "$check" .); then echo "FAIL: check-tree passed a broken tree"; exit 1; fi
echo "$out"
for want in 'common/up.hpp:2: #include "codec/encoder.hpp": common/ may not include codec/' \
            'transform/cuda/queue.cpp:2: #include "transform/cpu/dwt.hpp": backends are mirrors' \
            "transform/cpu/dwt.hpp:1: no 'SPDX-License-Identifier"; do
  grep -qF "$want" <<<"$out" || { echo "FAIL: not reported: $want"; exit 1; }
done
echo "check-tree reports all three"
