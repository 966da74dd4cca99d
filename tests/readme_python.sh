#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The Python examples of a markdown file (README.md, docs/python.md), run as written: every
# ```python block, in order, each by its own python3 in one fresh directory holding what
# tools/bootstrap.sh makes (out/astronaut/ from tests/data/astronaut.tif), with the system's
# python3 and numpy (tools/install-deps.sh installs python3-numpy).
#   readme_python.sh DOC J2KFRONT SAMPLE WORK_DIR [MODULE_DIR]
# MODULE_DIR: where the build put the j2kfront package (build/python), if it built one; without
# it, the blocks that import j2kfront are reported and not run (exit 77 if none ran at all).
set -euo pipefail
doc=$1 cli=$2 sample=$3 work=$4 module_dir=${5:-}
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3 || true)
if [[ -z $py ]] || ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "python3 with numpy not found (apt install python3-numpy): the Python examples of $doc were not run"
  exit 77
fi
# Relative paths are taken from the current directory, not WORK_DIR.
doc=$(realpath "$doc") sample=$(realpath "$sample")
[[ $cli != */* ]] || cli=$(realpath "$cli")
[[ -z $module_dir ]] || module_dir=$(realpath "$module_dir")
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$cli" transform "$sample" out/astronaut -q
# The n-th ```python block of the file, without its fences.
block() { awk -v n="$1" '/^```python$/ {k++; if (k == n) {on = 1; next}} on && /^```$/ {exit} on {print}' "$doc"; }
blocks=$(grep -c '^```python$' "$doc" || true)
((blocks > 0)) || { echo "FAIL: no \`\`\`python block in $doc"; exit 1; }
ran=0
for ((n = 1; n <= blocks; ++n)); do
  block "$n" >"example$n.py"
  [[ -s example$n.py ]] || { echo "FAIL: python block $n of $doc is empty or not closed"; exit 1; }
  echo "== $doc, python block $n"
  cat "example$n.py"
  if grep -Eq '^(import|from) .*\bj2kfront\b' "example$n.py"; then
    if [[ -z $module_dir ]]; then
      echo "(not run: this build has no Python module)"
      continue
    fi
    PYTHONPATH=$module_dir "$py" "example$n.py"
  else
    "$py" "example$n.py"
  fi
  ran=$((ran + 1))
done
((ran > 0)) || exit 77
