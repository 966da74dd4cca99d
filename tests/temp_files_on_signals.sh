#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A run ended by a signal leaves no temporary file and its input as it was (tools/temp_files.hpp):
#  1. `transform -` waiting on standard input, ended by SIGINT, SIGTERM, SIGHUP and SIGPIPE:
#     no j2kfront-stdin-* copy left in $TMPDIR (it is unlinked as soon as it is created);
#  2. compress and decompress whose output passes `ulimit -f` (SIGXFSZ): no .*.partial file
#     and no output in the output directory;
#  3. decompress stopped while its .partial file is there (SIGSTOP as soon as one shows up),
#     then sent SIGINT, SIGTERM or SIGHUP: the file is gone once the run has died.
# Each run must die of its signal (exit status 128 + its number), as without the handler.
#   temp_files_on_signals.sh J2KFRONT DATA_DIR WORK_DIR
set -uo pipefail
cli=$1 data=$2 work=$3
rm -rf "$work"
mkdir -p "$work/tmp" "$work/out"
pid=
fail() {
  echo "FAIL: $*"
  exit 1
}
# A run this script started is never left behind, whatever ends the script.
trap '[[ -n $pid ]] && kill -s KILL "$pid" 2>/dev/null' EXIT
signum() { kill -l "$1"; }
if ! env --default-signal=INT true 2>/dev/null || [[ ! -d /proc/self/fd ]]; then
  echo "SKIP: needs env --default-signal (coreutils 8.31 or later) and /proc"
  exit 77
fi
cp "$data/astronaut.ppm" "$work/in.ppm"
# env --default-signal: a background job of a script starts with SIGINT ignored, which the CLI
# (as it should) would keep ignoring.
# (An array, not a function: `$!` must be the CLI's own process.)
run=(env --default-signal=INT,TERM,HUP,PIPE,XFSZ "$cli")

# 1. Standard input held open (a FIFO this script keeps open for writing) after 100 KB.
fifo=$work/stdin.fifo
mkfifo "$fifo"
for sig in INT TERM HUP PIPE; do
  rm -rf "${work:?}/tmp/"* "$work/out/"*
  exec 3<>"$fifo"
  TMPDIR=$work/tmp "${run[@]}" transform - -o "$work/out/s" --quiet <"$fifo" >"$work/log" 2>&1 &
  pid=$!
  head -c 100000 "$work/in.ppm" >&3
  # Until the copy is open (a file of $TMPDIR among its descriptors, named or unlinked).
  for _ in $(seq 1000); do
    ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "$work/tmp/j2kfront-stdin-" && break
    sleep 0.01
  done
  ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "$work/tmp/j2kfront-stdin-" || fail "$sig: transform - never opened its copy"
  kill -s "$sig" "$pid"
  wait "$pid"
  status=$?
  pid=
  exec 3>&-
  [[ $status -eq $((128 + $(signum "$sig"))) ]] || fail "$sig: transform - exited $status: $(cat "$work/log")"
  left=$(ls -A "$work/tmp")
  [[ -z $left ]] || fail "$sig: transform - left $left in \$TMPDIR"
done

# 2. Outputs past the file size limit (64 KiB; the image's are 500 KiB and more).
"${run[@]}" compress -i "$work/in.ppm" -o "$work/a.j2k" --quiet || fail "compress without a limit exited $?"
cp "$work/a.j2k" "$work/a.copy"
check_xfsz() {
  local what=$1 status=$2 output=$3
  [[ $status -eq $((128 + $(signum XFSZ))) ]] || fail "$what under ulimit -f exited $status"
  left=$(ls -A "$work/out")
  [[ -z $left ]] || fail "$what under ulimit -f left $left"
  [[ ! -e $output ]] || fail "$what under ulimit -f left $output"
  cmp -s "$work/in.ppm" "$data/astronaut.ppm" || fail "$what changed its input"
}
rm -rf "${work:?}/out/"*
(ulimit -f 64 && exec env --default-signal=XFSZ "$cli" compress -i "$work/in.ppm" -o "$work/out/b.j2k" --quiet)
check_xfsz compress $? "$work/out/b.j2k"
(ulimit -f 64 && exec env --default-signal=XFSZ "$cli" decompress -i "$work/a.j2k" -o "$work/out/b.ppm" --quiet)
check_xfsz decompress $? "$work/out/b.ppm"
cmp -s "$work/a.j2k" "$work/a.copy" || fail "decompress changed its input"

# 3. A 2400x2400 RGB output (17 MB; a codestream of a few hundred bytes): a few milliseconds of
# writing, in which this loop stops the run. Five tries per signal before it gives up.
{
  printf 'P6\n2400 2400\n255\n'
  head -c $((2400 * 2400 * 3)) /dev/zero
} >"$work/big.ppm"
"${run[@]}" compress -i "$work/big.ppm" -o "$work/big.j2k" --quiet || fail "compress of the big image exited $?"
for sig in INT TERM HUP; do
  caught=
  for _ in 1 2 3 4 5; do
    rm -rf "${work:?}/out/"*
    "${run[@]}" decompress -i "$work/big.j2k" -o "$work/out/big.ppm" --quiet >"$work/log" 2>&1 &
    pid=$!
    partial=
    while kill -0 "$pid" 2>/dev/null; do
      partial=$(compgen -G "$work/out/.*.partial") && break
    done
    if [[ -n $partial ]] && kill -s STOP "$pid" 2>/dev/null && [[ -e $partial ]]; then
      kill -s "$sig" "$pid"
      kill -s CONT "$pid"
      wait "$pid"
      status=$?
      pid=
      [[ $status -eq $((128 + $(signum "$sig"))) ]] || fail "$sig: decompress exited $status: $(cat "$work/log")"
      left=$(ls -A "$work/out")
      [[ -z $left ]] || fail "$sig: decompress left $left"
      caught=1
      break
    fi
    kill -s CONT "$pid" 2>/dev/null
    wait "$pid"
    pid=
  done
  [[ -n $caught ]] || fail "$sig: no try stopped decompress while its .partial file was there"
done
echo "PASS"
