#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The README's Python example, run as written: in a fresh directory holding what
# tools/bootstrap.sh makes (out/astronaut/ from tests/data/astronaut.tif), with the system's
# python3 and numpy (tools/install-deps.sh installs python3-numpy).
#   readme_python.sh README J2KFRONT SAMPLE WORK_DIR [MODULE_DIR]
# MODULE_DIR: where the build put the j2kfront package (build/python), if it built one.
set -euo pipefail
readme=$1 cli=$2 sample=$3 work=$4 module_dir=${5:-}
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3 || true)
if [[ -z $py ]] || ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "python3 with numpy not found (apt install python3-numpy): the README's Python example was not run"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$cli" transform "$sample" out/astronaut -q
# The README's ```python blocks: the first reads the CLI's files, the second uses the module.
block() { awk -v n="$1" '/^```python$/ {k++; if (k == n) {on = 1; next}} on && /^```$/ {exit} on {print}' "$readme"; }
block 1 >example.py
[[ -s example.py ]] || { echo "FAIL: no python block in $readme"; exit 1; }
cat example.py
echo 'print("band", band.shape, band.dtype)' >>example.py
"$py" example.py
block 2 >module_example.py
[[ -s module_example.py ]] || { echo "FAIL: no second python block (the module) in $readme"; exit 1; }
if [[ -z $module_dir ]]; then
  echo "(the README's module example not run: this build has no Python module)"
  exit 0
fi
cat module_example.py
PYTHONPATH=$module_dir "$py" module_example.py
