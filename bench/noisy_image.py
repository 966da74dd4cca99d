# SPDX-License-Identifier: BSD-2-Clause
# A 4096^2 test image for ad-hoc decoder timings: smooth gradients plus normal noise of sigma
# argv[2] (default 12), RGB 8-bit, or 16-bit grey with argv[3] == "grey16". Needs numpy.
#   python3 bench/noisy_image.py OUT.ppm [SIGMA] [grey16]
import sys
import numpy as np
n = 4096
sigma = float(sys.argv[2]) if len(sys.argv) > 2 else 12.0
grey = len(sys.argv) > 3 and sys.argv[3] == "grey16"
y, x = np.mgrid[0:n, 0:n].astype(np.float32)
rng = np.random.default_rng(7)
def plane(c, scale, hi):
    v = scale * (128 + 60 * np.sin(x / (97 + 13 * c)) * np.cos(y / (61 + 7 * c)) + rng.normal(0, sigma, (n, n)))
    return np.clip(v, 0, hi)
with open(sys.argv[1], "wb") as f:
    if grey:
        f.write(b"P5\n%d %d\n65535\n" % (n, n))
        f.write(plane(0, 256, 65535).astype(">u2").tobytes())
    else:
        img = np.stack([plane(c, 1, 255) for c in range(3)], axis=-1).astype(np.uint8)
        f.write(b"P6\n%d %d\n255\n" % (n, n))
        f.write(img.tobytes())
