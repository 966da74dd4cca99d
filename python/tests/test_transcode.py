# SPDX-License-Identifier: BSD-2-Clause
# j2kfront.transcode: EBCOT <-> HT without decoding, the same image back.
import numpy as np
import pytest

import j2kfront


def _image(seed=1, shape=(61, 97, 3)):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:shape[0], 0:shape[1]]
    smooth = ((x * 3 + y * 5) % 256).astype(np.uint8)
    img = np.stack([smooth] * shape[2], axis=-1)
    noise = rng.integers(0, 256, size=shape, dtype=np.uint8)
    mask = rng.random(shape) < 0.3
    img[mask] = noise[mask]
    return img


@pytest.mark.parametrize("wavelet,rates", [("5/3", None), ("9/7", [30, 10])])
def test_there_and_back(wavelet, rates):
    img = _image()
    j2k = j2kfront.compress(img, wavelet=wavelet, rates=rates, backend="cpu")
    reference = j2kfront.decompress(j2k, backend="cpu")
    report = {}
    jhc = j2kfront.transcode(j2k, coder="ht", report=report)
    assert report["layers"] == (len(rates) if rates else 1)
    assert report["blocks"] > 0
    assert j2kfront.info(jhc)["components"][0]["modes"] & 64
    assert (j2kfront.decompress(jhc, backend="cpu") == reference).all()
    back = j2kfront.transcode(jhc, coder="ebcot", format="jp2")
    assert back[20:24] == b"jp2 "
    assert (j2kfront.decompress(back, backend="cpu") == reference).all()
    if rates is None:
        assert (reference == img).all()


def test_errors():
    j2k = j2kfront.compress(_image(), backend="cpu")
    with pytest.raises(j2kfront.Error):
        j2kfront.transcode(j2k[: len(j2k) // 2])
    with pytest.raises(ValueError):
        j2kfront.transcode(j2k, coder="mq")
    with pytest.raises(ValueError):
        j2kfront.transcode(j2k, format="png")
