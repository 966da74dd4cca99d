#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Installs the Debian 12 packages j2kfront builds and tests with. Run as root (or via sudo).
# CUDA is optional and not from apt: the build uses /usr/local/cuda when it is there.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config
  libtiff-dev                     # TIFF input
  libpng-dev                      # PNG input
  liblcms2-dev                    # decompress: a JP2 file's ICC profile or CIELab to sRGB, as opj_decompress
  libcli11-dev nlohmann-json3-dev # the CLI's options and layout.json
  libgtest-dev                    # tests
  libopenjp2-7-dev                # conformance tests: OpenJPEG 2.5.0's own transform (test-only)
  libopenjp2-tools grokj2k-tools  # compress tests: the outside decoders (opj_decompress, grk_decompress) and opj_compress
  openjph-tools                   # HTJ2K tests: OpenJPH's ojph_compress and ojph_expand as the outside HT coder
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd  # OpenCL backend, runnable on the CPU via PoCL
  clang libclang-rt-14-dev               # the sanitizer build and the libFuzzer targets (tests)
  help2man                        # the man page, generated from the CLI's help at build time
  python3-numpy                   # the Python examples of README.md and docs/python.md (tests)
  python3-matplotlib              # bench/plot.py: the benchmarks' CSV files as PNG plots (tested)
  time                            # GNU time: bench/memory.sh's and bench/compress_memory.sh's peak memory
  python3-dev pybind11-dev python3-pytest  # the Python module and its tests
  python3-venv python3-setuptools python3-wheel python3-pip  # pip install --no-build-isolation . (pyproject.toml; tested in a venv)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
