#!/usr/bin/env bash
# The README's Python example, run as written: in a fresh directory holding what
# tools/bootstrap.sh makes (out/astronaut/ from tests/data/astronaut.tif), with the system's
# python3 and numpy (tools/install-deps.sh installs python3-numpy).
#   readme_python.sh README J2KFRONT SAMPLE WORK_DIR
set -euo pipefail
readme=$1 cli=$2 sample=$3 work=$4
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
# The first ```python block of the README.
awk '/^```python$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$readme" >example.py
[[ -s example.py ]] || { echo "FAIL: no python block in $readme"; exit 1; }
cat example.py
echo 'print("band", band.shape, band.dtype)' >>example.py
"$py" example.py
