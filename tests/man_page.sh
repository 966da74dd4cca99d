#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The generated man page documents every long option of every subcommand's --help.
#   man_page.sh HELP2MAN_OR_EMPTY MAN_PAGE J2KFRONT
set -euo pipefail
help2man=$1 page=$2 cli=$3
if [[ -z $help2man || $help2man == *NOTFOUND ]]; then
  echo "help2man was not found at configure time: no man page was built (apt install help2man)"
  exit 77
fi
[[ -f $page ]] || { echo "FAIL: $page was not built"; exit 1; }
grep -q '^\.TH J2KFRONT "1"' "$page" || { echo "FAIL: no .TH header"; exit 1; }
missing=0 options=0
for sub in "" transform compress decompress transcode info check bench; do
  # shellcheck disable=SC2086  # an empty subcommand is no word
  for opt in $("$cli" $sub --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    options=$((options + 1))
    grep -qF -- "${opt//-/\\-}" "$page" || { echo "FAIL: $opt (from 'j2kfront $sub --help') is not in the man page"; missing=1; }
  done
done
for section in EXAMPLES "EXIT STATUS" "SEE ALSO"; do
  grep -q "^\.SH \"\?$section" "$page" || { echo "FAIL: no $section section"; missing=1; }
done
echo "man page: $options options checked"
((missing == 0 && options > 10))
