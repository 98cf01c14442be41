#!/usr/bin/env python3
"""Summarises scripts/compare_osu.sh's runs.csv: per size, the median over repetitions
of OSU's Avg Latency, of collbench with --aggregate mean (the same definition) and of
collbench's default (max: each call's slowest rank), with ratios and the spread."""
import csv
import json
import statistics
import sys
from collections import defaultdict

TARGET = 0.05  # the issue's: within +-5% of OSU with the OSU-comparable aggregation


def main(outdir):
    runs = list(csv.DictReader(open(f"{outdir}/runs.csv")))
    meta = json.load(open(f"{outdir}/metadata.json"))
    by = defaultdict(list)
    for r in runs:
        by[(int(r["bytes"]), r["program"], r["aggregate"])].append(float(r["avg_us"]))
    sizes = sorted({k[0] for k in by})
    m = meta["collbench"]
    coll, program = meta.get("collective", "allreduce"), meta.get("osu_program", "osu_allreduce")
    call = {"allreduce": "MPI_Allreduce f32 sum", "alltoall": "MPI_Alltoall f32, bytes per peer"}.get(coll, coll)
    print(f"# collbench vs OSU {program}, {call}\n")
    print(f"{meta['ranks']} ranks, {m['mpi']['library']}, collbench {m['git_revision']}, "
          f"{meta['repetitions']} repetitions, {meta['order']}.")
    print(f"OSU: `{meta['osu']['command']}`. collbench: default call counts (`-w auto -n auto`).\n")
    print("Medians over repetitions (min-max in brackets), µs. `mean` is OSU's definition "
          "(mean over ranks of each rank's mean); `max` is collbench's default (each call's slowest rank).\n")
    print("| bytes | OSU avg | collbench mean | mean / OSU | within ±5% | collbench max (default) | max / OSU |")
    print("|---|---|---|---|---|---|---|")
    met = True
    for b in sizes:
        osu = by[(b, program, "mean")]
        mean = by[(b, "collbench", "mean")]
        mx = by[(b, "collbench", "max")]
        o, c, x = statistics.median(osu), statistics.median(mean), statistics.median(mx)
        ok = abs(c / o - 1) <= TARGET
        met &= ok
        span = lambda v: f"{min(v):.2f}-{max(v):.2f}"
        print(f"| {b} | {o:.2f} ({span(osu)}) | {c:.2f} ({span(mean)}) | {c / o:.3f} | {'yes' if ok else 'NO'} "
              f"| {x:.2f} ({span(mx)}) | {x / o:.3f} |")
    print(f"\nTarget (collbench mean within ±5% of OSU at every size): {'met' if met else 'NOT met'}.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/osu")
