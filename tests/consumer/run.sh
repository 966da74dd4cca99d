#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The `install` test: installs a j2kfront build into a fresh prefix, then builds and runs the
# consumers against that prefix only: through the CMake package (tests/consumer/CMakeLists.txt)
# and, for the C consumer, through pkg-config with a plain `cc`: `--libs` against the shared
# library (the default build), and `--libs --static` (which a static build needs).
#   run.sh BUILD_DIR WORK_DIR [CMAKE_GENERATOR] [CMAKE_PREFIX_PATH of the build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 work=$2 generator=${3:-Ninja} deps_path=${4:-}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake=${CMAKE:-cmake}  # the build's own, from the test

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
for f in include/j2kfront/j2kfront.h include/j2kfront/j2kfront.hpp include/j2kfront/config.h \
         lib/cmake/j2kfront/j2kfrontConfig.cmake lib/cmake/j2kfront/j2kfrontConfigVersion.cmake \
         lib/pkgconfig/j2kfront.pc; do
  [[ -f $prefix/$f ]] || { echo "missing from the install: $f"; exit 1; }
done
# Only the public headers: the layers' own are internal.
extra=$(cd "$prefix/include" && find . -type f ! -path ./j2kfront/j2kfront.h ! -path ./j2kfront/j2kfront.hpp \
        ! -path ./j2kfront/config.h)
[[ -z $extra ]] || { echo "internal headers installed: $extra"; exit 1; }

echo "== CMake package: find_package(j2kfront CONFIG REQUIRED)"
"$cmake" -S "$here" -B "$work/cmake" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_PREFIX_PATH=$prefix${deps_path:+;$deps_path}" -DJ2K_EXAMPLES_DIR="$here/../../examples"
"$cmake" --build "$work/cmake"
for exe in consumer_c consumer_cpp embed; do
  echo "-- $exe"
  "$work/cmake/$exe" | tee "$work/$exe.out"
done
# docs/api.md gives this output of examples/embed.cpp.
expected="3 tile-components; first band 8 x 6"
[[ $(cat "$work/embed.out") == "$expected" ]] || { echo "embed: expected '$expected'"; exit 1; }
# examples/compress.c writes a JP2 file: its signature box, and a decoder's reading where there is one.
echo "-- compress"
"$work/cmake/compress" "$work/example.jp2"
[[ $(head -c 12 "$work/example.jp2" | od -An -tx1 | tr -d ' \n') == 0000000c6a5020200d0a870a ]] ||
  { echo "compress: $work/example.jp2 does not start with the JP2 signature box"; exit 1; }
if command -v opj_decompress >/dev/null; then
  opj_decompress -i "$work/example.jp2" -o "$work/example.ppm" >/dev/null ||
    { echo "compress: opj_decompress cannot read $work/example.jp2"; exit 1; }
fi
# examples/decompress.c and decompress.cpp decode it (and, where the CLI is installed, its
# codestream of a grey image, and of a 12-bit one made with python3) to the same PPM / PGM
# file as the installed `j2kfront decompress` writes, byte for byte, and say the same.
streams=("$work/example.jp2")
cli=$prefix/bin/j2kfront
if [[ -x $cli ]]; then
  "$cli" compress -i "$here/../data/camera.pgm" -o "$work/camera.j2k" --quiet
  streams+=("$work/camera.j2k")
  if command -v python3 >/dev/null; then
    python3 -c 'import sys; w, h = 61, 37
sys.stdout.buffer.write(b"P5\n%d %d\n4095\n" % (w, h) + bytes(b for i in range(w * h) for b in divmod((i * 37 + i // w * 11) % 4096, 256)))' \
      >"$work/wide.pgm"
    "$cli" compress -i "$work/wide.pgm" -o "$work/wide.j2k" --quiet
    streams+=("$work/wide.j2k")
  fi
else
  echo "-- no j2kfront CLI in the install: decompress examples not compared with it"
fi
for stream in "${streams[@]}"; do
  base=${stream%.*}
  ext=ppm
  [[ $stream == *.jp2 ]] || ext=pgm
  echo "-- decompress, decompress_cpp: $(basename "$stream")"
  "$work/cmake/decompress" "$stream" "$base-c.$ext" | tee "$base-c.out"
  "$work/cmake/decompress_cpp" "$stream" "$base-cpp.$ext" >"$base-cpp.out"
  cmp "$base-c.out" "$base-cpp.out" || { echo "decompress.c and decompress.cpp say different things"; exit 1; }
  cmp "$base-c.$ext" "$base-cpp.$ext" || { echo "decompress.c and decompress.cpp wrote different files"; exit 1; }
  if [[ -x $cli ]]; then
    "$cli" decompress -i "$stream" -o "$base-cli.$ext" --quiet
    cmp "$base-c.$ext" "$base-cli.$ext" || { echo "decompress.c's file is not j2kfront decompress's"; exit 1; }
  fi
done
grep -q "example.jp2: 256 x 192, components 3, 8 bits" "$work/example-c.out" ||
  { echo "decompress: expected 'example.jp2: 256 x 192, components 3, 8 bits'"; exit 1; }

if ! command -v pkg-config >/dev/null; then
  echo "pkg-config not found (tools/install-deps.sh installs it): the CMake package passed, skipping the rest"
  exit 77
fi
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
libdir=$(pkg-config --variable=libdir j2kfront)
shared=0
[[ -e $libdir/libj2kfront.so ]] && shared=1
for how in "--libs" "--libs --static"; do
  # A static library needs --static (its C++ and GPU runtime dependencies); a shared one
  # brings its own, so that the plain `cc $(pkg-config --cflags --libs j2kfront)` links.
  [[ $how == --libs && $shared == 0 ]] && { echo "-- static library: no plain --libs link"; continue; }
  # shellcheck disable=SC2086  # the flags are words
  flags=$(pkg-config --cflags $how j2kfront)
  echo "== pkg-config: cc \$(pkg-config --cflags $how j2kfront): $flags"
  # shellcheck disable=SC2086
  ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror -o "$work/consumer_c_pkgconfig" "$here/consumer.c" $flags
  # (A shared j2kfront: the loader must find it in the prefix.)
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/consumer_c_pkgconfig"
done
if [[ $shared == 1 ]]; then
  # The shared library exports the C interface alone, and is versioned.
  leaked=$(nm -D --defined-only "$libdir/libj2kfront.so" | awk '$2 ~ /[TDRBW]/ && $3 !~ /^j2k_/ {print $3}' | head -5)
  [[ -z $leaked ]] || { echo "libj2kfront.so exports more than j2k_*: $leaked"; exit 1; }
  soname=$(objdump -p "$libdir/libj2kfront.so" | awk '$1 == "SONAME" {print $2}')
  [[ $soname == libj2kfront.so.[0-9]*.[0-9]* ]] || { echo "libj2kfront.so's soname is '$soname', not libj2kfront.so.MAJOR.MINOR"; exit 1; }
  echo "-- libj2kfront.so: $(nm -D --defined-only "$libdir/libj2kfront.so" | grep -c ' T j2k_') j2k_* functions exported, soname $soname"
fi
echo "install test: passed"
