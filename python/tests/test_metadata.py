# SPDX-License-Identifier: BSD-2-Clause
"""A JP2 file's metadata through the module: compress(format='jp2') writes an ICC profile, a
capture resolution, XMP, Exif and other boxes, and decompress(report=...) gives them back (the
profile unapplied with keep_icc); a bare codestream has no place for them."""
import numpy as np
import pytest

import j2kfront


def icc_profile(space: bytes, extra: int = 64) -> bytes:
    """An ICC header (size, colour space, 'acsp') and no tags: what the encoder checks."""
    size = 132 + extra
    header = bytearray(128)
    header[0:4] = size.to_bytes(4, "big")
    header[16:20] = space
    header[36:40] = b"acsp"
    return bytes(header) + (0).to_bytes(4, "big") + bytes(range(extra))


def test_metadata_comes_back_from_a_jp2_file(backend):
    image = (np.arange(24 * 32 * 3) % 251).astype(np.uint8).reshape(24, 32, 3)
    profile = icc_profile(b"RGB ")
    xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>'
    exif = b"II*\0\x08\0\0\0\0\0\0\0\0\0"
    data = j2kfront.compress(image, format="jp2", levels=3, icc_profile=profile, resolution=(11811, 5000),
                             xmp=xmp, exif=exif, boxes=[("xml ", b"<a/>")])
    for keep in (False, True):
        report = {}
        decoded = j2kfront.decompress(data, backend=backend, convert_colour=keep, keep_icc=keep, report=report)
        np.testing.assert_array_equal(decoded, image)
        assert report["icc_profile"] == profile
        assert report["icc_applied"] is False
        assert report["resolution"] == (11811, 5000)
        assert report["xmp"] == xmp.encode()
        assert report["exif"] == exif
        assert [t for t, _ in report["boxes"]] == ["uuid", "uuid", "xml "]
        assert report["boxes"][0][1][:16] == j2kfront.XMP_UUID
        assert report["boxes"][2][1] == b"<a/>"
    report = {}
    j2kfront.decompress(data, reduce=1, report=report)
    assert report["resolution"] == (11811 / 2, 2500)

    report = {}
    j2kfront.decompress(j2kfront.compress(image, levels=3), report=report)
    assert report["icc_profile"] is None and report["resolution"] is None and report["boxes"] == []
    assert report["xmp"] is None and report["exif"] is None


def test_display_resolution_comes_back_from_a_jp2_file():
    image = np.zeros((16, 24), np.uint8)
    data = j2kfront.compress(image, format="jp2", levels=2, display_resolution=(300 / 0.0254, 2000))
    report = {}
    j2kfront.decompress(data, report=report)
    assert report["display_resolution"] == pytest.approx((300 / 0.0254, 2000), rel=1e-9)
    assert report["resolution"] == pytest.approx((300 / 0.0254, 2000), rel=1e-9)  # no capture resolution
    both = j2kfront.compress(image, format="jp2", levels=2, resolution=(5000, 5000), display_resolution=(100, 200))
    report = {}
    j2kfront.decompress(both, reduce=1, report=report)
    assert report["resolution"] == (2500, 2500)
    assert report["display_resolution"] == (50, 100)
    with pytest.raises(j2kfront.Error, match="display_resolution_x and display_resolution_y"):
        j2kfront.compress(image, format="jp2", display_resolution=(0, 72))
    with pytest.raises(j2kfront.Error, match="beyond what a Resolution box holds"):
        j2kfront.compress(image, format="jp2", display_resolution=(1e200, 1e200))
    with pytest.raises(j2kfront.Error, match="need J2K_FORMAT_JP2"):
        j2kfront.compress(image, display_resolution=(72, 72))


def test_metadata_is_refused_where_it_has_no_place():
    image = np.zeros((16, 16), np.uint8)
    with pytest.raises(j2kfront.Error, match="need J2K_FORMAT_JP2"):
        j2kfront.compress(image, icc_profile=icc_profile(b"GRAY"))
    with pytest.raises(j2kfront.Error, match="a 'RGB ' profile, and the image has 1 component"):
        j2kfront.compress(image, format="jp2", icc_profile=icc_profile(b"RGB "))
    with pytest.raises(j2kfront.Error, match="16-byte UUID"):
        j2kfront.compress(image, format="jp2", boxes=[("uuid", b"short")])
    with pytest.raises(ValueError, match="four characters"):
        j2kfront.compress(image, format="jp2", boxes=[("xml", b"<a/>")])
