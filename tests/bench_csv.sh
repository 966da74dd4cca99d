#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# `j2kfront bench --csv`: the CPU bench's three tables as CSV files (FILE, FILE-busy, FILE-tiles),
# a header and one row per printed line with the printed values; a path that cannot be written
# is a clear error before any benchmark runs; and bench/plot.py draws the files (skipped, exit
# 77, without a python3 that has matplotlib: Debian's python3-matplotlib).
#   bench_csv.sh J2KFRONT PLOT_PY WORK_DIR
set -euo pipefail
cli=$1 plot=$2 work=$3
rm -rf "$work"
mkdir -p "$work/results"
fail() {
  echo "FAIL: $*"
  exit 1
}
results=$work/results
csv=$results/cpu-test.csv
echo "an older file" >"$csv"  # replaced by the run
"$cli" bench --backend cpu --sizes 64,128 --levels 3 --repeats 2 --csv "$csv" >"$work/table.txt" ||
  fail "bench --csv exited $?"
cat "$work/table.txt"

# The printed table that starts after the line matching $1, up to the next empty line.
table() { awk -v head="$1" '$0 ~ head { on = 1; next } on && /^$/ { exit } on' "$work/table.txt"; }
# The rows of a CSV file without its header, quoted fields (RFC 4180, one line each) as Q, so
# that the others split at commas.
rows() { tail -n +2 "$1" | sed -E 's/"([^"]|"")*"/Q/g'; }
# check_csv FILE HEADER TEXT_COLUMNS PRINTED_LINES: the header, the row count, and that every
# field but the text columns (1-based, space-separated) is a finite number.
check_csv() {
  local file=$1 header=$2 text=$3 printed=$4
  [[ -f $file ]] || fail "$file was not written"
  [[ $(head -1 "$file") == "$header" ]] || fail "$file: header '$(head -1 "$file")', expected '$header'"
  local n
  n=$(rows "$file" | wc -l)
  ((n == printed && n > 0)) || fail "$file: $n rows for $printed printed lines"
  rows "$file" | awk -F, -v columns="$(awk -F, '{ print NF }' <<<"$header")" -v text=" $text " -v file="$file" '
    NF != columns { print "FAIL: " file ": " NF " fields in row " NR ": " $0; bad = 1; exit }
    { for (i = 1; i <= NF; ++i)
        if (index(text, " " i " ") == 0 && $i !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) {
          print "FAIL: " file ": field " i " of row " NR " is not a number: " $i; bad = 1; exit
        } }
    END { exit bad }' || exit 1
  # Every row names the backend and the device the table's first line names.
  local device
  device=$(sed -n 's/^backend: \(.*\), [0-9]* levels, .*/\1/p' "$work/table.txt")
  [[ -n $device ]] || fail "no 'backend: ...' line in the table"
  [[ $(grep -cF -e "cpu,$device" -e "cpu,\"$device" "$file") -eq $n ]] || fail "$file: not every row names backend cpu and device '$device'"
}
# near(a, b): equal to the printed precision (2 decimals), the CSV's 6 significant digits aside.
near='function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 0.0051 + 1e-5 * (b < 0 ? -b : b) }'

dwt=$(table '^size +variant')
check_csv "$csv" "backend,device,size,levels,repeats,variant,yardstick,ms,copy_ms,x_copy,msamples_per_s" "1 2 6" \
  "$(grep -c . <<<"$dwt")"
# Row by row: the size, the variant (the printed words between the size and the last three
# numbers), the time and the ratio; the yardstick's row first for each size.
paste -d'|' <(rows "$csv") <(echo "$dwt") | awk -F'|' "$near"'
  { split($1, c, ","); m = split($2, t, " "); variant = t[2]; for (i = 3; i <= m - 3; ++i) variant = variant " " t[i]
    if (c[3] != t[1] || c[6] != variant || !near(c[8], t[m - 2]) || !near(c[10], t[m]) || c[4] != 3 || c[5] != 2) {
      print "FAIL: CSV row " NR " (" $1 ") is not the printed line (" $2 ")"; exit 1 }
    if ((c[7] == 1) != (variant == "memcpy (yard)") || (c[7] == 1 && c[10] != 1)) {
      print "FAIL: CSV row " NR ": yardstick " c[7] " for " variant; exit 1 } }' || exit 1

busy=$(table '^size +idle ms')
check_csv "$results/cpu-test-busy.csv" "backend,device,size,levels,repeats,idle_ms,spin_ms,spin_x_idle,dwt_ms,dwt_x_idle" \
  "1 2" "$(grep -c . <<<"$busy")"
paste -d'|' <(rows "$results/cpu-test-busy.csv") <(echo "$busy") | awk -F'|' "$near"'
  { split($1, c, ","); split($2, t, " ")
    if (c[3] != t[1]) { print "FAIL: busy row " NR ": size " c[3] " printed " t[1]; exit 1 }
    for (i = 2; i <= 6; ++i) if (!near(c[i + 4], t[i])) { print "FAIL: busy row " NR " (" $1 ") is not " $2; exit 1 } }' ||
  exit 1

tiles=$(table '^tiles +ms')
check_csv "$results/cpu-test-tiles.csv" "backend,device,image,size,levels,repeats,tile,ms,x_untiled" "1 2 3" \
  "$(grep -c . <<<"$tiles")"
paste -d'|' <(rows "$results/cpu-test-tiles.csv") <(echo "$tiles") | awk -F'|' "$near"'
  { split($1, c, ","); split($2, t, " "); tile = t[1] == "untiled" ? 0 : t[1] + 0
    if (c[7] != tile || !near(c[8], t[2]) || !near(c[9], t[3])) { print "FAIL: tiles row " NR " (" $1 ") is not " $2; exit 1 } }' ||
  exit 1
leftovers=$(find "$results" -name '*.csv.*')
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"
echo "CSV files: $(rows "$csv" | wc -l) + $(rows "$results/cpu-test-busy.csv" | wc -l) +" \
  "$(rows "$results/cpu-test-tiles.csv" | wc -l) rows, as printed"

# bad_csv PATH REASON: a path that cannot be written is a clear error, exit 1, before any
# benchmark (no table), leaving no file.
bad_csv() {
  local rc=0
  "$cli" bench --backend cpu --sizes 64 --repeats 2 --csv "$1" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
  cat "$work/bad.err"
  ((rc == 1)) || fail "--csv '$1': exit $rc, expected 1"
  grep -qF "error: cannot write the CSV file $1: " "$work/bad.err" || fail "--csv '$1': no message naming the file"
  grep -qF "$2" "$work/bad.err" || fail "--csv '$1': the message does not say '$2'"
  ! grep -q memcpy "$work/bad.out" || fail "--csv '$1': the benchmark ran before the error"
}
bad_csv "$work/no such dir/x.csv" "No such file or directory"
[[ ! -e "$work/no such dir" ]] || fail "a directory was created"
bad_csv "$results" "it is a directory"
rc=0
"$cli" bench --backend cpu --csv "" >"$work/empty.out" 2>&1 || rc=$?
((rc == 2)) || fail "--csv '': exit $rc, expected 2 (usage)"

# bench/plot.py on these files, and on a small --pipeline file (the columns pipeline_bench.cpp
# writes: that bench needs a GPU): PNG files, the same bytes when drawn twice.
python=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$p" -c 'import matplotlib' 2>/dev/null; then
    python=$p
    break
  fi
done
if [[ -z $python ]]; then
  echo "SKIPPED the plots: no python3 with matplotlib (Debian: python3-matplotlib); the CSV checks passed"
  exit 77
fi
cat >"$results/pipeline-test.csv" <<'EOF'
backend,device,size,input,levels,repeats,frames,in_flight,streams,tile,wavelet,output,memory,bytes_in,bytes_out,link_h2d_ms,link_d2h_ms,link_ms,image_ms,image_gb_per_s,image_link_over_t,frame_ms,frame_gb_per_s,frame_link_over_t,submit_ms_per_frame
cuda,"cuda (device 0: a GPU, sm_90)",256,RGB 8-bit,5,5,10,3,3,0,5/3,i32,pinned,196608,786432,0.1,0.2,0.25,0.5,1.9,0.5,0.3,3.2,0.83,0.01
cuda,"cuda (device 0: a GPU, sm_90)",256,RGB 8-bit,5,5,10,3,3,128,9/7,f32,pageable,196608,786432,0.1,0.2,0.25,0.4,2.4,0.62,0.28,3.5,0.89,0.02
EOF
export MPLCONFIGDIR=$work/matplotlib  # its cache, not the user's
for plots in "$work/plots" "$work/plots-again"; do
  "$python" "$plot" "$results" "$plots" || fail "plot.py exited $?"
done
for png in dwt-x-copy.png cpu-test.png pipeline-test.png; do
  [[ -s $work/plots/$png ]] || fail "plot.py wrote no $png"
  [[ $(head -c 8 "$work/plots/$png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$png is not a PNG"
  cmp -s "$work/plots/$png" "$work/plots-again/$png" || fail "$png differs when drawn twice from the same files"
  ! grep -qa 'matplotlib' "$work/plots/$png" || fail "$png names the software that drew it"
done
[[ -z $(find "$work/plots" -name '*.tmp') ]] || fail "temporary files left in the plots"
echo "plot.py: $(find "$work/plots" -name '*.png' | wc -l) PNG files"
