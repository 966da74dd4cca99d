#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""j2kfront from Python: a JPEG 2000 codestream (.j2k, .j2c) or JP2 file (.jp2) decoded, sample
for sample as opj_decompress decodes it, into a numpy array, and written as a binary PGM (one
component) or PPM (three), 8 or 16 bits a sample: the same file as examples/decompress.c and
`j2kfront decompress -i IN -o OUT.ppm` write.

    PYTHONPATH=build/python python3 examples/decompress.py IN.jp2 OUT.ppm
"""
import sys

import numpy as np

import j2kfront


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} IN.jp2|IN.j2k OUT.pgm|OUT.ppm", file=sys.stderr)
        return 2
    report = {}
    try:
        # (height, width) for one component, (height, width, components) for several of one
        # size; uint8 up to 8 bits, uint16 up to 16. A path, bytes or a file object.
        image = j2kfront.decompress(argv[1], backend="cpu", report=report)
    except j2kfront.Error as e:
        print(f"j2kfront: {e}", file=sys.stderr)
        return 1
    if isinstance(image, list):  # components of different sizes (subsampled), an array each
        print(f"{argv[2]}: PGM / PPM hold components of the image's size; this one has subsampled ones", file=sys.stderr)
        return 1
    channels = 1 if image.ndim == 2 else image.shape[2]
    print(f"{argv[1]}: {image.shape[1]} x {image.shape[0]}, components {channels}, {report['precision'][0]} bits")
    if channels not in (1, 3) or image.dtype not in (np.uint8, np.uint16):
        print(f"{argv[2]}: PGM / PPM hold one or three unsigned components of the image's size, up to 16 bits",
              file=sys.stderr)
        return 1
    precision = max(report["precision"])
    header = f"P{5 if channels == 1 else 6}\n{image.shape[1]} {image.shape[0]}\n{(1 << precision) - 1}\n"
    samples = image.astype(">u2" if precision > 8 else np.uint8)  # most significant byte first
    with open(argv[2], "wb") as f:
        f.write(header.encode("ascii"))
        f.write(samples.tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
