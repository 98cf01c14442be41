#!/usr/bin/env python3
"""SUMMARY.md of measure_exchange_modes.sh: OUT "LAYOUTS" COMMIT."""
import glob
import json
import math
import os
import statistics
import sys


def rows(path):
    return json.load(open(path))["rows"]


def by_round(out, layout, kind):
    return [rows(p) for p in sorted(glob.glob(os.path.join(out, "raw", f"{layout}-r*-{kind}.json")))]


def main():
    out, layouts, commit = sys.argv[1], sys.argv[2].split(), sys.argv[3]
    lines = [
        "# Exchanges on emulated hosts: the median the model charges, the mean a collective pays",
        "",
        f"`scripts/measure_exchange_modes.sh` at collbench {commit}; machine in machine.txt. Per layout and",
        "size, p2p's exchange between ranks 0 and 1 (both send and receive one message at once, the",
        "probe `model fit` fits the `exchange` cost to, by its medians) and recursive doubling allreduce",
        "on every rank (log2 n steps, each a whole-vector exchange, all pairs at once); each figure",
        "the median over rounds, in ms. *RD / (steps × p50)*: what the model's exchange cost misses;",
        "*RD / (steps × mean)*: the same with the exchange's mean.",
        "",
        "| layout | bytes | ping-pong p50 | exchange min | p50 | mean | max | RD p50 | RD / (steps × p50) | RD / (steps × mean) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for layout in layouts:
        p2p, coll = by_round(out, layout, "p2p"), by_round(out, layout, "allreduce")
        if not p2p or not coll:
            lines.append(f"| {layout} | no data | | | | | | | | |")
            continue
        sizes = sorted({r["bytes"] for r in coll[0]})
        for size in sizes:
            def stat(runs, test, key):
                vals = [r[key] for rs in runs for r in rs
                        if r.get("kind") == "measured" and r.get("test") == test and r["bytes"] == size]
                return statistics.median(vals) / 1000 if vals else math.nan
            rd = [r for rs in coll for r in rs if r["bytes"] == size and r["algorithm"] == "recursive_doubling"]
            steps = math.log2(int(rd[0]["ranks"]))
            rd_p50 = statistics.median(r["p50_us"] for r in rd) / 1000
            ex = {k: stat(p2p, "exchange", k) for k in ("min_us", "p50_us", "avg_us", "max_us")}
            lines.append(
                f"| {layout} | {size} | {stat(p2p, 'latency', 'p50_us'):.2f} | {ex['min_us']:.2f} | {ex['p50_us']:.2f} | "
                f"{ex['avg_us']:.2f} | {ex['max_us']:.2f} | {rd_p50:.2f} | {rd_p50 / (steps * ex['p50_us']):.2f} | "
                f"{rd_p50 / (steps * ex['avg_us']):.2f} |")
    lines.append("")
    open(os.path.join(out, "SUMMARY.md"), "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
