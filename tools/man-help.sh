#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# What help2man reads for the man page (tools/CMakeLists.txt): the CLI's help and each
# subcommand's, one after the other, so that the page documents every option.
#   man-help.sh J2KFRONT --help
set -euo pipefail
cli=$1
[[ ${2:-} == --help ]] || { echo "usage: man-help.sh J2KFRONT --help" >&2; exit 2; }
"$cli" --help
for sub in transform compress decompress transcode info check bench; do
  echo
  echo "j2kfront $sub:"
  "$cli" "$sub" --help | sed 1d  # its first line repeats the description
done
