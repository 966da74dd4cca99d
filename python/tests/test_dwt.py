# SPDX-License-Identifier: BSD-2-Clause
"""j2kfront.Dwt, dwt_forward and dwt_inverse: the DWT alone on 2-D arrays."""
import numpy as np
import pytest

import j2kfront
import reference

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("h,w,x0,y0,levels", [(40, 40, 0, 0, 3), (19, 27, 1, 3, 5), (1, 9, 1, 0, 2)])
def test_53_forward_equals_the_lifting_and_inverts_exactly(backend, h, w, x0, y0, levels):
    data = RNG.integers(-2000, 2000, size=(h, w)).astype(np.int32)
    kept = data.copy()
    dwt = j2kfront.Dwt(backend=backend)
    coefficients = dwt.forward(data, levels, origin=(x0, y0))
    np.testing.assert_array_equal(data, kept)  # the input is not touched
    np.testing.assert_array_equal(coefficients, reference.dwt53(data, x0, y0, levels))
    np.testing.assert_array_equal(dwt.inverse(coefficients, levels, origin=(x0, y0)), data)


def test_97_round_trip_is_close_and_every_backend_equals_the_cpu(backend):
    data = RNG.normal(0, 50, size=(48, 35)).astype(np.float32)
    coefficients = j2kfront.dwt_forward(data, 4, origin=(3, 1), backend=backend)
    assert coefficients.dtype == np.float32
    np.testing.assert_array_equal(coefficients, j2kfront.dwt_forward(data, 4, origin=(3, 1), backend="cpu"))
    back = j2kfront.dwt_inverse(coefficients, 4, origin=(3, 1), backend=backend)
    np.testing.assert_allclose(back, data, atol=1e-2)


def test_dwt_equals_the_plans_transform_of_signed_samples(backend):
    data = RNG.integers(-500, 500, size=(30, 41)).astype(np.int32)
    (tc,) = j2kfront.transform(data, precision=10, levels=3, image_origin=(2, 1), backend=backend)
    np.testing.assert_array_equal(tc.coefficients, j2kfront.dwt_forward(data, 3, origin=(2, 1), backend=backend))


def test_the_wavelet_follows_the_dtype_or_is_named():
    ints = RNG.integers(0, 100, size=(8, 8))
    with pytest.raises(TypeError, match="wavelet="):
        j2kfront.dwt_forward(ints.astype(np.int64))
    np.testing.assert_array_equal(j2kfront.dwt_forward(ints, wavelet="5/3"),
                                  j2kfront.dwt_forward(ints.astype(np.int32)))
    with pytest.raises(TypeError, match="5/3 takes integers"):
        j2kfront.dwt_forward(ints.astype(np.float32), wavelet="5/3")
    with pytest.raises(ValueError, match="int32 range"):
        j2kfront.dwt_forward(np.array([[2**40, 0]]), wavelet="5/3")
    assert j2kfront.dwt_forward(ints, wavelet="9/7").dtype == np.float32
