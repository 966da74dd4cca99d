#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark scripts' large image: an 8-bit RGB PPM made SIZE x SIZE from a 512 x 512 one
(each pixel repeated SIZE/512 times each way), the low two bits of every sample random (a
camera's noise, so that it codes about as a photograph does, 2.8:1 lossless). Plain Python,
no numpy.

    noisy_upscale.py SOURCE.ppm OUT.ppm SIZE
"""
import os
import sys


def main() -> None:
    source, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    magic, w, h, maxval, pixels = open(source, 'rb').read().split(maxsplit=4)
    w, h = int(w), int(h)
    if magic != b'P6' or maxval != b'255' or size % w or size % h:
        sys.exit(f'noisy_upscale.py: SIZE must be a multiple of {w} ({source} is {w} x {h} 8-bit RGB)')
    low_bits = bytes(i & 3 for i in range(256))
    with open(out, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (size, size))
        for y in range(h):
            row = pixels[y * w * 3:(y + 1) * w * 3]
            wide = b''.join(row[x * 3:x * 3 + 3] * (size // w) for x in range(w))
            base = int.from_bytes(wide, 'big')
            for _ in range(size // h):
                noise = int.from_bytes(os.urandom(len(wide)).translate(low_bits), 'big')
                f.write((base ^ noise).to_bytes(len(wide), 'big'))


if __name__ == '__main__':
    main()
