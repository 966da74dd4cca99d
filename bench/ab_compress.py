#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# A/B of two j2kfront builds' `compress` on the same images: ab_decode.py's method (one process
# a compress, the two builds in turns after one untimed compress each, each output removed
# before its compress). Prints per image and setting the median wall time of each build, the
# median over the rounds of new over base (below 1: new is faster), and whether the two
# codestreams are the same bytes. For one-CPU figures run it under taskset.
#   python3 bench/ab_compress.py BASE NEW [--rounds 7] [--threads 1] [--setting "--ht" ...] IMAGE...
import argparse
import filecmp
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description="A/B of two j2kfront builds' compress, one process a compress, in turns.")
    ap.add_argument("base", help="the j2kfront binary to compare against")
    ap.add_argument("new", help="the j2kfront binary under test")
    ap.add_argument("images", nargs="+", help="PGM/PPM/TIFF/PNG images")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--setting", action="append",
                    help="compress options, one setting a flag (default: --ht, and --ht -I --qstep 0.007)")
    ap.add_argument("--ext", default="j2c", help="output format by extension")
    a = ap.parse_args()
    settings = a.setting or ["--ht", "--ht -I --qstep 0.007"]
    out_dir = tempfile.mkdtemp(prefix="ab_compress_")

    def compress(binary, tag, image, setting):
        out = os.path.join(out_dir, f"{tag}.{a.ext}")
        if os.path.exists(out):
            os.remove(out)
        start = time.perf_counter()
        subprocess.run([binary, "compress", "-i", image, "-o", out, "--threads", str(a.threads), "--quiet"] +
                       shlex.split(setting), check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, out

    for image in a.images:
        for setting in settings:
            compress(a.base, "base", image, setting)
            compress(a.new, "new", image, setting)
            base, new = [], []
            for r in range(a.rounds):
                order = [(base, a.base, "base"), (new, a.new, "new")]
                for times, binary, tag in order if r % 2 == 0 else reversed(order):
                    times.append(compress(binary, tag, image, setting)[0])
            ratio = statistics.median(n / b for b, n in zip(base, new))
            same = filecmp.cmp(os.path.join(out_dir, f"base.{a.ext}"), os.path.join(out_dir, f"new.{a.ext}"), shallow=False)
            print(f"{os.path.basename(image):20s} {setting:24s} base {statistics.median(base) * 1e3:8.1f} ms"
                  f"  new {statistics.median(new) * 1e3:8.1f} ms  new/base {ratio:.3f}  {'same bytes' if same else 'OUTPUTS DIFFER'}")
            if not same:
                sys.exit(1)


if __name__ == "__main__":
    main()
