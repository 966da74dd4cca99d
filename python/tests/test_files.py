# SPDX-License-Identifier: BSD-2-Clause
"""Files in one call: j2kfront.imread / imwrite / info, and decompress taking bytes, a path
(str or pathlib.Path) or a binary file object; info agrees with opj_dump where installed."""
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import j2kfront

RNG = np.random.default_rng(20261128)
HAVE_OPJ_DUMP = shutil.which("opj_dump") is not None


def test_imwrite_then_imread_gives_the_image_back(tmp_path, backend):
    image = RNG.integers(0, 256, size=(37, 53, 3)).astype(np.uint8)
    for name in ("a.jp2", "a.j2k", "a.J2C"):
        path = tmp_path / name
        j2kfront.imwrite(path, image, tile_size=(32, 32), levels=2)
        np.testing.assert_array_equal(j2kfront.imread(path, backend=backend), image)
        np.testing.assert_array_equal(j2kfront.imread(str(path), backend=backend), image)
    assert (tmp_path / "a.jp2").read_bytes()[4:8] == b"jP  "
    assert (tmp_path / "a.j2k").read_bytes()[:2] == b"\xff\x4f"
    assert sorted(os.listdir(tmp_path)) == ["a.J2C", "a.j2k", "a.jp2"], "no temporary file is left"


def test_imwrite_refuses_other_names_and_leaves_nothing(tmp_path):
    image = np.zeros((8, 8), np.uint8)
    with pytest.raises(ValueError, match=r"\.png"):
        j2kfront.imwrite(tmp_path / "x.png", image)
    with pytest.raises(ValueError, match="format='j2k'"):
        j2kfront.imwrite(tmp_path / "x.jp2", image, format="j2k")
    with pytest.raises(j2kfront.Error):  # refused by compress: the file is never made
        j2kfront.imwrite(tmp_path / "x.j2k", image, levels=40)
    assert os.listdir(tmp_path) == []


def test_decompress_takes_bytes_paths_and_file_objects(tmp_path):
    image = RNG.integers(0, 4096, size=(20, 30)).astype(np.uint16)
    data = j2kfront.compress(image, precision=12, format="jp2")
    path = tmp_path / "g.jp2"
    path.write_bytes(data)
    for source in (data, bytearray(data), memoryview(data), str(path), path):
        np.testing.assert_array_equal(j2kfront.decompress(source), image)
    with open(path, "rb") as f:
        np.testing.assert_array_equal(j2kfront.decompress(f), image)
    with open(path, "r", encoding="latin-1") as f, pytest.raises(TypeError, match="binary mode"):
        j2kfront.decompress(f)
    with pytest.raises(TypeError, match="bytes, a path or a binary file object"):
        j2kfront.decompress(12)
    with pytest.raises(FileNotFoundError):
        j2kfront.decompress(tmp_path / "missing.jp2")


def test_info_says_what_the_file_holds(tmp_path):
    image = RNG.integers(0, 256, size=(45, 67, 3)).astype(np.uint8)
    data = j2kfront.compress(image, format="jp2", levels=3, block_size=(32, 16), progression="RPCL",
                             tile_size=(32, 40), modes=["segmark"], wavelet="9/7", rates=[20])
    i = j2kfront.info(data)
    assert i["format"] == "jp2" and i["size"] == (67, 45) and i["tiles"] == (3, 2)
    assert i["tile_size"] == (32, 40) and i["tile_parts"] == 6 and i["progression"] == "RPCL"
    assert i["mct"] is True and i["layers"] == 1 and i["enum_cs"] == 16 and i["truncated"] is False
    assert len(i["components"]) == 3
    for c in i["components"]:
        assert c["levels"] == 3 and c["block_size"] == (32, 16) and c["wavelet"] == "9/7"
        assert c["precision"] == 8 and c["signed"] is False and c["modes"] == 32 and c["size"] == (67, 45)
    path = tmp_path / "i.jp2"
    path.write_bytes(data)
    assert j2kfront.info(path) == i and j2kfront.info(str(path)) == i
    cut = j2kfront.info(data[: len(data) - 200])
    assert cut["truncated"] is True and cut["size"] == (67, 45)
    with pytest.raises(j2kfront.Error):
        j2kfront.info(b"not a JPEG 2000 file")


@pytest.mark.skipif(not HAVE_OPJ_DUMP, reason="opj_dump is not installed (Debian: libopenjp2-tools)")
def test_info_agrees_with_opj_dump(tmp_path):
    image = RNG.integers(0, 256, size=(50, 60)).astype(np.uint8)
    path = tmp_path / "d.j2k"
    j2kfront.imwrite(path, image, levels=4, block_size=(16, 64), progression="CPRL", tile_size=(40, 30))
    dump = subprocess.run(["opj_dump", "-i", str(path)], capture_output=True, text=True, check=True).stdout
    i = j2kfront.info(path)
    c = i["components"][0]
    for want in (f"tdx={i['tile_size'][0]}", f"tdy={i['tile_size'][1]}", f"tw={i['tiles'][0]}", f"th={i['tiles'][1]}",
                 f"numresolutions={c['levels'] + 1}", "cblkw=2^4", "cblkh=2^6", "prg=0x4", "x1=60", "y1=50"):
        assert want in dump, want


def test_ht_coder_round_trips_and_says_so(tmp_path):
    image = RNG.integers(0, 4096, size=(33, 47, 3)).astype(np.uint16)
    data = j2kfront.compress(image, precision=12, coder="ht", format="jp2")
    assert data[20:24] == b"jph ", "a JP2 file of HT code-blocks is branded JPH"
    np.testing.assert_array_equal(j2kfront.decompress(data), image)
    assert all(c["modes"] & 64 for c in j2kfront.info(data)["components"])
    for name in ("h.jph", "h.jhc"):
        j2kfront.imwrite(tmp_path / name, image, precision=12)
        np.testing.assert_array_equal(j2kfront.imread(tmp_path / name), image)
        assert j2kfront.info(tmp_path / name)["components"][0]["modes"] & 64
    with pytest.raises(ValueError, match="coder"):
        j2kfront.compress(image, precision=12, coder="mq")
    with pytest.raises(ValueError, match="HT code-blocks"):
        j2kfront.imwrite(tmp_path / "x.jph", image, precision=12, coder="ebcot")
    assert not (tmp_path / "x.jph").exists()
