#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# examples/decompress.py, run as a user would: on the CLI's JP2 file of an RGB sample, its
# lossy codestream of a grey one and its codestream of a 12-bit image, it must write the same
# PPM / PGM file as `j2kfront decompress`, byte for byte. examples/decompress.c and .cpp are
# built and run by the install test (tests/consumer/run.sh).
#   example_decompress_py.sh EXAMPLE J2KFRONT DATA_DIR WORK_DIR [MODULE_DIR [PYTHON]]
# MODULE_DIR: where the build put the j2kfront package (build/python), PYTHON the interpreter it
# was built for (default: the system's python3, else the one on PATH); without MODULE_DIR (a
# build without the Python module) the test is skipped, saying so (exit 77).
set -euo pipefail
example=$1 cli=$2 data=$3 work=$4 module_dir=${5:-} py=${6:-}
if [[ -z $module_dir ]]; then
  echo "examples/decompress.py not run: this build has no Python module (J2K_WITH_PYTHON, pybind11)"
  exit 77
fi
if [[ -z $py ]]; then
  py=/usr/bin/python3
  [[ -x $py ]] || py=$(command -v python3 || true)
fi
if [[ -z $py ]] || ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "examples/decompress.py not run: python3 with numpy not found (apt install python3-numpy)"
  exit 77
fi
# Relative paths are taken from the current directory, not WORK_DIR.
example=$(realpath "$example") data=$(realpath "$data") module_dir=$(realpath "$module_dir")
[[ $cli != */* ]] || cli=$(realpath "$cli")
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$py" -c 'import sys; w, h = 61, 37
sys.stdout.buffer.write(b"P5\n%d %d\n4095\n" % (w, h) + bytes(b for i in range(w * h) for b in divmod((i * 37 + i // w * 11) % 4096, 256)))' >wide.pgm
"$cli" compress -i "$data/astronaut.ppm" -o rgb.jp2 --quiet
"$cli" compress -i "$data/camera.pgm" -o grey.j2k -I -r 20 --quiet
"$cli" compress -i wide.pgm -o wide.j2k --quiet
for stream in rgb.jp2 grey.j2k wide.j2k; do
  ext=pgm
  [[ $stream == *.jp2 ]] && ext=ppm
  "$cli" decompress -i "$stream" -o "${stream%.*}-cli.$ext" --quiet
  PYTHONPATH=$module_dir "$py" "$example" "$stream" "${stream%.*}-py.$ext" | tee "${stream%.*}.out"
  cmp "${stream%.*}-cli.$ext" "${stream%.*}-py.$ext" || { echo "FAIL: decompress.py's $ext of $stream is not j2kfront decompress's"; exit 1; }
done
grep -qx "rgb.jp2: 512 x 512, components 3, 8 bits" rgb.out || { echo "FAIL: rgb.jp2: $(cat rgb.out)"; exit 1; }
grep -qx "wide.j2k: 61 x 37, components 1, 12 bits" wide.out || { echo "FAIL: wide.j2k: $(cat wide.out)"; exit 1; }
echo "examples/decompress.py: the same files as j2kfront decompress"
