#!/usr/bin/env python3
"""Draws one collective's sweep on several interconnects: one column of panels per
interconnect (and rank layout), bus bandwidth on top and latency below, one line per
algorithm, so the winner and the crossovers can be compared across columns.

Usage: plot_interconnects.py OUT.png IN.csv [IN2.csv ...]
Latency is the median (p50_us) of every timed call; bandwidth is busbw from the mean,
as nccl-tests reports it. MPI baselines (mpi, mpi[...]) are drawn dashed.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def panel_name(row):
    hosts, per = int(row["nodes"]), int(row["ranks_per_node"])
    layout = f"{hosts} host{'s' if hosts > 1 else ''} x {per} rank{'s' if per > 1 else ''}"
    return f"{row['interconnect']}\n{layout}"


def load(paths):
    panels = defaultdict(lambda: defaultdict(list))  # panel -> algorithm -> [(bytes, p50, busbw)]
    collectives = set()
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                collectives.add(row["collective"])
                panels[panel_name(row)][row["algorithm"]].append(
                    (int(row["bytes"]), float(row["p50_us"]), float(row["busbw_gbps"])))
    return panels, collectives


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    panels, collectives = load(argv[2:])
    if not panels:
        sys.exit("plot_interconnects.py: no rows")
    names = list(panels)  # in the order the runs were merged
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names), 7.5), squeeze=False)
    algorithms = sorted({a for p in panels.values() for a in p})
    colours = {a: plt.cm.tab10(i % 10) for i, a in enumerate(algorithms)}
    for col, name in enumerate(names):
        bw, lat = axes[0][col], axes[1][col]
        for algo, points in sorted(panels[name].items()):
            points.sort()
            sizes = [p[0] for p in points]
            style = dict(color=colours[algo], linestyle="--" if algo.startswith("mpi") else "-", marker=".",
                         linewidth=1.2, label=algo)
            bw.plot(sizes, [p[2] for p in points], **style)
            lat.plot(sizes, [p[1] for p in points], **style)
        bw.set_title(name, fontsize=9)
        for ax in (bw, lat):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_xlabel("bytes")
        bw.set_ylabel("busbw (GB/s)")
        lat.set_ylabel("p50 latency (us)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    for row in axes:
        for ax in row:
            h, l = ax.get_legend_handles_labels()
            seen.update(zip(l, h))
    fig.legend(list(seen.values()), list(seen), loc="lower center", ncol=min(len(seen), 9), fontsize=8)
    fig.suptitle(f"collbench {', '.join(sorted(collectives))} across interconnects (one machine; see SUMMARY.md)")
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    fig.savefig(argv[1], dpi=110)


if __name__ == "__main__":
    main(sys.argv)
