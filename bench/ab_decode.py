#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# A/B of two j2kfront builds' `decompress` on the same streams: one process a decode, the two
# builds in turns (base then new, then new then base, ...) after one untimed decode each, each
# output removed before its decode (as the benchmark does). Prints per stream the median wall
# time of each build, the median over the rounds of new over base (below 1: new is faster),
# and whether the two outputs are the same bytes. For one-CPU figures run it under taskset.
#   python3 bench/ab_decode.py BASE NEW [--rounds 9] [--threads 1] STREAM...
import argparse
import os
import subprocess
import sys
import tempfile
import time

from ab_turns import add_build_arguments, in_turns, report


def main():
    ap = argparse.ArgumentParser(description="A/B of two j2kfront builds' decompress, one process a decode, in turns.")
    add_build_arguments(ap, rounds=9)
    ap.add_argument("streams", nargs="+", help="codestreams or JP2/JPH files")
    ap.add_argument("--ext", default="pnm", help="output format by extension (pnm: PGM or PPM by components)")
    a = ap.parse_args()
    out_dir = tempfile.mkdtemp(prefix="ab_decode_")

    def decode(stream, build, tag):
        out = os.path.join(out_dir, f"{tag}_{os.path.basename(stream)}.{a.ext}")
        if os.path.exists(out):
            os.remove(out)
        start = time.perf_counter()
        subprocess.run([(a.base, a.new)[build], "decompress", "-i", stream, "-o", out, "--threads", str(a.threads), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, out

    times, outputs = in_turns(a.streams, decode, a.rounds)
    for s in a.streams:
        if not report(f"{os.path.basename(s):24s}", times[s], outputs[s]):
            sys.exit(1)


if __name__ == "__main__":
    main()
