#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# `pip install --no-build-isolation .` as docs/python.md gives it, in a fresh venv that sees
# Debian's numpy and setuptools (--system-site-packages), offline (--no-index), with the module
# built in this build tree (J2K_BUILD_DIR: setup.py builds the target there); then the installed
# package, imported from outside the source and build trees, compresses and decompresses.
# Skipped (77) where the interpreter has no venv, pip or setuptools.
#   pip_install.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR
set -uo pipefail
python=$1 src=$2 build=$3 work=$4
"$python" -c "import venv, ensurepip, setuptools" 2>/dev/null ||
  { echo "SKIP: $python has no venv, ensurepip or setuptools (Debian: python3-venv python3-setuptools)"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv" || { echo "FAIL: python -m venv"; exit 1; }
# The package needs numpy: Debian's (python3-numpy) is seen from the venv; one installed in
# the user's own site-packages is not.
"$work/venv/bin/python" -c "import numpy" 2>/dev/null ||
  { echo "SKIP: $python's numpy is not visible from a venv (install python3-numpy)"; exit 77; }
J2K_BUILD_DIR=$build "$work/venv/bin/pip" install --no-build-isolation --no-index "$src" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; echo "FAIL: pip install"; exit 1; }
cd "$work" || exit 1
"$work/venv/bin/python" - "$work/venv" <<'PY' || { echo "FAIL: the installed module"; exit 1; }
import sys
import numpy as np
import j2kfront

venv = sys.argv[1]
assert j2kfront.__file__.startswith(venv), f"imported {j2kfront.__file__}, not the venv's"
image = (np.arange(48 * 40 * 3) % 251).astype(np.uint8).reshape(40, 48, 3)
data = j2kfront.compress(image)
assert np.array_equal(j2kfront.decompress(data), image), "the round trip is not lossless"
print(f"j2kfront {j2kfront.__version__} from {j2kfront.__file__}: {len(data)} bytes, lossless round trip")
PY
echo "pip install: passed"
