# SPDX-License-Identifier: BSD-2-Clause
"""j2kfront.compress and Encoder: JPEG 2000 files from numpy arrays. Lossless files decode in
OpenJPEG's opj_decompress (when installed) to exactly the samples given; on a GPU backend the
files are byte for byte the CPU backend's."""
import math
import shutil
import subprocess

import numpy as np
import pytest

import j2kfront

RNG = np.random.default_rng(20261124)
HAVE_OPJ = shutil.which("opj_decompress") is not None


def decode(data: bytes, tmp_path, shape, dtype) -> np.ndarray:
    """opj_decompress's samples of `data`, as an array of `shape` (planar .rawl output)."""
    j2k, raw = tmp_path / "in.j2k", tmp_path / "out.rawl"
    j2k.write_bytes(data)
    subprocess.run(["opj_decompress", "-i", str(j2k), "-o", str(raw)], check=True, capture_output=True)
    planes = np.fromfile(raw, dtype=np.dtype(dtype).newbyteorder("<"))
    channels = shape[2] if len(shape) == 3 else 1
    planes = planes.reshape(channels, shape[0], shape[1])
    return np.moveaxis(planes, 0, -1).reshape(shape)


@pytest.mark.skipif(not HAVE_OPJ, reason="opj_decompress is not installed (Debian: libopenjp2-tools)")
@pytest.mark.parametrize("shape,dtype,precision,options", [
    ((45, 67, 3), np.uint8, 8, dict(tile_size=(32, 32), levels=3)),
    ((33, 50), np.uint16, 12, dict(progression="RPCL", precincts=[(16, 16)])),
    ((40, 40, 4), np.uint8, 8, dict(modes=["bypass", "vsc"], sop=True, eph=True, format="jp2")),
    ((1, 37), np.uint8, 8, dict(levels=0)),
    ((61, 83, 4), np.uint8, 8, dict(levels=[4, 4, 4, 1], progression="CPRL", precincts=[(16, 16)])),
])
def test_lossless_files_decode_to_the_samples(tmp_path, backend, shape, dtype, precision, options):
    image = RNG.integers(0, 1 << precision, size=shape).astype(dtype)
    data = j2kfront.compress(image, precision=precision, backend=backend, **options)
    assert data[:2] == b"\xff\x4f" or data[4:8] == b"jP  "
    if options.get("format") == "jp2":
        (tmp_path / "in.jp2").write_bytes(data)
        subprocess.run(["opj_decompress", "-i", str(tmp_path / "in.jp2"), "-o", str(tmp_path / "out.rawl")],
                       check=True, capture_output=True)
        got = np.moveaxis(np.fromfile(tmp_path / "out.rawl", np.uint8).reshape(shape[2], *shape[:2]), 0, -1)
    else:
        got = decode(data, tmp_path, shape, dtype)
    np.testing.assert_array_equal(got, image)


@pytest.mark.skipif(not HAVE_OPJ, reason="opj_decompress is not installed (Debian: libopenjp2-tools)")
def test_progression_changes_and_a_region_of_interest_decode_to_the_samples(tmp_path):
    """poc= and roi=, as opj_compress -POC and -ROI: the changes in their tiles' headers (a
    tile-part each), RGN in the main header; opj_decompress gives back the samples."""
    image = RNG.integers(0, 256, size=(70, 90, 3)).astype(np.uint8)
    poc = [(0, 0, 0, 1, 2, 3, "CPRL"), (0, 2, 0, 1, 4, 3, "LRCP"), (3, 0, 0, 1, 4, 3, "RLCP")]
    data = j2kfront.compress(image, backend="cpu", tile_size=(48, 48), levels=3, poc=poc, roi=(1, 4))
    first_sot = data.index(b"\xff\x90")
    assert b"\xff\x5e\x00\x05\x01\x00\x04" in data[:first_sot]  # RGN: component 1, max-shift, 4
    with_poc, at = set(), first_sot
    while data[at:at + 2] == b"\xff\x90":  # each tile-part: SOT, then its header's first marker
        if data[at + 12:at + 14] == b"\xff\x5f":
            with_poc.add(int.from_bytes(data[at + 4:at + 6], "big"))
        at += int.from_bytes(data[at + 6:at + 10], "big")
    assert with_poc == {0, 3}
    np.testing.assert_array_equal(decode(data, tmp_path, image.shape, image.dtype), image)


def test_rates_bound_the_layers_and_the_report_says_so(backend):
    y, x = np.mgrid[0:256, 0:320]
    image = ((np.sin(x / 9.0) * np.cos(y / 13.0) + 1) * 120 + RNG.integers(0, 15, size=(256, 320))).astype(np.uint8)
    encoder = j2kfront.Encoder(image.shape, image.dtype, wavelet="9/7", rates=[40, 20, 10], backend=backend)
    data = encoder.encode(image)
    assert len(data) <= image.size / 10
    psnr = encoder.report["layer_psnr"]
    assert len(psnr) == 3 and psnr[0] < psnr[1] < psnr[2]
    assert all(encoder.report[k] >= 0 for k in ("front_ms", "tier1_ms", "rate_ms", "tier2_ms"))
    lossless = j2kfront.Encoder(image.shape, image.dtype, backend=backend)
    lossless.encode(image)
    assert lossless.report["layer_psnr"] == [math.inf]


def test_gpu_files_are_the_cpus(backend):
    if backend == "cpu":
        pytest.skip("compares a GPU backend's files with the CPU's")
    image = RNG.integers(0, 256, size=(130, 170, 3)).astype(np.uint8)
    for options in (dict(), dict(wavelet="9/7", rates=[30, 12]), dict(tile_size=(64, 64), levels=4),
                    dict(levels=[4, 2, 3], wavelet="9/7")):
        assert j2kfront.compress(image, backend=backend, **options) == \
            j2kfront.compress(image, backend="cpu", **options), options


def test_frames_in_flight_are_what_encode_gives(backend):
    images = [RNG.integers(0, 256, size=(70, 90, 3)).astype(np.uint8) for _ in range(7)]
    for options in (dict(), dict(coder="ht"), dict(coder="ht", wavelet="9/7", qstep=0.01)):
        encoder = j2kfront.Encoder(images[0].shape, images[0].dtype, backend=backend, frames_in_flight=3, **options)
        expected = [encoder.encode(image) for image in images]
        tickets = [encoder.submit(image) for image in images]
        for i in reversed(range(len(images))):  # any order
            assert encoder.wait(tickets[i]) == expected[i], (options, i)
            report = encoder.report
            assert set(report) >= {"front_ms", "tier1_ms", "tier1_on"}
            assert 0 <= report["lane"] < 3
            assert 0 < report["front_begin_ms"] <= report["tier1_begin_ms"] <= report["rate_begin_ms"] <= report["tier2_begin_ms"]
        with pytest.raises(j2kfront.Error, match="not in flight"):
            encoder.wait(tickets[0])
    bad = images[0].astype(np.uint16)
    bad[3, 4, 1] = 300  # above 8 bits: that frame's wait fails, the next one does not
    encoder = j2kfront.Encoder(bad.shape, bad.dtype, precision=8, backend=backend)
    first, second = encoder.submit(bad), encoder.submit(images[1].astype(np.uint16))
    with pytest.raises(j2kfront.Error):
        encoder.wait(first)
    assert encoder.wait(second) == encoder.encode(images[1].astype(np.uint16))
    with pytest.raises(j2kfront.Error, match="frames_in_flight"):
        j2kfront.Encoder(images[0].shape, images[0].dtype, backend=backend, frames_in_flight=9)


def test_levels_per_component_are_one_per_component():
    image = np.zeros((32, 32, 3), np.uint8)
    with pytest.raises(ValueError, match="2 given for 3 components"):
        j2kfront.compress(image, levels=[3, 2], backend="cpu")
    with pytest.raises(TypeError, match="one per component"):
        j2kfront.compress(image, levels=[3, 2.5, 1], backend="cpu")


def test_an_encoder_takes_its_shape_only():
    encoder = j2kfront.Encoder((16, 16), np.uint8, levels=2, backend="cpu")
    with pytest.raises(ValueError, match="shape"):
        encoder.encode(np.zeros((16, 17), np.uint8))
    with pytest.raises(TypeError, match="uint8"):
        encoder.encode(np.zeros((16, 16), np.uint16))
    first = encoder.encode(np.zeros((16, 16), np.uint8))
    second = encoder.encode(np.full((16, 16), 200, np.uint8))
    assert first != second


@pytest.mark.parametrize("options,message", [
    (dict(block_size=(48, 64)), "code-block width 48 is not a power of two"),
    (dict(rates=[10, 20]), "must fall from layer to layer"),
    (dict(rates=[20], psnr=[30]), "not both"),
    (dict(precincts=[(48, 48)]), "precinct width 48 is not a power of two"),
    (dict(guard_bits=9), "guard_bits must be"),
    (dict(levels=9), "this image allows 6 levels"),
    (dict(poc=[(9, 0, 0, 1, 6, 1, "LRCP")]), "progression order changes for tile 9: the image has 1 tile"),
    (dict(poc=[(0, 3, 0, 1, 3, 1, "LRCP")]), r"pocs\[0\]: res_end must be res_start \+ 1"),
    (dict(roi=(0, 30)), "roi_shift must be 0"),
    (dict(roi=(1, 3)), "roi_component 1 is not a component of the image"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(j2kfront.Error, match=message) as e:
        j2kfront.compress(np.zeros((64, 80), np.uint8), backend="cpu", **options)
    assert e.value.status == "J2K_INVALID_ARGUMENT"


@pytest.mark.parametrize("options,error", [
    (dict(modes=["fast"]), ValueError), (dict(format="png"), ValueError),
    (dict(progression="XYZ"), ValueError), (dict(tile_parts="Q"), ValueError),
    (dict(rates="many"), ValueError), (dict(profile="cinema8k"), ValueError),
    (dict(poc=[(0, 0, 0, 1, 6)]), ValueError), (dict(poc=[(0, 0, 0, 1, 6, 1, "XYZ")]), ValueError),
    (dict(roi="c=0"), ValueError),
])
def test_bad_option_values_are_named_in_python(options, error):
    with pytest.raises(error):
        j2kfront.compress(np.zeros((64, 80), np.uint8), backend="cpu", **options)


def test_profiles_set_rsiz_and_keep_to_their_rules():
    """profile=: the digital cinema and IMF profiles as the command line writes them (Rsiz
    in SIZ, right after SOC and Lsiz), and what they refuse named."""
    rng = np.random.default_rng(7)
    xyz = rng.integers(0, 4096, size=(128, 256, 3), dtype=np.uint16)
    data = j2kfront.compress(xyz, precision=12, profile="cinema2k", frame_rate=24, backend="cpu")
    assert int.from_bytes(data[6:8], "big") == 3
    assert len(data) <= 1302083
    data = j2kfront.compress(xyz, precision=12, profile="imf2k_r", imf_mainlevel=3, imf_sublevel=1,
                             frame_rate=24, backend="cpu")
    assert int.from_bytes(data[6:8], "big") == 0x0713
    assert np.array_equal(j2kfront.decompress(data), xyz), "IMF 2K_R is lossless"
    with pytest.raises(j2kfront.Error, match="unsigned 12-bit"):
        j2kfront.compress(xyz.astype(np.uint8), profile="cinema2k", backend="cpu")
    with pytest.raises(j2kfront.Error, match="24 or 48"):
        j2kfront.compress(xyz, precision=12, profile="cinema2k", frame_rate=30, backend="cpu")
