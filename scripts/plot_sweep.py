#!/usr/bin/env python3
"""Draws bus bandwidth and latency against message size, one line per algorithm and
one row of panels per collective, from collbench CSV files.

Usage: plot_sweep.py OUT.png IN.csv [IN2.csv ...] [--title TEXT]
Latency is the median (p50_us) of every timed call; bandwidth is busbw from the mean,
as nccl-tests reports it. MPI baselines (mpi, mpi[...]) are drawn dashed.
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    data = defaultdict(lambda: defaultdict(list))  # collective -> algorithm -> [(bytes, p50, busbw)]
    ranks = set()
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                data[row["collective"]][row["algorithm"]].append(
                    (int(row["bytes"]), float(row["p50_us"]), float(row["busbw_gbps"])))
                ranks.add(row["ranks"])
    return data, ranks


def size_label(b):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= scale:
            return f"{b // scale}{unit}"
    return f"{b}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    data, ranks = load(a.inputs)
    if not data:
        raise SystemExit("plot_sweep.py: no rows in the input")
    order = ["allreduce", "broadcast", "reduce", "gather", "allgather", "reduce_scatter"]
    colls = [c for c in order if c in data] + sorted(c for c in data if c not in order)
    fig, axes = plt.subplots(len(colls), 2, figsize=(13, 3.6 * len(colls)), squeeze=False)
    for row, coll in enumerate(colls):
        lat, bw = axes[row]
        # tab20: up to 20 lines per panel without two sharing a colour (the default has 10)
        colors = plt.get_cmap("tab20").colors
        for i, (alg, points) in enumerate(sorted(data[coll].items())):
            points.sort()
            x = [p[0] for p in points if p[0] > 0]
            style = "--" if alg.startswith("mpi") else "-"
            c = colors[i % len(colors)]
            lat.plot(x, [p[1] for p in points if p[0] > 0], style, marker=".", label=alg, color=c)
            bw.plot(x, [p[2] for p in points if p[0] > 0], style, marker=".", label=alg, color=c)
        sizes = [p[0] for points in data[coll].values() for p in points if p[0] > 0]
        for ax, ylabel in ((lat, "latency p50 (µs)"), (bw, "busbw (GB/s)")):
            ax.set_xscale("log", base=2)
            ax.set_xlim(min(sizes), max(sizes))
            ax.set_xlabel("bytes")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{coll}: {ylabel.split(' ')[0]}")
            ax.grid(True, which="major", alpha=0.3)
            ticks = [t for t in ax.get_xticks() if min(sizes) <= t <= max(sizes)]
            ax.set_xticks(ticks[::2])
            ax.set_xticklabels([size_label(int(t)) for t in ticks[::2]])
        lat.set_yscale("log")
        bw.legend(fontsize=7, loc="upper left", ncol=2)
    title = a.title or f"collbench sweep, {', '.join(sorted(ranks))} ranks"
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(a.out, dpi=80)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
