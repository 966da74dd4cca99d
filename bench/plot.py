#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Plots of the benchmarks' CSV files (`j2kfront bench --csv FILE`), as PNG.

    python3 bench/plot.py [RESULTS_DIR] [PLOTS_DIR]

reads every RESULTS_DIR/*.csv (default bench/results/) and writes into PLOTS_DIR (default
bench/plots/):

  dwt-x-copy.png   the whole DWT (every level) of each DWT file against the copy yardstick of
                   the same run (x copy): a panel per wavelet and direction, grouped bars by image
                   size, one bar per file (<backend>-<machine>.csv)
  <file>.png       a DWT file: every row (CUDA's diagnostic rows too), x copy; a `bench
                   --pipeline` file (pipeline-<machine>.csv): t_link / t_pipeline per
                   configuration, one image at a time and as a sequence of frames (1 = as fast as
                   the link's own copies)
  compress-vs-peers.png    the `bench --compress --threads 1,2,...` files (a thread sweep, with
  decompress-vs-peers.png  peak memory; `bench --decompress` alike): time and peak memory
                   against threads, a line per tool (j2kfront with EBCOT and with HT code-blocks,
                   its GPU back stages, opj_*, grk_*), a panel per image and mode (lossless,
                   lossy), time above and peak MiB below

A file's table is known by its columns; the CPU bench's busy-machine and tile-size tables
(-busy.csv, -tiles.csv), the HT benchmark's, and compress and decompress files of one thread
count or without peak memory (made before it was measured) have no plot. The pictures depend
only on the CSV files (fixed size and resolution, no time stamp or software version in the
PNG), so that a committed plot changes only when its results do. Needs matplotlib (Debian:
python3-matplotlib).
"""
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.patches import Patch  # noqa: E402

# The rows that are the whole transform (every level, samples already in the transform's own
# type), by the names the benches print: cpu_bench.cpp, cuda_bench.cu, opencl_bench.cpp.
TRANSFORMS = [
    ("5/3 forward", r"5/3 forward|fwd 5/3 int32|5/3 \d+ levels forward"),
    ("5/3 inverse", r"5/3 inverse|inv 5/3 int32|5/3 \d+ levels inverse"),
    ("9/7 forward", r"9/7 forward|fwd 9/7 float|9/7 \d+ levels forward"),
    ("9/7 inverse", r"9/7 inverse|inv 9/7 float|9/7 \d+ levels inverse"),
]
DPI = 100
COLORS = plt.get_cmap("tab10").colors


def kind_of(columns):
    """Which benchmark's table a header is, or None."""
    if {"variant", "x_copy", "yardstick"} <= set(columns):
        return "dwt"
    if {"image_link_over_t", "frame_link_over_t"} <= set(columns):
        return "pipeline"
    if {"tool", "mode", "threads", "ms", "speed_vs_opj", "bytes_vs_opj", "peak_mib"} <= set(columns):
        return "compress"
    if {"tool", "mode", "threads", "ms", "speed_vs_opj", "same_as_opj", "peak_mib"} <= set(columns):
        return "decompress"
    return None


def read(path):
    """(kind, rows) of one CSV file; rows as dicts of strings."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return kind_of(reader.fieldnames or []), rows


def number(row, column, path):
    try:
        return float(row[column])
    except (KeyError, TypeError, ValueError):
        sys.exit(f"plot.py: {path}: column {column!r} is not a number in row {row}")


def short(text, n=70):
    return text if len(text) <= n else text[: n - 3] + "..."


def save(fig, path):
    """Writes the picture whole (a temporary file renamed into place), without metadata that
    would change from run to run."""
    tmp = path + ".tmp"
    fig.savefig(tmp, dpi=DPI, format="png", metadata={"Software": None})
    plt.close(fig)
    os.replace(tmp, path)
    print(f"wrote {path}")


def log_scale(values):
    """A log axis where the values span more than a factor of 20 (the CPU and PoCL against a GPU
    do), a linear one from 0 otherwise: easier to read where they are close."""
    values = [v for v in values if v > 0]
    return bool(values) and max(values) / min(values) > 20


def size_label(n):
    return f"{n}\u00b2"


def grouped_bars(ax, groups, series, value):
    """Bars grouped by `groups` (x axis), one bar per series; value(series, group) or None."""
    width = 0.8 / max(1, len(series))
    for i, s in enumerate(series):
        xs, ys = [], []
        for g, group in enumerate(groups):
            v = value(s, group)
            if v is not None:
                xs.append(g - 0.4 + width * (i + 0.5))
                ys.append(v)
        bars = ax.bar(xs, ys, width, color=COLORS[i % len(COLORS)], label=s)
        ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=1)


def plot_dwt_overview(files, out_dir):
    """The whole DWT of every file against its copy yardstick: a panel per wavelet and direction."""
    names = sorted(files)
    by = {}  # (file, transform, size) -> x copy
    for name in names:
        path, rows = files[name]
        for r in rows:
            if r["yardstick"] == "1":
                continue
            for transform, pattern in TRANSFORMS:
                if re.fullmatch(pattern, r["variant"]):
                    by[(name, transform, int(number(r, "size", path)))] = number(r, "x_copy", path)
    sizes = sorted({k[2] for k in by})
    if not sizes:
        print("no whole-transform rows in the DWT files: no dwt-x-copy.png")
        return
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5), sharey=True)
    for ax, (transform, _) in zip(axes.flat, TRANSFORMS):
        grouped_bars(ax, sizes, names, lambda s, n: by.get((s, transform, n)))
        ax.axhline(1, color="black", linewidth=0.8, linestyle="--")
        ax.set_title(transform)
        ax.set_xticks(range(len(sizes)), [size_label(n) for n in sizes])
        if log_scale(by.values()):
            ax.set_yscale("log")
        ax.grid(axis="y", which="both", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("DWT time / copy time (x copy)")
    for ax in axes[1, :]:
        ax.set_xlabel("image size (samples, int32 or float32)")
    # One entry per file, with its device, whether or not the first panel has its bars.
    handles = [Patch(color=COLORS[i % len(COLORS)], label=f"{n}: {short(files[n][1][0]['device'])}")
               for i, n in enumerate(names)]
    fig.legend(handles=handles, loc="lower center", ncol=1, fontsize=8)
    fig.suptitle("Whole DWT against a copy of the same image in the same run (dashed: the copy; lower is better)")
    fig.tight_layout(rect=(0, 0.04 + 0.025 * len(names), 1, 1))
    save(fig, os.path.join(out_dir, "dwt-x-copy.png"))


def plot_dwt_file(name, path, rows, out_dir):
    """Every row of one DWT file, x copy, grouped by variant, a bar per size."""
    rows = [r for r in rows if r["yardstick"] != "1"]
    if not rows:
        return
    variants = list(dict.fromkeys(r["variant"] for r in rows))  # in the bench's order
    sizes = sorted({int(number(r, "size", path)) for r in rows})
    by = {(r["variant"], int(number(r, "size", path))): number(r, "x_copy", path) for r in rows}
    fig, ax = plt.subplots(figsize=(12, max(4, 0.32 * len(variants) * max(1, len(sizes)) ** 0.5 + 2)))
    height = 0.8 / len(sizes)
    for i, n in enumerate(sizes):
        ys, xs = [], []
        for v, variant in enumerate(variants):
            if (variant, n) in by:
                ys.append(v - 0.4 + height * (i + 0.5))
                xs.append(by[(variant, n)])
        bars = ax.barh(ys, xs, height, color=COLORS[i % len(COLORS)], label=size_label(n))
        ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
    ax.axvline(1, color="black", linewidth=0.8, linestyle="--")
    ax.set_yticks(range(len(variants)), variants, fontsize=8)
    ax.invert_yaxis()
    if log_scale(by.values()):
        ax.set_xscale("log")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.set_xlabel("time / copy time of the same run (x copy; dashed: the copy)")
    r0 = rows[0]
    ax.set_title(f"{name}: {short(r0['device'], 90)}\n{r0['levels']} levels, median of {r0['repeats']} runs",
                 fontsize=10)
    ax.legend(title="image size", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars
    fig.tight_layout()
    save(fig, os.path.join(out_dir, f"{name}.png"))


def plot_pipeline(name, path, rows, out_dir):
    """t_link / t_pipeline per configuration: a panel per image size and input."""
    panels = list(dict.fromkeys((int(number(r, "size", path)), r["input"]) for r in rows))
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 9), squeeze=False)
    for ax, (n, image) in zip(axes[0], panels):
        these = [r for r in rows if int(number(r, "size", path)) == n and r["input"] == image]
        labels = [f"{'untiled' if r['tile'] == '0' else r['tile'] + chr(178)} {r['output']} {r['memory']}"
                  for r in these]
        largest = 1.0
        for i, (column, what) in enumerate([("image_link_over_t", "one image (plan.run)"),
                                            ("frame_link_over_t", f"frames, {these[0]['in_flight']} in flight")]):
            ys = [k - 0.2 + 0.4 * i for k in range(len(these))]
            xs = [number(r, column, path) for r in these]
            largest = max([largest] + xs)
            bars = ax.barh(ys, xs, 0.4, color=COLORS[i], label=what)
            ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=2)
        ax.set_xlim(0, largest * 1.1)  # room for the labels
        ax.axvline(1, color="black", linewidth=0.8, linestyle="--")
        ax.set_yticks(range(len(these)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("t_link / t_pipeline (1 = the link's own copies)")
        ax.set_title(f"{size_label(n)} {image}, link {number(these[0], 'link_ms', path):.2f} ms", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8)
    r0 = rows[0]
    fig.suptitle(f"{name}: front stage host to host, {r0['levels']} levels, on {short(r0['device'], 80)}")
    fig.tight_layout(rect=(0, 0.03, 1, 1))  # the legend below
    save(fig, os.path.join(out_dir, f"{name}.png"))


PEER_MODES = {"lossless": "lossless", "r20": "lossy (-I -r 20)"}
LINE_STYLES = ["-", "--", ":", "-."]


def tool_label(tool):
    """The tool as the legend says it: ours with EBCOT code-blocks is plain "j2kfront" in the CSV."""
    return "j2kfront EBCOT" if tool == "j2kfront" else tool


def plot_peers(kind, files, out_dir):
    """Time and peak memory against threads: a column of panels per image and mode, a line per
    tool (and file, where there are several), time above and peak MiB below."""
    names = sorted(files)
    panels, tools = {}, {}  # in the files' order: (image, mode); tool names
    points = {}  # (file, image, mode, tool) -> [(threads, ms, peak_mib)]
    for name in names:
        path, rows = files[name]
        for r in rows:
            if r["ms"] in ("", "nan"):  # untimed rows: "j2kfront at opj's size"
                continue
            key = (r["image"], r["mode"])
            panels.setdefault(key, None)
            tools.setdefault(r["tool"], None)
            points.setdefault((name, r["image"], r["mode"], r["tool"]), []).append(
                (int(number(r, "threads", path)), number(r, "ms", path), number(r, "peak_mib", path)))
    panels, tools = list(panels), list(tools)
    threads = sorted({t for values in points.values() for t, _, _ in values})
    fig, axes = plt.subplots(2, len(panels), figsize=(5 * len(panels) + 1, 8.5), squeeze=False)
    for column, (image, mode) in enumerate(panels):
        for row, (what, label) in enumerate([(1, "time (ms, process start to exit)"), (2, "peak resident memory (MiB)")]):
            ax = axes[row][column]
            values = []
            for f, name in enumerate(names):
                for i, tool in enumerate(tools):
                    p = sorted(points.get((name, image, mode, tool), []))
                    if not p:
                        continue
                    ys = [q[what] for q in p]
                    values += ys
                    ax.plot([q[0] for q in p], ys, marker="o", markersize=4, color=COLORS[i % len(COLORS)],
                            linestyle=LINE_STYLES[f % len(LINE_STYLES)],
                            label=tool_label(tool) + (f" ({name})" if len(names) > 1 else ""))
            ax.set_xscale("log", base=2)
            ax.set_xticks(threads, [str(t) for t in threads])
            ax.minorticks_off()
            if what == 1 and log_scale(values):
                ax.set_yscale("log")
            else:
                ax.set_ylim(0, max(values + [1]) * 1.08)
            ax.grid(which="both", alpha=0.3)
            ax.set_ylabel(label)
            if row == 0:
                ax.set_title(f"{image}, {PEER_MODES.get(mode, mode)}", fontsize=10)
            else:
                ax.set_xlabel("threads (each tool's own option)")
    handles, labels = {}, []
    for ax in axes.flat:  # every line once, whichever panel has it
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in handles:
                handles[l] = h
                labels.append(l)
    fig.legend([handles[l] for l in labels], labels, loc="lower center", ncol=min(4, len(labels)), fontsize=8)
    peers = "opj_compress and grk_compress" if kind == "compress" else "opj_decompress and grk_decompress"
    fig.suptitle(f"j2kfront {kind} against {peers}, file to file, by threads (lower is better): "
                 + ", ".join(f"{n}.csv" for n in names), fontsize=10)
    rows_of_legend = (len(labels) + 3) // 4
    fig.tight_layout(rect=(0, 0.02 + 0.03 * rows_of_legend, 1, 1))
    save(fig, os.path.join(out_dir, f"{kind}-vs-peers.png"))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    if len(argv) > 3 or any(a in ("-h", "--help") for a in argv[1:]):
        print(__doc__.strip())
        return 0 if len(argv) <= 3 else 2
    results = argv[1] if len(argv) > 1 else os.path.join(here, "results")
    plots = argv[2] if len(argv) > 2 else os.path.join(here, "plots")
    if not os.path.isdir(results):
        print(f"plot.py: {results}: no such directory", file=sys.stderr)
        return 1
    os.makedirs(plots, exist_ok=True)
    matplotlib.rcdefaults()  # not the user's matplotlibrc: the same pictures everywhere
    dwt, peers, written = {}, {"compress": {}, "decompress": {}}, 0
    for entry in sorted(os.listdir(results)):
        if not entry.endswith(".csv"):
            continue
        path = os.path.join(results, entry)
        name = entry[: -len(".csv")]
        kind, rows = read(path)
        if kind == "dwt":
            dwt[name] = (path, rows)
            plot_dwt_file(name, path, rows, plots)
            written += 1
        elif kind == "pipeline":
            plot_pipeline(name, path, rows, plots)
            written += 1
        elif kind in peers and len({r["threads"] for r in rows}) > 1:
            peers[kind][name] = (path, rows)
        elif kind in peers:
            print(f"{path}: one thread count: no plot (a sweep is `bench --{kind} --threads 1,2,4,...`)")
        else:
            print(f"{path}: no plot for this table")
    if dwt:
        plot_dwt_overview(dwt, plots)
    for kind, files in peers.items():
        if files:
            plot_peers(kind, files, plots)
            written += 1
    if not written:
        print(f"plot.py: no DWT, pipeline or thread-sweep CSV file in {results}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
