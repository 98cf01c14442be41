#!/usr/bin/env python3
"""SUMMARY.md of scripts/measure_core_placement.sh: launches whose two CPUs shared a cache
(cache-line handoff under SHARED_NS before and after) against those whose CPUs did not
(over APART_NS both times); launches that moved between the two in between are counted
apart. Usage: summarize_core_placement.py OUT LAUNCHES"""
import csv
import statistics
import sys

from summary_text import APART_NS, SHARED_NS, cpu_placement, handoff

ALGORITHMS = ("ring", "recursive_doubling", "tree")
SIZES = (262144, 4194304)


def size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def spread(values, fmt="{:.0f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})" \
        if values else "–"


def main(out, launches):
    raw = f"{out}/raw"
    groups = {"shared a cache": [], "did not": [], "moved during the launch": []}
    for i in range(1, launches + 1):
        before, after = handoff(f"{raw}/launch-{i}-before.txt"), handoff(f"{raw}/launch-{i}-after.txt")
        p50 = {(r["algorithm"], int(float(r["bytes"]))): float(r["p50_us"]) for r in csv.DictReader(open(f"{raw}/launch-{i}.csv"))}
        groups[cpu_placement(before, after)].append(
            {"cpus": [before, after], "p50": p50, "handoff": (before["handoff_ns"], after["handoff_ns"])})
    lines = ["# Whether the two CPUs share a cache: shared memory's two modes", "",
             f"{launches} launches on one host (raw/machine.txt), each between two measurements of CPUs 0 and 1 "
             "(collbench-core-handoff): the one-way time of a cache line handed back and forth, and the f32 sum "
             "stored over a buffer the other CPU has just read (*rewrite*) against one nobody read (*plain*), "
             "medians over rounds. A launch's CPUs *shared a cache* where both handoffs took under "
             f"{SHARED_NS} ns, *did not* where both took over {APART_NS} ns. Between them: allreduce on 2 ranks "
             "over UCX shared memory, one round, p50 per algorithm and size (raw/launch-N.csv). Median (range) "
             "over the launches of each group.", "",
             "| CPUs | launches | handoff ns | rewrite / plain 256 KiB | rewrite / plain 2 MiB | "
             + " | ".join(f"{a} {size(s)} µs" for s in SIZES for a in ALGORITHMS)
             + " | ring / recursive doubling 4 MiB |",
             "|---|---:|---:|---:|---:|" + "---:|" * (len(SIZES) * len(ALGORITHMS)) + "---:|"]
    for name, runs in groups.items():
        ratio = {b: [c[f"rewrite_{b}_us"] / c[f"plain_{b}_us"] for r in runs for c in r["cpus"]] for b in (262144, 2097152)}
        cells = [spread([r["p50"][(a, s)] for r in runs if (a, s) in r["p50"]]) for s in SIZES for a in ALGORITHMS]
        ring_rd = [r["p50"][("ring", 4194304)] / r["p50"][("recursive_doubling", 4194304)] for r in runs
                   if ("ring", 4194304) in r["p50"] and ("recursive_doubling", 4194304) in r["p50"]]
        lines.append(f"| {name} | {len(runs)} | {spread([h for r in runs for h in r['handoff']])} | "
                     f"{spread(ratio[262144], '{:.2f}')} | {spread(ratio[2097152], '{:.2f}')} | "
                     + " | ".join(cells) + f" | {spread(ring_rd, '{:.2f}')} |")
    lines += ["", "Recursive doubling reduces into a buffer it never sends; ring and tree reduce into the block "
              "they send next, which the peer's core read from this rank's memory in the call before "
              "(shared memory's single copy by the receiver): each store takes its line back from the reader's "
              "cache first, dearer where the two CPUs share none. The model prices that as the host link's "
              "rewrite cost (p2p -t rewrite)."]
    open(f"{out}/SUMMARY.md", "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
