#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Checks of the source tree that no compiler makes (the `tree.check` test):

1. every source, build and script file names its licence (SPDX-License-Identifier) in its
   first three lines;
2. every #include "..." of the library's layers points to its own layer or one below it
   (ARCHITECTURE: each folder uses only those below it), so that an include running back up
   fails CI rather than waiting for a reviewer.

    check-tree.py [ROOT]      exit 0: clean; 1: each problem printed as FILE:LINE: what;
                              77: not a git checkout (the test skips)
"""
import os
import re
import subprocess
import sys

LICENCE = "SPDX-License-Identifier: BSD-2-Clause"
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".c", ".cu", ".cuh", ".cl", ".py", ".sh", ".cmake", ".in")

# The library's layers, lowest first. A file in a layer may include headers of its own layer
# and of the layers listed before it, and the public headers (j2kfront/). Longest prefix wins.
LAYERS = [
    "common/",
    "tiling/",
    "device/",
    "transform/common/",
    "transform/",
    "pipeline/",
    "codec/params/",
    "codec/tier1/",
    "codec/quant/",
    "codec/rate/",
    "codec/tier2/",
    "codec/codestream/",
    "codec/",
    "api/",
]
# Backends of one stage: mirrors that never include each other, only what is below them.
BACKENDS = {
    "transform/": ["transform/cpu/", "transform/cuda/", "transform/opencl/"],
    "device/": ["device/cuda/", "device/opencl/"],
    "codec/tier1/": ["codec/tier1/gpu/cuda/", "codec/tier1/gpu/opencl/"],
}
# io/ (image files) stands beside the library on common/ alone; tools/, python/, tests/,
# bench/, conformance/ and examples/ sit on top and may include anything.
SIDE_LAYERS = {"io/": ["common/", "io/"]}


def git_files(root):
    """The checkout's files, or None outside a git checkout (a source tarball)."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [f for f in out.splitlines() if os.path.isfile(os.path.join(root, f))]


def check_licence(root, files):
    problems = []
    for f in files:
        name = os.path.basename(f)
        if not (f.endswith(SOURCE_SUFFIXES) or name == "CMakeLists.txt" or f == ".ci/run"):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            head = [fh.readline() for _ in range(3)]
        if not any(LICENCE in line for line in head):
            problems.append(f"{f}:1: no '{LICENCE}' in the first three lines")
    return problems


def layer_of(path):
    best = None
    for layer in LAYERS:
        if path.startswith(layer) and (best is None or len(layer) > len(best)):
            best = layer
    return best


def backend_of(path):
    for stage, backends in BACKENDS.items():
        for b in backends:
            if path.startswith(b):
                return stage, b
    return None, None


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def allowed(src, target):
    """None if src may include target, else why not."""
    if target.startswith("j2kfront/") or "/" not in target:
        return None  # public headers; generated headers beside the file
    for side, may in SIDE_LAYERS.items():
        if src.startswith(side):
            return None if any(target.startswith(m) for m in may) else f"{side} uses only {', '.join(may)}"
    src_layer = layer_of(src)
    if src_layer is None:
        return None  # tools, tests, bench, python, conformance, examples: on top of everything
    if any(target.startswith(side) for side in SIDE_LAYERS):
        return f"the library does not use {target.split('/')[0]}/ (image files are the tools' and tests' business)"
    tgt_layer = layer_of(target)
    if tgt_layer is None:
        return f"{target.split('/')[0]}/ is above the library's layers"
    if LAYERS.index(tgt_layer) > LAYERS.index(src_layer):
        return f"{src_layer} may not include {tgt_layer}, a layer above it"
    src_stage, src_backend = backend_of(src)
    tgt_stage, tgt_backend = backend_of(target)
    if tgt_backend and tgt_backend != src_backend:
        kind = tgt_backend.split("/")[-2]
        if src_backend is None:
            # The stage's own factory picks among its backends; nobody else names one.
            if not src.startswith(tgt_stage):
                return f"{tgt_backend} is for the {kind} backend's code and its stage's factory only"
        elif src_stage == tgt_stage:
            return f"backends are mirrors: {src_backend} may not include {tgt_backend}"
        elif tgt_stage != "device/" or not src_backend.endswith(kind + "/"):
            # What backends of two stages share (contexts, buffers, errors) is in device/.
            return f"{tgt_backend} is for the {kind} backend of its own stage only"
    return None


def check_layers(root, files):
    problems = []
    for f in files:
        if not f.endswith((".cpp", ".hpp", ".h", ".c", ".cu", ".cuh")):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                why = allowed(f, m.group(1))
                if why:
                    problems.append(f'{f}:{n}: #include "{m.group(1)}": {why}')
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    files = git_files(root)
    if files is None:
        print("check-tree: not a git checkout, nothing checked")
        return 77
    problems = check_licence(root, files) + check_layers(root, files)
    for p in problems:
        print(p)
    print(f"check-tree: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
