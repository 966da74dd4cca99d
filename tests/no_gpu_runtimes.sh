#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The installed j2kfront on a machine without GPU runtimes: it must start, say which backends
# are unavailable and why, and run the CPU backend. Installs the build into a fresh prefix, then
# checks that the binary needs neither CUDA's runtime nor the OpenCL loader (ELF NEEDED), and
# runs it with dlopen of libcuda/libOpenCL failing (no_gpu_runtimes.c under LD_PRELOAD).
#   no_gpu_runtimes.sh BUILD_DIR WORK_DIR PRELOAD_LIBRARY SAMPLE_IMAGE
set -euo pipefail
build=$1 work=$2 preload=$3 sample=$4
cmake=${CMAKE:-cmake}
rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log"
cli=$work/prefix/bin/j2kfront
[[ -x $cli ]] || { echo "not installed: $cli"; exit 1; }

needed=$(readelf -d "$cli" | grep NEEDED)  # binutils, with the compiler
echo "$needed"
grep -q 'libc\.so' <<<"$needed" || { echo "FAIL: no NEEDED entries read"; exit 1; }
if grep -E 'libcudart|libcuda\.|libOpenCL|libnvidia' <<<"$needed"; then
  echo "FAIL: the binary needs a GPU runtime to start (above)"
  exit 1
fi

hide() { LD_PRELOAD=$preload "$@"; }
echo "== j2kfront --version, GPU runtimes hidden"
version=$(hide "$cli" --version)
echo "$version"
grep -q '^  cpu: cpu' <<<"$version" || { echo "FAIL: no CPU backend line"; exit 1; }
if grep -q 'J2KFRONT_HAVE_CUDA 1' "$build/include/j2kfront/config.h"; then
  grep -q '^  cuda: unavailable (no GPU: this machine has no NVIDIA driver' <<<"$version" ||
    { echo "FAIL: CUDA not reported as 'no GPU'"; exit 1; }
fi
if grep -q 'J2KFRONT_HAVE_OPENCL 1' "$build/include/j2kfront/config.h"; then
  grep -q '^  opencl: unavailable (the OpenCL ICD loader libOpenCL.so.1 cannot be opened' <<<"$version" ||
    { echo "FAIL: OpenCL not reported as missing its loader"; exit 1; }
fi

echo "== transform with the default backend, GPU runtimes hidden"
hide "$cli" transform "$sample" -o "$work/out" --levels 3 -q
[[ -f $work/out/layout.json ]] || { echo "FAIL: no layout.json"; exit 1; }
grep -q '"backend": "cpu' "$work/out/layout.json" || { echo "FAIL: the default backend was not the CPU"; exit 1; }
echo "== the same files as an ordinary CPU run"
"$cli" transform "$sample" -o "$work/ref" --levels 3 --backend cpu -q
diff -r "$work/out" "$work/ref" >/dev/null || { echo "FAIL: files differ from the CPU run"; exit 1; }

echo "== --backend cuda and opencl are clear errors"
for backend in cuda opencl; do
  if hide "$cli" transform "$sample" -o "$work/$backend" --backend $backend 2>"$work/$backend.err"; then
    echo "FAIL: --backend $backend ran"
    exit 1
  fi
  cat "$work/$backend.err"
  grep -q "backend '$backend' is not" "$work/$backend.err" || { echo "FAIL: unclear message"; exit 1; }
done
# The Python module, where it was built: installed beside the CLI, it imports and runs the
# CPU backend with the GPU runtimes hidden too.
package=$(find "$work/prefix" -path '*/j2kfront/_j2kfront*.so' | head -1)
if [[ -n $package && -n ${PYTHON:-} ]] && "$PYTHON" -c 'import numpy' 2>/dev/null; then
  echo "== the installed Python module, GPU runtimes hidden"
  PYTHONPATH=$(dirname "$(dirname "$package")") hide "$PYTHON" - <<'EOF'
import numpy as np, j2kfront
print(j2kfront.__file__, j2kfront.backends())
assert "/prefix/" in j2kfront.__file__, "not the installed module"
result = j2kfront.transform(np.arange(64 * 48, dtype=np.uint16).reshape(48, 64) % 4096, precision=12)
assert result.backend == "cpu", result.backend
EOF
elif [[ -n $package ]]; then
  echo "(the installed Python module not run: no python3 with numpy)"
fi
echo "no_gpu_runtimes: passed"
