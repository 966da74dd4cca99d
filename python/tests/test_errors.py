# SPDX-License-Identifier: BSD-2-Clause
"""Bad arguments raise a clear Python error naming the cause; library failures raise
j2kfront.Error with the library's status."""
import numpy as np
import pytest

import j2kfront


def test_bad_images_are_refused_by_name():
    with pytest.raises(TypeError, match="float32"):
        j2kfront.transform(np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError, match="4-D"):
        j2kfront.transform(np.zeros((2, 2, 2, 2), np.uint8))
    with pytest.raises(ValueError, match="empty"):
        j2kfront.transform(np.zeros((0, 4), np.uint8))
    with pytest.raises(ValueError, match="precision="):
        j2kfront.transform(np.zeros((4, 4), np.int32))


def test_bad_settings_are_refused_by_name():
    image = np.zeros((8, 8), np.uint8)
    with pytest.raises(ValueError, match="wavelet must be one of"):
        j2kfront.transform(image, wavelet="9-7")
    with pytest.raises(ValueError, match="backend must be one of"):
        j2kfront.transform(image, backend="gpu")
    with pytest.raises(ValueError, match="tile_size"):
        j2kfront.transform(image, tile_size=16)
    with pytest.raises(ValueError, match="threads"):
        j2kfront.transform(image, threads=0)
    with pytest.raises(j2kfront.Error, match="level") as e:
        j2kfront.transform(image, levels=33)
    assert e.value.status == "J2K_INVALID_ARGUMENT" and isinstance(e.value, RuntimeError)
    with pytest.raises(j2kfront.Error, match="precision") as e:
        j2kfront.transform(image, precision=9)
    assert e.value.status == "J2K_INVALID_ARGUMENT"


def test_a_plan_refuses_another_shape_or_dtype():
    plan = j2kfront.Plan((8, 8, 3), np.uint8, backend="cpu")
    with pytest.raises(ValueError, match=r"\(8, 8, 3\)"):
        plan.run(np.zeros((8, 9, 3), np.uint8))
    with pytest.raises(TypeError, match="uint8"):
        plan.run(np.zeros((8, 8, 3), np.uint16))


def test_an_unavailable_backend_says_why():
    for name, (ok, why) in j2kfront.backends().items():
        if not ok:
            with pytest.raises(j2kfront.Error) as e:
                j2kfront.transform(np.zeros((8, 8), np.uint8), backend=name)
            assert e.value.status == "J2K_BACKEND_UNAVAILABLE"
