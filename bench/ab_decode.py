#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# A/B of two j2kfront builds' `decompress` on the same streams: one process a decode, the two
# builds in turns (base then new, then new then base, ...) after one untimed decode each, each
# output removed before its decode (as the benchmark does). Prints per stream the median wall
# time of each build, the median over the rounds of new over base (below 1: new is faster),
# and whether the two outputs are the same bytes. For one-CPU figures run it under taskset.
#   python3 bench/ab_decode.py BASE NEW [--rounds 9] [--threads 1] STREAM...
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description="A/B of two j2kfront builds' decompress, one process a decode, in turns.")
    ap.add_argument("base", help="the j2kfront binary to compare against")
    ap.add_argument("new", help="the j2kfront binary under test")
    ap.add_argument("streams", nargs="+", help="codestreams or JP2/JPH files")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ext", default="pnm", help="output format by extension (pnm: PGM or PPM by components)")
    a = ap.parse_args()
    out_dir = tempfile.mkdtemp(prefix="ab_decode_")

    def decode(binary, tag, stream):
        out = os.path.join(out_dir, f"{tag}_{os.path.basename(stream)}.{a.ext}")
        if os.path.exists(out):
            os.remove(out)
        start = time.perf_counter()
        subprocess.run([binary, "decompress", "-i", stream, "-o", out, "--threads", str(a.threads), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, out

    for stream in a.streams:
        decode(a.base, "base", stream)
        decode(a.new, "new", stream)
    times = {s: ([], []) for s in a.streams}
    outputs = {}
    for r in range(a.rounds):
        for s in a.streams:
            order = [(0, a.base, "base"), (1, a.new, "new")]
            for k, binary, tag in order if r % 2 == 0 else reversed(order):
                t, out = decode(binary, tag, s)
                times[s][k].append(t)
                outputs[(s, k)] = out
    for s in a.streams:
        base, new = times[s]
        ratio = statistics.median(n / b for b, n in zip(base, new))
        same = filecmp.cmp(outputs[(s, 0)], outputs[(s, 1)], shallow=False)
        print(f"{os.path.basename(s):24s} base {statistics.median(base) * 1e3:8.1f} ms  new {statistics.median(new) * 1e3:8.1f} ms"
              f"  new/base {ratio:.3f}  {'same bytes' if same else 'OUTPUTS DIFFER'}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
