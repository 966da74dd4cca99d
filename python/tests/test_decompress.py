# SPDX-License-Identifier: BSD-2-Clause
"""j2kfront.decompress: JPEG 2000 bytes back to numpy arrays. Lossless files (ours) come back
as the image given; any file as OpenJPEG's opj_decompress decodes it (when installed);
reduce, region, tile and components give their areas; bad files raise j2kfront.Error."""
import shutil
import subprocess

import numpy as np
import pytest

import j2kfront

RNG = np.random.default_rng(20261125)
HAVE_OPJ = shutil.which("opj_decompress") is not None
HAVE_OPJ_COMPRESS = shutil.which("opj_compress") is not None


@pytest.mark.parametrize("shape,dtype,precision,options", [
    ((45, 67, 3), np.uint8, 8, dict(tile_size=(32, 32), levels=3)),
    ((33, 50), np.uint16, 12, dict(progression="RPCL", precincts=[(16, 16)])),
    ((40, 40, 4), np.uint8, 8, dict(modes=["bypass", "vsc"], sop=True, eph=True, format="jp2")),
    ((1, 37), np.uint8, 8, dict(levels=0)),
    ((20, 30), np.int16, 10, dict(levels=3)),
])
def test_lossless_files_come_back_as_the_image(shape, dtype, precision, options, backend):
    lo = -(1 << (precision - 1)) if np.issubdtype(dtype, np.signedinteger) else 0
    image = RNG.integers(lo, lo + (1 << precision), size=shape).astype(dtype)
    data = j2kfront.compress(image, precision=precision, backend="cpu", **options)
    report = {}
    back = j2kfront.decompress(data, backend=backend, report=report)
    assert back.dtype == image.dtype and back.shape == image.shape
    np.testing.assert_array_equal(back, image)
    assert report["truncated"] is False and report["precision"][0] == precision
    assert report["jp2"] == (options.get("format") == "jp2")
    assert report["enum_cs"] == (16 if options.get("format") == "jp2" else 0)  # sRGB


@pytest.mark.skipif(not HAVE_OPJ, reason="opj_decompress is not installed (Debian: libopenjp2-tools)")
def test_lossy_files_decode_as_opj_decompress_does(tmp_path, backend):
    image = RNG.integers(0, 256, size=(70, 90, 3)).astype(np.uint8)
    data = j2kfront.compress(image, wavelet="9/7", rates=[30, 10], backend="cpu")
    j2k, raw = tmp_path / "in.j2k", tmp_path / "out.rawl"
    j2k.write_bytes(data)
    for flags, kwargs in [([], {}), (["-r", "1"], dict(reduce=1)), (["-l", "1"], dict(layers=1))]:
        subprocess.run(["opj_decompress", "-i", str(j2k), "-o", str(raw)] + flags, check=True, capture_output=True)
        ours = j2kfront.decompress(data, backend=backend, **kwargs)
        theirs = np.moveaxis(np.fromfile(raw, dtype=np.uint8).reshape(3, ours.shape[0], ours.shape[1]), 0, -1)
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.skipif(not HAVE_OPJ_COMPRESS, reason="opj_compress is not installed (Debian: libopenjp2-tools)")
def test_samples_of_more_than_16_bits_come_back_as_uint32(tmp_path, backend):
    image = RNG.integers(0, 1 << 20, size=(37, 53)).astype(np.uint32)
    pgx, j2k = tmp_path / "in.pgx", tmp_path / "in.j2k"
    pgx.write_bytes(b"PG ML + 20 53 37\n" + image.astype(">u4").tobytes())
    subprocess.run(["opj_compress", "-i", str(pgx), "-o", str(j2k)], check=True, capture_output=True)
    report = {}
    back = j2kfront.decompress(j2k.read_bytes(), backend=backend, report=report)
    assert back.dtype == np.uint32 and report["precision"][0] == 20
    np.testing.assert_array_equal(back, image)


def test_areas_components_and_errors():
    image = RNG.integers(0, 256, size=(64, 96, 3)).astype(np.uint8)
    data = j2kfront.compress(image, tile_size=(32, 32), backend="cpu", mct="off")
    assert j2kfront.decompress(data, reduce=2).shape == (16, 24, 3)
    np.testing.assert_array_equal(j2kfront.decompress(data, region=(10, 5, 40, 20)), image[5:20, 10:40])
    np.testing.assert_array_equal(j2kfront.decompress(data, tile=4), image[32:64, 32:64])
    np.testing.assert_array_equal(j2kfront.decompress(data, components=[2]), image[:, :, 2])
    with pytest.raises(j2kfront.Error, match="reduce"):
        j2kfront.decompress(data, reduce=9)
    with pytest.raises(j2kfront.Error, match="component 3"):
        j2kfront.decompress(data, components=[3])
    with pytest.raises(j2kfront.Error):
        j2kfront.decompress(b"not a codestream")
    with pytest.raises(ValueError, match="backend"):
        j2kfront.decompress(data, backend="metal")
    cut = data[:len(data) // 2]
    with pytest.raises(j2kfront.Error):
        j2kfront.decompress(cut)
    report = {}
    assert j2kfront.decompress(cut, allow_partial=True, report=report).shape == image.shape
    assert report["truncated"] is True


def test_subsampled_chroma_converts_to_rgb_when_asked():
    data = j2kfront.compress(RNG.integers(0, 256, size=(32, 48, 3)).astype(np.uint8), backend="cpu", mct="off")
    plain = j2kfront.decompress(data, convert_colour=True)  # nothing subsampled: as coded
    np.testing.assert_array_equal(plain, j2kfront.decompress(data))
