# SPDX-License-Identifier: BSD-2-Clause
"""Plain numpy statements of what the front stage computes (ISO/IEC 15444-1 Annexes F and G),
written from the standard, independent of the library: the oracles of the Python tests."""
import numpy as np


def _reflect(i: int, lo: int, hi: int) -> int:
    """Canvas position i folded into [lo, hi) by symmetric extension about the end samples (F.3.7)."""
    if hi - lo == 1:
        return lo
    period = 2 * (hi - lo - 1)
    k = (i - lo) % period
    return lo + (k if k < hi - lo else period - k)


def lift53(x: np.ndarray, i0: int) -> np.ndarray:
    """The 5/3 forward on one line of canvas positions i0 .. i0+len-1: lowpass (even positions)
    first, then highpass (odd positions), as OpenJPEG lays them out."""
    n = len(x)
    if n == 0:
        return x.copy()
    if n == 1:
        return x * 2 if i0 % 2 else x.copy()
    i1 = i0 + n
    X = {i: int(x[i - i0]) for i in range(i0, i1)}
    ext = lambda i: X[_reflect(i, i0, i1)]
    Y = {}
    for i in range(i0, i1):
        if i % 2:
            Y[i] = X[i] - (ext(i - 1) + ext(i + 1)) // 2
    yo = lambda i: Y[_reflect(i, i0, i1)]
    for i in range(i0, i1):
        if i % 2 == 0:
            Y[i] = X[i] + (yo(i - 1) + yo(i + 1) + 2) // 4
    low = [Y[i] for i in range(i0, i1) if i % 2 == 0]
    high = [Y[i] for i in range(i0, i1) if i % 2]
    return np.array(low + high, dtype=np.int64)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def dwt53(tile: np.ndarray, x0: int, y0: int, levels: int) -> np.ndarray:
    """The 5/3 forward, `levels` levels, of a tile-component whose top-left sample is at canvas
    position (x0, y0): columns then rows at each level (F.4.2), on the LL of the level before."""
    a = tile.astype(np.int64).copy()
    h, w = a.shape
    for k in range(levels):
        rx0, ry0 = _ceil_div(x0, 2**k), _ceil_div(y0, 2**k)
        rx1, ry1 = _ceil_div(x0 + w, 2**k), _ceil_div(y0 + h, 2**k)
        rw, rh = rx1 - rx0, ry1 - ry0
        if rw == 0 or rh == 0:
            break
        for c in range(rw):
            a[:rh, c] = lift53(a[:rh, c], ry0)
        for r in range(rh):
            a[r, :rw] = lift53(a[r, :rw], rx0)
    return a


def dc_shift_rct(rgb: np.ndarray, precision: int, signed: bool) -> list:
    """DC level shift (G.1.2) and the RCT (G.2.1) of an H x W x 3 image: Y, Cb (B-G), Cr (R-G)."""
    x = rgb.astype(np.int64)
    if not signed:
        x = x - (1 << (precision - 1))
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    return [(r + 2 * g + b) >> 2, b - g, r - g]


def band_sizes(x0: int, y0: int, x1: int, y1: int, levels: int):
    """(type, level, width, height) of each band of a tile-component, LL first, then HL, LH, HH
    from the coarsest level (B-15)."""
    def size(nb, xo, yo):
        return (_ceil_div(x1 - 2**(nb - 1) * xo, 2**nb) - _ceil_div(x0 - 2**(nb - 1) * xo, 2**nb),
                _ceil_div(y1 - 2**(nb - 1) * yo, 2**nb) - _ceil_div(y0 - 2**(nb - 1) * yo, 2**nb))
    ll = (_ceil_div(x1, 2**levels) - _ceil_div(x0, 2**levels), _ceil_div(y1, 2**levels) - _ceil_div(y0, 2**levels))
    out = [("LL", levels) + ll]
    for nb in range(levels, 0, -1):
        out.append(("HL", nb) + size(nb, 1, 0))
        out.append(("LH", nb) + size(nb, 0, 1))
        out.append(("HH", nb) + size(nb, 1, 1))
    return out
