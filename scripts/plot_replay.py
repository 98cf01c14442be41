#!/usr/bin/env python3
"""Draws each replayed configuration's mean step as stacked bars: compute, and the
communication left exposed after it; a marker shows all communication (hidden or
not), so the part overlapped with backward is visible. One panel per workload.

Usage: plot_replay.py OUT.png IN.csv [IN2.csv ...]
Reads the summary rows (step = mean) of `collbench replay` CSV files.
"""
import csv
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    workloads = OrderedDict()
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["step"] != "mean":
                    continue
                label = row["algorithm"] + " / " + row["bucketing"]
                if row["sparse_strategy"] != "none":
                    label += " / " + row["sparse_strategy"]
                workloads.setdefault((row["workload"], row["ranks"]), []).append(
                    (label, float(row["compute_ms"]), float(row["exposed_ms"]), float(row["comm_ms"])))
    return workloads


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    workloads = load(sys.argv[2:])
    if not workloads:
        sys.exit("no summary rows (step = mean) in " + ", ".join(sys.argv[2:]))
    fig, axes = plt.subplots(len(workloads), 1, figsize=(12, 4.2 * len(workloads)), squeeze=False)
    for ax, ((name, ranks), rows) in zip(axes[:, 0], workloads.items()):
        x = range(len(rows))
        compute = [r[1] for r in rows]
        exposed = [r[2] for r in rows]
        ax.bar(x, compute, color="#4c72b0", label="compute (emulated)")
        ax.bar(x, exposed, bottom=compute, color="#dd8452", label="exposed communication")
        ax.scatter(x, [r[3] for r in rows], marker="_", s=400, color="black", zorder=3, label="all communication")
        ax.set_xticks(list(x), [r[0] for r in rows], fontsize=8, rotation=30, ha="right")
        ax.set_ylabel("ms per step")
        ax.set_yscale("log" if max(c + e for c, e in zip(compute, exposed)) > 20 * min(compute) else "linear")
        ax.set_title(f"{name}, {ranks} ranks: mean step")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
