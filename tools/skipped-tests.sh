#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The tests CTest skipped in its last run in BUILD_DIR, grouped by the reason they gave (the
# GTEST_SKIP message, or a script's last line before exit 77): what the summary line's
# "Skipped" count stands for, without -V.
#   skipped-tests.sh BUILD_DIR
set -euo pipefail
log=$1/Testing/Temporary/LastTest.log
[[ -f $log ]] || exit 0
awk '
  /^[0-9]+\/[0-9]+ Testing: / { name = $3; reason = ""; last = ""; next }
  /: Skipped$/ && reason == "" { if ((getline line) > 0) reason = line; next }
  /^<end of output>/ { final = last; next }
  /^Test Pass Reason:/ {
    if ((getline line) > 0 && line ~ /^Skip/) {
      r = reason != "" ? reason : final
      if (!(r in count)) order[++n] = r
      count[r]++
      names[r] = count[r] <= 3 ? names[r] (count[r] > 1 ? ", " : "") name : names[r]
    }
    next
  }
  NF { last = $0 }
  END {
    for (i = 1; i <= n; ++i) {
      r = order[i]
      # mawk reads a ">" among printf arguments as a redirection, even in parentheses.
      more = count[r] <= 3 ? "" : ", ..."
      printf "skipped %d: %s\n    (%s%s)\n", count[r], r, names[r], more
    }
  }' "$log"
