# SPDX-License-Identifier: BSD-2-Clause
"""j2kfront: a JPEG 2000 codec (ISO/IEC 15444-1) with a GPU front stage, for numpy arrays.

Compresses to and decompresses .j2k/.jp2; its front stage (tiling on the canvas, DC level
shift, RCT/ICT and the multi-level DWT, reversible 5/3 and irreversible 9/7) runs bit for bit
as OpenJPEG 2.5.0 computes it, on the CPU, CUDA or OpenCL, and can be called alone.

    import numpy as np, j2kfront
    rgb = np.zeros((480, 640, 3), np.uint8)
    result = j2kfront.transform(rgb, wavelet="5/3", levels=5)
    y = result.component(0)             # tile 0, component 0 (Y after the RCT)
    y.coefficients                      # int32, OpenJPEG's pyramid layout: LL top-left
    for band in y.bands:                # LL, then HL, LH, HH from the coarsest level
        print(band.type, band.level, band.coefficients.shape)   # views into y.coefficients

    data = j2kfront.compress(rgb, rates=[40, 20, 10])      # a .j2k codestream, 3 layers
    open("out.jp2", "wb").write(j2kfront.compress(rgb, format="jp2"))   # lossless JP2

Images are 2-D (height x width) or 3-D (height x width x components) arrays of uint8, int8,
uint16, int16, uint32 or int32 samples; any strides (they are read in place). The work runs
with the GIL released; plans and DWT engines may be shared between threads.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _j2kfront

__all__ = ["Band", "Dwt", "Encoder", "Error", "Plan", "Result", "TileComponent", "backends", "decompress",
           "compress", "dwt_forward", "dwt_inverse", "imread", "imwrite", "info", "transcode", "transform", "__version__",
           "XMP_UUID", "EXIF_UUID", "GEOJP2_UUID"]

__version__ = _j2kfront.version()
Error = _j2kfront.Error
Error.__module__ = "j2kfront"
Error.__doc__ = "A failure reported by the library; .status names it (e.g. 'J2K_INVALID_ARGUMENT')."

_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2, "opencl": 3}
_WAVELETS = {"5/3": 0, "9/7": 1}
_MCT = {"auto": 0, "on": 1, "off": 2, True: 1, False: 2}
_BAND_TYPES = ("LL", "HL", "LH", "HH")
# numpy dtype -> (j2k_sample_type, default precision: None where it must be given)
_SAMPLE_TYPES = {
    np.dtype(np.uint8): (0, 8), np.dtype(np.int8): (1, 8),
    np.dtype(np.uint16): (2, 16), np.dtype(np.int16): (3, 16),
    np.dtype(np.uint32): (4, None), np.dtype(np.int32): (5, None),
}


def backends() -> dict:
    """Each backend's name -> (available here, the reason when it is not)."""
    return {name: _j2kfront.backend_available(code) for name, code in _BACKENDS.items()
            if name != "auto"}


def _choice(table: dict, value, what: str):
    try:
        return table[value]
    except (KeyError, TypeError):
        names = ", ".join(repr(k) for k in table if isinstance(k, str))
        raise ValueError(f"{what} must be one of {names}, not {value!r}") from None


def _pair(value, what: str) -> Tuple[int, int]:
    try:
        a, b = (int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a pair of integers (x, y) or (width, height), "
                         f"not {value!r}") from None
    if a < 0 or b < 0 or a >= 2**32 or b >= 2**32:
        raise ValueError(f"{what} must lie in 0 .. 2^32-1, not {value!r}")
    return a, b


def _settings(wavelet="5/3", levels=5, tile_size=None, tile_origin=(0, 0), mct="auto",
              backend="auto", device=None, threads=None, narrow_output=False) -> dict:
    tile_w, tile_h = _pair(tile_size, "tile_size") if tile_size is not None else (0, 0)
    tile_x0, tile_y0 = _pair(tile_origin, "tile_origin")
    # An int, or one per component (a COC for each component whose levels differ from the first's).
    per_component = None
    if isinstance(levels, (list, tuple)):
        if not levels or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in levels):
            raise TypeError(f"levels must be an integer or a list of integers, one per component, not {levels!r}")
        per_component = [int(v) for v in levels]
        levels = per_component[0]
    elif not isinstance(levels, (int, np.integer)) or isinstance(levels, bool):
        raise TypeError(f"levels must be an integer or a list of integers, one per component, not {levels!r}")
    if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
        raise ValueError(f"threads must be a positive integer or None (every core), not {threads!r}")
    if device is not None and (not isinstance(device, (int, np.integer)) or device < 0):
        raise ValueError(f"device must be a device index (0, 1, ...) or None, not {device!r}")
    return {
        "wavelet": _choice(_WAVELETS, wavelet, "wavelet"), "levels": int(levels),
        "component_levels": per_component,
        "tile_w": tile_w, "tile_h": tile_h, "tile_x0": tile_x0, "tile_y0": tile_y0,
        "mct": _choice(_MCT, mct, "mct"), "backend": _choice(_BACKENDS, backend, "backend"),
        "device": -1 if device is None else int(device), "threads": 0 if threads is None else int(threads),
        "narrow_output": 1 if narrow_output else 0,
    }


def _image_array(image) -> np.ndarray:
    a = np.asarray(image)
    if a.ndim not in (2, 3):
        raise ValueError(f"an image is a 2-D (height x width) or 3-D (height x width x components) "
                         f"array, not {a.ndim}-D of shape {a.shape}")
    if a.dtype.newbyteorder("=") not in _SAMPLE_TYPES:
        raise TypeError(f"image samples must be uint8, int8, uint16, int16, uint32 or int32, not {a.dtype}")
    if a.size == 0:
        raise ValueError(f"the image is empty (shape {a.shape})")
    # Read in place unless the layout is one a view cannot express: rows one after another,
    # samples forward in a row, components side by side (any padding between them is fine).
    row, pixel = a.strides[0], a.strides[1]
    if (not a.dtype.isnative or any(s <= 0 or s % a.itemsize for s in a.strides)
            or row < a.shape[1] * pixel):
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
    return a


def _shape_and_dtype(shape: Sequence[int], dtype) -> Tuple[Tuple[int, ...], np.dtype]:
    """A plan's or encoder's image shape and native sample dtype, checked."""
    shape = tuple(int(s) for s in shape)
    if len(shape) not in (2, 3) or min(shape) < 1:
        raise ValueError(f"shape must be (height, width) or (height, width, components), not {shape}")
    dtype = np.dtype(dtype)
    if dtype.newbyteorder("=") not in _SAMPLE_TYPES:
        raise TypeError(f"image samples must be uint8, int8, uint16, int16, uint32 or int32, not {dtype}")
    return shape, dtype.newbyteorder("=")


def _image_of(image, shape: Tuple[int, ...], dtype: np.dtype, what: str) -> np.ndarray:
    """`image` as an array for a plan or encoder made for `shape` and `dtype`."""
    a = _image_array(image)
    if a.shape != shape:
        raise ValueError(f"this {what} takes images of shape {shape}, not {a.shape}")
    if a.dtype.newbyteorder("=") != dtype:
        raise TypeError(f"this {what} takes {dtype} samples, not {a.dtype}")
    return a


def _sample_type(dtype: np.dtype, precision: Optional[int]) -> Tuple[int, int]:
    code, default = _SAMPLE_TYPES[dtype]
    if precision is None:
        if default is None:
            raise ValueError(f"{dtype} samples need precision= (their significant bits, 1..16)")
        precision = default
    return code, int(precision)


@dataclasses.dataclass
class Band:
    """A subband: type 'LL', 'HL', 'LH' or 'HH'; level (1 = finest; for LL, the number of
    levels); rect (x0, y0, x1, y1) on the band's own grid (ISO/IEC 15444-1 B-15);
    coefficients, a view into its tile-component's array."""
    type: str
    level: int
    rect: Tuple[int, int, int, int]
    coefficients: np.ndarray


@dataclasses.dataclass
class TileComponent:
    """One component of one tile: rect (x0, y0, x1, y1) on the component's grid; coefficients
    (height x width, int32 for the 5/3 or int16 with narrow_output, float32 for the 9/7) in
    OpenJPEG's pyramid layout; bands: LL first, then HL, LH, HH from the coarsest level."""
    tile: int
    component: int
    rect: Tuple[int, int, int, int]
    levels: int
    coefficients: np.ndarray
    bands: List[Band]


class Result(list):
    """The tile-components of one image, tile-major (tile 0's components, then tile 1's...)."""

    def __init__(self, items, info: dict):
        super().__init__(items)
        self.backend: str = info["backend"]
        self.description: str = info["description"]
        self.mct: bool = info["mct"]
        self.tiles: Tuple[int, int] = tuple(info["tiles"])

    def component(self, component: int, tile: int = 0) -> TileComponent:
        for tc in self:
            if tc.tile == tile and tc.component == component:
                return tc
        raise IndexError(f"no component {component} in tile {tile}")


class _OnABackend:
    """What Plan and Encoder say of the backend their front stage runs on (self._info)."""

    @property
    def backend(self) -> str:
        """The backend in use: 'cpu', 'cuda' or 'opencl'."""
        return self._info["backend"]

    @property
    def description(self) -> str:
        """The backend and device, e.g. 'cuda (device 0: NVIDIA H100, sm_90)'."""
        return self._info["description"]


class Plan(_OnABackend):
    """The front stage for images of one shape and dtype, built once (all memory allocated
    here), then run on any number of images: plan.run(image) -> Result.

    shape: (height, width) or (height, width, components); dtype: the samples' numpy dtype;
    precision: significant bits (default: the dtype's width; must be given for 32-bit
    samples); image_origin: (x, y) of the image on the canvas. The other keywords are those of
    transform()."""

    def __init__(self, shape: Sequence[int], dtype, *, precision: Optional[int] = None,
                 image_origin=(0, 0), **settings):
        self._shape, self._dtype = _shape_and_dtype(shape, dtype)
        shape = self._shape
        code, precision = _sample_type(self._dtype, precision)
        x0, y0 = _pair(image_origin, "image_origin")
        channels = shape[2] if len(shape) == 3 else 1
        self._plan = _j2kfront.Plan(_settings(**settings), shape[0], shape[1], channels, code,
                                    precision, x0, y0)
        self._info = self._plan.info()
        self._layout = self._plan.layout()

    def run(self, image) -> Result:
        a = _image_of(image, self._shape, self._dtype, "plan")
        arrays = self._plan.run(a)
        items = []
        for (tile, comp, rect, levels, bands), coefficients in zip(self._layout, arrays):
            views = [Band(_BAND_TYPES[t], level, tuple(brect),
                          coefficients[row:row + h, col:col + w])
                     for t, level, brect, row, col, h, w in bands]
            items.append(TileComponent(tile, comp, tuple(rect), levels, coefficients, views))
        return Result(items, self._info)


_FORMATS = {"j2k": 0, "j2c": 0, "jp2": 1}
_PROGRESSIONS = {"LRCP": 0, "RLCP": 1, "RPCL": 2, "PCRL": 3, "CPRL": 4}
_MODES = {"bypass": 1, "reset": 2, "restart": 4, "vsc": 8, "erterm": 16, "segmark": 32}
_HT_MODE = 64  # J2K_MODE_HT: the HTJ2K block coder


def _numbers(value, what: str) -> List[float]:
    if value is None:
        return []
    if isinstance(value, (int, float, np.number)):
        value = [value]
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number or a list of numbers, one per quality layer, "
                         f"not {value!r}") from None


# j2k_profile's values (Rsiz's): the digital cinema and IMF profiles.
_PROFILES = {None: 0, "cinema2k": 3, "cinema4k": 4, "imf2k": 0x0400, "imf4k": 0x0500, "imf8k": 0x0600,
             "imf2k_r": 0x0700, "imf4k_r": 0x0800, "imf8k_r": 0x0900}


# The UUIDs of the JP2 UUID boxes whose contents are known: an XMP packet, Exif as a TIFF
# structure ("JpgTiffExif->JP2", as Exiv2 and Adobe write it), a GeoJP2 GeoTIFF.
XMP_UUID = bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC")
EXIF_UUID = b"JpgTiffExif->JP2"
GEOJP2_UUID = bytes.fromhex("B14BF8BD083D4B43A5AE8CD7D5A6CE03")


def _box_type(name) -> int:
    """A box type ('uuid', 'xml ') as j2k_box holds it: four characters as a big-endian number."""
    raw = name.encode("latin-1") if isinstance(name, str) else bytes(name)
    if len(raw) != 4:
        raise ValueError(f"a box type is four characters ('uuid', 'xml '), not {name!r}")
    return int.from_bytes(raw, "big")


def _metadata(icc_profile=None, resolution=None, xmp=None, exif=None, boxes=None,
              display_resolution=None) -> dict:
    """The JP2 metadata keywords of compress() as the native encoder takes them."""
    out = []
    if xmp is not None:
        out.append((_box_type("uuid"), XMP_UUID + (xmp.encode("utf-8") if isinstance(xmp, str) else bytes(xmp))))
    if exif is not None:
        out.append((_box_type("uuid"), EXIF_UUID + bytes(exif)))
    for box in boxes or []:
        if not isinstance(box, (tuple, list)) or len(box) != 2:
            raise TypeError(f"boxes: each a (type, contents) pair, e.g. ('xml ', b'<a/>'), not {box!r}")
        out.append((_box_type(box[0]), bytes(box[1])))
    x, y = (0.0, 0.0) if resolution is None else (float(resolution[0]), float(resolution[1]))
    dx, dy = (0.0, 0.0) if display_resolution is None else (float(display_resolution[0]),
                                                              float(display_resolution[1]))
    return {"icc_profile": b"" if icc_profile is None else bytes(icc_profile), "resolution": (x, y), "boxes": out,
            "display_resolution": (dx, dy)}


def _coding(format="j2k", rates=None, psnr=None, block_size=(64, 64), precincts=None,
            progression="LRCP", modes=0, sop=False, eph=False, plt=False, tlm=False,
            tile_parts=None, guard_bits=None, comment=None, coder="ebcot", max_bytes=0,
            profile=None, frame_rate=0, imf_mainlevel=0, imf_sublevel=0, qstep=0, poc=None,
            roi=None, frames_in_flight=0, devices=None, icc_profile=None, resolution=None, xmp=None,
            exif=None, boxes=None, display_resolution=None, device_turns=0) -> dict:
    if isinstance(modes, str):
        modes = [modes]
    if not isinstance(modes, (int, np.integer)):
        modes = sum(_choice(_MODES, m, "a mode switch") for m in modes)
    if coder not in ("ebcot", "ht"):
        raise ValueError(f"coder must be 'ebcot' (Part 1) or 'ht' (HTJ2K, Part 15), not {coder!r}")
    if coder == "ht":
        modes = int(modes) | _HT_MODE  # the library refuses HT with EBCOT's switches, naming them
    if tile_parts not in (None, "R", "L", "C"):
        raise ValueError(f"tile_parts must be None, 'R', 'L' or 'C', not {tile_parts!r}")
    block_w, block_h = _pair(block_size, "block_size")
    key = profile.lower() if isinstance(profile, str) else profile
    if key not in _PROFILES:
        raise ValueError("profile must be None, " + ", ".join(repr(k) for k in _PROFILES if k) + f", not {profile!r}")
    pocs = []
    for change in poc or []:
        try:
            *numbers, order = change
            tile, res_start, comp_start, layer_end, res_end, comp_end = (int(v) for v in numbers)
        except (TypeError, ValueError):
            raise ValueError("poc is a list of (tile, res_start, comp_start, layer_end, res_end, comp_end, "
                             f"progression), the tile from 0, not {change!r}") from None
        pocs.append((tile, res_start, comp_start, layer_end, res_end, comp_end,
                     _choice(_PROGRESSIONS, order, "a change's progression")))
    if roi is None:
        roi = (0, 0)
    try:
        roi_component, roi_shift = (int(v) for v in roi)
    except (TypeError, ValueError):
        raise ValueError(f"roi is (component, shift), not {roi!r}") from None
    return {
        "format": _choice(_FORMATS, format, "format"),
        "rates": _numbers(rates, "rates"), "psnr": _numbers(psnr, "psnr"),
        "block_w": block_w, "block_h": block_h,
        "precincts": [_pair(p, "a precinct size") for p in (precincts or [])],
        "progression": _choice(_PROGRESSIONS, progression, "progression"),
        "modes": int(modes), "sop": bool(sop), "eph": bool(eph), "plt": bool(plt), "tlm": bool(tlm),
        "tile_parts": tile_parts or "", "guard_bits": -1 if guard_bits is None else int(guard_bits),
        "comment": comment or "", "max_bytes": int(max_bytes),
        "profile": _PROFILES[key], "frame_rate": float(frame_rate),
        "imf_mainlevel": int(imf_mainlevel), "imf_sublevel": int(imf_sublevel),
        "qstep": float(qstep), "pocs": pocs, "roi_component": roi_component, "roi_shift": roi_shift,
        "frames_in_flight": int(frames_in_flight), "devices": [int(d) for d in (devices or [])],
        "device_turns": int(device_turns),
        **_metadata(icc_profile, resolution, xmp, exif, boxes, display_resolution),
    }


_CODING_KEYS = ("format", "rates", "psnr", "block_size", "precincts", "progression", "modes",
                "sop", "eph", "plt", "tlm", "tile_parts", "guard_bits", "comment", "coder", "max_bytes",
                "profile", "frame_rate", "imf_mainlevel", "imf_sublevel", "qstep", "poc", "roi",
                "frames_in_flight", "devices", "icc_profile", "resolution", "xmp", "exif", "boxes",
                "display_resolution", "device_turns")


def _default_levels(shape, origin, tile_size, tile_origin) -> int:
    """5, or as many levels as the nominal tile (the image, untiled) allows where that is
    fewer (2^levels samples a side): a small image compresses rather than being refused."""
    tx0, ty0 = _pair(tile_origin, "tile_origin")
    if tile_size is not None:
        tw, th = _pair(tile_size, "tile_size")
    else:
        tw, th = origin[0] + shape[1] - tx0, origin[1] + shape[0] - ty0
    side, levels = min(tw, th), 0
    while levels < 5 and (2 << levels) <= side:
        levels += 1
    return levels


class Encoder(_OnABackend):
    """A JPEG 2000 encoder for images of one shape and dtype, built once, then run on any
    number of images: encoder.encode(image) -> bytes (the .j2k codestream or .jp2 file).
    After each run, encoder.report holds the time of each stage (front_ms, tier1_ms, rate_ms,
    tier2_ms) and each layer's estimated PSNR (layer_psnr; inf where lossless).

    Frames in flight, for a sequence: ticket = encoder.submit(image) returns while the frame
    is coded, encoder.wait(ticket) -> bytes returns its file (and sets encoder.report), each
    file what encode() gives; frames_in_flight (0: 2, at most 8) encoders work side by side
    (device_turns: how many of one GPU's may be in their device stages at once; 0: any),
    on the GPUs of devices (a list of indices; None: the device keyword's) in turn; at most 8
    frames submitted and not yet waited for. A frame's error is raised by its wait. The
    report of a wait also says which encoder coded the frame (lane) and when each stage began
    (front_begin_ms, tier1_begin_ms, rate_begin_ms, tier2_begin_ms: one steady clock of the
    process), for drawing frames in flight on a timeline.

    shape, dtype, precision, image_origin: as for Plan. The other keywords are compress()'s."""

    def __init__(self, shape: Sequence[int], dtype, *, precision: Optional[int] = None,
                 image_origin=(0, 0), **options):
        self._shape, self._dtype = _shape_and_dtype(shape, dtype)
        shape = self._shape
        code, precision = _sample_type(self._dtype, precision)
        x0, y0 = _pair(image_origin, "image_origin")
        coding = _coding(**{k: v for k, v in options.items() if k in _CODING_KEYS})
        if options.get("levels") is None:
            options["levels"] = _default_levels(shape, (x0, y0), options.get("tile_size"),
                                                options.get("tile_origin", (0, 0)))
        settings = _settings(**{k: v for k, v in options.items() if k not in _CODING_KEYS})
        channels = shape[2] if len(shape) == 3 else 1
        self._encoder = _j2kfront.Encoder(settings, coding, shape[0], shape[1], channels, code,
                                          precision, x0, y0)
        self._info = self._encoder.info()
        self.report: dict = {}

    def encode(self, image) -> bytes:
        a = _image_of(image, self._shape, self._dtype, "encoder")
        data, self.report = self._encoder.encode(a)
        return data

    def submit(self, image) -> int:
        return self._encoder.submit(_image_of(image, self._shape, self._dtype, "encoder"))

    def wait(self, ticket: int) -> bytes:
        data, self.report = self._encoder.wait(int(ticket))
        return data


def compress(image, *, format: str = "j2k", rates=None, psnr=None, wavelet: str = "5/3",
             levels=None, block_size=(64, 64), precincts=None, progression: str = "LRCP",
             modes=0, sop: bool = False, eph: bool = False, plt: bool = False, tlm: bool = False,
             tile_parts: Optional[str] = None, guard_bits: Optional[int] = None,
             comment: Optional[str] = None, tile_size: Optional[Tuple[int, int]] = None,
             tile_origin=(0, 0), image_origin=(0, 0), mct="auto", backend: str = "auto",
             device: Optional[int] = None, threads: Optional[int] = None,
             precision: Optional[int] = None, coder: str = "ebcot", max_bytes: int = 0,
             profile: Optional[str] = None, frame_rate: float = 0, imf_mainlevel: int = 0,
             imf_sublevel: int = 0, qstep: float = 0, poc=None, roi=None,
             icc_profile: Optional[bytes] = None, resolution: Optional[Tuple[float, float]] = None,
             xmp=None, exif: Optional[bytes] = None, boxes=None,
             display_resolution: Optional[Tuple[float, float]] = None) -> bytes:
    """A JPEG 2000 file of one image, as bytes, with opj_compress's options.

    format: 'j2k' (a codestream) or 'jp2' (a JP2 file); rates: compression ratio per quality
    layer, falling (e.g. [40, 20, 10]; 1 for a last lossless layer), or psnr: the PSNR in dB
    per layer, growing; neither: lossless. wavelet: '5/3' (reversible) or '9/7' (as
    opj_compress -I: what rates and psnr are usually given with). block_size: (width, height) of the
    code-blocks; precincts: [(width, height), ...] from the highest resolution down;
    progression: 'LRCP', 'RLCP', 'RPCL', 'PCRL' or 'CPRL'; modes: a list of 'bypass',
    'reset', 'restart', 'vsc', 'erterm', 'segmark' (or their bits); sop, eph, plt, tlm:
    those markers; tile_parts: None, 'R', 'L' or 'C'; guard_bits: 0..7 (None: automatic);
    comment: a COM marker's text; levels: an int, or one per component (e.g. [5, 4, 4]); None:
    5, or fewer where the tiles (the image, untiled) are under 32 samples a side; coder:
    'ebcot' (Part 1) or 'ht' (HTJ2K, Part 15: lossless, the 9/7's steps, or rates/psnr as
    for EBCOT; with format 'jp2' a JPH file); max_bytes: memory the encoder may take (0: no limit):
    what needs more is refused before the work (j2kfront.Error, status J2K_OUT_OF_MEMORY).
    profile: None, 'cinema2k', 'cinema4k' (3 uint16 components of precision 12, X'Y'Z'), or
    'imf2k', 'imf4k', 'imf8k', 'imf2k_r', 'imf4k_r', 'imf8k_r', with frame_rate (cinema 2K: 24
    or 48; IMF: for its levels' limits) and imf_mainlevel, imf_sublevel: the profile fixes the
    wavelet, tiles, code-blocks, precincts, progression and tile-parts, and caps the bytes, as
    `j2kfront compress --cinema2K/--cinema4K/--IMF` does (docs/cli.md). qstep (with '9/7'): the
    base quantisation step as a fraction of the samples' range, as ojph_compress -qstep (0: one
    sample value). poc: progression order changes of tiles, as opj_compress -POC, a list of
    (tile, res_start, comp_start, layer_end, res_end, comp_end, progression), the tile from 0
    (raster order): in the tile's first tile-part header, a tile-part each change. roi:
    (component, shift), as opj_compress -ROI c=component,U=shift: RGN's max-shift over the
    component (shift 0: none). With format 'jp2', what the file holds beside the image:
    icc_profile (bytes: the colour specification's ICC profile, grey for 1 or 2 components, RGB
    for 3 or more), resolution ((x, y) capture resolution in grid points per metre),
    display_resolution ((x, y) default display resolution, likewise), xmp (an XMP
    packet, str or bytes) and exif (Exif as a TIFF structure) in their UUID boxes, and boxes
    ([(type, contents), ...], e.g. [('xml ', b'<a/>')], written as they are); a 'j2k'
    codestream has no place for them (j2kfront.Error). The rest are transform()'s.

    For many images of one shape, make an Encoder once and run it."""
    a = _image_array(image)
    encoder = Encoder(a.shape, a.dtype, precision=precision, image_origin=image_origin,
                      format=format, rates=rates, psnr=psnr, wavelet=wavelet, levels=levels,
                      block_size=block_size, precincts=precincts, progression=progression,
                      modes=modes, sop=sop, eph=eph, plt=plt, tlm=tlm, tile_parts=tile_parts,
                      guard_bits=guard_bits, comment=comment, tile_size=tile_size,
                      tile_origin=tile_origin, mct=mct, backend=backend, device=device,
                      threads=threads, coder=coder, max_bytes=max_bytes, profile=profile,
                      frame_rate=frame_rate, imf_mainlevel=imf_mainlevel, imf_sublevel=imf_sublevel,
                      qstep=qstep, poc=poc, roi=roi, icc_profile=icc_profile, resolution=resolution,
                      xmp=xmp, exif=exif, boxes=boxes, display_resolution=display_resolution)
    return encoder.encode(a)


def _bytes_of(source, what: str) -> bytes:
    """The bytes of `source`: bytes-like as they are, a path (str or os.PathLike) read whole, or
    a binary file object read from where it stands."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read()
    read = getattr(source, "read", None)
    if callable(read):
        data = read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"{what}: the file object gave {type(data).__name__}, not bytes (open it in binary mode)")
        return bytes(data)
    raise TypeError(f"{what}: expected bytes, a path or a binary file object, not {type(source).__name__}")


def info(source) -> dict:
    """What a JPEG 2000 codestream's or JP2 file's headers say, without decoding (as opj_dump):
    format, origin, size, tiles, tile_size, tile_origin, tile_parts, layers, progression, mct,
    sop, eph, truncated, (JP2) enum_cs and icc, and per component precision, signed,
    subsampling, size, levels, wavelet, block_size and modes (J2K_MODE_* bits). source: bytes,
    a path or a binary file object."""
    return _j2kfront.info(_bytes_of(source, "info"))


def transcode(source, *, coder: str = "ht", format: str = "j2k", threads: Optional[int] = None,
              max_bytes: int = 0, report: Optional[dict] = None) -> bytes:
    """A JPEG 2000 file re-coded between EBCOT (Part 1) and HT (HTJ2K, Part 15) code-blocks
    without decoding it to samples (as `j2kfront transcode`): the same coefficients, so it
    decodes to exactly the input's image; several quality layers become one. source: bytes, a
    path or a binary file object; coder: 'ht' or 'ebcot', the coder every block ends in;
    format: 'j2k' (a codestream) or 'jp2' (a JP2 file, JPH for 'ht'; a JP2 input keeps its
    header boxes); threads: CPU threads (None: one per core); max_bytes: memory it may take (0:
    no limit). report, a dict if given, receives blocks, layers (the input's), warnings, ms."""
    coders = {"ebcot": 0, "ht": 1}
    formats = {"j2k": 0, "jp2": 1}
    if coder not in coders:
        raise ValueError(f"coder: 'ht' or 'ebcot', not {coder!r}")
    if format not in formats:
        raise ValueError(f"format: 'j2k' or 'jp2', not {format!r}")
    data, r = _j2kfront.transcode(_bytes_of(source, "transcode"), coders[coder], formats[format],
                                  0 if threads is None else int(threads), int(max_bytes))
    if report is not None:
        report.update(r)
    return data


def imread(path, **options):
    """The image of a JPEG 2000 file at `path` (decompress()'s array; its options apply)."""
    return decompress(path, **options)


def imwrite(path, image, **options) -> None:
    """Writes `image` to `path` as JPEG 2000 (compress()'s options; the format from the name:
    .jp2 a JP2 file, .j2k .j2c .jpc a codestream, .jph and .jhc the same with coder='ht'). The file appears whole or not at all: the
    bytes go to a temporary file beside it, renamed over `path` once written."""
    name = os.fspath(path)
    ext = os.path.splitext(name)[1].lower()
    formats = {".jp2": "jp2", ".j2k": "j2k", ".j2c": "j2k", ".jpc": "j2k", ".jph": "jp2", ".jhc": "j2k"}
    if ext not in formats:
        raise ValueError(f"{name}: the name's extension says the format: .jp2, .j2k, .j2c, .jpc, .jph or .jhc, not '{ext}'")
    if ext in (".jph", ".jhc"):  # Part 15's names: HT code-blocks
        if options.get("coder", "ht") != "ht":
            raise ValueError(f"{name}: a {ext} file holds HT code-blocks, not coder={options['coder']!r}")
        options["coder"] = "ht"
    if "format" in options and options["format"] != formats[ext]:
        raise ValueError(f"{name}: format={options['format']!r} but the name says {formats[ext]!r}")
    options["format"] = formats[ext]
    data = compress(image, **options)
    directory = os.path.dirname(os.path.abspath(name))
    fd, temporary = tempfile.mkstemp(prefix="." + os.path.basename(name) + ".", suffix=".partial", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, name)
    except BaseException:
        os.unlink(temporary)
        raise


def decompress(data, *, reduce: int = 0, layers: int = 0, tile: Optional[int] = None,
               region: Optional[Tuple[int, int, int, int]] = None,
               components: Optional[Sequence[int]] = None, allow_partial: bool = False,
               threads: Optional[int] = None, max_bytes: int = 0, backend: str = "auto",
               device: Optional[int] = None, convert_colour: bool = False, keep_icc: bool = False,
               report: Optional[dict] = None):
    """The image of a JPEG 2000 codestream or JP2 file, as opj_decompress decodes it. data:
    bytes, a path (str or os.PathLike) or a binary file object.

    Returns an array (height, width) for one component, (height, width, components) for
    several of one size, else a list of 2-D arrays (subsampled components); uint8 / int8 up to
    8 bits, uint16 / int16 up to 16, uint32 / int32 up to 31. reduce: resolutions left out;
    layers: quality layers decoded (0: all); tile: one tile's area; region: (x0, y0, x1, y1) of the reference grid at
    full resolution; components: which ones, in order; allow_partial: a cut stream gives what
    it holds (report["truncated"]) instead of raising; max_bytes: memory the image may take
    (0: no limit); backend: where the inverse DWT, inverse RCT/ICT and DC shift run, 'cpu',
    'cuda' or 'opencl', the same samples on each (Tier-1 runs on the CPU's threads, with 'cuda'
    or 'opencl' on the GPU); 'auto': 'cuda' where a CUDA GPU is there and the stream holds more than 2 MiB
    a thread, else 'cpu',
    device: the GPU's index; convert_colour: sYCC, e-sYCC and CMYK to RGB, a JP2 file's ICC
    profile or CIELab to sRGB, as opj_decompress converts them (off: the components as coded);
    keep_icc (with convert_colour): the ICC profile is not applied. report, a dict if given,
    receives truncated, jp2, enum_cs (the JP2 file's colour space), warnings, ms, origin and
    precision (per component), and a JP2 file's metadata: icc_profile (bytes or None),
    icc_applied (the samples were turned into sRGB through it), resolution ((x, y) grid points
    per metre of the decoded image, the capture one, else the display one, or None),
    display_resolution (the display one alone, likewise, or None), boxes ([(type, contents), ...]: its top-level
    boxes but the file's own four, type as a str like 'uuid'), and xmp and exif (the contents of
    their UUID boxes, or None). Raises j2kfront.Error naming the cause."""
    settings = dict(reduce=reduce, layers=layers, tile=-1 if tile is None else tile,
                    region=None if region is None else [int(v) for v in region],
                    components=None if components is None else [int(c) for c in components],
                    allow_partial=bool(allow_partial), threads=threads or 0, max_bytes=max_bytes,
                    backend=_choice(_BACKENDS, backend, "backend"), device=-1 if device is None else device,
                    convert_colour=bool(convert_colour), keep_icc=bool(keep_icc))
    planes, decoded = _j2kfront.decompress(_bytes_of(data, "decompress"), settings)
    if report is not None:
        boxes = [(t.to_bytes(4, "big").decode("latin-1"), contents) for t, contents in decoded["boxes"]]
        decoded["boxes"] = boxes
        uuid = {c[:16]: c[16:] for t, c in boxes if t == "uuid" and len(c) >= 16}
        decoded["xmp"] = uuid.get(XMP_UUID)
        exif = uuid.get(EXIF_UUID)
        decoded["exif"] = exif[6:] if exif is not None and exif.startswith(b"Exif\0\0") else exif
        report.clear()
        report.update(decoded)
    if len(planes) == 1:
        return planes[0]
    if all(p.shape == planes[0].shape and p.dtype == planes[0].dtype for p in planes):
        return np.stack(planes, axis=-1)
    return planes


def transform(image, *, wavelet: str = "5/3", levels: int = 5,
              tile_size: Optional[Tuple[int, int]] = None, tile_origin=(0, 0),
              image_origin=(0, 0), mct="auto", backend: str = "auto",
              device: Optional[int] = None, threads: Optional[int] = None,
              precision: Optional[int] = None, narrow_output: bool = False) -> Result:
    """The front stage of one image: tiling, DC level shift, RCT (5/3) or ICT (9/7) on
    components 0..2, and `levels` DWT levels, as OpenJPEG computes them.

    wavelet: '5/3' (reversible, int32 coefficients) or '9/7' (irreversible, float32);
    tile_size: (width, height), None for one tile; tile_origin, image_origin: (x, y) on the
    canvas; mct: 'auto' (on for 3 or more components), 'on' or 'off'; backend: 'auto', 'cpu',
    'cuda' or 'opencl'; device: GPU index (None: the first); threads: CPU threads (None: every
    core); precision: significant bits of the samples; narrow_output: int16 coefficients for
    the 5/3 where they fit (samples up to 12 bits, 11 with the RCT).

    For many images of one shape, make a Plan once and run it."""
    a = _image_array(image)
    plan = Plan(a.shape, a.dtype, precision=precision, image_origin=image_origin,
                wavelet=wavelet, levels=levels, tile_size=tile_size, tile_origin=tile_origin,
                mct=mct, backend=backend, device=device, threads=threads,
                narrow_output=narrow_output)
    return plan.run(a)


class Dwt:
    """The DWT alone, on 2-D arrays: int32 for the 5/3, float32 for the 9/7 (as OpenJPEG lays
    out a tile-component: LL top-left after the forward transform). backend, device, threads
    as for transform()."""

    def __init__(self, *, backend: str = "auto", device: Optional[int] = None,
                 threads: Optional[int] = None):
        self._dwt = _j2kfront.Dwt(_settings(backend=backend, device=device, threads=threads))

    @property
    def description(self) -> str:
        return self._dwt.description()

    def _run(self, direction: int, data, levels: int, origin, wavelet: Optional[str]) -> np.ndarray:
        if wavelet is None:
            a = np.asarray(data)
            if a.dtype not in (np.dtype(np.int32), np.dtype(np.float32)):
                raise TypeError(f"give wavelet='5/3' or '9/7' for {a.dtype} data "
                                "(int32 is taken as 5/3, float32 as 9/7)")
            wavelet = "5/3" if a.dtype == np.dtype(np.int32) else "9/7"
        source = np.asarray(data)
        if _choice(_WAVELETS, wavelet, "wavelet") == 0:
            if source.dtype.kind not in "biu":
                raise TypeError(f"the 5/3 takes integers, not {source.dtype}")
            if (not np.can_cast(source.dtype, np.int32) and source.size
                    and (source.min() < -2**31 or source.max() >= 2**31)):
                raise ValueError("the 5/3 takes values in the int32 range")
            dtype = np.int32
        else:
            if source.dtype.kind not in "biuf":
                raise TypeError(f"the 9/7 takes real numbers, not {source.dtype}")
            dtype = np.float32
        a = np.array(source, dtype=dtype, order="C", copy=True)  # the result; the input is kept
        if a.ndim != 2 or a.size == 0:
            raise ValueError(f"the DWT takes a non-empty 2-D array, not shape {a.shape}")
        x0, y0 = _pair(origin, "origin")
        self._dwt.run(direction, a, x0, y0, int(levels))
        return a

    def forward(self, data, levels: int = 5, *, origin=(0, 0), wavelet: Optional[str] = None) -> np.ndarray:
        """A new array holding the forward DWT of `data` (kept unchanged); origin: (x, y) of the
        tile-component on the canvas, which sets the parities."""
        return self._run(0, data, levels, origin, wavelet)

    def inverse(self, data, levels: int = 5, *, origin=(0, 0), wavelet: Optional[str] = None) -> np.ndarray:
        """A new array holding the inverse DWT of `data` (kept unchanged)."""
        return self._run(1, data, levels, origin, wavelet)


def dwt_forward(data, levels: int = 5, *, origin=(0, 0), wavelet: Optional[str] = None,
                backend: str = "auto", device: Optional[int] = None,
                threads: Optional[int] = None) -> np.ndarray:
    """Dwt(backend=..., ...).forward(data, levels, origin=..., wavelet=...)."""
    return Dwt(backend=backend, device=device, threads=threads).forward(
        data, levels, origin=origin, wavelet=wavelet)


def dwt_inverse(data, levels: int = 5, *, origin=(0, 0), wavelet: Optional[str] = None,
                backend: str = "auto", device: Optional[int] = None,
                threads: Optional[int] = None) -> np.ndarray:
    """Dwt(backend=..., ...).inverse(data, levels, origin=..., wavelet=...)."""
    return Dwt(backend=backend, device=device, threads=threads).inverse(
        data, levels, origin=origin, wavelet=wavelet)
