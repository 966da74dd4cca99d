#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# A/B of two j2kfront builds' `compress` on the same images: ab_decode.py's method (one process
# a compress, the two builds in turns after one untimed compress each, each output removed
# before its compress; bench/ab_turns.py). Prints per image and setting the median wall time of
# each build, the median over the rounds of new over base (below 1: new is faster), and whether
# the two codestreams are the same bytes. For one-CPU figures run it under taskset.
#   python3 bench/ab_compress.py BASE NEW [--rounds 7] [--threads 1] [--setting "--ht" ...] IMAGE...
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

from ab_turns import add_build_arguments, in_turns, report


def main():
    ap = argparse.ArgumentParser(description="A/B of two j2kfront builds' compress, one process a compress, in turns.")
    add_build_arguments(ap, rounds=7)
    ap.add_argument("images", nargs="+", help="PGM/PPM/TIFF/PNG images")
    ap.add_argument("--setting", action="append",
                    help="compress options, one setting a flag (default: --ht, and --ht -I --qstep 0.007)")
    ap.add_argument("--ext", default="j2c", help="output format by extension")
    a = ap.parse_args()
    settings = a.setting or ["--ht", "--ht -I --qstep 0.007"]
    out_dir = tempfile.mkdtemp(prefix="ab_compress_")

    jobs = [(image, setting) for image in a.images for setting in settings]

    def compress(job, build, tag):
        image, setting = jobs[job]
        out = os.path.join(out_dir, f"{tag}_{job}.{a.ext}")
        if os.path.exists(out):
            os.remove(out)
        start = time.perf_counter()
        subprocess.run([(a.base, a.new)[build], "compress", "-i", image, "-o", out, "--threads", str(a.threads), "--quiet"] +
                       shlex.split(setting), check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, out

    times, outputs = in_turns(range(len(jobs)), compress, a.rounds)
    for job, (image, setting) in enumerate(jobs):
        if not report(f"{os.path.basename(image):20s} {setting:24s}", times[job], outputs[job]):
            sys.exit(1)


if __name__ == "__main__":
    main()
