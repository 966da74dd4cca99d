# SPDX-License-Identifier: BSD-2-Clause
"""j2kfront.transform and Plan: the front stage from numpy arrays, against numpy references
(reference.py) and, for the 9/7 on a GPU backend, against the CPU backend bit for bit."""
import numpy as np
import pytest

import j2kfront
import reference

RNG = np.random.default_rng(20261123)


def test_version_and_backends():
    assert j2kfront.__version__.count(".") == 2
    available = j2kfront.backends()
    assert set(available) == {"cpu", "cuda", "opencl"}
    assert available["cpu"] == (True, "")
    for ok, why in available.values():
        assert ok or why  # an unavailable backend says why


@pytest.mark.parametrize("dtype,precision,signed", [(np.uint8, 8, False), (np.uint16, 12, False),
                                                    (np.int16, 16, True), (np.int32, 10, True)])
def test_level0_is_the_dc_shift_and_rct(backend, dtype, precision, signed):
    lo, hi = (-(1 << (precision - 1)), 1 << (precision - 1)) if signed else (0, 1 << precision)
    rgb = RNG.integers(lo, hi, size=(37, 53, 3)).astype(dtype)
    r = j2kfront.transform(rgb, levels=0, backend=backend, precision=precision)
    assert r.backend == backend and r.mct and len(r) == 3
    for c, want in enumerate(reference.dc_shift_rct(rgb, precision, signed)):
        got = r.component(c)
        assert got.coefficients.dtype == np.int32 and got.coefficients.shape == (37, 53)
        np.testing.assert_array_equal(got.coefficients, want)


# (height, width, x0, y0, levels): odd sizes, odd origins, 1-pixel rows and columns, and more
# levels than the size allows.
SHAPES = [(64, 64, 0, 0, 3), (37, 53, 3, 5, 4), (1, 29, 7, 1, 3), (23, 1, 2, 9, 5),
          (1, 1, 1, 1, 2), (5, 6, 1, 0, 8), (17, 40, 0, 3, 32)]


@pytest.mark.parametrize("h,w,x0,y0,levels", SHAPES)
def test_53_equals_the_standards_lifting(backend, h, w, x0, y0, levels):
    gray = RNG.integers(0, 256, size=(h, w)).astype(np.uint8)
    r = j2kfront.transform(gray, levels=levels, image_origin=(x0, y0), backend=backend)
    (tc,) = r
    assert tc.rect == (x0, y0, x0 + w, y0 + h)
    want = reference.dwt53(gray.astype(np.int64) - 128, x0, y0, levels)
    np.testing.assert_array_equal(tc.coefficients, want)


@pytest.mark.parametrize("h,w,x0,y0,levels", SHAPES)
def test_bands_are_views_in_the_standards_layout(h, w, x0, y0, levels):
    gray = RNG.integers(0, 256, size=(h, w)).astype(np.uint8)
    (tc,) = j2kfront.transform(gray, levels=levels, image_origin=(x0, y0), backend="cpu")
    sizes = reference.band_sizes(x0, y0, x0 + w, y0 + h, levels)
    assert tc.levels == levels and len(tc.bands) == len(sizes)
    covered = np.zeros(tc.coefficients.shape, np.int32)
    for band, (kind, level, bw, bh) in zip(tc.bands, sizes):
        assert (band.type, band.level) == (kind, level)
        assert band.coefficients.shape == (bh, bw)
        assert band.rect[2] - band.rect[0] == bw and band.rect[3] - band.rect[1] == bh
        if band.coefficients.size:
            assert np.shares_memory(band.coefficients, tc.coefficients)
        covered[_where(band.coefficients, tc.coefficients)] += 1
    assert (covered == 1).all()  # the bands tile the array, without overlap
    assert tc.bands[0].coefficients.base is not None


def _where(view, whole):
    """The slice of `whole` that `view` (a 2-D view into it) covers."""
    if view.size == 0:
        return (slice(0, 0), slice(0, 0))
    offset = (view.__array_interface__["data"][0] - whole.__array_interface__["data"][0]) // whole.itemsize
    row, col = divmod(offset, whole.shape[1])
    return (slice(row, row + view.shape[0]), slice(col, col + view.shape[1]))


def test_tiles_equal_their_own_images(backend):
    rgb = RNG.integers(0, 256, size=(70, 90, 3)).astype(np.uint8)
    r = j2kfront.transform(rgb, tile_size=(32, 24), tile_origin=(3, 2), image_origin=(5, 4),
                           levels=3, backend=backend)
    assert r.tiles == (3, 3) and len(r) == 3 * 9  # x: ceil((95 - 3) / 32), y: ceil((74 - 2) / 24)
    for tc in r:
        x0, y0, x1, y1 = tc.rect
        crop = rgb[y0 - 4:y1 - 4, x0 - 5:x1 - 5]
        whole = j2kfront.transform(crop, image_origin=(x0, y0), levels=3, backend="cpu")
        np.testing.assert_array_equal(tc.coefficients, whole.component(tc.component).coefficients)


def test_strided_fortran_and_byte_swapped_inputs_read_as_their_copies(backend):
    big = RNG.integers(0, 4096, size=(60, 80, 4)).astype(np.uint16)
    for image in (big[5:50:2, 3::3, :3], np.asfortranarray(big[..., :3]),
                  big[..., :3].astype(">u2"), big[::-1, :, :3]):
        got = j2kfront.transform(image, precision=12, levels=2, backend=backend)
        want = j2kfront.transform(np.ascontiguousarray(image, dtype=np.uint16), precision=12,
                                  levels=2, backend="cpu")
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.coefficients, w.coefficients)


def test_97_on_every_backend_equals_the_cpu_and_approaches_the_lifting(backend):
    rgb = RNG.integers(0, 256, size=(45, 61, 3)).astype(np.uint8)
    got = j2kfront.transform(rgb, wavelet="9/7", levels=4, backend=backend)
    cpu = j2kfront.transform(rgb, wavelet="9/7", levels=4, backend="cpu")
    for g, c in zip(got, cpu):
        assert g.coefficients.dtype == np.float32
        np.testing.assert_array_equal(g.coefficients, c.coefficients)
    # The ICT's Y at level 0 is a weighted sum of the shifted samples (G.2.2).
    (y, _, _) = j2kfront.transform(rgb, wavelet="9/7", levels=0, backend=backend)
    x = rgb.astype(np.float64) - 128
    want = 0.299 * x[..., 0] + 0.587 * x[..., 1] + 0.114 * x[..., 2]
    np.testing.assert_allclose(y.coefficients, want, atol=1e-3)


def test_narrow_output_is_int16_with_the_same_values(backend):
    gray = RNG.integers(0, 4096, size=(33, 47)).astype(np.uint16)
    wide = j2kfront.transform(gray, precision=12, backend=backend)
    narrow = j2kfront.transform(gray, precision=12, backend=backend, narrow_output=True)
    assert narrow[0].coefficients.dtype == np.int16
    np.testing.assert_array_equal(narrow[0].coefficients, wide[0].coefficients)


def test_a_plan_runs_many_images_and_gives_fresh_arrays(backend):
    plan = j2kfront.Plan((31, 33, 3), np.uint8, levels=2, backend=backend)
    assert plan.backend == backend and plan.description
    images = [RNG.integers(0, 256, size=(31, 33, 3)).astype(np.uint8) for _ in range(3)]
    results = [plan.run(i) for i in images]
    for image, result in zip(images, results):  # earlier results are not overwritten
        want = j2kfront.transform(image, levels=2, backend="cpu")
        for g, w in zip(result, want):
            np.testing.assert_array_equal(g.coefficients, w.coefficients)
